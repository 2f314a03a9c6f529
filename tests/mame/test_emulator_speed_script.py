"""benchmarks/emulator_speed.py runs end to end (speed itself is not asserted: CI machines vary)."""
from __future__ import annotations

import pytest

from tests.benchscripts import load, run


@pytest.fixture(scope="module")
def bench():
    return load("emulator_speed")


def test_the_benchmark_prints_instructions_per_second_and_the_target(bench):
    status, out, _ = run(bench, "--seconds", "2", "--no-mame")
    assert status == 0
    assert "plain-Python core" in out and "M instr/s" in out and "x real time" in out
    assert "target: plain-Python core >= 30x real time" in out


@pytest.mark.mame
def test_the_benchmark_compares_with_mame(bench, mame_binary):
    status, out, _ = run(bench, "--seconds", "2", "--mame-seconds", "2")
    assert status == 0
    assert "MAME 0.251, its own average" in out and "x MAME" in out


def test_a_run_shorter_than_2_seconds_exits_2(bench):
    status, _, err = run(bench, "--seconds", "1", "--no-mame")
    assert status == 2
    assert err.startswith("emulator_speed: --seconds 1: must be a whole number >= 2")


def test_a_rom_of_the_wrong_size_exits_2_naming_the_file(bench, tmp_path):
    rom = tmp_path / "short.bin"
    rom.write_bytes(bytes(100))
    status, _, err = run(bench, "--rom", str(rom), "--no-mame")
    assert status == 2
    assert err.strip() == f"emulator_speed: {rom}: 100 bytes (expected 4096)"
