"""Headless Chromium (Debian's ``chromium`` with its ``chromedriver``) driven by selenium, for
tests that look at the HTML pages as a person would. Tests skip, saying why, without it."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,1000",
)


def skip_reason() -> str | None:
    if not Path(CHROMIUM).exists() or not Path(CHROMEDRIVER).exists():
        return (
            "needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)"
        )
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "needs selenium (pip install -e '.[dev]')"
    return None


@contextmanager
def chromium() -> Iterator[object]:
    """A fresh headless browser with its own profile folder, closed afterwards."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="mteval-chromium-")
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(driver: object) -> list[dict]:
    """Messages the page logged at SEVERE level (script errors, failed loads)."""
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]  # type: ignore[attr-defined]


def full_page_screenshot(driver: object, path: Path) -> Path:
    """The whole page, not only the window: the window is resized to the document's height."""
    height = driver.execute_script("return document.documentElement.scrollHeight")  # type: ignore[attr-defined]
    driver.set_window_size(1400, min(int(height) + 100, 6000))  # type: ignore[attr-defined]
    driver.save_screenshot(str(path))  # type: ignore[attr-defined]
    return path
