"""The development sessions the clean-room game does not explain yet, each with the open
question at its first difference (tests/cleanroom/test_corpus_conformance.py marks them as
expected failures; cleanroom/README.md, "Open questions", has the details)."""
from __future__ import annotations

OPEN: dict[str, str] = {}      # every development session conforms
