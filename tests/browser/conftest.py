"""Fixtures for the browser tests: a real ``varaq serve`` process and Debian's Chromium.

The server runs as a subprocess on a free port with its own SQLite file and ``VARAQ_PACE=0``
(the computer players answer at once), exactly as a player would start it, so the tests also
cover the command line, the static files and a restart from the database.  The browser is the
system's ``/usr/bin/chromium`` driven by Playwright; no browser is ever downloaded.

Every page records its console: a test fails if the page logged an error, unless the test
declares the messages it expects (a server restart makes the browser log refused connections).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

try:
    from playwright.sync_api import (
        Browser,
        BrowserContext,
        ConsoleMessage,
        Error,
        Page,
        sync_playwright,
    )
except ImportError:  # pragma: no cover - the test extra installs it
    if os.environ.get("CI"):
        raise  # CI installs everything: a missing browser stack must fail, not skip
    pytest.skip("playwright is not installed", allow_module_level=True)

from harness import CHROMIUM, CHROMIUM_ARGS, DESKTOP, PHONE, Console, Server

if not CHROMIUM.exists():  # pragma: no cover - depends on the machine
    if os.environ.get("CI"):
        raise RuntimeError("CI needs Debian's chromium at /usr/bin/chromium (scripts/test.sh)")
    pytest.skip("Debian's chromium is not installed at /usr/bin/chromium", allow_module_level=True)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("varaq-serve")
    srv = Server(root / "games.sqlite3", root / "serve.log")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def console() -> Console:
    return Console()


def open_context(browser: Browser, console: Console, **options: Any) -> BrowserContext:
    """A browser context that records console errors into ``console``.

    It asks for reduced motion unless the test says otherwise: the page then lands each card
    without its slide (the pace of the table is kept), and a software-rendered Chromium spends
    about a quarter less of the machine's two cores on a hand.  What the animations look like
    and how long they dwell is ``test_speeds.py``'s business, in contexts of its own.

    It also keeps the service worker out unless the test says otherwise: every new context
    would install it, and its install fetches and stores the whole app shell, about 0.6 s of
    CPU of the 1.5-2 s a fresh context's first page costs here (measured by loading the home
    page and the table in eight fresh contexts each way).  The suite opens hundreds of
    contexts.  Pages work the same without it (it only serves the static files from its cache
    and the offline page); ``test_app_install.py`` installs it and tests what it does, and the
    players' journey plays its match with it, as a player's browser has it."""
    options.setdefault("reduced_motion", "reduce")
    options.setdefault("service_workers", "block")
    context = browser.new_context(**options)
    context.set_default_timeout(30_000)

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            console.errors.append(message.text)

    def on_page_error(error: Error) -> None:
        console.errors.append(f"uncaught: {error}")

    def watch(page: Page) -> None:
        page.on("console", on_console)
        page.on("pageerror", on_page_error)

    context.on("page", watch)
    return context


@pytest.fixture
def page(browser: Browser, console: Console) -> Iterator[Page]:
    """A desktop-sized page; the test fails if it logged an unexpected console error."""
    context = open_context(browser, console, viewport=DESKTOP)
    yield context.new_page()
    context.close()
    assert not console.unexpected(), f"console errors: {console.unexpected()}"


@pytest.fixture
def phone_page(browser: Browser, console: Console) -> Iterator[Page]:
    """A phone in portrait, with touch, in the dark theme."""
    context = open_context(
        browser, console, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
        color_scheme="dark",
    )
    yield context.new_page()
    context.close()
    assert not console.unexpected(), f"console errors: {console.unexpected()}"


#: The two screens every page must fit: the most common laptop window and a small phone.
LAPTOP = {"width": 1366, "height": 657}
SMALL_PHONE = {"width": 360, "height": 640}


@pytest.fixture
def people(browser: Browser, console: Console) -> Iterator[list[BrowserContext]]:
    """Extra people: each call of :func:`person` adds a browser context (its own session),
    closed after the test; the test fails if any of them logged an unexpected error."""
    contexts: list[BrowserContext] = []
    yield contexts
    for context in contexts:
        context.close()
    assert not console.unexpected(), f"console errors: {console.unexpected()}"


def person(browser: Browser, console: Console, people: list[BrowserContext],
           viewport: dict[str, int] = LAPTOP, **options: Any) -> Page:
    """One more person at their own browser: a new context in ``people``, and its page."""
    context = open_context(browser, console, viewport=viewport, **options)
    people.append(context)
    return context.new_page()
