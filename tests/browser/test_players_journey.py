"""The players' journey, end to end in separate browsers (issue 20's "Done when").

Four people sign up, one opens a public table with the shortest target the "Open a table"
dialog allows, the other three join by its code, and they play the match to the end with the
page's own controls.  A fifth person finds the table under Live tables, clicks Watch and sees
the whole match without ever being sent a hand.  Afterwards each of the four opens their own
profile: the rating has moved and is shown as a range, the statistics count the match, and the
history lists it with links to the score sheet and to a hand's review that open.  The watcher,
who was not at the table, finds it too: a table listed under Live tables is a public match in
every history (a private table's match is refused to strangers: ``tests/test_profiles.py``).
Finally ``varaq ratings rebuild`` on the server's own SQLite file gives the ratings the server
showed.

Every WebSocket frame every page receives is recorded and, after the match, checked against the
server's game replayed from its journal to the frame's version (the notion of
``tests/secrecy_helpers.py``): a watcher may know the played cards only, a seat its own hand
and the played cards.

The invitation that reaches a friend's browser and the notification raised for a hidden tab
are covered by ``tests/browser/test_friends.py`` and are not repeated here.

Screenshots go to ``artifacts/screenshots/journey-*.jpg``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest
from harness import Console, Server, shot
from online_driver import (
    PLAY_URL,
    Frame,
    act_once,
    expect_waiting_room,
    fresh_name,
    join_by_code,
    open_home,
    open_table,
    record_frames,
    sign_up,
    state_as,
    table_id,
)
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlalchemy import select

from conftest import person
from secrecy_helpers import allowed_for, cards_named
from varaq.engine import Game
from varaq.seats import SEAT_LETTERS, S
from varaq.service.journal import replay
from varaq.service.newtable import TableInfo
from varaq.service.ratings import MODEL, stored_ratings
from varaq.service.seating import Seating
from varaq.service.store import EntryRow, Store

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

#: The smallest target a table may play to: one hand where everyone bids 3 always ends it
#: (of 13 tricks one side takes at least 7 and makes its 6).
TARGET = 50
#: The rating a person starts with, as a profile shows it.
START_MU = f"{MODEL.mu:.1f}"
RATING_LINE = re.compile(
    r"Rating (-?\d+\.\d) \(somewhere between (-?\d+\.\d) and (-?\d+\.\d)\)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """This module's own server: the rebuild step must see this match's ratings only."""
    root = tmp_path_factory.mktemp("varaq-journey")
    srv = Server(root / "games.sqlite3", root / "serve.log")
    srv.start()
    yield srv
    srv.stop()


@dataclass
class Player:
    """One person at their own browser, and every frame their page was sent."""

    name: str
    page: Page
    frames: list[Frame]
    seat: str | None = None
    shown: dict[str, Any] = field(default_factory=dict)


def newcomer(browser: Browser, console: Console, people: list[BrowserContext], base: str,
             prefix: str) -> Player:
    """One more person at their own browser, signed up, their frames recorded from the
    first page on.  Their browser installs the service worker, as a player's does (the other
    browser tests keep it out, see ``conftest.open_context``): the whole match is played with
    the worker serving the static files."""
    page = person(browser, console, people, service_workers="allow")
    frames = record_frames(page)
    name = fresh_name(prefix)
    sign_up(page, base, name)
    return Player(name, page, frames)


# ---------------------------------------------------------------- step 1 and 2: the match


def seat_four_and_start(players: list[Player], base: str) -> str:
    """The host opens a public table of people to the smallest target; two join by its code
    and the fourth by its link; the host starts.  Each person's seat is read back."""
    host = players[0]
    table = open_table(host.page, level="Easy", preset="Varaq",
                       options={"Target": TARGET, "Nil": False}, fill_bots=False, public=True)
    expect_waiting_room(host.page)
    expect(host.page.get_by_label("Who can find it")).to_have_value("public")
    code = host.page.locator("#waiting-code").inner_text().strip()
    for guest in players[1:3]:
        assert join_by_code(guest.page, code) == table
    open_home(players[3].page, base, f"/join/{code}")  # the fourth follows the link
    assert table_id(players[3].page) == table
    start = host.page.get_by_role("button", name="Start", exact=True)
    expect(start).to_be_enabled()
    start.click()
    for p in players:
        expect(p.page.locator("#hand button")).to_have_count(13)
        p.seat = state_as(p.page, base, table)["you"]
    assert sorted(str(p.seat) for p in players) == sorted(SEAT_LETTERS)
    return table


