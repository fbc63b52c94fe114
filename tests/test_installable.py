"""The installed app's files: the manifest, its icons, the service worker and the offline page.

The browser test (tests/browser/test_app_install.py) installs the worker and goes offline; these
check, without a browser, what the server hands out: a manifest a phone accepts, icons of the
sizes it names, a worker whose cache is named after this build and keeps only the app shell
(never an API answer, which may hold a seat's cards), and the offline page's words.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from PIL import Image
from starlette.testclient import TestClient

from varaq import __version__
from varaq.web.app import PAGES_DIR, STATIC_DIR
from varaq.web.static import module_imports, preload_modules
from web_helpers import make_app

PAGES = sorted(p.name for p in PAGES_DIR.glob("*.html"))


def manifest() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((STATIC_DIR / "manifest.webmanifest").read_text("utf-8"))
    return doc


def test_the_manifest_is_valid_json_with_what_a_phone_needs() -> None:
    doc = manifest()
    assert doc["name"] and doc["short_name"] == "Varaq" and len(doc["short_name"]) <= 12
    assert doc["start_url"] == "/" and doc["scope"] == "/" and doc["display"] == "standalone"
    for colour in (doc["theme_color"], doc["background_color"]):
        assert re.fullmatch(r"#[0-9a-f]{6}", colour), colour
    sizes = {icon["sizes"] for icon in doc["icons"] if icon["type"] == "image/png"}
    assert {"192x192", "512x512"} <= sizes


def test_each_icon_is_a_file_of_the_size_the_manifest_names() -> None:
    for icon in manifest()["icons"]:
        path = STATIC_DIR / icon["src"].removeprefix("/static/")
        assert path.is_file(), icon
        if icon["type"] == "image/png":
            with Image.open(path) as image:
                assert image.format == "PNG"
                assert f"{image.width}x{image.height}" == icon["sizes"], icon


#: Where the server shows each page of the pages folder (``web/html``).
PAGE_ADDRESSES = {
    "index.html": "/", "daily.html": "/daily", "learn.html": "/learn", "review.html": "/review",
    "rules.html": "/rules", "help.html": "/help", "about.html": "/about",
    "offline.html": "/offline.html", "notfound.html": "/no-such-page",
}


#: Pages the server writes itself (the leaderboard, a profile, its refusal).
WRITTEN_PAGES = ("/players", "/players/Nobody")


def test_every_page_links_the_manifest_the_worker_and_a_theme_colour(tmp_path: Path) -> None:
    """The shared head lines are written once (``html/parts/head.html``) and the server puts
    them into every page it shows, from a file or written by itself: each page has them
    exactly once, the character set first."""
    assert sorted(PAGE_ADDRESSES) == PAGES
    app = make_app(tmp_path)
    prefix = f"/static/{app.state.static_hash}/"
    with TestClient(app) as client:
        for name, address in [*PAGE_ADDRESSES.items(), *((a, a) for a in WRITTEN_PAGES)]:
            html = client.get(address).text
            head = html[:html.index("</head>")]
            assert head.index('<meta charset="utf-8">') < 100, name
            for line in ('<meta charset="utf-8">', '<meta name="viewport"',
                         f'<link rel="manifest" href="{prefix}manifest.webmanifest">',
                         f'<link rel="stylesheet" href="{prefix}style.css">',
                         f'<script type="module" src="{prefix}pwa.js"></script>', "<title>"):
                assert head.count(line) == 1, (name, line)
            assert head.count('<meta name="theme-color"') == 2, name
            # The shared styles come before the page's own, the app's last.
            assert head.index("style.css") < head.index("</title>") < head.index("pwa.css"), name
            if name in WRITTEN_PAGES:
                continue
            # The file itself holds only the page's own lines, and is not a static file:
            # alone it is not a whole page.
            own = (PAGES_DIR / name).read_text("utf-8").split("</head>")[0]
            assert "charset" not in own and "manifest" not in own, name
            assert client.get(f"/static/{name}").status_code == 404, name
            assert client.get(f"{prefix}{name}").status_code == 404, name


def test_card_pages_link_the_deck_settings() -> None:
    for name in ("index.html", "daily.html", "learn.html", "review.html"):
        head = (PAGES_DIR / name).read_text("utf-8").split("</head>")[0]
        assert 'href="/static/deck.css"' in head and 'src="/static/deck.js"' in head, name


def test_the_worker_is_served_from_the_root_with_this_builds_cache(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with TestClient(app) as client:
        answer = client.get("/sw.js")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/javascript")
        assert answer.headers["service-worker-allowed"] == "/"
        assert answer.headers["cache-control"] == "no-cache"
        line = re.search(r"^const BUILD = (.*);$", answer.text, re.MULTILINE)
        assert line, answer.text[:400]
        build = json.loads(line.group(1))
        static_hash = app.state.static_hash
        assert build["cache"] == f"varaq-{__version__}-{static_hash}"
        shell: list[str] = build["shell"]
        assert shell[0] == "/offline.html"
        assert f"/static/{static_hash}/app.js" in shell
        assert f"/static/{static_hash}/icon-192.png" in shell
        assert not [url for url in shell if "/api/" in url or (url.endswith(("sw.js", ".html"))
                    and url != "/offline.html")]
        # Every address of the shell answers, or installing the worker would fail.
        for url in shell:
            assert client.get(url).status_code == 200, url


def test_the_worker_leaves_the_api_alone() -> None:
    """A table's answers hold a seat's cards: the worker never answers for the API nor stores
    anything of it; the only thing it stores is a static file."""
    source = (STATIC_DIR / "sw.js").read_text("utf-8")
    assert "/api" not in source.split("self.addEventListener", 1)[1]
    assert source.count("cache.put(") == 1
    assert 'url.pathname.startsWith("/static/")' in source


def test_the_offline_page_says_so_in_plain_words(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with TestClient(app) as client:
        answer = client.get("/offline.html")
        assert answer.status_code == 200
        assert "You're offline — Varaq needs a connection to deal; we'll" in answer.text
        # It loads the hashed files the worker keeps, so it draws without a connection.
        assert f"/static/{app.state.static_hash}/pwa.js" in answer.text


def test_each_page_asks_for_every_script_it_imports_at_once(tmp_path: Path) -> None:
    """A page names every script its module scripts import, however deep, as a
    ``modulepreload`` link under this build's prefix: the browser fetches them in one round
    instead of one round per level of imports.  Each link answers, none is named twice, and a
    page's own entry scripts are not preloaded again."""
    app = make_app(tmp_path)
    with TestClient(app) as client:
        prefix = f"/static/{app.state.static_hash}/"
        html = client.get("/").text
        preloads = re.findall(r'<link rel="modulepreload" href="([^"]+)">', html)
        names = [url.removeprefix(prefix) for url in preloads]
        assert all(url.startswith(prefix) for url in preloads), preloads
        assert len(names) == len(set(names))
        # Every script the entries reach, read from the files' own import lines.
        graph = module_imports(STATIC_DIR)
        entries = {"app.js", "pwa.js", "deck.js"}
        reached: set[str] = set()
        todo = [dep for entry in entries for dep in graph[entry]]
        while todo:
            name = todo.pop()
            if name not in reached:
                reached.add(name)
                todo.extend(graph[name])
        assert set(names) == reached - entries, set(names) ^ (reached - entries)
        assert {"store.js", "words.js", "cards.js"} <= set(names), names
        first_script = html.index('<script type="module"')
        assert all(html.index(url) < first_script for url in preloads)
        for url in preloads:
            assert client.get(url).status_code == 200, url
        # help.js imports pages.js alone; a page of one script without imports is unchanged.
        assert re.findall(r'modulepreload" href="[^"]+/([^/"]+)"', client.get("/help").text) == [
            "pages.js"]
    assert preload_modules('<script type="module" src="/static/x.js"></script>', {}) == (
        '<script type="module" src="/static/x.js"></script>')
