"""Undo and Claim at the tables (issue 18): who may, where, and what the server answers.

Undo is for single-player games only (never the daily, never a table of people, where matches
are rated); it takes back South's last bid or card with the computer players' answers after it.
A claim is checked by the solver on the true cards: a wrong one is refused with the trick it
loses and changes nothing, a right one ends the hand and is in the record.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from starlette.testclient import TestClient

from online_helpers import sign_up
from varaq import Game
from varaq.actions import BID, action_text
from varaq.record import load_record
from varaq.seats import SEAT_LETTERS
from varaq.service.errors import Refusal
from varaq.service.handlers import undo_count
from varaq.service.journal import JournalError, read_line, replay, write_step
from varaq.service.seating import Seating
from web_helpers import new_game, south_choice, state, wait_for_south


def _post(client: TestClient, game_id: str, what: str, body: Any = None) -> Any:
    return client.post(f"/api/games/{game_id}/{what}", json={} if body is None else body)


def _act(client: TestClient, game_id: str, action: str, version: int) -> dict[str, Any]:
    response = _post(client, game_id, "actions", {"action": action, "version": version})
    assert response.status_code == 200, response.text
    doc: dict[str, Any] = response.json()
    return doc


def _south_in_play(client: TestClient, game_id: str, tricks: int) -> dict[str, Any]:
    """South's turn in the play, after at least ``tricks`` tricks of this hand."""
    while True:
        st = wait_for_south(client, game_id)
        view = st["view"]
        assert view["phase"] not in ("deal", "over"), "the hand ended first"
        if view["phase"] == "play" and len(view["tricks"]) >= tricks:
            return st
        _act(client, game_id, south_choice(view), st["version"])


def test_undo_takes_back_souths_card_and_the_answers_after_it(client: TestClient) -> None:
    gid = new_game(client, rules="classic", seed=31, dealer="W")["id"]
    before = _south_in_play(client, gid, 2)
    _act(client, gid, before["view"]["legal"][-1], before["version"])
    wait_for_south(client, gid)
    response = _post(client, gid, "undo")
    assert response.status_code == 200, response.text
    after = response.json()
    assert after["undo"] >= 1
    assert after["view"] == before["view"]  # the very position South played from
    assert after["events"][-1]["kind"] == "undo"
    assert after["events"][-1]["seat"] == "S"
    record = client.get(f"/api/games/{gid}/record").json()
    assert record["hands"][-1]["undos"][-1]["moves"][0] == before["view"]["legal"][-1]


def test_a_second_undo_takes_back_the_trick_before(client: TestClient) -> None:
    gid = new_game(client, rules="classic", seed=32, dealer="W")["id"]
    first = _south_in_play(client, gid, 1)
    _act(client, gid, first["view"]["legal"][0], first["version"])
    second = wait_for_south(client, gid)
    assert len(second["view"]["tricks"]) == len(first["view"]["tricks"]) + 1
    _act(client, gid, second["view"]["legal"][0], second["version"])
    wait_for_south(client, gid)
    assert _post(client, gid, "undo").json()["view"] == second["view"]
    assert _post(client, gid, "undo").json()["view"] == first["view"]


def test_undo_with_nothing_to_take_back_is_refused(frozen: TestClient) -> None:
    gid = new_game(frozen, rules="classic", seed=3, dealer="E")["id"]  # South bids first
    version = state(frozen, gid)["version"]
    response = _post(frozen, gid, "undo")
    assert response.status_code == 409
    assert response.json()["error"] == (
        "nothing to undo: you have not bid or played a card in this hand"
    )
    assert state(frozen, gid)["version"] == version


def test_undo_is_refused_at_a_table_of_people(client: TestClient) -> None:
    host = sign_up(client, "undo-host")
    table = host.ok("/api/tables", {"level": "easy", "fill_bots": True}, status=201)
    response = host.post(f"/api/games/{table['id']}/undo")
    assert response.status_code == 409
    assert response.json()["error"] == "no undo at a table of people: a card played there stands"


