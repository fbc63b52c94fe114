"""Learning: the lessons you play and the hand review (issue 11), pages and JSON.

Pages (static HTML; their scripts draw the real table):

- ``GET /learn`` — the lessons, with the learner's progress; ``GET /learn/{id}`` — one lesson;
- ``GET /review`` — a hand review: open a downloaded record, or arrive from a table's summary
  (``/review?table=<id>&hand=<n>``).

Lessons (the engine judges every try; the browser only shows the answer):

- ``GET /api/lessons`` → ``{"lessons": [{"id", "title"}], "signed_in", "done": [id…]}``:
  ``done``, the lessons finished on the signed-in person's account (none for a guest, whose
  progress the browser keeps);
- ``GET /api/lessons/{id}`` → the lesson's words, ``view`` (the learner's view of the position,
  as a table's), ``names``, ``moves`` (right moves it takes), ``previous``/``next``
- ``POST /api/lessons/{id}/try`` ``{"action": "QH", "done": []}`` → ``{"right", "legal",
  "text", "reason", "finished", "view", "trick"}``: ``view`` is the position after the try
  (unchanged when refused), ``trick`` the trick the try finished, if any, ``done`` the right
  moves made before (the second card of an exchange).  A bidding lesson's answer also carries
  ``estimate`` and ``count`` (the hand's tricks, card by card).  A finished lesson is kept on
  the signed-in person's account.
- ``POST /api/lessons/progress`` ``{"done": [id…]}`` → ``{"done": [id…]}``: a signed-in
  person's account takes the lessons this browser finished before signing in.

Reviews (see :mod:`varaq.review` and :mod:`varaq.service.reviews`):

- ``POST /api/review`` ``{"record": {...}, "hand": n}`` or ``{"table": id, "hand": n}`` →
  ``202 {"id", "status", "hand", "hands", "progress", "review"}``; ``hand`` defaults to the last
  finished hand.  A table's hand is reviewed only once it is over, and only for someone with a
  seat there (at a single-player table the id is the key to South).
- ``GET /api/review/{id}`` → the same, filled in as the review goes.

``create_app`` mounts :data:`routes`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..cards import card_text
from ..engine import Game
from ..lessons import LESSONS, NAMES, Attempt, Lesson, LessonError, attempt, lesson_by_id, start
from ..record import RecordError, load_record
from ..review import HandFacts, reviewable_hands
from ..seats import SEAT_LETTERS
from ..service.errors import Refusal
from ..service.readers import view_json
from ..service.reviews import Reviews
from .accounts import signed_in
from .games import asker_of, body_of, tables_of
from .requests import Json, check_origin, client_address, read_body, whole_number
from .static import serve_page

__all__ = ["routes", "reviews_of"]

#: Right moves a try may list as made before it (an exchange passes two cards).
MAX_DONE = 4


def reviews_of(request: Request) -> Reviews:
    """The app's review jobs, made on first use (the app's lifespan does not know them)."""
    reviews: Reviews | None = getattr(request.app.state, "reviews", None)
    if reviews is None:
        reviews = request.app.state.reviews = Reviews(request.app.state.settings.limits)
    return reviews


async def _limited(request: Request, name: str) -> None:
    await tables_of(request).limits.hit(name, client_address(request))


# -- pages ------------------------------------------------------------------------------------


async def learn_page(request: Request) -> Response:
    return serve_page(request, "learn.html")


async def review_page(request: Request) -> Response:
    return serve_page(request, "review.html")


# -- lessons ----------------------------------------------------------------------------------


def _lesson(request: Request) -> Lesson:
    lesson_id = request.path_params["lesson_id"]
    try:
        return lesson_by_id(lesson_id)
    except KeyError:
        raise Refusal(404, f"no lesson called {lesson_id[:40]!r}") from None


async def lessons(request: Request) -> Response:
    user_id = request.app.state.identity.user_id(request)
    done: list[str] = []
    if user_id is not None:
        done = await asyncio.to_thread(tables_of(request).store.lessons_done, user_id)
    return Json({
        "lessons": [lesson.summary_json() for lesson in LESSONS],
        "signed_in": user_id is not None,
        "done": [d for d in done if d in _IDS],
    })


#: Every lesson's id, to check what a client says it finished.
_IDS = frozenset(lesson.id for lesson in LESSONS)


async def progress(request: Request) -> Response:
    """Lessons a browser finished before its person signed in, added to the account."""
    body = await body_of(request)
    await _limited(request, "act")
    user_id = signed_in(request)
    done = body.get("done")
    if not isinstance(done, list) or len(done) > len(LESSONS) or not all(
        isinstance(d, str) and d in _IDS for d in done
    ):
        raise Refusal(400, f'"done" must be a list of lesson ids (at most {len(LESSONS)})')
    store = tables_of(request).store
    return Json({"done": await asyncio.to_thread(store.finish_lessons, user_id, done)})


async def one_lesson(request: Request) -> Response:
    lesson = _lesson(request)
    index = LESSONS.index(lesson)
    return Json({
        "id": lesson.id,
        "title": lesson.title,
        "number": index + 1,
        "of": len(LESSONS),
        "text": list(lesson.text),
        "task": lesson.task,
        "moves": lesson.moves,
        "view": view_json(start(lesson), lesson.learner),
        "names": NAMES,
        "previous": LESSONS[index - 1].id if index else None,
        "next": LESSONS[index + 1].id if index + 1 < len(LESSONS) else None,
    })


async def try_move(request: Request) -> Response:
    body = await body_of(request)
    await _limited(request, "act")
    lesson = _lesson(request)
    text = body.get("action")
    if not isinstance(text, str) or not text.strip() or len(text) > 32:
        raise Refusal(400, 'the body needs "action": a card such as "QS", "bid 4", "nil"…')
    done = body.get("done", [])
    if not isinstance(done, list) or len(done) > MAX_DONE or not all(
        isinstance(a, str) and len(a) <= 32 for a in done
    ):
        raise Refusal(400, f'"done" must be a list of at most {MAX_DONE} actions')
    try:
        answer = attempt(lesson, text, done)
    except LessonError as e:
        raise Refusal(400, str(e)) from None
    user_id = request.app.state.identity.user_id(request)
    if answer.finished and user_id is not None:
        store = tables_of(request).store
        await asyncio.to_thread(store.finish_lessons, user_id, [lesson.id])
    return Json(_answer_json(lesson, answer))


def _answer_json(lesson: Lesson, answer: Attempt) -> dict[str, Any]:
    game = answer.game
    before = len(start(lesson).tricks)
    finished_trick = game.tricks[before] if answer.legal and len(game.tricks) > before else None
    doc: dict[str, Any] = {
        "action": answer.action,
        "legal": answer.legal,
        "right": answer.right,
        "text": answer.text,
        "reason": answer.reason,
        "finished": answer.finished,
        "view": view_json(game, lesson.learner),
        "trick": None if finished_trick is None else {
            "leader": SEAT_LETTERS[finished_trick.leader],
            "cards": [card_text(c) for c in finished_trick.cards],
            "winner": SEAT_LETTERS[finished_trick.winner],
        },
    }
    if lesson.count and answer.legal:
        doc["estimate"] = lesson.estimate
        doc["count"] = [{"card": card, "tricks": tricks, "words": words}
                        for card, tricks, words in lesson.count]
    return doc


# -- reviews ----------------------------------------------------------------------------------


async def start_review(request: Request) -> Response:
    check_origin(request)
    limits = tables_of(request).settings.limits
    body = await read_body(request, limits.review_bytes, limits.json_depth)
    unknown = sorted(set(body) - {"record", "table", "hand"})
    if unknown:
        raise Refusal(400, f"unknown field {unknown[0][:40]!r} (known: record, table, hand)")
    if ("record" in body) == ("table" in body):
        raise Refusal(400, 'the body needs either "record" (a game record) or "table" (an id)')
    number = body.get("hand")
    if number is not None:
        number = whole_number(number, "hand", 1, 10_000)
    await _limited(request, "review")
    if "table" in body:
        game = await _table_game(request, body["table"])
    else:
        game = await _record_game(body["record"])
    hands = reviewable_hands(game)
    if not hands:
        raise Refusal(422, "there is no finished hand played with cards to review yet")
    number = hands[-1] if number is None else number
    if number not in hands:
        raise Refusal(422, f"hand {number} cannot be reviewed: the finished hands with cards "
                           f"are {_numbers(hands)}")
    facts = HandFacts.from_game(game, number)
    job = reviews_of(request).start(facts, client_address(request), hands)
    return Json(job.to_json(), status_code=202)


def _numbers(hands: list[int]) -> str:
    if len(hands) > 6:
        return f"{hands[0]} to {hands[-1]}"
    return ", ".join(str(n) for n in hands)


async def _table_game(request: Request, table_id: Any) -> Game:
    """A table's game, for someone seated there; only its finished hands are ever reviewed."""
    if not isinstance(table_id, str) or not table_id:
        raise Refusal(400, '"table" must be a table id')
    table = await tables_of(request).get(table_id[:80])
    if table.reader_of(asker_of(request)) is None:
        raise Refusal(403, "only a player at this table can review its hands")
    return table.game


async def _record_game(doc: Any) -> Game:
    if not isinstance(doc, dict):
        raise Refusal(400, '"record" must be a game record (a JSON object)')
    try:
        # A long record takes a moment to replay: not on the event loop.
        return await asyncio.to_thread(load_record, doc)
    except RecordError as e:
        raise Refusal(422, f"the record cannot be read: {' '.join(str(e).split())}") from None


async def review_progress(request: Request) -> Response:
    job_id = request.path_params["job_id"]
    if not 8 <= len(job_id) <= 40:
        raise Refusal(404, "no review with that id")
    return Json(reviews_of(request).get(job_id).to_json())


routes: list[BaseRoute] = [
    Route("/learn", learn_page),
    Route("/learn/{lesson_id}", learn_page),
    Route("/review", review_page),
    Route("/api/lessons", lessons),
    Route("/api/lessons/progress", progress, methods=["POST"]),
    Route("/api/lessons/{lesson_id}", one_lesson),
    Route("/api/lessons/{lesson_id}/try", try_move, methods=["POST"]),
    Route("/api/review", start_review, methods=["POST"]),
    Route("/api/review/{job_id}", review_progress),
]
