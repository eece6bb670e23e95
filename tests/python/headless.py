"""Headless Chromium (Debian's `chromium`) for the dashboard test: a page's DOM after its
scripts ran, its console messages, and a screenshot."""

import shutil
import subprocess
import tempfile
from dataclasses import dataclass

BROWSER = shutil.which("chromium")
TIME_BUDGET_MS = 20000        # virtual time the page's scripts get before the DOM is dumped


@dataclass
class Rendered:
    dom: str
    console: list            # lines of the browser log that carry console messages


def _run(page, *flags, timeout=180):
    with tempfile.TemporaryDirectory(prefix="collrepro-chromium-") as profile:
        cmd = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-extensions", f"--user-data-dir={profile}",
               f"--virtual-time-budget={TIME_BUDGET_MS}", "--enable-logging=stderr", "--v=0",
               *flags, page.resolve().as_uri()]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)


def render(page):
    """The DOM of `page` (a file) after its scripts ran, and the console lines logged."""
    done = _run(page, "--dump-dom")
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    return Rendered(done.stdout, console)


def screenshot(page, png, width=1400, height=1600):
    _run(page, f"--screenshot={png}", f"--window-size={width},{height}", "--hide-scrollbars")
    return png
