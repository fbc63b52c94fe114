"""The lessons' and the hand review's JSON: the engine answers every try, a review only ever
shows finished hands, and every bad request is refused in one line."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from varaq.lessons import LESSONS, attempt
from varaq.record import to_record
from varaq.review import HandFacts
from varaq.service.reviews import Reviews
from varaq.service.settings import Limits
from web_helpers import make_app, new_game, play_hand, run_async, state

#: Search nodes per position in these tests: enough for the last tricks, not for a full deal.
NODES = 20_000


def refused(response: Any, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    reason = response.json()["error"]
    assert words.lower() in reason.lower() and "\n" not in reason, reason


@pytest.fixture
def reviewing(client: TestClient) -> Iterator[TestClient]:
    """The app, its reviews solved in a thread of the test process with a small node limit."""
    with ThreadPoolExecutor(1) as pool:
        client.app.state.reviews = Reviews(  # type: ignore[attr-defined]
            client.app.state.settings.limits, executor=pool, nodes=NODES,  # type: ignore[attr-defined]
        )
        yield client


def wait_review(client: TestClient, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        doc: dict[str, Any] = client.get(f"/api/review/{job_id}").json()
        if doc["status"] != "running":
            return doc
        assert time.monotonic() < deadline, doc["progress"]
        time.sleep(0.05)


def scoring_record(action: str) -> dict[str, Any]:
    lesson = next(x for x in LESSONS if x.id == "scoring")
    return to_record(attempt(lesson, action).game)


# -- lessons ----------------------------------------------------------------------------------


def test_the_lessons_are_listed_in_order(client: TestClient) -> None:
    doc = client.get("/api/lessons").json()
    assert [x["id"] for x in doc["lessons"]] == [x.id for x in LESSONS]
    assert doc["lessons"][0] == {"id": "follow-suit", "title": "Follow suit"}


def test_a_lesson_is_the_learners_view_of_its_position(client: TestClient) -> None:
    doc = client.get("/api/lessons/follow-suit").json()
    assert (doc["number"], doc["of"], doc["previous"], doc["next"]) == (
        1, len(LESSONS), None, "cut")
    view = doc["view"]
    assert view["seat"] == "S" and view["turn"] == "S"
    assert sorted(view["legal"]) == ["2H", "7H", "AH"]
    assert [t["card"] for t in view["trick"]] == ["KH", "4H", "9H"]
    assert doc["names"]["N"] == "Partner" and doc["task"] and doc["text"]


def test_a_right_card_is_played_and_the_trick_shown(client: TestClient) -> None:
    answer = client.post("/api/lessons/follow-suit/try", json={"action": "A♥"}).json()
    assert answer["legal"] and answer["right"] and answer["finished"]
    assert answer["trick"] == {"leader": "W", "cards": ["KH", "4H", "9H", "AH"], "winner": "S"}
    assert answer["view"]["turn"] == "S" and "AH" not in answer["view"]["hand"]


def test_a_dimmed_card_says_why_and_changes_nothing(client: TestClient) -> None:
    before = client.get("/api/lessons/follow-suit").json()["view"]
    answer = client.post("/api/lessons/follow-suit/try", json={"action": "KS"}).json()
    assert not answer["legal"] and not answer["right"]
    assert answer["text"] == "You hold hearts, so you must play one: West led a heart."
    assert answer["reason"] == "S cannot play KS: must follow hearts"
    assert answer["view"] == before and answer["trick"] is None


def test_a_wrong_card_is_played_so_the_learner_sees_what_it_did(client: TestClient) -> None:
    answer = client.post("/api/lessons/nil/try", json={"action": "KH"}).json()
    assert answer["legal"] and not answer["right"] and not answer["finished"]
    assert answer["trick"]["winner"] == "S"
    assert "nil is broken" in answer["text"]


def test_a_bid_is_answered_with_the_count_of_the_hand(client: TestClient) -> None:
    answer = client.post("/api/lessons/bidding/try", json={"action": "bid 4"}).json()
    assert answer["right"] and answer["estimate"].startswith("About 4.8 tricks: two sure spade")
    assert answer["count"][0] == {"card": "AS", "tricks": 1.0,
                                  "words": "no higher spade is out: a sure trick"}
    # The whole count, as the bots' estimate gives it, line by line.
    lesson = next(x for x in LESSONS if x.id == "bidding")
    assert answer["count"] == [{"card": card, "tricks": tricks, "words": words}
                               for card, tricks, words in lesson.count]
    assert [item["card"] for item in answer["count"]] == ["AS", "KS", "AH", "KD", "QC", "3S",
                                                           "3S"]


def test_the_exchange_takes_its_second_card_after_the_first(client: TestClient) -> None:
    first = client.post("/api/lessons/exchange/try", json={"action": "AS"}).json()
    assert first["right"] and not first["finished"] and first["view"]["passing"] == ["AS"]
    second = client.post("/api/lessons/exchange/try",
                         json={"action": "AC", "done": ["AS"]}).json()
    assert second["right"] and second["finished"]


def test_bad_tries_are_refused_in_one_line(client: TestClient) -> None:
    refused(client.get("/api/lessons/chess"), 404, "no lesson called 'chess'")
    refused(client.post("/api/lessons/cut/try", json={}), 400, '"action"')
    refused(client.post("/api/lessons/cut/try", json={"action": "x" * 40}), 400, '"action"')
    refused(client.post("/api/lessons/cut/try", json={"action": "the ace"}), 400,
            "unknown action")
    refused(client.post("/api/lessons/cut/try", json={"action": "4S", "done": "4S"}), 400,
            '"done" must be a list')
    refused(client.post("/api/lessons/exchange/try", json={"action": "AC", "done": ["2C"]}),
            400, "not one of this lesson's right moves")
    refused(client.post("/api/lessons/cut/try", json={"action": "4S", "done": ["JS"]}), 400,
            "takes 1 move")


# -- reviews ----------------------------------------------------------------------------------


def test_a_record_is_reviewed_from_the_last_trick_back(
    reviewing: TestClient, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The Python solver, whose node limit these tests use to stop a review early.
    monkeypatch.setenv("VARAQ_SOLVER", "python")
    response = reviewing.post("/api/review", json={"record": scoring_record("3C")})
    assert response.status_code == 202, response.text
    job = response.json()
    assert job["hand"] == 1 and job["hands"] == [1]
    doc = wait_review(reviewing, job["id"])
    assert doc["status"] == "done", doc
    review = doc["review"]
    south = review["tricks"][11]["cards"][3]
    assert (south["seat"], south["card"], south["flag"]) == ("S", "3C", "??")
    assert south["text"].startswith("Playing the 3♣ costs the contract")
    assert review["from_trick"] is not None and review["from_trick"] <= 12
    assert review["stopped"].endswith("needs a faster solver")
    assert [b["seat"] for b in review["bids"]] == ["S", "W", "N", "E"]
    assert review["result"]["score"] == {"NS": -70, "EW": 61}
    assert doc["progress"]["done"] <= doc["progress"]["steps"]


def test_a_hand_reviewed_before_is_answered_at_once(reviewing: TestClient) -> None:
    record = scoring_record("KC")
    first = wait_review(reviewing, reviewing.post("/api/review", json={"record": record})
                        .json()["id"])
    again = reviewing.post("/api/review", json={"record": record})
    assert again.status_code == 202 and again.json()["status"] == "done"
    assert again.json()["review"] == first["review"]


def test_a_tables_finished_hand_is_reviewed_and_the_hand_in_play_never(
    reviewing: TestClient,
) -> None:
    game_id = new_game(reviewing, level="easy", rules="varaq", seed=4)["id"]
    refused(reviewing.post("/api/review", json={"table": game_id}), 422,
            "no finished hand")
    play_hand(reviewing, game_id)
    assert reviewing.post(f"/api/games/{game_id}/next", json={}).status_code == 200
    st = state(reviewing, game_id)
    response = reviewing.post("/api/review", json={"table": game_id})
    assert response.status_code == 202, response.text
    job = response.json()
    assert job["hands"] == [1] and job["hand"] == 1
    # The hand being played now is nowhere in the review: only hand 1's cards are.
    dealt_now = set(st["view"]["hand"])
    review_cards = {c for cards in job["review"]["deal"].values() for c in cards}
    assert len(review_cards) == 52
    hand_one = reviewing.get(f"/api/games/{game_id}/record").json()["hands"][0]["deal"]
    assert job["review"]["deal"] == {s: hand_one[s].split() for s in "NESW"}
    assert dealt_now  # South holds new cards, which the review cannot name apart from hand 1
    refused(reviewing.post("/api/review", json={"table": game_id, "hand": 2}), 422,
            "hand 2 cannot be reviewed")
    wait_review(reviewing, job["id"])


def test_bad_review_requests_are_refused_in_one_line(reviewing: TestClient) -> None:
    refused(reviewing.post("/api/review", json={}), 400, '"record"')
    refused(reviewing.post("/api/review", json={"record": {}, "table": "x"}), 400, "either")
    refused(reviewing.post("/api/review", json={"record": [], "hand": 1}), 400,
            "must be a game record")
    refused(reviewing.post("/api/review", json={"record": {}, "colour": 1}), 400,
            "unknown field 'colour'")
    refused(reviewing.post("/api/review", json={"record": {"hands": 3}}), 422,
            "the record cannot be read: hands must be a list")
    refused(reviewing.post("/api/review", json={"record": scoring_record("KC"), "hand": 0}),
            400, "hand must be a whole number")
    refused(reviewing.post("/api/review", json={"record": scoring_record("KC"), "hand": 2}),
            422, "finished hands with cards are 1")
    refused(reviewing.post("/api/review", json={"table": "no-such-table-here"}), 404,
            "no game")
    refused(reviewing.get("/api/review/nothing-here-at-all"), 404, "no review with that id")


def test_a_record_larger_than_the_limit_is_refused(tmp_path: Path) -> None:
    record = scoring_record("KC")
    assert len(str(record)) > 400
    with TestClient(make_app(tmp_path, limits=Limits(rates=False, review_bytes=400))) as c:
        refused(c.post("/api/review", json={"record": record}), 413, "at most 400 bytes")


def test_reviews_are_rate_limited_per_address(tmp_path: Path) -> None:
    with TestClient(make_app(tmp_path, limits=Limits(review="1/minute"))) as c, \
            ThreadPoolExecutor(1) as pool:
        c.app.state.reviews = Reviews(c.app.state.settings.limits,  # type: ignore[attr-defined]
                                      executor=pool, nodes=NODES)
        record = scoring_record("KC")
        assert c.post("/api/review", json={"record": record}).status_code == 202
        refused(c.post("/api/review", json={"record": record}), 429, "too many hand reviews")


# -- the job queue ----------------------------------------------------------------------------


class HeldExecutor(Executor):
    """Runs nothing until told: each step waits in :attr:`held` for :meth:`release`."""

    def __init__(self) -> None:
        self.held: list[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self.held.append((future, fn, args))
        return future

    def release(self) -> None:
        held, self.held = self.held, []
        for future, fn, args in held:
            if not future.cancelled():
                future.set_result(fn(*args))


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_one_review_per_client_and_a_cap_on_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VARAQ_SOLVER", "python")  # its node limit stops the review early
    run_async(one_review_per_client_and_a_cap_on_the_server())


async def one_review_per_client_and_a_cap_on_the_server() -> None:
    pool = HeldExecutor()
    reviews = Reviews(Limits(reviews_running=1), executor=pool, nodes=NODES)
    facts = [HandFacts.from_game(attempt(next(x for x in LESSONS if x.id == lid), a).game, 1)
             for lid, a in (("scoring", "KC"), ("scoring", "3C"), ("bags", "3D"))]
    first = reviews.start(facts[0], "10.0.0.1", [1])
    await settle()
    second = reviews.start(facts[1], "10.0.0.1", [1])
    await settle()
    assert (first.status, first.error) == ("failed", "replaced by another review")
    assert second.status == "running"
    with pytest.raises(Exception, match="busy with other hand reviews"):
        reviews.start(facts[2], "10.0.0.2", [1])
    while second.status == "running":
        pool.release()
        await settle()
    # The node limit of these tests stops it before the first trick, with the reason said.
    assert second.status == "done" and second.done == second.steps
    assert second.review.stopped.endswith("needs a faster solver")
    cached = reviews.start(facts[1], "10.0.0.2", [1])
    assert cached.status == "done" and cached.review is second.review
    await reviews.close()


def test_the_first_trick_is_shown_before_the_whole_hand_is_done() -> None:
    run_async(first_trick_before_the_whole_hand())


async def first_trick_before_the_whole_hand() -> None:
    # The compiled solver (the default): the review goes forward, trick by trick.
    pool = HeldExecutor()
    reviews = Reviews(Limits(), executor=pool)
    facts = HandFacts.from_game(attempt(next(x for x in LESSONS if x.id == "scoring"),
                                        "KC").game, 1)
    job = reviews.start(facts, "10.0.0.3", [1])
    await settle()
    assert job.to_json()["review"]["tricks_priced"] == 0
    pool.release()  # the first step only: the other steps wait in the pool
    await settle()
    doc = job.to_json()
    assert doc["status"] == "running" and doc["progress"]["done"] == 1
    first, second = doc["review"]["tricks"][0], doc["review"]["tricks"][1]
    assert all(card["kind"] == "tricks" and card["caption"] for card in first["cards"])
    assert not any("kind" in card for card in second["cards"])
    assert doc["review"]["tricks_priced"] == 1 and doc["review"]["par"] is None
    while job.status == "running":
        pool.release()
        await settle()
    doc = job.to_json()
    assert doc["status"] == "done" and doc["review"]["tricks_priced"] == 13
    assert doc["review"]["from_trick"] == 1 and doc["review"]["par"] is not None
    await reviews.close()


# -- pages and settings -----------------------------------------------------------------------


def test_the_pages_are_served_with_no_inline_script_or_style(client: TestClient) -> None:
    for path, script in (("/learn", "learn.js"), ("/learn/cut", "learn.js"),
                         ("/review", "review.js")):
        response = client.get(path)
        assert response.status_code == 200, path
        html = response.text
        assert f'/{script}"></script>' in html and "/static/" in html
        # The pages' content security policy allows neither (see web/security.py).
        assert "<script>" not in html and " style=" not in html and "<style" not in html


def test_review_seconds_come_from_the_environment_within_bounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VARAQ_REVIEW_SECONDS", "15")
    assert Limits.from_env().review_seconds == 15.0
    for bad in ("0", "soon", "99999"):
        monkeypatch.setenv("VARAQ_REVIEW_SECONDS", bad)
        with pytest.raises(ValueError, match="VARAQ_REVIEW_SECONDS must be a number of seconds"):
            Limits.from_env()
    monkeypatch.delenv("VARAQ_REVIEW_SECONDS")
    assert Limits.from_env() == Limits()


# -- progress on the account ------------------------------------------------------------------


def test_a_finished_lesson_is_kept_on_the_account(client: TestClient) -> None:
    guest = client.get("/api/lessons").json()
    assert (guest["signed_in"], guest["done"]) == (False, [])
    refused(client.post("/api/lessons/progress", json={"done": ["cut"]}), 401, "sign in first")
    assert client.post("/api/account/signup",
                       json={"name": "Learner", "password": "a long enough password"}
                       ).status_code == 201
    assert client.get("/api/lessons").json() == {**guest, "signed_in": True}
    client.post("/api/lessons/nil/try", json={"action": "KH"})  # wrong: not finished
    client.post("/api/lessons/follow-suit/try", json={"action": "AH"})
    assert client.get("/api/lessons").json()["done"] == ["follow-suit"]
    # What the browser finished before signing in joins the account, once.
    merged = client.post("/api/lessons/progress", json={"done": ["cut", "follow-suit"]})
    assert merged.json() == {"done": ["follow-suit", "cut"]}
    refused(client.post("/api/lessons/progress", json={"done": ["chess"]}), 400,
            '"done" must be a list of lesson ids')
    client.post("/api/account/signout", json={})
    assert client.get("/api/lessons").json()["done"] == []
