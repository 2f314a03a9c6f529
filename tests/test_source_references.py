"""Comments and documents cite the repository (docs/...), never notes outside it or issue numbers.

The facts a comment relies on live in docs/ in the project's own words with their primary
sources (docs/tms1400.md, docs/dark-tower-wiring.md, docs/labyrinth-wiring.md,
docs/mame-oracle.md, docs/k-sampling.md). tests/data holds material copied in from the recorded
captures; of it only the notes (``*.md``) are scanned, and their relative links must resolve
inside the repository.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = {".py", ".c", ".h", ".lua", ".md", ".asm", ".txt", ".cfg", ".toml", ".sh", ".ini"}
NAMES = {"Makefile", "run"}
SKIP_DIRS = {".git", ".venv", "build", "dist", ".hypothesis", "__pycache__", ".pytest_cache",
             "out", "node_modules"}
NOT_SCANNED = (ROOT / "tests" / "data",)

# Built from pieces so that this file does not match itself.
OUTSIDE = re.compile("|".join([
    r"\.\./" + "shared",                       # the sessions' shared notes beside the repo
    "/work/" + "shared",
    "shared/" + "reference",
    "tms1400-" + "facts",                      # the notes' file names
    r"(?<![\w/.-])" + "mame-" + r"oracle\.md",  # ours is docs/mame-oracle.md
    r"(?<![\w/.-])" + "capture-" + r"formats\.md",  # ours is docs/capture-formats.md
    r"(?<![\w/.-])" + "rtdt-" + r"protocol\.md",  # ours is docs/rtdt-protocol.md
    r"\bfacts " + "§",                          # the notes' short form
    r"\bfacts " + "file",
    r"(?<![\w/.-])facts" + r"\.md",
    r"\.\./\.\./" + "reference",                 # the notes' folder, seen from a capture
]))
ISSUE = re.compile(r"\b(?:issue|task)" + r" ?#?\d", re.IGNORECASE)


def source_files() -> list[Path]:
    """Return every text source of the repository the references rule applies to."""
    out = []
    for top, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")
                   and Path(top, d) not in NOT_SCANNED]
        out += [Path(top, f) for f in files if Path(f).suffix in SUFFIXES or f in NAMES]
    return sorted(out)


def copied_notes() -> list[Path]:
    """Return the notes copied in with the recorded captures (tests/data/**/*.md)."""
    return sorted((ROOT / "tests" / "data").rglob("*.md"))


def offending(pattern: re.Pattern, paths: list[Path] | None = None) -> list[str]:
    """Return ``path:line: text`` for each line matching ``pattern``, also across a line break
    after a hyphen (a name wrapped in a comment)."""
    found = []
    for path in source_files() if paths is None else paths:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for n, line in enumerate(lines, 1):
            wrapped = (line.rstrip() + lines[n].lstrip(" \t#;*\"'")
                       if line.rstrip().endswith("-") and n < len(lines) else "")
            if pattern.search(line) or pattern.search(wrapped):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    return found


def test_the_scan_covers_the_packages_docs_and_tests():
    names = {str(p.relative_to(ROOT)) for p in source_files()}
    assert {"emulator/core.py", "emulator/_fastcore.c", "emulator/mame/trace.lua",
            "emulator/firmware/demo.asm", "docs/tms1400.md", "rig/README.md",
            "tests/conftest.py"} <= names
    assert not any(n.startswith("tests/data/") for n in names)


def test_no_comment_points_outside_the_repository():
    found = offending(OUTSIDE)
    assert not found, "cite docs/ instead of notes outside the repository:\n" + "\n".join(found)


def test_no_copied_capture_note_points_outside_the_repository():
    notes = copied_notes()
    assert len(notes) >= 35        # the captures' README, 4 capture and 31 corpus notes
    found = offending(OUTSIDE, notes)
    assert not found, "cite docs/ instead of notes outside the repository:\n" + "\n".join(found)


def test_every_relative_link_of_a_copied_capture_note_resolves_in_the_repository():
    link = re.compile(r"`((?:\.\./)+[\w/.-]+\.md)`")
    broken = []
    for note in copied_notes():
        for target in link.findall(note.read_text(encoding="utf-8")):
            path = (note.parent / target).resolve()
            if ROOT not in path.parents or not path.is_file():
                broken.append(f"{note.relative_to(ROOT)}: {target}")
    assert not broken, "links that leave the repository or lead nowhere:\n" + "\n".join(broken)


def test_no_comment_cites_an_issue_number():
    found = offending(ISSUE)
    assert not found, "say what and why instead of citing an issue:\n" + "\n".join(found)


def test_every_docs_file_a_comment_cites_exists():
    cited = re.compile(r"(?<![\w/.-])docs/([\w.-]+\.md)")   # not another repository's docs/
    missing = sorted({f"docs/{m}" for path in source_files()
                      for m in cited.findall(path.read_text(encoding="utf-8", errors="replace"))
                      if not (ROOT / "docs" / m).is_file()})
    assert not missing, f"cited but not in docs/: {', '.join(missing)}"
