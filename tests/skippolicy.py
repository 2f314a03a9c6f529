"""Refuse silent skips: the skip policy of a test run and its one-line tool summary.

Every cross-check needs a real tool (MAME, sigrok-cli, simavr and avr-gcc, the fx2lafw
firmware, tmux, ...) and skips, saying how to install it, when the tool is missing. A run that
skipped them all would still be green, so:

- **strict mode** (``pytest --strict-skips`` or the environment variable
  ``TOWERLAB_STRICT_SKIPS=1``; ``.ci/run`` sets it) turns every skip into a failure unless it
  is opt-in: the test carries one of the :data:`OPT_IN_MARKERS` or its reason names one of the
  :data:`OPT_IN_OPTIONS` (real hardware, the user's own romset). The rule is generic: a new
  test that skips because its tool is missing fails in strict mode without being listed here.
  Skips raised while collecting a module (``pytest.importorskip`` at module level) become
  collection errors the same way.
- **the summary**: at the end of every run (strict or not) one line names the real tools the
  tests ran against, with their versions and the number of tests that used each, and one line
  what skipped and why, e.g.::

      tools: mame 0.251 (/usr/games/mame, 168 tests), sigrok-cli 0.7.2 (... 9 tests)
      skipped: none

Tests declare a tool with :func:`require_tool` or :func:`require_file` (directly or from a
fixture); a fixture's tools count for every test that uses the fixture.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from collections import Counter
from typing import Iterator

import pytest

__all__ = ["require_tool", "require_file", "strict_enabled", "is_opt_in", "OPT_IN_MARKERS",
           "OPT_IN_OPTIONS", "STRICT_ENV", "SkipPolicy", "add_option", "register"]

STRICT_ENV = "TOWERLAB_STRICT_SKIPS"
# Markers and options of the tests that are opt-in by design: real hardware, the user's own
# genuine romset (we never ship one). Their skips stay skips in strict mode.
OPT_IN_MARKERS = ("hw", "romset", "real_tower")
OPT_IN_OPTIONS = ("--hw", "--romset", "--tower=real")
_TOOL_PROPERTY = "towerlab_tool"

# Tools declared since the last look: (name, package, path), appended by require_tool.
_pending: list[tuple[str, str, str]] = []
# Fixture name -> the tools its setup declared (kept for the whole worker process, so a
# session fixture's tools count for every later test that uses it).
_fixture_tools: dict[str, set[tuple[str, str, str]]] = {}


def require_tool(path: str, package: str) -> str:
    """Return the path of the executable ``path``, or skip saying how to install ``package``.

    The tool is recorded for the run's summary line (name, package, path).
    """
    found = shutil.which(path) or (path if os.path.isfile(path) and os.access(path, os.X_OK)
                                   else None)
    if not found:
        pytest.skip(f"{path} not found: apt-get install -y {package} (make test does it as root)")
    _pending.append((os.path.basename(path), package, found))
    return found


def require_file(path: str | os.PathLike | None, package: str, what: str) -> str:
    """Return ``path`` when it exists, or skip saying ``what`` is missing and how to install it.

    ``path`` None means the caller's search found nothing. Recorded like :func:`require_tool`,
    named ``what``.
    """
    if path is None or not os.path.exists(path):
        pytest.skip(f"{what} missing: apt-get install -y {package} (make test does it as root)")
    _pending.append((what, package, str(path)))
    return str(path)


def add_option(parser: pytest.Parser) -> None:
    """Add ``--strict-skips`` (call from a conftest's ``pytest_addoption``)."""
    parser.addoption("--strict-skips", action="store_true", default=False,
                     help=f"fail every skip that is not opt-in ({', '.join(OPT_IN_OPTIONS)}); "
                          f"also {STRICT_ENV}=1")


def register(config: pytest.Config) -> None:
    """Register the policy plugin (call from a conftest's ``pytest_configure``)."""
    config.pluginmanager.register(SkipPolicy(config), "towerlab-skip-policy")


def strict_enabled(config: pytest.Config) -> bool:
    """Return True when skips that are not opt-in must fail (option or environment)."""
    env = os.environ.get(STRICT_ENV, "").strip().lower()
    return bool(config.getoption("--strict-skips")) or env in ("1", "true", "yes")


def is_opt_in(reason: str, markers: Iterator[str] = ()) -> bool:
    """Return True when a skip with ``reason`` (on a test with ``markers``) is opt-in."""
    return any(m in OPT_IN_MARKERS for m in markers) or any(o in reason for o in OPT_IN_OPTIONS)


def _skip_reason(longrepr) -> str:
    """Return the reason of a skip report's ``longrepr`` (a (file, line, reason) tuple)."""
    if isinstance(longrepr, (tuple, list)) and len(longrepr) == 3:
        reason = str(longrepr[2])
    else:
        reason = str(longrepr)
    return reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason


def _version(name: str, package: str, path: str) -> str:
    """Return the tool's version: the Debian package's, else its ``--version`` first line."""
    if name == "mame":
        try:
            out = subprocess.run([path, "-version"], capture_output=True, text=True, timeout=60)
            if out.stdout.split():
                return out.stdout.split()[0]
        except OSError:
            pass
    pkg = package.split()[0]
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg], capture_output=True,
                             text=True, timeout=60)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    if os.access(path, os.X_OK) and os.path.isfile(path):
        try:
            out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
            first = (out.stdout or out.stderr).strip().splitlines()
            if first:
                return first[0].strip()
        except OSError:
            pass
    return "version unknown"


