"""The packages' import graph, read from the source with ``ast``: no cycle, and no import up the
layers captures <- emulator/analysis/cleanroom <- rig <- towerlab (docs/ARCHITECTURE.md).

Every import counts, at module level or inside a function, absolute or relative: a lazy import
is still a dependency, and a cycle hidden in a function is still a cycle.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = {"captures": 0, "emulator": 1, "analysis": 1, "cleanroom": 1, "rig": 2, "towerlab": 3}
# Standalone by design: the sigrok protocol decoder runs inside libsigrokdecode.
STANDALONE = ("analysis/sigrok_pd",)


def module_files() -> dict[str, Path]:
    """Return module name -> file for every module of the layered packages."""
    mods = {}
    for pkg in LAYERS:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT)
            if any(rel.as_posix().startswith(s) for s in STANDALONE):
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            mods[".".join(parts)] = path
    return mods


def imports_of(path: Path, known: set[str], module: str = "") -> set[str]:
    """Return the known modules ``path`` (module ``module``) imports anywhere in its body,
    relative imports (``from .reel import CARDS``) read against its package."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                if node.level - 1 > len(parts):
                    raise ValueError(f"{path}:{node.lineno}: relative import beyond the top "
                                     f"package")
                parent = ".".join(parts[: len(parts) - (node.level - 1)])
                base = ".".join(p for p in (parent, base) if p)
            # "from emulator import romset" imports emulator.romset
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        found.update(n for n in names if n in known)
    return found


@functools.lru_cache(maxsize=None)
def import_graph() -> dict[str, frozenset[str]]:
    """Return module -> the modules it imports, for every module of the layered packages."""
    mods = module_files()
    known = set(mods)
    return {name: frozenset(imports_of(path, known, name) - {name})
            for name, path in mods.items()}


def find_cycle(graph: dict[str, frozenset[str]]) -> list[str] | None:
    """Return one import cycle as a path ``[a, b, ..., a]``, or None."""
    state: dict[str, int] = {}        # 1 = on the current path, 2 = done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def upward_imports(graph: dict[str, frozenset[str]]) -> list[str]:
    """Return ``a -> b`` for each import of a higher layer, or of a sibling package of the
    middle layer (emulator, analysis and cleanroom build on captures only)."""
    bad = []
    for mod, targets in sorted(graph.items()):
        pkg = mod.split(".")[0]
        for target in sorted(targets):
            other = target.split(".")[0]
            if LAYERS[other] > LAYERS[pkg] or (LAYERS[other] == LAYERS[pkg] and other != pkg):
                bad.append(f"{mod} -> {target}")
    return bad


def test_the_packages_import_graph_has_no_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_module_imports_a_higher_layer():
    assert upward_imports(import_graph()) == []


def test_the_graph_reads_lazy_imports_too():
    graph = import_graph()
    assert "captures.sigrok" in graph["captures.formats"]        # imported inside formats()
    assert "emulator.boards" in graph["rig.towers.emulated"]


def test_the_graph_reads_relative_imports_too(tmp_path):
    pkg = tmp_path / "cleanroom"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import game\n")
    (pkg / "game.py").write_text("from .reel import CARDS\nfrom .sub.deep import x\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "deep.py").write_text("from ..reel import CARDS\nfrom .. import game\n")
    known = {"cleanroom", "cleanroom.game", "cleanroom.reel", "cleanroom.sub",
             "cleanroom.sub.deep"}
    assert imports_of(pkg / "__init__.py", known, "cleanroom") == {"cleanroom",
                                                                   "cleanroom.game"}
    assert imports_of(pkg / "game.py", known, "cleanroom.game") == {
        "cleanroom.reel", "cleanroom.sub.deep"}
    assert imports_of(pkg / "sub" / "deep.py", known, "cleanroom.sub.deep") == {
        "cleanroom", "cleanroom.reel", "cleanroom.game"}


def test_the_packages_relative_imports_are_in_the_graph():
    graph = import_graph()
    assert {"cleanroom.decisions", "cleanroom.measure"} <= graph["cleanroom.conform"]
    assert "cleanroom.tower" in graph["cleanroom.measure"]
    assert "cleanroom.choosers" in graph["cleanroom.decisions"]
    # a subpackage's imports one level up (``from ..stage import``) and beside it
    assert {"cleanroom.stage", "cleanroom.sections.battle"} <= \
        import_graph()["cleanroom.sections.move"]


@pytest.mark.parametrize("graph,cycle", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
    ({"a": {"b"}, "b": set()}, None),
])
def test_a_cycle_is_found_and_named_in_order(graph, cycle):
    assert find_cycle(graph) == cycle


def test_an_upward_import_is_named():
    graph = {"captures.model": {"emulator.core"}, "emulator.core": set(),
             "emulator.x": {"analysis.y"}, "analysis.y": set()}
    assert upward_imports(graph) == ["captures.model -> emulator.core",
                                     "emulator.x -> analysis.y"]