def watch_from_live_tables(watcher: Player, host: Player, base: str, table: str) -> None:
    """Home page → Live tables → the host's table → Watch: the table, with no hand."""
    open_home(watcher.page, base)
    row = watcher.page.locator("#live-tables li").filter(has_text=host.name)
    expect(row).to_be_visible(timeout=20_000)
    row.get_by_role("link", name=re.compile(r"^Watch ")).click()
    watcher.page.wait_for_url(PLAY_URL)
    assert table_id(watcher.page) == table
    expect(watcher.page.locator("#watch-note")).to_be_visible()
    expect(watcher.page.locator("#hand .card")).to_have_count(0)


def play_to_the_end(players: list[Player], watcher: Player, seconds: float = 300) -> int:
    """Each person bids and plays on their own page until every page shows the match's end;
    the moves made.  A hand's summary is closed with its own button if the match goes on."""
    pages = [p.page for p in players]
    moves = 0
    until = time.monotonic() + seconds
    while True:
        # act_once reads each page once and says what it showed: one read a page a round.
        kinds = [act_once(page) for page in pages]
        if all(kind == "over" for kind in kinds):
            break
        assert time.monotonic() < until, kinds
        moves += sum(kind in ("blind", "bid", "play") for kind in kinds)
        for page, kind in zip(pages, kinds, strict=True):
            next_hand = page.locator("#next-hand")
            if kind == "summary" and next_hand.is_visible() and next_hand.is_enabled():
                next_hand.click()
        if not any(kind in ("blind", "bid", "play") for kind in kinds):
            pages[0].wait_for_timeout(100)
    expect(watcher.page.locator("#over-dialog")).to_be_visible(timeout=15_000)
    expect(watcher.page.locator("#hand .card")).to_have_count(0)
    return moves


# ---------------------------------------------------------------- the frames' secrecy


class Journal:
    """The table's game at any version, replayed from the server's own journal."""

    def __init__(self, db_url: str, table: str) -> None:
        store = Store(db_url)
        try:
            stored = store.load_table(table)
            assert stored is not None, table
            with store.engine.connect() as connection:
                self.lines = [(int(v), str(e)) for v, e in connection.execute(
                    select(EntryRow.version, EntryRow.entry)
                    .where(EntryRow.table_id == table).order_by(EntryRow.version))]
        finally:
            store.close()
        self.info = TableInfo.from_stored(stored)
        self.last = self.lines[-1][0]

    @cache  # noqa: B019 - one journal per test, a few hundred versions
    def game_at(self, version: int) -> Game:
        lines = [entry for v, entry in self.lines if v <= version]
        return replay(self.info.new_game(), Seating(host_seat=S), lines).game


def view_version(frames: list[Frame], i: int) -> int:
    """The version an event frame's view was built at.  The server builds one view per commit
    and sends it with each of that commit's events (a start and its deal, a card and the
    computer's answer), so the view is the one after the commit's last event: the version of
    the last frame in the run of events that carry the same view."""
    doc = frames[i].doc
    if doc.get("type") != "event":
        return 0
    last = int(doc["version"])
    for later in frames[i + 1:]:
        after = later.doc
        if later.url != frames[i].url or not isinstance(after, dict):
            continue
        if after.get("type") != "event" or after.get("view") != doc["view"] \
                or int(after["version"]) != last + 1:
            break
        last += 1
    return last


