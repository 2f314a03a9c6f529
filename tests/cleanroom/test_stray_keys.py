"""A key the waiting prompt does not take (YES/BUY at a turn's prompt, say): no recording has
one, so whether the tower ignores it or clicks and waits on is a decision (``stray_key``,
cleanroom/params.py) a recording settles."""
from __future__ import annotations

from cleanroom.play import settle

from .util import player, press, shown, tower


def _stray(tw, button="YES/BUY"):
    """Press ``button`` for 0.2 s at player 1's prompt; return (the texts displayed, the cues
    of the tones, clicks included) in the second after the press."""
    start = len(tw.events())
    tw.press(button)
    tw.advance(0.2)
    tw.release(button)
    tw.advance(1.0)
    events = tw.events()[start:]
    return ([e["text"] for e in events if e["type"] == "display"],
            [e.get("cue") for e in events if e["type"] == "tone"])


def test_a_stray_key_the_tower_ignores_makes_no_sound_and_the_prompt_flashes_on():
    tw = tower(1, 1, stray_key=[False])
    texts, tones = _stray(tw)
    assert tones == []
    assert set(texts) == {" 1", "  "}
    assert [name for _, name, _ in tw.game.log if name == "stray_key"] == ["stray_key"]


def test_a_stray_key_the_tower_takes_clicks_and_the_prompt_flashes_on():
    tw = tower(1, 1, stray_key=[True])
    texts, tones = _stray(tw)
    assert tones == ["click"]
    assert set(texts) == {" 1", "  "}


def test_after_a_stray_key_the_prompt_still_takes_its_own_keys():
    tw = tower(1, 1, stray_key=[True], move=["safe"])
    _stray(tw, "HAGGLE")
    obs = press(tw, "MOVE")
    assert shown(obs, "sound") == ["beep"]       # a safe move
    assert shown(obs, "display")[-1] == "-1"
    assert player(tw).turns == 1


def test_a_key_the_prompt_takes_asks_no_stray_decision():
    tw = tower(1, 1, move=["safe"])
    press(tw, "MOVE")
    settle(tw)
    assert "stray_key" not in {name for _, name, _ in tw.game.log}


def test_a_stray_key_taken_with_a_click_is_resolved_from_the_recording():
    """The resolver finds the click (or its absence) in the outputs."""
    from captures.script import parse_script
    from captures.tower import run_script
    from cleanroom.choosers import RandomChooser, ScriptedChooser
    from cleanroom.conform import resolve
    from cleanroom.tower import CleanroomTower

    script = parse_script("1 YES/BUY 0.2\n12.5 YES/BUY 0.2\n14.5 YES/BUY 0.2\n20 HAGGLE 0.2\n"
                          "22 YES/BUY 0.2\n24 MOVE 0.2\n# run length: 34 s\n")
    for truth in ([True, False], [False, True]):
        tw = CleanroomTower(chooser=ScriptedChooser(dict(stray_key=list(truth), move=["safe"]),
                                                    RandomChooser(5)))
        events = run_script(tw, script)
        clicks = [e for e in events if e.get("cue") == "click" and 19 < e["t"] < 23.9]
        assert len(clicks) == 1
        result = resolve(script, events)
        assert result.conforms, result.describe()
        found = [d.value for d in result.decisions if d.name == "stray_key"]
        assert found == truth