def test_undo_is_refused_at_the_daily(client: TestClient) -> None:
    started = client.post("/api/daily/2026-12-01/start", json={})
    if started.status_code == 404:
        pytest.skip("this server has no daily for that date")
    assert started.status_code in (200, 201), started.text
    response = _post(client, started.json()["id"], "undo")
    assert response.status_code == 409
    assert response.json()["error"].startswith("no undo at the daily")


def _table(game: Game, people: set[int]) -> Any:
    """What :func:`undo_count` reads of a table: its game, and who moves for each seat."""
    return SimpleNamespace(game=game, driver=SimpleNamespace(bot_for=lambda s: s not in people))


def test_undo_stops_at_another_persons_move() -> None:
    g = Game("classic", seed=5, dealer=0)  # E bids first, then S, W, N
    g.deal()
    for bid in (2, 3, 4):
        g.apply(BID + bid)
    assert undo_count(_table(g, {2}), 2) == 2  # S's bid and W's (a computer player)
    with pytest.raises(Refusal, match="cannot undo: West has moved since"):
        undo_count(_table(g, {2, 3}), 2)


def test_a_wrong_claim_is_refused_with_its_reason_and_changes_nothing(frozen: TestClient) -> None:
    gid = new_game(frozen, rules="classic", seed=3, dealer="E")["id"]
    version = state(frozen, gid)["version"]
    early = _post(frozen, gid, "claim")
    assert early.status_code == 409
    assert early.json()["error"] == (
        "claim refused: a claim is made during the play of the cards"
    )
    assert state(frozen, gid)["version"] == version


def test_claims_are_checked_and_a_right_one_ends_the_hand(client: TestClient) -> None:
    """South claims at every turn: each wrong claim is refused with the trick it loses, until
    one holds (the last trick NS win, at the latest) and ends the hand."""
    gid = new_game(client, rules="classic", seed=40, dealer="W")["id"]
    refused = 0
    for _ in range(60):
        st = wait_for_south(client, gid)
        view = st["view"]
        if view["phase"] == "play":
            response = _post(client, gid, "claim")
            if response.status_code == 200:
                done = response.json()
                assert done["claim"] == "accepted"
                assert done["view"]["phase"] in ("deal", "over")
                last = done["view"]["history"][-1]
                assert sum(last["tricks"].values()) == 13
                assert done["events"][-1]["kind"] == "claim"
                record = client.get(f"/api/games/{gid}/record").json()
                assert record["hands"][-1]["claim"] == "S"
                assert list(load_record(record).totals) == [
                    done["view"]["totals"]["NS"], done["view"]["totals"]["EW"],
                ]
                assert refused > 0
                return
            assert response.status_code == 409, response.text
            assert response.json()["error"].startswith("claim refused: ")
            assert "can still take a trick" in response.json()["error"]
            assert state(client, gid)["version"] == st["version"]
            refused += 1
        if view["phase"] in ("deal", "over"):
            _post(client, gid, "next", {"version": st["version"]})
            continue
        _act(client, gid, south_choice(view), st["version"])
    raise AssertionError("no claim by South held in a whole hand and more")


def test_a_table_of_people_takes_claims_unlike_undo(client: TestClient) -> None:
    host = sign_up(client, "claim-host")
    table = host.ok("/api/tables", {"level": "easy", "fill_bots": True}, status=201)
    response = host.post(f"/api/games/{table['id']}/claim")
    assert response.status_code == 409  # not started: refused for the phase, not the table
    assert "during the play of the cards" in response.json()["error"]


def test_claims_are_refused_at_the_daily(client: TestClient) -> None:
    started = client.post("/api/daily/2026-12-01/start", json={})
    if started.status_code == 404:
        pytest.skip("this server has no daily for that date")
    response = _post(client, started.json()["id"], "claim")
    assert response.status_code == 409
    assert response.json()["error"] == (
        "no claims at the daily: everyone plays every card, unaided"
    )


