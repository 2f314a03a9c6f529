"""Subcommands of the chip area (registered by towerlab.cli)."""
from __future__ import annotations


def register(sub) -> None:
    """Add this area's subcommands to the ``towerlab`` parser."""
