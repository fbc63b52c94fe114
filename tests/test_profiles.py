"""Profiles, match history and the ratings leaderboard: what four people see after a short
match, what a stranger may and may not see, and the refusals (unknown player, someone else's
private match), each in one line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from online_helpers import Person, sign_up, wait_until
from varaq.service.ratings import PROVISIONAL
from varaq.web.players import rating_chart
from web_helpers import make_app

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = make_app(tmp_path, drop_seconds=0.3, next_hand_seconds=0.5, turn_second=0.01)
    with TestClient(app) as c:
        yield c


def private_match(host: Person, *others: Person, listing: str = "private") -> str:
    """A private table of ``host`` and ``others`` (computer players in the empty seats), over
    at once: the host concedes (their partner is away).  ``listing="public"``: the host lists
    it under Live tables."""
    doc = host.ok("/api/tables", {"level": "easy", "fill_bots": True, "rules": "varaq",
                                  "listing": listing}, status=201)
    for person in others:
        person.ok("/api/tables/join", {"code": doc["code"]})
    host.ok(f"/api/games/{doc['id']}/start")
    assert host.ok(f"/api/games/{doc['id']}/concede")["concede"] == "conceded"
    return str(doc["id"])


def profile_of(person: Person | TestClient, name: str, matches: int) -> dict[str, Any]:
    """``name``'s profile as ``person`` sees it, once it lists ``matches`` matches."""
    def look() -> dict[str, Any] | None:
        response = person.get(f"/api/players/{name}")
        assert response.status_code == 200, response.text
        doc: dict[str, Any] = response.json()
        return doc if doc["total"] == matches else None

    doc: dict[str, Any] = wait_until(look, f"{name}'s {matches} matches")
    return doc


def test_after_a_match_each_profile_shows_the_rating_the_counts_and_the_match(
    client: TestClient,
) -> None:
    ana, bo, cai, dee = (sign_up(client, n) for n in ("Ana", "Bo", "Cai", "Dee"))
    tid = private_match(ana, bo, cai, dee)
    for person in (ana, bo, cai, dee):
        doc = profile_of(person, person.name, 1)
        assert doc["own"] is True
        rating = doc["rating"]
        assert isinstance(rating, dict)
        assert rating["matches"] == 1 and rating["provisional"] is True
        assert rating["low"] < rating["mu"] < rating["high"]
        online = doc["statistics"]["online"]
        assert online["played"] == 1 and online["won"] == (person.name in ("Cai", "Dee"))
        [entry] = doc["matches"]
        assert entry["id"] == tid and entry["kind"] == "private"
        assert {s["name"] for s in entry["seats"]} == {"Ana", "Bo", "Cai", "Dee"}
        assert entry["badges"][0] == "Varaq" and entry["conceded"] is True
        assert entry["links"]["record"] == f"/api/games/{tid}/record"
        assert len(doc["chart"]) == 1
    # The links work for the people who sat there.
    assert ana.get(f"/api/games/{tid}/record").status_code == 200
    assert ana.get(f"/api/matches/{tid}").json()["id"] == tid
    # The page shows the same, with the chart drawn on the server.
    page = ana.get("/players/Ana")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    html = page.text
    assert "<svg" in html and "<title id=\"chart-title\">Rating of Ana" in html
    assert f"Provisional: 1 of {PROVISIONAL} matches" in html
    assert f'/api/games/{tid}/record' in html and "Single player and daily" in html
    # One's own profile has the Friends panel: its script and styles load from this build.
    for name in ("friends.css", "friendspage.js"):
        found = re.findall(rf'"(/static/[^"]*/{name})"', html)
        assert len(found) == 1, (name, found)
        assert ana.get(found[0]).status_code == 200, found


def test_a_stranger_sees_quick_matches_but_never_a_private_one(client: TestClient) -> None:
    ana, bo, eve = (sign_up(client, n) for n in ("Ana", "Bo", "Eve"))
    tid = private_match(ana, bo)
    profile_of(ana, "Ana", 1)
    for stranger in (eve, client):
        doc = profile_of(stranger, "Ana", 0)
        assert doc["own"] is False and doc["matches"] == [] and doc["chart"] == []
        assert doc["statistics"]["online"]["played"] == 0
        # The rating is public; the match behind it is not.
        assert doc["rating"]["matches"] == 1
        refused = stranger.get(f"/api/matches/{tid}")
        assert refused.status_code == 403
        assert refused.json() == {"error": "this match was not public: only the people who "
                                           "sat there see it"}
        page = stranger.get("/players/Ana").text
        assert tid not in page and "Bo" not in page
    # Bo, who sat there, sees it on Ana's profile too.
    assert profile_of(bo, "Ana", 1)["matches"][0]["id"] == tid


