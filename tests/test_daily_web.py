"""The daily on a server: the same cards for everyone with one secret, one counted try per
person and date, guests uncounted, late tries, the day's leaderboard with the duplicate
comparison, the calendar, and nothing sent that South may not see."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session
from starlette.applications import Starlette
from starlette.testclient import TestClient

from online_helpers import Person, sign_up, wait_until
from varaq import Game
from varaq.bots import advice
from varaq.cards import hand_text
from varaq.daily import DAILY_RULES, DAILY_SAMPLES, DAILY_SAMPLES_FROM, daily_samples, daily_seed
from varaq.service.daily import Daily, DailyTryRow, samples_from_env
from varaq.service.store import Store, TableRow
from web_helpers import make_app, south_choice, wait_for_south

pytestmark = pytest.mark.timeout(240)

DAY = date(2026, 12, 1)
SECRET = b"the daily tests' server secret"


#: Layouts a Hard bid is priced over here (a table's is ``advice.BID_SAMPLES``, 20): these
#: tests are about the daily's tries and boards, not the quality of the bids, and 20 solved
#: full deals a bid were most of their time.
QUICK_BID_SAMPLES = 4


@contextmanager
def served(tmp_path: Path, secret: bytes = SECRET, today: date = DAY) -> Iterator[TestClient]:
    """A server whose daily is played by Hard players sampling one layout a card and
    :data:`QUICK_BID_SAMPLES` a bid (quick, and as deterministic as the real counts), on a
    fixed "today".  The server runs in this process, so the bid count read when a table asks
    for a bid (``advice.decision_seed``) is the patched one."""
    app: Starlette = make_app(tmp_path, secret=secret)
    with patch.object(advice, "BID_SAMPLES", QUICK_BID_SAMPLES), TestClient(app) as client:
        app.state.daily = Daily(app.state.tables, samples=1, today=lambda: today)
        yield client


def set_today(client: TestClient, today: date) -> None:
    client.app.state.daily.today = lambda: today  # type: ignore[attr-defined]


def start(who: TestClient | Person, day: date = DAY, status: int | None = None) -> dict[str, Any]:
    path = f"/api/daily/{day.isoformat()}/start"
    response = who.post(path) if isinstance(who, Person) else who.post(path, json={})
    if status is not None:
        assert response.status_code == status, response.text
    else:
        assert response.status_code in (200, 201), response.text
    doc: dict[str, Any] = response.json()
    return doc


def get(who: TestClient | Person, path: str) -> dict[str, Any]:
    response = who.get(path)
    assert response.status_code == 200, response.text
    doc: dict[str, Any] = response.json()
    return doc


def post(who: TestClient | Person, path: str, status: int = 200) -> dict[str, Any]:
    response = who.post(path) if isinstance(who, Person) else who.post(path, json={})
    assert response.status_code == status, response.text
    doc: dict[str, Any] = response.json()
    return doc


def play_hand(who: TestClient | Person, table_id: str,
              choose: Callable[[dict[str, Any]], str] = south_choice) -> dict[str, Any]:
    """South plays the hand out with ``choose``; the state once it is scored."""
    client = who.client if isinstance(who, Person) else who
    for _ in range(100):
        if isinstance(who, Person):
            state = wait_until(lambda: _ready(who.state(table_id)), "South's turn")
        else:
            state = wait_for_south(client, table_id)
        if state["view"]["phase"] in ("deal", "over"):
            return state
        body = {"action": choose(state["view"]), "version": state["version"]}
        response = (who.post(f"/api/games/{table_id}/actions", body) if isinstance(who, Person)
                    else client.post(f"/api/games/{table_id}/actions", json=body))
        assert response.status_code == 200, response.text
    raise AssertionError("the hand did not finish")


def _ready(state: dict[str, Any]) -> dict[str, Any] | None:
    view = state["view"]
    return state if view["legal"] or view["phase"] in ("deal", "over") else None


def board(who: TestClient | Person, day: date = DAY, table: str | None = None,
          patience: int = 0) -> dict[str, Any]:
    """A day's results; with ``patience``, read again until that many tries are ranked (rows
    are written just after the move that ends a match)."""
    path = f"/api/daily/{day.isoformat()}" + (f"?table={table}" if table else "")

    def read() -> dict[str, Any] | None:
        doc = get(who, path)
        return doc if len(doc["board"]["ranked"]) >= patience else None

    found: dict[str, Any] = wait_until(read, f"{patience} ranked tries")
    return found


def bid_one(view: dict[str, Any]) -> str:
    """Another South: bids 1 where the first bids 3."""
    return "bid 1" if "bid 1" in view["legal"] else south_choice(view)


# -- the same cards ---------------------------------------------------------------------------


def test_two_servers_with_one_secret_deal_the_same_daily_hand_by_hand(tmp_path: Path) -> None:
    with served(tmp_path / "a") as one, served(tmp_path / "b") as two:
        tries = [start(one), start(two)]
        first = [t["state"]["view"] for t in tries]
        assert first[0]["hand"] == first[1]["hand"] and len(first[0]["hand"]) == 13
        assert first[0]["dealer"] == first[1]["dealer"]
        # The same play meets the same computer players' answers...
        ends = [play_hand(client, t["id"]) for client, t in zip((one, two), tries, strict=True)]
        assert ends[0]["view"]["history"] == ends[1]["view"]["history"]
        records = [get(c, f"/api/games/{t['id']}/record") for c, t in ((one, tries[0]),
                                                                       (two, tries[1]))]
        assert records[0]["hands"][0] == records[1]["hands"][0]
        # ...and the next hand is the same deal on both servers.
        nexts = [post(c, f"/api/games/{t['id']}/next") for c, t in ((one, tries[0]),
                                                                   (two, tries[1]))]
        assert nexts[0]["view"]["hand"] == nexts[1]["view"]["hand"] != first[0]["hand"]


def test_another_date_or_another_secret_deals_other_cards(tmp_path: Path) -> None:
    with served(tmp_path / "a") as one, served(tmp_path / "b", secret=b"another secret") as two:
        today = start(one)["state"]["view"]["hand"]
        assert start(one, DAY - timedelta(days=1))["state"]["view"]["hand"] != today
        assert start(two)["state"]["view"]["hand"] != today
        assert start(one)["state"]["view"]["hand"] == today


def test_the_server_deals_the_keyed_seeds_cards(tmp_path: Path) -> None:
    game = Game(DAILY_RULES, seed=daily_seed(SECRET, DAY))
    game.deal()
    with served(tmp_path) as client:
        view = start(client)["state"]["view"]
    assert " ".join(view["hand"]) == hand_text(game.dealt[2])


# -- one counted try --------------------------------------------------------------------------


def test_a_second_start_resumes_the_same_try(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        ana = sign_up(client, "Ana")
        first = start(ana, status=201)
        assert first["counted"] is True and first["late"] is False and first["resumed"] is False
        again = start(ana, status=200)
        assert again["id"] == first["id"] and again["resumed"] is True
        assert again["state"]["view"]["hand"] == first["state"]["view"]["hand"]
        assert first["state"]["table"]["daily"] == {
            "date": "2026-12-01", "late": False, "counted": True,
        }
        # Only Ana acts at her try: without her cookie it is someone else's table.
        client.cookies.clear()
        refused = client.post(f"/api/games/{first['id']}/concede", json={})
        assert refused.status_code == 403


def test_a_finished_try_cannot_be_started_again(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        ana = sign_up(client, "Ana")
        table = start(ana)["id"]
        play_hand(ana, table)
        assert post(ana, f"/api/games/{table}/concede")["status"] == "over"
        again = start(ana, status=200)
        assert again["id"] == table and again["state"]["status"] == "over"
        assert ana.post(f"/api/games/{table}/next").status_code == 409
        doc = board(ana, patience=1)
        assert doc["you"]["status"] == "over" and doc["you"]["id"] == table
        assert doc["you"]["won"] is False and doc["you"]["conceded"] is True
        assert doc["board"]["ranked"][0]["name"] == "Ana"


def test_guests_play_uncounted_and_never_join_the_field(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        one, two = start(client, status=201), start(client, status=201)
        assert one["id"] != two["id"] and one["counted"] is False and one["late"] is False
        play_hand(client, one["id"])
        post(client, f"/api/games/{one['id']}/concede")
        doc = wait_until(lambda: (d := get(client, f"/api/daily/2026-12-01?table={one['id']}"))
                         ["you"]["status"] == "over" and d, "the guest's row")
        assert doc["signed_in"] is False
        assert doc["board"]["ranked"] == [] and doc["board"]["averages"] == []
        you = doc["you"]
        assert you["guest"] is True and you["counted"] is False and you["rank"] is None
        assert you["share"].startswith("Varaq daily 2026-12-01: lost")
        assert "vs the field" not in you["share"]  # nobody in the field to compare with
        # A guest's table answers only as a guest's: a person's try is not read by its id.
        ana = sign_up(client, "Ana")
        anas = start(ana)["id"]
        client.cookies.clear()
        assert get(client, f"/api/daily/2026-12-01?table={anas}")["you"] is None


def test_a_try_after_its_day_is_late_and_never_ranked(tmp_path: Path) -> None:
    with served(tmp_path, today=DAY + timedelta(days=1)) as client:
        bo = sign_up(client, "Bo")
        doc = start(bo, DAY, status=201)
        assert doc["late"] is True and doc["counted"] is False
        assert doc["state"]["table"]["daily"]["late"] is True
        table = doc["id"]
        play_hand(bo, table)
        post(bo, f"/api/games/{table}/concede")
        day = wait_until(lambda: (d := get(bo, "/api/daily/2026-12-01"))["you"]["status"]
                         == "over" and d, "Bo's row")
        assert day["late"] is True and day["board"]["ranked"] == []
        assert [(r["name"], r["late"], r["rank"]) for r in day["board"]["others"]] == [
            ("Bo", True, None),
        ]
        assert day["you"]["share"].startswith("Varaq daily 2026-12-01 (played late): ")
        # Today's try is still Bo's to count; the late one stays late.
        assert start(bo, DAY + timedelta(days=1), status=201)["counted"] is True
        assert start(bo, DAY, status=200)["late"] is True


# -- the leaderboard --------------------------------------------------------------------------


def test_two_people_see_each_other_ranked_against_the_field(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        ana, bo = sign_up(client, "Ana"), sign_up(client, "Bo")
        results = {}
        for person, choose in ((ana, south_choice), (bo, bid_one)):
            table = start(person)["id"]
            end = play_hand(person, table, choose)
            results[person.name] = end["view"]["history"][0]["score"]["NS"]
            post(person, f"/api/games/{table}/concede")
        doc = board(ana, patience=2)
        average = (results["Ana"] + results["Bo"]) / 2
        assert doc["board"]["averages"] == [round(average, 1)]
        rows = {r["name"]: r for r in doc["board"]["ranked"]}
        assert set(rows) == {"Ana", "Bo"}
        for name, row in rows.items():
            assert row["hands"] == [results[name]]
            assert row["against_field"] == round(results[name] - average, 1)
            assert row["status"] == "over" and row["won"] is False
            assert row["margin"] == row["totals"][0] - row["totals"][1]
        you = doc["you"]
        assert rows["Ana"]["you"] is True and rows["Bo"]["you"] is False
        if results["Ana"] != results["Bo"]:
            better = max(results, key=lambda n: results[n])
            assert rows[better]["rank"] == 1 and rows[better]["against_field"] > 0
            assert you["beat"] == (100 if better == "Ana" else 0)
        else:  # the same points: a tie, both first, neither beat the other
            assert rows["Ana"]["rank"] == rows["Bo"]["rank"] == 1 and you["beat"] == 0
        assert you["share"].endswith("vs the field") and "\n" not in you["share"]
        assert doc["board"]["players"] == 2
        assert sum(b["count"] for b in doc["board"]["distribution"]) == 2


def test_the_month_lists_each_day_with_a_daily_and_your_try(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        ana = sign_up(client, "Ana")
        start(ana)
        december = get(ana, "/api/daily/month/2026-12")
        assert [d["date"] for d in december["days"]] == ["2026-12-01"]
        assert december["days"][0]["you"] == {
            "status": "playing", "won": None, "late": False, "counted": True,
        }
        november = get(ana, "/api/daily/month/2026-11")["days"]
        assert len(november) == 30 and all(d["you"] is None for d in november)
        assert get(ana, "/api/daily/month/2027-01")["days"] == []
        assert get(ana, "/api/daily/month/2025-12")["days"] == []
        assert get(client, "/api/daily")["date"] == "2026-12-01"


def test_a_try_survives_a_restart(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        ana = sign_up(client, "Ana")
        first = start(ana)
        cookie = ana.cookie
    with served(tmp_path) as client:
        ana = Person(client, "Ana", cookie, ana.id)
        again = start(ana, status=200)
        assert again["id"] == first["id"]
        assert again["state"]["view"]["hand"] == first["state"]["view"]["hand"]


# -- limits and secrecy -----------------------------------------------------------------------


@pytest.mark.parametrize(("path", "status", "words"), [
    ("/api/daily/2026-12-02", 404, "not out yet"),
    ("/api/daily/2025-12-31", 404, "begin on"),
    ("/api/daily/2026-02-30", 404, "not a date"),
    ("/api/daily/2026-12-1", 404, "YYYY-MM-DD"),
    ("/api/daily/" + "9" * 3000, 404, "YYYY-MM-DD"),
    ("/api/daily/2026-12-01?table=../../x", 400, "game's id"),
    ("/api/daily/2026-12-01?table=" + "a" * 65, 400, "game's id"),
    ("/api/daily/month/2026-13", 404, "not a month"),
    ("/api/daily/month/26-1", 404, "YYYY-MM"),
])
def test_bad_dates_and_ids_are_refused_in_one_line(
    tmp_path: Path, path: str, status: int, words: str,
) -> None:
    with served(tmp_path) as client:
        response = client.get(path)
    assert response.status_code == status
    error = response.json()["error"]
    assert words in error and "\n" not in error and len(error) < 200


def test_tomorrows_daily_cannot_be_started(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        response = client.post("/api/daily/2026-12-02/start", json={})
        assert response.status_code == 404 and "not out yet" in response.json()["error"]
        assert client.post("/api/daily/2026-12-01/start", content=b"[" * 50,
                           headers={"content-type": "application/json"}).status_code == 400


def test_the_daily_sends_no_seed_and_no_card_south_may_not_see(tmp_path: Path) -> None:
    seed = daily_seed(SECRET, DAY)
    game = Game(DAILY_RULES, seed=seed)
    game.deal()
    first = [hand_text(h) for h in game.dealt]
    while game.phase_name in ("bid", "play"):  # any play: the next deal is the same
        game.apply(game.legal_actions()[0])
    game.deal()
    later = [hand_text(h) for h in game.dealt]
    with served(tmp_path) as client:
        ana, bo = sign_up(client, "Ana"), sign_up(client, "Bo")
        doc = start(ana)
        table = doc["id"]
        wait_for_play = wait_until(lambda: _ready(ana.state(table)), "Ana's turn")
        texts = [
            json.dumps(doc), json.dumps(wait_for_play),
            json.dumps(get(ana, f"/api/games/{table}/record")),
            json.dumps(get(ana, "/api/daily/2026-12-01")),
            json.dumps(get(ana, "/api/daily/month/2026-12")),
        ]
        watcher = get(bo, f"/api/games/{table}")
        assert watcher["you"] is None and watcher["view"]["hand"] == []
        texts.append(json.dumps(watcher))
        for text in texts:
            assert seed not in text and seed[:16] not in text
            for seat in (0, 1, 3):
                assert first[seat] not in text
            for hand in later:
                assert hand not in text
        assert " ".join(wait_for_play["view"]["hand"]) == first[2]
        hint = ana.get(f"/api/games/{table}/hint")
        assert hint.status_code == 409 and "no hints" in hint.json()["error"]
        # A concession mid-hand leaves the hand as South saw it, for others still play it.
        post(ana, f"/api/games/{table}/concede")
        record = json.dumps(get(ana, f"/api/games/{table}/record"))
        for seat in (0, 1, 3):
            assert first[seat] not in record


def test_a_daily_table_fixes_its_hard_players_sample_count(tmp_path: Path) -> None:
    """The real service (not the tests' one-layout Hard) on the real date."""
    app: Starlette = make_app(tmp_path)
    with TestClient(app) as client:
        today = date.fromisoformat(get(client, "/api/daily")["date"])
        doc = start(client, today)
        table = client.portal.call(app.state.tables.get, doc["id"])
        assert table.info.options["samples"] == daily_samples(today) >= 20
        assert table.info.level == "hard" and table.info.kind == "daily"


def test_a_daily_before_the_stronger_players_keeps_the_players_it_was_first_played_with(
    tmp_path: Path,
) -> None:
    """Everyone who plays one day's daily meets the same computer players: a day before
    ``DAILY_SAMPLES_FROM``, played late, still deals the 20 layouts a card it was played with."""
    app: Starlette = make_app(tmp_path, secret=SECRET)
    with TestClient(app):
        app.state.daily = Daily(app.state.tables, today=lambda: DAILY_SAMPLES_FROM)
        before = DAILY_SAMPLES_FROM - timedelta(days=1)
        for day, want in ((before, 20), (DAILY_SAMPLES_FROM, DAILY_SAMPLES)):
            info = app.state.daily.info(day, counted=False, late=day != DAILY_SAMPLES_FROM)
            assert info.options["samples"] == want
        assert DAILY_SAMPLES > 20


@pytest.mark.parametrize(("text", "want"), [("", None), ("1", 1), ("150", 150)])
def test_the_daily_sample_count_from_the_environment(text: str, want: int | None) -> None:
    with patch.dict("os.environ", {"VARAQ_DAILY_SAMPLES": text}):
        assert samples_from_env() == want


@pytest.mark.parametrize("text", ["0", "1001", "-3", "ten", "1e3", "٣"])
def test_a_bad_daily_sample_count_is_refused_in_one_line(text: str) -> None:
    with patch.dict("os.environ", {"VARAQ_DAILY_SAMPLES": text}), \
            pytest.raises(ValueError, match=r"^VARAQ_DAILY_SAMPLES must be a whole number") as e:
        samples_from_env()
    assert "\n" not in str(e.value)


def test_pruning_an_abandoned_try_takes_its_row_too(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        ana = sign_up(client, "Ana")
        table = start(ana)["id"]
        store = client.app.state.store  # type: ignore[attr-defined]
    with Session(store.engine) as session, session.begin():
        session.execute(update(TableRow).where(TableRow.id == table)
                        .values(updated=datetime.now(UTC) - timedelta(days=40)))
    store = Store(store.url)
    assert store.prune(timedelta(days=30)) == 1
    with Session(store.engine) as session:
        assert session.scalar(select(func.count()).select_from(DailyTryRow)) == 0
    store.close()


def test_a_server_without_a_secret_deals_no_daily(tmp_path: Path) -> None:
    with served(tmp_path, secret=b"") as client:
        response = client.post("/api/daily/2026-12-01/start", json={})
    assert response.status_code == 503 and "no secret" in response.json()["error"]
