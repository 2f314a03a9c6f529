"""Fixtures of the analysis tests: reference captures and their decoded events (cached)."""
from __future__ import annotations

import functools

import pytest

from tests.analysis.capload import load, truth


@functools.lru_cache(maxsize=None)
def decoded(name: str, kind: str = "edges") -> tuple[dict, ...]:
    """Return the decoded events of reference capture ``name`` (edges or sr), cached."""
    from analysis.decode import decode
    return tuple(decode(load(name, kind)))


@pytest.fixture(scope="session")
def tower_test():
    return load("tower_test")


@pytest.fixture(scope="session")
def tower_test_events():
    return list(decoded("tower_test"))


@pytest.fixture(scope="session")
def tower_test_truth():
    return truth("tower_test")