def test_a_match_at_a_table_listed_under_live_tables_is_public(client: TestClient) -> None:
    # Anyone could watch it as it was played: anyone may find it in a history afterwards.
    ana, bo, eve = (sign_up(client, n) for n in ("Ana", "Bo", "Eve"))
    tid = private_match(ana, bo, listing="public")
    assert profile_of(ana, "Ana", 1)["matches"][0]["kind"] == "public"
    for stranger in (eve, client):
        doc = profile_of(stranger, "Ana", 1)
        entry = doc["matches"][0]
        assert entry["id"] == tid and entry["kind_text"] == "Public table"
        assert stranger.get(f"/api/matches/{tid}").status_code == 200
    # It is rated like any table of people.
    assert profile_of(ana, "Ana", 1)["rating"]["matches"] == 1


def test_unknown_players_and_matches_get_one_line(client: TestClient) -> None:
    for path in ("/api/players/Nobody", "/api/players/%20%20", "/api/players/" + "x" * 300):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.json()["error"].startswith("no player is called")
        assert "\n" not in response.json()["error"]
    missing = client.get("/api/matches/not-a-table")
    assert missing.status_code == 404 and missing.json() == {
        "error": "no finished match has that id"}
    page = client.get("/players/Nobody")
    assert page.status_code == 404 and "no player is called" in page.text
    assert client.get("/api/players/Nobody?offset=-1").status_code in (400, 404)


def test_the_leaderboard_lists_rated_players_with_their_range(client: TestClient) -> None:
    assert client.get("/api/ratings").json()["players"] == []
    ana, bo = sign_up(client, "Ana"), sign_up(client, "Bo")
    private_match(ana, bo)
    board = wait_until(lambda: client.get("/api/ratings").json()["players"], "a leaderboard")
    assert [p["name"] for p in board] == ["Ana", "Bo"] or [p["name"] for p in board] == [
        "Bo", "Ana"]
    for p in board:
        assert p["provisional"] is True and p["matches"] == 1 and p["low"] < p["high"]
    page = client.get("/players").text
    assert "provisional" in page and "/players/Ana" in page


def test_the_chart_is_plain_svg_with_a_title_and_a_description() -> None:
    points = [{"mu": 25 + i, "sigma": 8 - i / 2} for i in range(5)]
    html = rating_chart(points, "A<b>")
    svg = html[html.index("<svg"):html.index("</svg>") + 6]
    assert "<script" not in html and "<text" not in svg  # no text to stretch with the drawing
    # The scale (the highest and lowest values of the band) is beside it, hidden from readers.
    assert re.search(r'<div class="chart-scale" aria-hidden="true"><span>\d+</span>', html)
    assert "<title id=\"chart-title\">Rating of A&lt;b&gt;" in svg and "<desc" in svg
    assert "5 rated matches" in svg
    assert "No rated matches" in rating_chart([], "Ana")


def test_one_rated_match_draws_its_range_as_a_bar() -> None:
    """A single match is one x: its band still has width (a bar around the dot), and the
    description says one match rather than "from … to"."""
    svg = rating_chart([{"mu": 27.0, "sigma": 8.2}], "Ana")
    band = re.search(r'<polygon points="([^"]+)" class="chart-band"', svg)
    assert band, svg
    xs = {float(point.split(",")[0]) for point in band.group(1).split()}
    assert max(xs) - min(xs) >= 10, xs
    assert "1 rated match: 27.0, believed to lie within ±16.4." in svg


