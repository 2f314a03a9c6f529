"""Where the C kernel could not be built, "fast" means the reference core, said once."""
from __future__ import annotations

import io

import emulator.fastcore as fc
from emulator.chips import TMS1400
from emulator.core import Cpu


def test_without_the_kernel_fast_falls_back_to_the_reference_core_with_one_notice(monkeypatch):
    monkeypatch.setattr(fc, "FAST_AVAILABLE", False)
    monkeypatch.setattr(fc, "_notice_given", False)
    notice = io.StringIO()
    first = fc.make_cpu(TMS1400, bytes(4096), core="fast", notice=notice)
    second = fc.make_cpu(TMS1400, bytes(4096), core="fast", notice=notice)
    assert type(first) is Cpu and type(second) is Cpu
    lines = notice.getvalue().splitlines()
    assert len(lines) == 1 and "using the reference core" in lines[0]
