"""Rooms a newcomer can read: no module of the packages over 900 lines, no class over 40
methods, no function over 150 lines (read from the source with ``ast``).

``PENDING`` names what is still bigger while it is being split; an entry that fits again must
leave the list, so it only shrinks.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("captures", "emulator", "analysis", "cleanroom", "rig", "towerlab")
MAX_LINES, MAX_METHODS, MAX_FUNCTION_LINES = 900, 40, 150
PENDING: set[str] = set()


@functools.lru_cache(maxsize=None)
def oversized() -> frozenset[str]:
    """Return ``file``, ``file:Class`` and ``file:function`` for each that is too big."""
    found = set()
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            text = path.read_text(encoding="utf-8")
            if text.count("\n") > MAX_LINES:
                found.add(rel)
            for node in ast.walk(ast.parse(text, rel)):
                if isinstance(node, ast.ClassDef):
                    methods = [b for b in node.body
                               if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))]
                    if len(methods) > MAX_METHODS:
                        found.add(f"{rel}:{node.name}")
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES:
                        found.add(f"{rel}:{node.name}")
    return frozenset(found)


def test_no_module_class_or_function_is_too_big_to_read():
    assert oversized() - PENDING == set()


def test_what_is_pending_is_still_too_big():
    assert PENDING - oversized() == set(), "fits again: remove it from PENDING"
