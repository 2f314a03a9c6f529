"""The chip's state as the debugger shows it and tests it, the same on both cores.

``read_state`` reads a core now; ``from_kernel`` turns a compiled-kernel state dict (or a
hit record, ``emulator.fastcore.hit_dict``) into the same form; ``RecordView`` reads a raw
kernel hit record by those names without building the dict. ``cpu_state``/``set_cpu_state``
are the register images a snapshot and the state file keep, one form on both cores
(``common_image`` reads an older file's). The call stack comes from the core
(``emulator.core.call_depth``, ``return_addresses``).

Keys of a state: a x y s (status) sl pa pb ca cb cl pc (the next instruction's) r o o_index
cycle n (instructions since ``origin``) depth ram (bytes) stack (return addresses, innermost
first) m (the nibble at X:Y) and, for a hit, kind where from value.
"""
from __future__ import annotations

from emulator.chips import Chip
from emulator.core import LFSR_NEXT, call_depth, return_addresses, state_image

__all__ = ["read_state", "from_kernel", "with_value", "RecordView", "cpu_state",
           "set_cpu_state", "common_image"]

_PREV_PC = {nxt: pc for pc, nxt in enumerate(LFSR_NEXT)}     # raw post-fetch pc -> pc


def read_state(cpu, chip: Chip, origin: int) -> dict:
    """Return the state of ``cpu`` before its next instruction (see the module docstring)."""
    if cpu.core == "fast":
        return from_kernel(chip, cpu.state(), origin)
    ram = cpu.ram
    m = ram[(cpu.x << 4 | cpu.y) & (len(ram) - 1)]
    return {"a": cpu.a, "x": cpu.x, "y": cpu.y, "s": cpu.status, "status": cpu.status,
            "sl": cpu.sl, "pa": cpu.pa, "pb": cpu.pb, "ca": cpu.ca, "cb": cpu.cb,
            "cl": cpu.cl, "pc": cpu.pc, "r": cpu.r, "o": cpu.o, "o_index": cpu.o_index,
            "cycle": cpu.cycle, "n": (cpu.cycle - origin) // 6,
            "depth": call_depth(chip, cpu.cl), "ram": bytes(ram),
            "stack": return_addresses(chip, cpu.cl, cpu.pb, cpu.stack),
            "m": m, "value": m, "where": 0}


def from_kernel(chip: Chip, st: dict, origin: int) -> dict:
    """Return a kernel state dict (or hit record) in :func:`read_state`'s form."""
    ram = bytes(st["ram"][: chip.ram_size])
    out = {k: st[k] for k in ("a", "x", "y", "sl", "pa", "pb", "ca", "cb", "cl", "r", "o",
                              "o_index", "cycle")}
    out.update(s=st["status"], status=st["status"], pc=_PREV_PC[st["pc"]],
               n=(st["cycle"] - origin) // 6, depth=call_depth(chip, st["cl"]), ram=ram,
               stack=return_addresses(chip, st["cl"], st["pb"],
                                      list(zip(st["sr"], st["ps"], st["cs"]))),
               m=ram[(st["x"] << 4 | st["y"]) & (chip.ram_size - 1)])
    if "kind" in st:
        out["kind"], out["where"], out["from"] = st["kind"], st["where"], st["from"]
    return with_value(out)


def with_value(hit: dict) -> dict:
    """Set ``value``: a RAM hit's nibble now, another hit's ``where``, else M."""
    kind = hit.get("kind")
    if kind in ("ram_read", "ram_write"):
        hit["value"] = hit["ram"][hit["where"]]
    elif kind in ("k", "r", "o"):
        hit["value"] = hit["where"]
    else:
        hit["value"] = hit["m"]
        hit.setdefault("where", 0)
    return hit


# Fields of a raw kernel hit record (emulator.fastcore.take_hit_records) by state name.
_REC = {"cycle": 0, "r": 1, "where": 2, "from": 3, "a": 5, "x": 6, "y": 7, "pa": 9,
        "pb": 10, "ca": 11, "cb": 12, "cl": 13, "s": 14, "status": 14, "sl": 15, "o": 16,
        "o_index": 17}
_REC_KIND = ("pc", "ram_read", "ram_write", "k", "r", "o")


class RecordView:
    """Read a raw kernel hit record by :func:`read_state` names without building the dict
    (conditions test tens of thousands of records a second at a hot breakpoint)."""

    __slots__ = ("rec", "_origin", "_chip", "_ram_mask")

    def __init__(self, chip: Chip, origin: int) -> None:
        self.rec: tuple = ()
        self._origin = origin
        self._chip = chip
        self._ram_mask = chip.ram_size - 1

    def __getitem__(self, key: str):
        rec = self.rec
        i = _REC.get(key)
        if i is not None:
            return rec[i]
        if key == "kind":
            return _REC_KIND[rec[4]]
        if key == "pc":
            return _PREV_PC[rec[8]]
        if key == "ram":
            return rec[28]
        if key == "m":
            return rec[28][(rec[6] << 4 | rec[7]) & self._ram_mask]
        if key == "n":
            return (rec[0] - self._origin) // 6
        if key == "depth":
            return call_depth(self._chip, rec[13])
        if key == "value":
            kind = rec[4]
            if kind in (1, 2):
                return rec[28][rec[2]]
            if kind >= 3:
                return rec[2]
            return rec[28][(rec[6] << 4 | rec[7]) & self._ram_mask]
        raise KeyError(key)


def cpu_state(cpu) -> dict:
    """Return the register image of ``cpu``, in the one form both cores read and write
    (``emulator.core.Cpu.state``), for :func:`set_cpu_state` on either core."""
    return cpu.state()


def set_cpu_state(cpu, st: dict) -> None:
    """Put ``cpu`` back to a register image from :func:`cpu_state` (of either core)."""
    if cpu.core == "fast":
        cpu.take_edges()
    cpu.set_state(st)


def common_image(st: dict, rom: bytes) -> dict:
    """Return a register image in :func:`cpu_state`'s form; ``st`` may also be the reference
    core's own image that older state files hold (``pc`` the next instruction's, ``stack``
    of ``(pc, page, chapter)``, top first)."""
    if "stack" not in st or "sr" in st:
        return st
    return state_image(st, st["stack"], st["ram"], rom)
