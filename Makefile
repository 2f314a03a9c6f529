# TowerLab: `make demo` runs the tower demo, `make test` runs the whole suite.
# Both create .venv and install what they need; as root, `make test` also installs the
# Debian packages the cross-checks use (MAME, sigrok-cli, simavr, avr-gcc) when missing.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
APT_PACKAGES := mame sigrok-cli simavr libsimavr-dev gcc-avr avr-libc binutils-avr \
                sigrok-firmware-fx2lafw tmux
# the report's browser test (tests/analysis/test_report_browser.py)
APT_PACKAGES += chromium chromium-driver
PYTEST_ARGS ?=
FUZZ_CASES ?= 100000
LOAD_HOGS ?= 3

.PHONY: demo test test-under-load fuzz venv sysdeps bench clean

venv: $(STAMP)

# PYTHONWARNINGS=ignore: data-only folders (firmware, Lua scripts, shipped as package_data)
# make setuptools warn at length during the editable install.
$(STAMP): setup.cfg pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	PYTHONWARNINGS=ignore $(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

# Install missing Debian packages when we are root; otherwise say what is missing.
sysdeps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "not root: tests needing$$missing will skip (sudo apt-get install -y$$missing)"; fi; \
	fi

demo: venv
	$(PY) -m towerlab demo --out out/demo

test: venv sysdeps
	$(PY) -m pytest -q -n 2 $(PYTEST_ARGS)

# The whole suite with $(LOAD_HOGS) CPU-bound processes beside it (busy loops, stopped after):
# the suite must not depend on an idle host.
test-under-load: venv sysdeps
	@hogs=""; trap 'kill $$hogs 2>/dev/null' EXIT INT TERM; \
	for i in $$(seq $(LOAD_HOGS)); do $(PY) -c 'while True: pass' & hogs="$$hogs $$!"; done; \
	echo "test-under-load: $(LOAD_HOGS) CPU hogs running (pids$$hogs)"; \
	$(PY) -m pytest -q -n 2 $(PYTEST_ARGS); status=$$?; \
	echo "test-under-load: stopping the hogs, pytest exit status $$status"; exit $$status

# Every parser at scale: $(FUZZ_CASES) mutated inputs each, one result line per parser.
fuzz: venv
	$(PY) -m tests.fuzz --cases $(FUZZ_CASES) --jobs 2

bench: venv sysdeps
	$(PY) benchmarks/emulator_speed.py
	$(PY) benchmarks/tower_speed.py
	$(PY) benchmarks/trace_speed.py
	$(PY) benchmarks/decode_speed.py
	$(PY) benchmarks/debug_speed.py
	$(PY) benchmarks/live_read.py
	$(PY) benchmarks/conform_speed.py
	$(PY) benchmarks/game_speed.py

clean:
	rm -rf $(VENV) out .pytest_cache
