"""The browser tests' harness: ``varaq serve`` as a subprocess, console watching, screenshots.

The server is started exactly as a player starts it (the command line, the static files, a
SQLite file), with ``VARAQ_PACE=0`` so the computer players answer at once.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
    # Every new window of Chromium 156 builds its address bar's suggestion list as a web page
    # in a renderer of its own, though headless never shows it: 15 % of the browser tests' CPU
    # (measured by process in a run of four browser files).  Chromium keeps only the last
    # --disable-features it is given, so this list stands in for the one Playwright passes
    # first (read on the processes' command lines: of Playwright's features only PaintHolding
    # stays off).  Playwright's list added here changed nothing measurable (fresh contexts'
    # first pages, the same CPU within 5 %), so it is not copied: it changes with Playwright.
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 860}


def phone_options(width: int, height: int) -> dict[str, Any]:
    """A browser context's options for a phone of this size: touch, a mobile viewport and a
    sharp screen, so that ``(pointer: coarse)`` matches and the pages' touch sizes apply."""
    return {"viewport": {"width": width, "height": height}, "has_touch": True,
            "is_mobile": True, "device_scale_factor": 2}


def is_phone(width: int, height: int) -> bool:
    """A window this size is a phone's (upright or on its side): touch, a mobile viewport."""
    return width < 700 or height < 500


#: The kinds of device a many-size test opens one table for (see :func:`by_device`).
DEVICES = ("desktop", "phone")


def by_device(sizes: list[tuple[int, int]]) -> dict[str, list[tuple[int, int]]]:
    """Window sizes grouped into "desktop" and "phone".

    A browser context's touch and mobile options are fixed when it opens, so a test of many
    sizes opens one context a kind of device and turns it through that kind's sizes, as a phone
    turns on its side and a window is resized: the page must lay itself out again from its
    media queries alone.  (Setting the table up again for every size cost the suite minutes.)
    """
    groups: dict[str, list[tuple[int, int]]] = {device: [] for device in DEVICES}
    for width, height in sizes:
        groups["phone" if is_phone(width, height) else "desktop"].append((width, height))
    return groups


def device_options(device: str, sizes: list[tuple[int, int]]) -> dict[str, Any]:
    """A browser context's options for ``device`` ("desktop" or "phone") at its first size."""
    width, height = sizes[0]
    if device == "phone":
        return phone_options(width, height)
    return {"viewport": {"width": width, "height": height}}


def resize(page: Page, width: int, height: int) -> None:
    """Turn the window to ``width`` × ``height`` and wait for the page to lay itself out."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function("([w, h]) => innerWidth === w && innerHeight === h",
                           arg=[width, height])
    # The table is sized in dynamic viewport units (``100dvh``), which Chromium can resolve
    # against the old size for a moment after ``innerHeight`` has changed: under load the fit
    # test once measured a 657-pixel window holding a 1,080-pixel page, the size before.  Wait
    # until a probe of 100dvw × 100dvh has the window's size.
    page.wait_for_function(
        """([w, h]) => {
          const probe = document.createElement('div');
          probe.style.cssText = 'position:fixed;left:0;top:0;width:100dvw;height:100dvh;'
            + 'visibility:hidden;pointer-events:none';
          document.documentElement.appendChild(probe);
          const r = probe.getBoundingClientRect();
          probe.remove();
          return Math.round(r.width) === w && Math.round(r.height) === h;
        }""",
        arg=[width, height])
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => "
                  "requestAnimationFrame(done)))")
    # Even then, elements laid out before the resize can keep the old 100dvh for a moment (a
    # full run measured an 844 x 390 window holding the 640-pixel page of the size before,
    # after the probe had the new size).  Give the page up to two seconds to fit; one that
    # never does is still measured, and fails the test with its sizes.
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            "() => document.documentElement.scrollWidth <= innerWidth"
            " && document.documentElement.scrollHeight <= innerHeight", timeout=2000)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """``varaq serve`` in a subprocess; :meth:`restart` keeps the port and the database."""

    def __init__(self, db_path: Path, log_path: Path, extra_args: tuple[str, ...] = (),
                 pace: float = 0.0) -> None:
        #: More ``varaq serve`` options (the online table's tests shorten the drop countdown).
        self.extra_args = list(extra_args)
        #: ``VARAQ_PACE``: 0 lets the computer players answer at once; 1 is a real table's
        #: pace (the speed tests time it).
        self.pace = pace
        self.port = _free_port()
        self.db_url = f"sqlite:///{db_path}"
        self.log_path = log_path
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        # Hand reviews stop after 20 s here: a review left running would slow the other tests.
        env = {**os.environ, "VARAQ_PACE": str(self.pace), "VARAQ_TEST_MODE": "1",
               "VARAQ_REVIEW_SECONDS": "20"}
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            # No per-address rate limits: every browser comes from 127.0.0.1, and the online
            # tests sign up more people in a minute than a real address may.
            [sys.executable, "-m", "varaq.cli", "serve", "--port", str(self.port),
             "--db", self.db_url, "--relaxed-limits", *self.extra_args],
            env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        log.close()
        # A cold start on a loaded two-core machine has taken over 40 s (the imports alone).
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"varaq serve exited: {self.log_path.read_text()[-2000:]}")
            try:
                if httpx2.get(f"{self.base}/healthz", timeout=5).json() == {"ok": True}:
                    return
            except (httpx2.HTTPError, ValueError):
                pass
            time.sleep(0.2)
        raise RuntimeError(f"varaq serve did not answer /healthz: {self.log_path.read_text()}")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def new_game(self, **body: Any) -> str:
        """Create a game through the API (for setups the dialog does not offer)."""
        answer = httpx2.post(f"{self.base}/api/games", json=body, timeout=20)
        assert answer.status_code == 201, answer.text
        game_id: str = answer.json()["id"]
        return game_id

    def state(self, game_id: str) -> dict[str, Any]:
        answer = httpx2.get(f"{self.base}/api/games/{game_id}", timeout=20)
        assert answer.status_code == 200, answer.text
        state: dict[str, Any] = answer.json()
        return state


class Console:
    """What a page logged; ``allow`` lists patterns a test expects (e.g. refused sockets)."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.allowed: list[re.Pattern[str]] = []

    def allow(self, pattern: str) -> None:
        self.allowed.append(re.compile(pattern))

    def unexpected(self) -> list[str]:
        return [e for e in self.errors if not any(p.search(e) for p in self.allowed)]


#: True once no CSS transition is running (a theme switch fades colours for a moment).
#: No colour still changing.  A finished transition counts as settled: Chromium keeps one in
#: getAnimations() for good when its element is hidden (a button inside a closed <details>).
SETTLED_JS = ("() => !document.getAnimations().some((a) => a instanceof CSSTransition"
              " && a.playState !== 'finished')")


def shot(page: Page, name: str) -> None:
    """Save a screenshot of the table as a test artifact (``name.jpg``), once colours have
    settled.  JPEG at quality 85: a few hundred shots a run, and Chromium's PNG encoder took
    about half a second of CPU a shot against a tenth for JPEG, with nothing a person looking
    at the table would miss."""
    page.wait_for_function(SETTLED_JS)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.jpg"), full_page=True, scale="css",
                    type="jpeg", quality=85)
