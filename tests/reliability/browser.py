"""A real headless browser for the /ui tests: Debian's chromium driven through chromedriver (selenium).

`.ci/run` installs both (`apt-get install chromium chromium-driver`), so a missing browser fails
the tests that need it, with the command that installs it; it is never a reason to skip them.
Screenshots go to $SIGHTLINE_UI_SCREENSHOTS when it names a folder (docs/ keeps the ones the
docs show), and nowhere otherwise.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

INSTALL = "apt-get install -y chromium chromium-driver"
BINARIES = {"chromium": ("chromium", "chromium-browser"), "chromedriver": ("chromedriver",)}
SHOTS_ENV = "SIGHTLINE_UI_SCREENSHOTS"


def _find(names: tuple[str, ...]) -> str | None:
    path = os.pathsep.join((os.environ.get("PATH", ""), "/usr/bin", "/usr/lib/chromium"))
    return next((found for name in names if (found := shutil.which(name, path=path))), None)


def chrome(width: int = 1280, height: int = 1000) -> Any:
    """A headless chromium; fails the test (never skips it) when the browser or its driver is missing."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver = _find(BINARIES["chromium"]), _find(BINARIES["chromedriver"])
    if binary is None or driver is None:
        pytest.fail(f"chromium and chromedriver are needed for the /ui browser tests: {INSTALL}", pytrace=False)
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--disable-extensions", f"--window-size={width},{height}", "--force-device-scale-factor=1"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


def wait_for(predicate: Callable[[], Any], what: str, seconds: float = 30.0) -> Any:
    """The first truthy value of `predicate()`, polled; fails the test naming `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            value = predicate()
        except Exception:  # noqa: BLE001 - an element not there yet, a page mid-swap
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {seconds:.0f} s waiting for {what}", pytrace=False)
        time.sleep(0.1)


def console_errors(driver: Any) -> list[str]:
    """The browser console's errors since the last call (a CSP violation is one)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def screenshot(element: Any, name: str) -> Path | None:
    """A PNG of one element into $SIGHTLINE_UI_SCREENSHOTS/<name>.png when that folder is set."""
    folder = os.environ.get(SHOTS_ENV)
    if not folder:
        return None
    path = Path(folder) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    element.screenshot(str(path))
    return path