def test_a_hand_played_out_counts_on_both_partners_profiles(client: TestClient) -> None:
    """Ana and Bo, partners against two computer players, play one hand (bidding 2 each),
    then Ana concedes: each profile counts that hand, its contract and their side's points,
    as the engine scored them."""
    ana, bo = sign_up(client, "Ana"), sign_up(client, "Bo")
    doc = ana.ok("/api/tables", {"level": "easy", "fill_bots": True, "rules": "varaq"},
                 status=201)
    tid = doc["id"]
    bo.ok("/api/tables/join", {"code": doc["code"]})
    ana.ok(f"/api/games/{tid}/start")

    def step() -> dict[str, Any] | None:
        for person in (ana, bo):
            view: dict[str, Any] = person.state(tid)["view"]
            if view["phase"] in ("deal", "over"):
                return view
            if view["legal"]:
                choice = "bid 2" if "bid 2" in view["legal"] else view["legal"][0]
                person.post(f"/api/games/{tid}/actions", {"action": choice})
        return None

    view = wait_until(step, "the end of the first hand")
    assert len(view["history"]) == 1
    ana.ok(f"/api/games/{tid}/concede")
    for person in (ana, bo):
        online = profile_of(person, person.name, 1)["statistics"]["online"]
        assert online["hands"] == 1 and online["contracts"] == 1
        assert online["made"] + online["set"] == 1 and online["nils"] == 0
        assert online["points"] == view["totals"]["NS"] == online["points_a_hand"]


def test_a_daily_shows_on_ones_own_profile_only(client: TestClient) -> None:
    from datetime import date

    from varaq.service.daily import Daily

    day = date(2026, 12, 1)
    client.app.state.daily = Daily(  # type: ignore[attr-defined]
        client.app.state.tables, samples=1, today=lambda: day)  # type: ignore[attr-defined]
    ana, eve = sign_up(client, "Ana"), sign_up(client, "Eve")
    tid = ana.ok(f"/api/daily/{day.isoformat()}/start", status=201)["id"]
    assert ana.ok(f"/api/games/{tid}/concede")["status"] == "over"
    own = profile_of(ana, "Ana", 1)
    assert own["statistics"]["single"]["played"] == 1
    assert own["statistics"]["online"]["played"] == 0 and own["rating"]["matches"] == 0
    [entry] = own["matches"]
    assert entry["kind"] == "daily" and entry["seat"] == "S" and entry["won"] is False
    assert profile_of(eve, "Ana", 0)["statistics"]["single"]["played"] == 0
    assert eve.get(f"/api/matches/{tid}").status_code == 403


def test_a_single_player_game_belongs_to_the_account_its_seat_row_names(
    client: TestClient, tmp_path: Path,
) -> None:
    """A solo table's journal calls South a guest; a ``seats`` row naming an account (what
    opening the game signed in would store) makes the finished game that person's, seen by
    them alone — and ``varaq ratings rebuild`` finds it the same way."""
    from sqlalchemy import insert

    from varaq.cli import main as varaq
    from varaq.service.store import SeatRow, Store
    from web_helpers import db_url

    ana, eve = sign_up(client, "Ana"), sign_up(client, "Eve")
    client.cookies.clear()
    tid = client.post("/api/games", json={"level": "easy"}).json()["id"]
    store = Store(db_url(tmp_path))
    with store.engine.begin() as connection:
        connection.execute(insert(SeatRow).values(table_id=tid, seat=2, user_id=ana.id))
    store.close()
    client.cookies.clear()
    assert client.post(f"/api/games/{tid}/concede", json={}).json()["status"] == "over"
    own = profile_of(ana, "Ana", 1)
    assert own["matches"][0]["kind"] == "solo" and own["statistics"]["single"]["played"] == 1
    assert profile_of(eve, "Ana", 0)["matches"] == []
    assert varaq(["ratings", "rebuild", "--db", db_url(tmp_path)]) == 0
    assert profile_of(ana, "Ana", 1)["matches"][0]["id"] == tid


def test_the_leaderboard_and_profiles_count_against_the_per_address_read_limit(
    tmp_path: Path,
) -> None:
    from varaq.service.settings import Limits

    with TestClient(make_app(tmp_path, limits=Limits(read="3/minute"))) as client:
        ana = sign_up(client, "Ana")
        paths = ["/api/ratings", "/api/players/Ana", "/players/Ana"]
        assert [ana.get(p).status_code for p in paths] == [200, 200, 200]
        refused = ana.get("/api/ratings")
        assert refused.status_code == 429, refused.text
        assert "reads" in refused.json()["error"]