class SkipPolicy:
    """The pytest plugin: enforce strict mode and print the tool and skip summary lines."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.strict = strict_enabled(config)
        self.tool_tests: Counter = Counter()
        self.skips: Counter = Counter()
        self.refused = 0

    # -- recording which tools a test used (runs in every worker) --------------------------

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        start = len(_pending)
        yield
        declared = set(_pending[start:])
        if declared:
            _fixture_tools.setdefault(fixturedef.argname, set()).update(declared)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.when == "call" or (report.when == "setup" and not report.passed):
            tools = set(_pending)
            for name in getattr(item, "fixturenames", ()):
                tools |= _fixture_tools.get(name, set())
            _pending.clear()
            if report.when == "call":
                for tool in sorted(tools):
                    report.user_properties.append((_TOOL_PROPERTY, "\t".join(tool)))
        if report.skipped and not hasattr(report, "wasxfail") and self.strict:
            reason = _skip_reason(report.longrepr)
            markers = (m.name for m in item.iter_markers())
            if not is_opt_in(reason, markers):
                report.outcome = "failed"
                report.longrepr = (f"strict skips ({STRICT_ENV}=1 or --strict-skips): this "
                                   f"test skipped, which only opt-in tests "
                                   f"({', '.join(OPT_IN_OPTIONS)}) may: {reason}")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector):
        outcome = yield
        report = outcome.get_result()
        if report.skipped and self.strict:
            reason = _skip_reason(report.longrepr)
            if not is_opt_in(reason):
                report.outcome = "failed"
                report.longrepr = (f"strict skips ({STRICT_ENV}=1 or --strict-skips): "
                                   f"{collector.nodeid} skipped while collecting: {reason}")

    # -- the summary (the controller, or the only process) ----------------------------------

    def pytest_runtest_logreport(self, report):
        if report.when == "call":
            for key, value in report.user_properties:
                if key == _TOOL_PROPERTY:
                    self.tool_tests[tuple(value.split("\t"))] += 1
        if report.skipped and not hasattr(report, "wasxfail"):
            self.skips[_skip_reason(report.longrepr)] += 1
        if report.failed and isinstance(report.longrepr, str) and \
                report.longrepr.startswith("strict skips"):
            self.refused += 1

    def pytest_collectreport(self, report):
        if report.skipped:
            self.skips[_skip_reason(report.longrepr)] += 1
        elif report.failed and isinstance(report.longrepr, str) and \
                report.longrepr.startswith("strict skips"):
            self.refused += 1

    def summary_lines(self) -> list[str]:
        """Return the two summary lines: tools used (with versions), skips (with reasons)."""
        by_name: dict[tuple[str, str], list] = {}
        for (name, package, path), count in self.tool_tests.items():
            entry = by_name.setdefault((name, path), [package, 0])
            entry[1] += count
        tools = [f"{name} {_version(name, package, path)} ({path}, {count} tests)"
                 for (name, path), (package, count) in sorted(by_name.items())]
        mode = "strict" if self.strict else "lenient"
        lines = [f"tools ({mode} skips): " + (", ".join(tools) if tools else
                                              "no real tool was used")]
        if self.skips:
            lines.append(f"skipped {sum(self.skips.values())}: " + "; ".join(
                f"{reason} ({n} tests)" for reason, n in self.skips.most_common()))
        else:
            lines.append("skipped: none")
        if self.refused:
            lines.append(f"strict skips: {self.refused} skips refused as failures")
        return lines

    def pytest_terminal_summary(self, terminalreporter):
        if hasattr(self.config, "workerinput"):
            return
        terminalreporter.write_sep("-", "towerlab tools and skips")
        for line in self.summary_lines():
            terminalreporter.write_line(line)
