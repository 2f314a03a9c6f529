"""Headless Chromium for the tests of web pages (selenium over Debian's chromium and
chromium-driver): one browser per test module, started with the flags the closed network needs.

    from tests.chromium import chromium
    @pytest.fixture(scope="module")
    def browser():
        yield from chromium()

Skips, saying how to install them, when Chromium, its driver or selenium are missing.
"""
from __future__ import annotations

import shutil
import tempfile

import pytest

__all__ = ["chromium", "console_errors", "CHROMIUM", "CHROMEDRIVER", "FLAGS"]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
INSTALL = ("needs Chromium and its driver: apt-get install -y chromium chromium-driver "
           "(make test does it as root), and selenium: pip install -e '.[test]'")
# The network is closed: without these flags Chromium keeps trying to reach its servers.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1600,1200")


def chromium(*extra_flags: str):
    """Yield a selenium Chrome driver on a fresh profile (a generator for a fixture); quit
    and remove the profile after."""
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip(f"no chromium/chromedriver on PATH: {INSTALL}")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip(f"selenium is not installed: {INSTALL}")
    profile = tempfile.mkdtemp(prefix="towerlab-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS + extra_flags:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={profile}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(120)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(driver) -> list[dict]:
    """Return the console's SEVERE entries since the last call (reading clears them)."""
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
