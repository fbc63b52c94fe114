"""The web table's HTTP API (docs/protocol.md): every route, every refusal, a whole hand."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from varaq.bots.advice import trick_reasons
from varaq.cards import parse_hand
from varaq.record import load_record
from varaq.rules import Rules
from varaq.service.settings import Pace
from web_helpers import make_app, new_game, play_hand, state, wait_for_south


def refused(response: Any, status: int, words: str = "") -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    reason: str = body["error"]
    assert "\n" not in reason and reason
    assert words.lower() in reason.lower(), reason
    return reason


# -- simple routes ------------------------------------------------------------------------


def test_healthz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"ok": True}


def test_presets_lists_presets_options_and_levels(client: TestClient) -> None:
    doc = client.get("/api/presets").json()
    assert set(doc["presets"]) == {"classic", "short", "varaq", "daily"}
    assert doc["presets"]["short"]["target"] == 300
    assert doc["presets"]["varaq"]["blind_nil"] is False
    assert "bag_penalty" in doc["options"]
    assert doc["levels"] == ["easy", "normal", "hard", "expert"]


def test_pages_serve_the_client_html(client: TestClient) -> None:
    for path in ("/", "/play/whatever-id-123"):
        response = client.get(path)
        if response.status_code == 503:  # a checkout without the client: a clear message
            assert "index.html" in response.text
        else:
            assert response.status_code == 200
            assert "<html" in response.text.lower()


def test_unknown_path_and_wrong_method_are_json_refusals(client: TestClient) -> None:
    refused(client.get("/api/nothing-here"), 404, "no such page")
    refused(client.get("/api/games"), 405, "GET")


# -- creating a game ----------------------------------------------------------------------


def test_create_game_deals_and_shows_south_only(frozen: TestClient) -> None:
    doc = new_game(frozen, rules="classic", seed=11)
    st = doc["state"]
    assert len(doc["id"]) >= 20 and st["id"] == doc["id"]
    assert st["version"] == 1 and st["status"] == "playing" and st["level"] == "easy"
    assert st["names"] == {"N": "Partner", "E": "East", "S": "You", "W": "West"}
    view = st["view"]
    assert view["seat"] == "S" and view["rules"] == "classic"
    assert len(view["hand"]) == 13
    assert [e["kind"] for e in st["events"]] == ["deal"]
    assert st["events"][0]["version"] == 1


def test_create_game_defaults_to_normal_varaq(client: TestClient) -> None:
    response = client.post("/api/games")
    assert response.status_code == 201
    st = response.json()["state"]
    assert st["level"] == "normal" and st["view"]["rules"] == "varaq"


def test_same_seed_same_deal(frozen: TestClient) -> None:
    a = new_game(frozen, seed=99, rules="varaq")["state"]["view"]
    b = new_game(frozen, seed=99, rules="varaq")["state"]["view"]
    assert a["hand"] == b["hand"] and a["dealer"] == b["dealer"]


def test_custom_rules_are_played_and_shown_as_badges(frozen: TestClient) -> None:
    rules = {"preset": "classic", "target": 300, "two_clubs_leads": True, "min_team_bid": 4}
    view = new_game(frozen, rules=rules)["state"]["view"]
    assert view["target"] == 300
    assert view["rules"] == {"preset": "classic", "target": 300, "two_clubs_leads": True,
                             "min_team_bid": 4}
    assert "2♣ leads" in view["badges"] and "Board 4" in view["badges"]


def test_start_and_dealer_make_south_choose_blind_nil_first(frozen: TestClient) -> None:
    st = new_game(frozen, rules="classic", start={"total": {"NS": 0, "EW": 150}}, dealer="N")
    view = st["state"]["view"]
    assert view["totals"] == {"NS": 0, "EW": 150}
    assert view["phase"] == "blind" and view["turn"] == "S"
    assert view["cards_hidden"] is True and view["hand"] == []
    assert view["legal"] == ["blind nil", "look"]


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"level": "grandmaster"}, 400, "unknown level"),
        ({"rules": "poker"}, 422, "unknown preset"),
        ({"rules": {"preset": "classic", "jokers": True, "two_clubs_leads": True}}, 422,
         "cannot be combined"),
        ({"rules": {"preset": "classic", "colour": "red"}}, 422, "unknown rule"),
        ({"rules": {"preset": "varaq", "target": "lots"}}, 422, "whole number"),
        ({"rules": 7}, 422, "preset name or an object"),
        ({"seed": "abc"}, 400, "seed"),
        ({"seed": -1}, 400, "seed"),
        ({"start": {"total": {"NS": "x"}}}, 400, "start.total.NS"),
        ({"start": {"score": 3}}, 400, "start must be"),
        ({"start": {"bags": {"EW": -2}}}, 400, "negative"),
        ({"dealer": "Q"}, 400, "dealer"),
        ({"players": 3}, 400, "unknown field"),
    ],
)
def test_create_game_refusals(
    client: TestClient, body: dict[str, Any], status: int, words: str
) -> None:
    refused(client.post("/api/games", json=body), status, words)


JSON = {"Content-Type": "application/json"}


def test_create_game_refuses_malformed_bodies(client: TestClient) -> None:
    refused(client.post("/api/games", content=b"{nope", headers=JSON), 400, "not valid JSON")
    refused(client.post("/api/games", json=[1, 2]), 400, "JSON object")
    refused(client.post("/api/games", content=b"x" * 20000, headers=JSON), 413, "too large")


# -- reading a game -----------------------------------------------------------------------


def test_unknown_or_forged_game_ids_are_404(client: TestClient) -> None:
    # "../../etc" is not sent as is: the client resolves it to "/etc", which is no API address
    # (a browser gets the 404 page there); its /api/ forms below stay the API's JSON.
    assert client.get("/api/games/../../etc").status_code == 404
    for game_id in ("AAAAAAAAAAAAAAAAAAAAAA", "short", "..%2F..%2Fetc", "x" * 100):
        for path in ("", "/hint", "/record"):
            refused(client.get(f"/api/games/{game_id}{path}"), 404)
        refused(client.post(f"/api/games/{game_id}/actions", json={"action": "AS"}), 404)
        refused(client.post(f"/api/games/{game_id}/next"), 404)
        refused(client.post(f"/api/games/{game_id}/concede"), 404)


def test_since_gives_the_events_after_a_version(client: TestClient) -> None:
    gid = new_game(client, dealer="E")["id"]  # South bids first
    client.post(f"/api/games/{gid}/actions", json={"action": "bid 2"})
    st = wait_for_south(client, gid)
    events = client.get(f"/api/games/{gid}?since=1").json()["events"]
    assert [e["version"] for e in events] == list(range(2, st["version"] + 1))
    assert events[0] == {"version": 2, "kind": "bid", "seat": "S", "action": "bid 2",
                         "trick": None, "hand": None, "winner": None}
    assert client.get(f"/api/games/{gid}?since={st['version']}").json()["events"] == []
    future = client.get(f"/api/games/{gid}?since=9999").json()
    assert future["resync"] is True
    refused(client.get(f"/api/games/{gid}?since=abc"), 400, "since")


# -- actions and their refusals -----------------------------------------------------------


def unchanged(client: TestClient, gid: str, before: dict[str, Any]) -> None:
    after = state(client, gid)
    assert after["version"] == before["version"] and after["view"] == before["view"]


def test_action_refusals_change_nothing(frozen: TestClient) -> None:
    gid = new_game(frozen, rules="classic", dealer="E", seed=3)["id"]  # South bids first
    before = state(frozen, gid)
    assert before["view"]["turn"] == "S" and before["view"]["phase"] == "bid"
    url = f"/api/games/{gid}/actions"
    refused(frozen.post(url, json={"action": "QS", "version": 1}), 400, "must bid now")
    refused(frozen.post(url, json={"action": "bid 14"}), 400, "out of range")
    refused(frozen.post(url, json={"action": "teleport"}), 400, "unknown action")
    refused(frozen.post(url, json={"action": ""}), 400, "action")
    refused(frozen.post(url, json={"move": "bid 3"}), 400, "action")
    refused(frozen.post(url, json={"action": 3}), 400, "action")
    refused(frozen.post(url, content=b"bid 3", headers=JSON), 400, "not valid JSON")
    refused(frozen.post(url, content=b'{"action": "bid 3"}'), 415, "application/json")
    refused(frozen.post(url, json={"action": "bid 3", "version": 0}), 409, "stale version")
    refused(frozen.post(url, json={"action": "bid 3", "version": "1"}), 400, "version")
    refused(frozen.post(url, json={"action": "blind nil"}), 400, "blind nil by S refused")
    refused(frozen.post(f"/api/games/{gid}/next", json={}), 409, "not finished")
    unchanged(frozen, gid, before)
    ok = frozen.post(url, json={"action": "bid 3", "version": 1})
    assert ok.status_code == 200
    st = ok.json()
    assert st["version"] == 2 and st["view"]["bids"]["S"] == 3
    assert [e["version"] for e in st["events"]] == [2]


def test_bid_out_of_turn_is_409(frozen: TestClient) -> None:
    gid = new_game(frozen, dealer="S")["id"]  # West bids first, and the bots are frozen
    before = state(frozen, gid)
    assert before["view"]["turn"] == "W"
    refused(frozen.post(f"/api/games/{gid}/actions", json={"action": "bid 4"}), 409,
            "not S's turn")
    refused(frozen.get(f"/api/games/{gid}/hint"), 409, "not your turn")
    unchanged(frozen, gid, before)


def test_illegal_card_is_refused_with_the_reason(client: TestClient) -> None:
    gid = new_game(client, rules="classic", seed=21)["id"]
    for _ in range(60):
        st = wait_for_south(client, gid)
        view = st["view"]
        if view["phase"] == "play" and view["trick"]:
            led = view["trick"][0]["card"][-1]
            wrong = [c for c in view["hand"] if c[-1] != led]
            if len(wrong) < len(view["hand"]) and wrong:  # South can follow: others are illegal
                reason = refused(
                    client.post(f"/api/games/{gid}/actions", json={"action": wrong[0]}), 400)
                assert reason.startswith(f"S cannot play {wrong[0]}: must follow")
                refused(client.post(f"/api/games/{gid}/actions", json={"action": "2C"})
                        if "2C" not in view["hand"] else
                        client.post(f"/api/games/{gid}/actions", json={"action": "3D"}),
                        400, "does not hold")
                unchanged(client, gid, st)
                return
        client.post(f"/api/games/{gid}/actions", json={"action": south_first(view)})
    pytest.fail("South never had to follow suit")


def south_first(view: dict[str, Any]) -> str:
    return "look" if "look" in view["legal"] else ("bid 3" if "bid 3" in view["legal"]
                                                   else view["legal"][0])


# -- whole hands, next, concede, hint, record ---------------------------------------------


def test_a_whole_hand_through_the_api(client: TestClient) -> None:
    gid = new_game(client, rules="classic", seed=5)["id"]
    st = play_hand(client, gid)
    view = st["view"]
    assert view["phase"] == "deal" and view["turn"] is None
    assert len(view["history"]) == 1 and sum(view["history"][0]["tricks"].values()) == 13
    assert len(view["tricks"]) == 13 and sum(view["taken"].values()) == 13
    events = client.get(f"/api/games/{gid}?since=0").json()["events"]
    assert [e["version"] for e in events] == list(range(1, st["version"] + 1))
    plays = [e for e in events if e["kind"] == "play"]
    assert len(plays) == 52 and sum(1 for e in plays if e["trick"]) == 13
    assert plays[-1]["hand"] == view["history"][0]
    assert st["version"] == 1 + 4 + 52  # the deal, four bids, 52 cards
    # The summary waits for South: no deal until "next".
    assert state(client, gid)["version"] == st["version"]
    nxt = client.post(f"/api/games/{gid}/next", json={"version": st["version"]})
    assert nxt.status_code == 200
    assert nxt.json()["view"]["hand_no"] == 2
    assert nxt.json()["view"]["phase"] in ("blind", "bid")  # blind if a side trails by 100
    refused(client.post(f"/api/games/{gid}/next", json={"version": st["version"]}), 409)


def test_concede_ends_the_match_for_east_west(frozen: TestClient) -> None:
    gid = new_game(frozen)["id"]
    response = frozen.post(f"/api/games/{gid}/concede")
    assert response.status_code == 200
    st = response.json()
    assert st["status"] == "over" and st["view"]["winner"] == "EW"
    assert st["view"]["conceded"] == "NS" and st["view"]["phase"] == "over"
    assert st["events"][-1]["kind"] == "concede" and st["events"][-1]["side"] == "NS"
    refused(frozen.post(f"/api/games/{gid}/concede"), 409, "over")
    refused(frozen.post(f"/api/games/{gid}/next"), 409, "match is over")
    refused(frozen.post(f"/api/games/{gid}/actions", json={"action": "bid 3"}), 409)
    assert frozen.get(f"/api/games/{gid}/record").json()["conceded"] == "NS"


def test_hint_names_a_legal_action_and_a_reason(frozen: TestClient) -> None:
    gid = new_game(frozen, dealer="E", seed=8)["id"]
    view = state(frozen, gid)["view"]
    hint = frozen.get(f"/api/games/{gid}/hint").json()
    assert hint["action"] in view["legal"]
    assert isinstance(hint["text"], str) and hint["text"] and "\n" not in hint["text"]
    assert hint["bot"] == "hard"  # not a weaker player standing in after a failure
    assert state(frozen, gid)["version"] == 1  # asking for a hint changes nothing


def test_record_download_replays_to_the_same_view(client: TestClient) -> None:
    gid = new_game(client, rules="classic", seed=13)["id"]
    st = play_hand(client, gid)
    client.post(f"/api/games/{gid}/next")
    st = wait_for_south(client, gid)
    response = client.get(f"/api/games/{gid}/record")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    doc = response.json()
    assert doc["format"] == "varaq-record/1" and len(doc["hands"]) == 2
    # A running match: the finished hand in full, of the hand in progress South's cards only.
    assert doc["partial"] is True and doc["reader"] == "S"
    assert set(doc["hands"][0]["deal"]) == {"N", "E", "S", "W"}
    assert list(doc["hands"][1]["deal"]) == ["S"]
    assert sorted(doc["hands"][1]["deal"]["S"].split()) == sorted(st["view"]["hand"])
    replayed = load_record(doc)
    assert replayed.hand_no == 1 and replayed.totals == [
        st["view"]["totals"]["NS"], st["view"]["totals"]["EW"]]


def test_blind_nil_and_the_exchange_through_the_api(client: TestClient) -> None:
    gid = new_game(client, rules="classic", start={"total": {"NS": 0, "EW": 150}},
                   dealer="N", seed=12)["id"]
    st = wait_for_south(client, gid)
    assert st["view"]["phase"] == "blind" and st["view"]["hand"] == []
    url = f"/api/games/{gid}/actions"
    refused(client.post(url, json={"action": "bid 3"}), 400, "must first choose blind nil")
    assert client.post(url, json={"action": "blind nil"}).status_code == 200
    st = wait_for_south(client, gid)  # East, West and North bid; North passes two cards
    view = st["view"]
    assert view["phase"] == "exchange" and view["bids"]["S"] == "blind"
    assert len(view["hand"]) == 15 and len(view["received"]) == 2
    north_passes = [e for e in client.get(f"/api/games/{gid}?since=0").json()["events"]
                    if e["kind"] == "pass"]
    assert [(e["seat"], e["action"]) for e in north_passes] == [("N", None), ("N", None)]
    refused(client.post(url, json={"action": "bid 2"}), 400, "must pass a card")
    first, second = view["hand"][-1], view["hand"][-2]
    st = client.post(url, json={"action": first}).json()
    assert st["view"]["passing"] == [first] and st["events"][-1]["action"] == first
    refused(client.post(url, json={"action": first}), 400, "already chosen")
    client.post(url, json={"action": second})
    st = wait_for_south(client, gid)
    assert st["view"]["phase"] == "play" and len(st["view"]["hand"]) == 13
    assert sorted(st["view"]["gave"]) == sorted([first, second])


def test_pace_scales_the_computer_players_pauses(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(1)
    human = Pace(1.0)
    cards = [human.delay(rng, after_trick=False) for _ in range(200)]
    assert min(cards) >= 0.5 and max(cards) <= 0.9
    assert human.delay(rng, after_trick=True) == 1.2
    assert Pace(2.0).delay(rng, after_trick=True) == 2.4
    assert Pace(0.0).delay(rng, after_trick=False) == 0.0
    monkeypatch.setenv("VARAQ_PACE", "0")
    assert Pace.from_env().scale == 0.0
    monkeypatch.setenv("VARAQ_PACE", "fast")
    with pytest.raises(ValueError, match="VARAQ_PACE must be a number, not 'fast'"):
        Pace.from_env()
    monkeypatch.setenv("VARAQ_PACE", "-1")
    with pytest.raises(ValueError, match="cannot be negative"):
        Pace.from_env()


def test_a_storage_failure_refuses_the_action_and_changes_nothing(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with TestClient(app) as client:
        gid = new_game(client, dealer="E")["id"]  # South bids first
        before = state(client, gid)
        store = app.state.store
        working = store.append_many

        def broken(*args: Any, **kwargs: Any) -> None:
            raise OSError("disk full")

        store.append_many = broken
        try:
            refused(client.post(f"/api/games/{gid}/actions", json={"action": "bid 3"}), 503,
                    "could not store the action: OSError")
            unchanged(client, gid, before)
        finally:
            store.append_many = working
        assert client.post(f"/api/games/{gid}/actions", json={"action": "bid 3"}).status_code == 200
        assert wait_for_south(client, gid)["view"]["phase"] == "play"


def test_computer_players_retry_after_a_storage_failure(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with TestClient(app) as client:
        store = app.state.store
        working = store.append_many
        failures: list[int] = []

        def flaky(*args: Any, **kwargs: Any) -> None:
            if len(failures) < 2:
                failures.append(1)
                raise OSError("database is locked")
            return working(*args, **kwargs)

        store.append_many = flaky
        gid = new_game(client, dealer="S")["id"]  # West moves first: its first saves fail
        st = wait_for_south(client, gid)
        assert len(failures) == 2 and st["view"]["turn"] == "S" and st["version"] == 4


def test_a_whole_short_match_ends_with_a_winner(client: TestClient) -> None:
    gid = new_game(client, rules={"preset": "varaq", "target": 60, "mercy": -60}, seed=2)["id"]
    for _ in range(30):
        st = play_hand(client, gid)
        if st["view"]["phase"] == "over":
            break
        assert client.post(f"/api/games/{gid}/next").status_code == 200
    view = st["view"]
    assert st["status"] == "over" and view["winner"] in ("NS", "EW") and view["turn"] is None
    assert st["events"][-1]["winner"] == view["winner"]
    refused(client.post(f"/api/games/{gid}/next"), 409, "match is over")
    refused(client.get(f"/api/games/{gid}/hint"), 409, "not your turn")
    record = client.get(f"/api/games/{gid}/record").json()
    assert load_record(record).winner == ("NS", "EW").index(view["winner"])


def test_the_hint_during_bidding_says_where_the_tricks_come_from(frozen: TestClient) -> None:
    gid = new_game(frozen, dealer="E", seed=21)["id"]  # South bids first
    view = state(frozen, gid)["view"]
    hint = frozen.get(f"/api/games/{gid}/hint").json()
    assert hint["bot"] == "hard"
    bid = re.fullmatch(r"bid (\d+)", hint["action"])
    assert bid is not None and hint["action"] in view["legal"], hint
    # The words are the bid advisor's count of this very hand, not any sentence at all.
    jokers = Rules.named("varaq").jokers  # the table's rules: the default preset
    sources = trick_reasons(parse_hand(" ".join(view["hand"])), jokers)
    assert sources != "no sure tricks"
    assert hint["text"].startswith(f"{bid[1]}: {sources}. "), hint["text"]


def test_a_signed_in_players_single_player_game_is_among_their_tables(client: TestClient) -> None:
    """So their profile and history can show it, and a closed tab finds it again."""
    from online_helpers import sign_up

    ana = sign_up(client, "Ana")
    made = ana.post("/api/games", {"level": "easy"})
    assert made.status_code == 201, made.text
    game_id = made.json()["id"]
    tables = ana.get("/api/account").json()["tables"]
    assert {"id": game_id, "kind": "solo", "status": "playing", "seat": "S"} in tables
    client.cookies.clear()
    guest = client.post("/api/games", json={"level": "easy"}).json()["id"]
    assert guest not in {t["id"] for t in ana.get("/api/account").json()["tables"]}


def test_an_expert_table_thinks_in_the_worker_pool_with_its_own_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Expert is offered like the other levels, and its players search in the worker
    processes (never on the event loop) with Expert's longer budget."""
    from concurrent.futures import ThreadPoolExecutor

    from varaq.bots.hard import EXPERT_BUDGET
    from varaq.service import botpool

    asked: list[tuple[str, float]] = []

    def stand_in(level: str, view: Any, seed: str, budget: float,
                 samples: Any = None) -> botpool.BotAnswer:
        asked.append((level, budget))
        return botpool.BotAnswer(view.legal[0], "the first legal action", level)

    monkeypatch.setattr(botpool, "decide_in_worker", stand_in)
    with TestClient(make_app(tmp_path)) as client:
        client.app.state.tables.bots._executor = ThreadPoolExecutor(1)  # type: ignore
        assert "expert" in client.get("/api/presets").json()["levels"]
        game = new_game(client, level="expert", dealer="S")  # West bids first
        wait_for_south(client, game["id"])
    assert asked and all(level == "expert" for level, _ in asked), asked
    assert any(budget == EXPERT_BUDGET for _, budget in asked), asked