def _drive_to_a_claim_that_holds(people: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Play the people's turns (South claiming at each of its cards) until South's claim is
    upheld by the solver and put to the other side; South's answer then."""
    host = people["S"]
    for _ in range(2000):
        for seat, person in people.items():
            st = person.state(table_id)
            view = st["view"]
            if view["phase"] == "deal":
                person.post(f"/api/games/{table_id}/next", {"version": st["version"]})
                continue
            if not view["legal"]:
                continue
            if seat == "S" and view["phase"] == "play":
                answer = host.post(f"/api/games/{table_id}/claim")
                if answer.status_code == 200:
                    doc: dict[str, Any] = answer.json()
                    return doc
                assert answer.status_code == 409, answer.text
                # At a table of people the reason names the seat, never the card.
                assert " with the " not in answer.json()["error"]
            person.post(f"/api/games/{table_id}/actions",
                        {"action": south_choice(view), "version": st["version"]})
    raise AssertionError("South's claim never held")


def test_a_claim_is_put_to_the_people_on_the_other_side(client: TestClient) -> None:
    host, mate, rival = (sign_up(client, name) for name in ("clara", "nils", "eve"))
    table = host.ok("/api/tables", {"level": "easy", "fill_bots": True}, status=201)
    tid = table["id"]
    seats = {"S": host}
    for person in (mate, rival):
        seat = person.ok("/api/tables/join", {"code": table["code"]})["seat"]
        seats[seat] = person
    host.ok(f"/api/games/{tid}/start")
    rival_seat = next(s for s, p in seats.items() if p is rival)
    assert rival_seat in ("E", "W")

    with rival.socket(tid) as ws:  # the rival is at the table, so the claim is put to them
        ws.send_json({"type": "hello", "version": 0})
        assert ws.receive_json()["type"] == "state"
        offered = _drive_to_a_claim_that_holds(seats, tid)
        assert offered["claim"] == "offered"
        claim = rival.state(tid)["table"]["claim"]
        assert claim["seat"] == "S" and claim["waiting"] == [rival_seat]
        version = offered["version"]
        # While it waits the computer players hold their cards, whoever's turn it is: a card of
        # theirs would withdraw the claim before the rival could answer it.
        held = client.app.state.tables.held(tid)  # type: ignore[attr-defined]
        assert held is not None and held.driver.claim_waits()
        held.driver.bot_for = lambda seat: True  # as if a computer player were to move
        try:
            assert not held.driver.to_move()
        finally:
            del held.driver.bot_for
        # The partner is not asked; the rival declines, and play goes on from the same position.
        assert mate.post(f"/api/games/{tid}/accept").status_code == 409
        rival.ok(f"/api/games/{tid}/decline")
        after = rival.state(tid)
        assert after["table"]["claim"] is None and after["version"] == version
        assert not held.driver.claim_waits()

        # Claimed again, and accepted: the hand ends with every trick left to North-South.
        assert host.ok(f"/api/games/{tid}/claim")["claim"] == "offered"
        done = rival.ok(f"/api/games/{tid}/accept")
        assert done["accept"] == "accepted"
        assert done["events"][-1]["kind"] == "claim" and done["events"][-1]["seat"] == "S"
        assert done["view"]["phase"] in ("deal", "over")
        assert done["table"]["claim"] is None


def test_a_journal_with_undo_and_claim_lines_rebuilds_the_table() -> None:
    """A restarted server reads 'undo N' and 'claim S' lines back to the same game."""
    live = Game("classic", seed=12, dealer=3)
    seating = Seating.solo()
    lines = ["deal"]
    read_line("deal").apply(live, seating)

    def act(words: str) -> None:
        line = read_line(f"{SEAT_LETTERS[live.turn]} {words}")
        lines.append(write_step(line.apply(live, seating)))

    while live.phase_name == "bid":
        act("bid 3")
    for _ in range(5):
        act(action_text(live.legal_actions()[0]))
    lines.append(write_step(read_line("undo 2").apply(live, seating)))
    assert lines[-1] == "undo 2"
    rebuilt = replay(Game("classic", seed=12, dealer=3), Seating.solo(), lines).game
    assert rebuilt.hands == live.hands and rebuilt.trick == live.trick
    assert rebuilt.actions == live.actions
    # A claim that does not hold does not replay: the journal names the line and the reason.
    with pytest.raises(JournalError, match=r"'claim S'\) does not replay: .*take a trick"):
        replay(Game("classic", seed=12, dealer=3), Seating.solo(), [*lines, "claim S"])
