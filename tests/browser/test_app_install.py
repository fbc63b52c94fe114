"""Varaq as an installed app: the manifest, the service worker, and life without a connection.

A phone installs Varaq from the manifest; the service worker keeps the app shell so it opens at
once, and when the network is gone the player reads plain words instead of the browser's error:
the offline page for a page that cannot load, a "No connection" banner over a table already
open.  Service workers need a secure context; ``127.0.0.1`` is one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from harness import Server
from playwright.sync_api import Browser, BrowserContext, Page, expect

pytestmark = pytest.mark.browser

OFFLINE_WORDS = ("You're offline — Varaq needs a connection to deal; "
                 "we'll reconnect when you're back.")
#: The errors a page logs while the network is gone (its socket, its fetches), and nothing else.
NETWORK_ERRORS = re.compile(r"ERR_INTERNET_DISCONNECTED|WebSocket|Failed to load resource|"
                            r"net::ERR_")


@pytest.fixture
def app_context(browser: Browser) -> Iterator[tuple[BrowserContext, list[str]]]:
    """A context of its own (the worker it installs must not serve the other tests), and the
    console errors its pages logged."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True)
    context.set_default_timeout(30_000)
    errors: list[str] = []

    def watch(page: Page) -> None:
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))

    context.on("page", watch)
    yield context, errors
    context.close()
    unexpected = [e for e in errors if not NETWORK_ERRORS.search(e)]
    assert not unexpected, unexpected


def worker_ready(page: Page) -> dict[str, Any]:
    """Wait until the service worker is active and controls the page; what it cached."""
    state = page.evaluate("navigator.serviceWorker.ready.then((r) => r.active.state)")
    assert state in ("activating", "activated"), state
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    cached: dict[str, Any] = page.evaluate("""async () => {
      const names = await caches.keys();
      const urls = [];
      for (const name of names) {
        for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
      }
      return {names, urls};
    }""")
    return cached


def test_the_manifest_is_served_with_icons_that_load(
        app_context: tuple[BrowserContext, list[str]], server: Server) -> None:
    context, _ = app_context
    page = context.new_page()
    page.goto(f"{server.base}/")
    href = page.locator('link[rel="manifest"]').get_attribute("href")
    assert href
    answer = page.request.get(f"{server.base}{href}")
    assert answer.ok and "manifest+json" in answer.headers["content-type"]
    doc = json.loads(answer.text())
    assert doc["short_name"] == "Varaq" and doc["start_url"] == "/"
    assert doc["display"] == "standalone" and doc["theme_color"].startswith("#")
    for icon in doc["icons"]:
        image = page.request.get(f"{server.base}{icon['src']}")
        assert image.ok and image.headers["content-type"] == icon["type"], icon
    assert page.locator('meta[name="theme-color"]').count() == 2


def test_installed_it_opens_offline_with_plain_words(
        app_context: tuple[BrowserContext, list[str]], server: Server) -> None:
    context, _ = app_context
    page = context.new_page()
    game_id = server.new_game(level="easy")
    page.goto(f"{server.base}/play/{game_id}?fast")
    expect(page.locator("#table")).to_be_visible()
    cached = worker_ready(page)
    assert len(cached["names"]) == 1 and cached["names"][0].startswith("varaq-")
    assert any(url.endswith("/offline.html") for url in cached["urls"])
    assert any(re.search(r"/static/[0-9a-f]{12}/app\.js$", url) for url in cached["urls"])

    # The table already open: a banner says the connection is gone, and goes with it.
    banner = page.get_by_role("status").filter(has_text="No connection")
    expect(banner).to_be_hidden()
    context.set_offline(True)
    expect(banner).to_be_visible()
    context.set_offline(False)
    expect(banner).to_be_hidden()

    # A page that cannot load: the offline page, in its own words, at the address asked for.
    context.set_offline(True)
    page.reload()
    expect(page.get_by_role("heading", name="No connection")).to_be_visible()
    words = " ".join(page.locator("#offline-words").inner_text().split())
    assert words == OFFLINE_WORDS
    assert page.url.endswith(f"/play/{game_id}?fast")
    # The connection comes back: the page reloads by itself and the table is there again.
    context.set_offline(False)
    expect(page.locator("#table")).to_be_visible(timeout=15_000)

    # Nothing of the table's own (its state holds South's cards) was ever stored.
    urls = worker_ready(page)["urls"]
    assert not [url for url in urls if "/api/" in url], urls
