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


def test_a_turn_pause_before_a_stray_key_the_tower_took_is_measured_at_its_click():
    """The turn's pause moves the next loop's scans, so its first output is the next key's
    click: here a stray key's, which the replays take to be ignored (the likelier option)
    until the search reaches it.  Measured with the key ignored, the pause dated another
    press; the search measures it again with the key taken where the recording shows its
    click (cleanroom/tries.py, ``stray_tail``)."""
    from captures.script import parse_script
    from captures.tower import run_script
    from cleanroom.choosers import RandomChooser, ScriptedChooser
    from cleanroom.conform import resolve
    from cleanroom.tower import CleanroomTower

    script = parse_script("1 YES/BUY 0.2\n12.5 NO/END 0.2\n14.5 YES/BUY 0.2\n16.5 NO/END 0.2\n"
                          "18.5 YES/BUY 0.2\n24 MOVE 0.2\n28 NO/END 0.2\n31 HAGGLE 0.2\n"
                          "33 MOVE 0.2\n37 NO/END 0.2\n# run length: 42 s\n")
    for pause in (-450, -300, 678):
        outcomes = dict(stray_key=[True], move=["safe", "safe"], turn_think_cycles=[pause, 0])
        tw = CleanroomTower(chooser=ScriptedChooser(outcomes, RandomChooser(5)))
        events = run_script(tw, script)
        result = resolve(script, events)
        assert result.conforms, result.describe()
        found = [(d.name, d.value) for d in result.decisions
                 if d.name in ("turn_think_cycles", "stray_key")]
        assert found[:2] == [("turn_think_cycles", pause), ("stray_key", True)]


def test_a_stray_key_a_replay_ignored_but_the_recording_clicked_for_is_found_after_a_duration():
    from captures.script import parse_script
    from captures.tower import run_script
    from cleanroom import conform, tries
    from cleanroom.choosers import RandomChooser, ScriptedChooser
    from cleanroom.tower import CleanroomTower

    script = parse_script("1 YES/BUY 0.2\n12.5 NO/END 0.2\n14.5 YES/BUY 0.2\n16.5 NO/END 0.2\n"
                          "18.5 YES/BUY 0.2\n24 MOVE 0.2\n28 NO/END 0.2\n31 HAGGLE 0.2\n"
                          "# run length: 34 s\n")
    outcomes = dict(stray_key=[True], move=["safe"])
    events = run_script(CleanroomTower(chooser=ScriptedChooser(outcomes, RandomChooser(5))),
                        script)
    tol, end = conform._defaults(script, events, None, None, 1.0)
    replayer = conform.make_replayer(script, conform._Start(1.0), conform._take, False)
    try:
        search = conform._Search(script, events, tol, end, None, 1.0, replayer, False)
        _, calls = search.replay([], end)           # every decision its likeliest
        names = [d.name for d in calls]
        pause = max(i for i, n in enumerate(names) if n == "turn_think_cycles"
                    and calls[i].t < 31)
        assert calls[names.index("stray_key")].value is False
        assert tries.stray_tail(search, calls, pause, 31.1) == [True]
        assert tries.stray_tail(search, calls, pause, 30.9) == []    # beyond the difference
    finally:
        replayer.close()
