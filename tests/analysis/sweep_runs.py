"""Write a lab sweep's runs as recording folders, one run each, as a request's single games
come back from the lab (analysis.draws ``read_sweep`` reads both)."""
from __future__ import annotations

import json
from pathlib import Path

from captures.events import write_events


def run_folders(sweep: Path, into: Path, runs: int) -> list[str]:
    """Write the first ``runs`` runs of the lab sweep folder ``sweep`` (its ``sweep.jsonl``)
    as folders ``k000``, ``k001``... (by the run's ``offset_frames``) under ``into``, each
    with its ``events.jsonl``; return their paths."""
    folders = []
    for line in (sweep / "sweep.jsonl").read_text().splitlines()[:runs]:
        run = json.loads(line)
        folder = into / f"k{run['offset_frames']:03d}"
        folder.mkdir()
        with open(folder / "events.jsonl", "w", encoding="utf-8") as f:
            write_events(run["events"], f)
        folders.append(str(folder))
    return folders
