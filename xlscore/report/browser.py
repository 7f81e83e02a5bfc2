"""Headless Chromium for checking and measuring report pages: the browser tests use it (and
the report's measurements at tag research-2026-11 did: docs/record.md). Needs ``selenium``
(the ``dev`` extra) and Debian's ``chromium`` and ``chromium-driver`` packages."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from xlscore.errors import XLScoreError

BINARIES = {
    "chromium": ("chromium", "chromium-browser", "google-chrome"),
    "driver": ("chromedriver", "chromium-driver"),
}


def find_chromium() -> tuple[str, str] | None:
    """Paths of the browser and its driver, or ``None`` when either is missing."""
    found = [
        next((shutil.which(n) for n in names if shutil.which(n)), None)
        for names in BINARIES.values()
    ]
    browser, driver = found
    return None if browser is None or driver is None else (browser, driver)


def open_chromium(width: int = 1280, height: int = 1000):
    """A headless Chromium WebDriver with no network access to speak of (proxy to nowhere),
    a fresh profile of its own, collecting the console log; close it with ``quit()`` (which
    leaves the profile folder in the system's temporary folder)."""
    paths = find_chromium()
    if paths is None:
        raise XLScoreError(
            "headless Chromium needs Debian's chromium and chromium-driver "
            "(apt-get install chromium chromium-driver)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = paths[0]
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        "--proxy-server=127.0.0.1:9",
        "--proxy-bypass-list=<-loopback>",
        "--disable-extensions",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tempfile.mkdtemp(prefix='xlscore-chromium-')}",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(paths[1]), options=opts)


def page_url(path: str | Path) -> str:
    """The ``file://`` URL of a local page."""
    return Path(path).resolve().as_uri()
