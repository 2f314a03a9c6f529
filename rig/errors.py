"""Name the ways the rig fails; every message is one line that says what happened and the fix."""
from __future__ import annotations

__all__ = ["RigError", "LinkError", "LinkLostError", "FirmwareError", "PortBusyError",
           "UsbError", "UsbPermissionError", "TowerUnknownError", "BuildError", "ClockFitError",
           "Interrupted"]


class RigError(ValueError):
    """A rig problem the user can act on (the CLI prints the first line and exits 2)."""


class LinkError(RigError):
    """The serial link to the button box failed (no reply, NAK, garbled beyond retries)."""


class LinkLostError(LinkError):
    """The button box went away mid-session (unplugged, pty closed)."""


class FirmwareError(RigError):
    """The button box or analyser runs no firmware, or the wrong version."""


class PortBusyError(RigError):
    """Another program holds the serial port."""


class UsbError(RigError):
    """The USB analyser failed (not found, unplugged, overrun beyond recovery)."""


class UsbPermissionError(UsbError):
    """The USB analyser is there but this user may not open it."""


class TowerUnknownError(RigError):
    """The tower stopped answering; its state is UNKNOWN until it is power-cycled."""


class ClockFitError(RigError):
    """A recording's oscillator cannot be fitted (too little shared with the target's run)."""


class BuildError(RigError):
    """Building the firmware or the simulator harness failed (missing tool or compile error)."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a recording whose partial data was kept: the message says where (the
    CLI prints it and exits 130)."""
