"""The clean-room game's rooms: rule sections over the stage, the documented names kept."""
from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest

import cleanroom.game as game
from cleanroom import rules, stage
from cleanroom.sections import turn

CLEANROOM = Path(__file__).resolve().parents[2] / "cleanroom"


def _imports(path: Path) -> set[str]:
    """Return the modules ``path`` imports, relative ones as written (``..stage``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_the_rule_sections_play_on_the_stage_not_on_the_game():
    sections = sorted((CLEANROOM / "sections").glob("*.py"))
    assert len(sections) > 10
    for path in sections:
        imported = _imports(path)
        assert "..game" not in imported and "cleanroom.game" not in imported, path.name
        if path.name != "__init__.py":
            assert "..stage" in imported, path.name


def test_the_stage_imports_no_rule_section():
    assert not [m for m in _imports(CLEANROOM / "stage.py") if "sections" in m]


def test_every_action_key_is_played_by_a_section():
    assert set(turn.ACTIONS) | {"REPEAT", "CLEAR"} == rules.ACTION_KEYS


def test_the_documented_names_import_from_cleanroom_game_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in game.__all__:
            assert getattr(game, name) is not None


@pytest.mark.parametrize("name, home", [("after_click", stage), ("lamp_after_motor", stage),
                                        ("cue_after_lamp", stage), ("KEYS", rules)])
def test_a_moved_name_still_answers_from_cleanroom_game_with_a_deprecation_warning(name, home):
    with pytest.warns(DeprecationWarning, match=f"{home.__name__}.{name}"):
        assert getattr(game, name) is getattr(home, name)


def test_a_name_that_never_was_there_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        game.no_such_name