def check_frames(journal: Journal, who: Player) -> tuple[int, int]:
    """Every frame ``who`` received names only cards their seat (or a watcher) could know at
    that frame's version; a watcher's views hold no hand.  (Frames checked, cards named.)"""
    seat = None if who.seat is None else SEAT_LETTERS.index(who.seat)
    version = 0
    checked = named = 0
    frames = who.frames
    for i, frame in enumerate(frames):
        doc = frame.doc
        assert isinstance(doc, dict), (who.name, frame)
        cards = cards_named(doc)
        if "/ws/games/" not in frame.url:
            assert not cards, (who.name, frame.url, doc)
            continue
        version = max(version, int(doc.get("version") or 0), view_version(frames, i))
        game = journal.game_at(min(version, journal.last))
        extra = cards - allowed_for(game, seat)
        assert not extra, (f"{who.name} ({who.seat or 'watching'}) was sent {sorted(extra)} "
                           f"at version {version}: {doc.get('type')}")
        if who.seat is None:
            if "you" in doc:
                assert doc["you"] is None, (who.name, doc["you"])
            view = doc.get("view")
            if isinstance(view, dict):
                assert view.get("hand") == [] and view.get("legal") == [], (who.name, view)
        checked += 1
        named += len(cards)
    return checked, named


# ---------------------------------------------------------------- step 3: the profiles


def stat(page: Page, label: str) -> str:
    """A figure of the "Online matches" statistics on a profile page."""
    online = page.locator(".player-stats").filter(
        has=page.get_by_role("heading", name="Online matches"))
    return online.locator("dl > div").filter(
        has=page.locator("dt", has_text=re.compile(f"^{label}$"))).locator("dd").inner_text()


def minus(total: int) -> str:
    """A score as the pages write it, with a minus sign."""
    return str(total).replace("-", "−")


FIT_JS = """() => ({
  window: innerWidth,
  page: document.documentElement.scrollWidth,
  tables: [...document.querySelectorAll('.table-scroll')].map((e) => [e.scrollWidth,
    e.clientWidth]),
})"""


def check_profile(who: Player, everyone: list[Player], base: str, table: str,
                  final: dict[str, Any], review: bool) -> None:
    """Their own profile shows the new rating as a range, counts the match and lists it with
    a score sheet and a review that open."""
    page = who.page
    answer = page.goto(f"{base}/players/{who.name}")
    assert answer is not None and answer.status == 200
    expect(page.get_by_role("heading", level=1)).to_have_text(who.name)
    line = page.locator(".rating-line").inner_text()
    found = RATING_LINE.search(line)
    assert found, line
    mu, low, high = found.groups()
    assert mu != START_MU and float(low) < float(mu) < float(high), line
    api = page.request.get(f"{base}/api/players/{who.name}").json()["rating"]
    assert (mu, low, high) == (f"{api['mu']:.1f}", f"{api['low']:.1f}", f"{api['high']:.1f}")
    assert api["matches"] == 1
    who.shown = api
    expect(page.get_by_role("img", name=f"Rating of {who.name}, match by match")).to_be_visible()

    side = "NS" if who.seat in ("N", "S") else "EW"
    won = final["view"]["winner"] == side
    assert stat(page, "Matches played") == "1"
    assert stat(page, "Matches won") == ("1 of 1" if won else "0 of 1")

    rows = page.locator("table.match-list tbody tr")
    expect(rows).to_have_count(1)
    row = rows.first
    expect(row.locator("time")).to_have_attribute("datetime", re.compile(r"^\d{4}-\d\d-\d\dT"))
    for other in everyone:
        expect(row.get_by_role("link", name=other.name, exact=True)).to_be_visible()
    expect(row.locator("ul.badges li").filter(has_text=str(TARGET))).to_have_count(1)
    totals = final["view"]["totals"]
    us, them = totals[side], totals["EW" if side == "NS" else "NS"]
    expect(row).to_contain_text(f"{minus(us)}–{minus(them)}")
    expect(row).to_contain_text("Won" if won else "Lost")

    fit = page.evaluate(FIT_JS)
    assert fit["page"] <= fit["window"], fit
    assert all(inner <= outer for inner, outer in fit["tables"]), fit
    if review:
        shot(page, "journey-profile")

    with page.expect_navigation() as sheet:
        row.get_by_role("link", name="Score sheet").click()
    assert sheet.value is not None and sheet.value.status == 200
    assert table_id(page) == table
    over = page.locator("#over-dialog")
    expect(over).to_be_visible()
    expect(page.locator("#over-history tr")).to_have_count(2)  # the sides, and hand 1
    expect(page.locator("#over-score")).to_contain_text(minus(us))
    if not review:
        return
    page.go_back()
    with page.expect_navigation() as reviewed:
        page.locator("table.match-list tbody tr").first.get_by_role(
            "link", name="Review").click()
    assert reviewed.value is not None and reviewed.value.status == 200
    expect(page.locator("#review-title")).to_have_text(re.compile(r"^Hand 1, dealt by "),
                                                       timeout=30_000)
    expect(page.locator("#review-result")).not_to_be_empty()
    expect(page.locator("#review-bids")).to_contain_text("Took")
    expect(page.locator("#review-error")).to_be_hidden()


