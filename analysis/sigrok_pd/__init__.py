"""Folder of libsigrokdecode protocol decoders shipped with TowerLab (``darktower``).

Point libsigrokdecode at it so sigrok-cli and PulseView find the decoder::

    SIGROKDECODE_DIR=$(python -c 'import analysis.sigrok_pd as p; print(p.decoder_dir())') \\
        sigrok-cli -i capture.sr -P darktower

The decoder itself (``darktower/pd.py``) runs inside libsigrokdecode's embedded Python and
imports ``sigrokdecode``; it is not meant to be imported from TowerLab.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["decoder_dir"]


def decoder_dir() -> str:
    """Return the folder to put in SIGROKDECODE_DIR (it holds the ``darktower`` decoder)."""
    return str(Path(__file__).resolve().parent)