# ---------------------------------------------------------------- step 4: the rebuild


def rebuild_ratings(server: Server) -> str:
    """``varaq ratings rebuild`` on the server's SQLite file, with the server's environment."""
    env = {**os.environ, "VARAQ_PACE": str(server.pace), "VARAQ_TEST_MODE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "varaq.cli", "ratings", "rebuild", "--db", server.db_url],
        env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


# ---------------------------------------------------------------- the journey


def test_four_people_finish_a_match_watched_live_and_find_it_on_their_profiles(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
) -> None:
    base = server.base
    players = [newcomer(browser, console, people, base, prefix)
               for prefix in ("Host", "Guest", "Linked", "Fourth")]
    watcher = newcomer(browser, console, people, base, "Watcher")

    # 1 and 2: the match, watched from Live tables from its first card to its end.
    table = seat_four_and_start(players, base)
    for p in players:  # the service worker serves each player's table, as at home
        p.page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    watch_from_live_tables(watcher, players[0], base, table)
    moves = play_to_the_end(players, watcher)
    final = state_as(players[0].page, base, table)
    assert final["status"] == "over" and final["view"]["winner"] in ("NS", "EW"), final
    assert moves >= 4 + 52, moves

    journal = Journal(server.db_url, table)
    checked = {p.name: check_frames(journal, p) for p in [*players, watcher]}
    for p in players:  # each seat was sent its own cards: the check saw real hands
        assert checked[p.name][1] >= 13, checked
    assert checked[watcher.name][1] >= 4, checked  # and the watcher the cards played

    # 3: each profile, with the score sheet for everyone and the review of hand 1 for South.
    for p in players:
        check_profile(p, players, base, table, final, review=p.seat == "S")
    # The watcher was not at this table, but it was public: its match is in every history.
    seen = watcher.page.request.get(f"{base}/api/matches/{table}")
    assert seen.status == 200 and seen.json()["kind_text"] == "Public table", seen.text()
    watcher.page.goto(f"{base}/players/{players[0].name}")
    expect(watcher.page.locator("main")).to_contain_text("Public table")

    # 4: the rebuild gives each rating the server showed.
    before = stored_ratings_of(server)
    out = rebuild_ratings(server)
    assert re.search(r"rebuilt 4 ratings from 1 rated matches", out), out
    after = stored_ratings_of(server)
    assert set(after) == set(before) and len(after) == 4, (before, after)
    for uid, (mu, sigma, matches) in after.items():
        assert (mu, sigma) == pytest.approx(before[uid][:2], abs=1e-9), (uid, before, after)
        assert matches == before[uid][2] == 1
    for p in players:
        api = p.page.request.get(f"{base}/api/players/{p.name}").json()["rating"]
        assert api == p.shown, (p.name, p.shown, api)


def stored_ratings_of(server: Server) -> dict[int, tuple[float, float, int]]:
    store = Store(server.db_url)
    try:
        return stored_ratings(store)
    finally:
        store.close()
