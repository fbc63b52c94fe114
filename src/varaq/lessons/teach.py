"""A lesson, and how the engine judges a try at it (see :mod:`varaq.lessons`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..actions import ActionError, action_text, parse_action
from ..cards import RANK_OF, SUIT_OF, trick_power
from ..engine import PLAY, Game
from ..seats import parse_seat
from .positions import Setup, build

__all__ = ["Lesson", "Attempt", "LessonError", "start", "attempt", "NAMES"]

#: What the lesson table calls each seat, as a single-player table does.
NAMES = {"N": "Partner", "E": "East", "S": "You", "W": "West"}


class LessonError(ValueError):
    """A try the lesson cannot take (an unknown action, a bad list of earlier moves)."""


@dataclass(frozen=True)
class Lesson:
    """One lesson: words, a position, and what is right there."""

    id: str
    title: str
    #: A few sentences, one paragraph each.
    text: tuple[str, ...]
    #: What the learner must do now, in one sentence.
    task: str
    setup: Setup
    #: The right actions, as text (``"AH"``, ``"bid 4"``, ``"blind nil"``).
    right: tuple[str, ...]
    #: The sentence for a right action, a legal but wrong one (none when every legal action
    #: is right), and an action the engine refuses (none: the engine's own reason is said).
    right_text: str
    wrong_text: str = ""
    illegal_text: str = ""
    #: Sentences for particular actions, in place of the three above.
    said: Mapping[str, str] = field(default_factory=dict)
    #: Right actions needed to finish the lesson (two cards in an exchange).
    moves: int = 1
    #: After the learner's card, play on to the end of the hand (for lessons about the score).
    play_out: bool = False
    #: For a bidding lesson: the estimate, and its reasons card by card (card, tricks, words).
    estimate: str = ""
    count: tuple[tuple[str, float, str], ...] = ()
    seat: str = "S"
    # -- what the engine must agree with (tests/test_lessons.py) --------------------------------
    #: Exactly the actions the engine allows the learner at the start.
    legal: tuple[str, ...] | None = None
    #: For each action: the seat that wins the trick it completes.
    winners: Mapping[str, str] = field(default_factory=dict)
    #: For each action: facts after it (``score``, ``bags``, ``totals`` by side; ``match``: the
    #: winning side or ``None`` when another hand is played).
    after: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def learner(self) -> int:
        return parse_seat(self.seat)

    def sentence(self, action: str, right: bool, legal: bool, reason: str = "") -> str:
        """The lesson's one sentence for an answer (``reason``: the engine's, for a refusal)."""
        if action in self.said:
            return self.said[action]
        if not legal:
            return self.illegal_text or f"Not allowed here: {reason}."
        return self.right_text if right else self.wrong_text

    def summary_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title}


@dataclass(frozen=True, slots=True)
class Attempt:
    """The engine's judgement of one try."""

    action: str
    #: Whether the engine allows the action at all.
    legal: bool
    right: bool
    text: str
    #: The engine's own one-line reason for a refused action ("" when legal).
    reason: str
    #: The position after the try (unchanged when refused).
    game: Game
    #: Whether this right answer completes the lesson.
    finished: bool


#: Each lesson's position, built once (a finished build never changes).
_BUILT: dict[str, Game] = {}


def start(lesson: Lesson) -> Game:
    """The lesson's position, as a fresh game the caller may change."""
    game = _BUILT.get(lesson.id)
    if game is None:
        game = _BUILT[lesson.id] = build(lesson.setup, seed=lesson.id)[1]
    return game.copy()


def _action(text: str) -> int:
    try:
        return parse_action(text)
    except ActionError as e:
        raise LessonError(str(e)) from None


def attempt(lesson: Lesson, text: str, done: Sequence[str] = ()) -> Attempt:
    """Judge ``text`` in ``lesson``, after the right moves ``done`` (an exchange's first card).

    A refused action leaves the position as it was; a legal one is played, then the trick is
    finished (and with ``play_out`` the hand) the way :func:`_simple_card` plays.
    """
    if len(done) >= lesson.moves:
        raise LessonError(f"this lesson takes {lesson.moves} move(s); {len(done)} already made")
    game = start(lesson)
    seat = lesson.learner
    right = {_action(a) for a in lesson.right}
    for earlier in done:
        action = _action(earlier)
        if action not in right or action not in game.legal_actions() or game.turn != seat:
            raise LessonError(f"{earlier!r} is not one of this lesson's right moves here")
        game.apply(action)
        right.discard(action)
    action = _action(text)
    word = action_text(action)
    if game.turn != seat or action not in game.legal_actions():
        reason = game.why_illegal(action) if game.turn == seat else "it is not your turn"
        return Attempt(word, False, False, lesson.sentence(word, False, False, reason), reason,
                       game, False)
    game.apply(action)
    _carry_on(game, seat, lesson.play_out)
    good = action in right
    finished = good and len(done) + 1 == lesson.moves
    return Attempt(word, True, good, lesson.sentence(word, good, True), "", game, finished)


def _carry_on(game: Game, seat: int, to_the_end: bool) -> None:
    """Finish the trick in progress (or the hand) with the other seats' plain play."""
    while game.phase == PLAY and game.turn != seat and (game.trick or to_the_end):
        game.apply(_simple_card(game))
    while to_the_end and game.phase == PLAY and len(game.legal_actions()) == 1:
        game.apply(game.legal_actions()[0])
        while game.phase == PLAY and game.turn != seat:
            game.apply(_simple_card(game))


def _simple_card(game: Game) -> int:
    """Plain, predictable play for the other seats of a lesson: win the trick as cheaply as
    possible when an opponent holds it, else play the lowest card.  (Not a computer player:
    a lesson must play the same way whatever the bots become.)"""
    legal = game.legal_actions()
    if len(legal) == 1 or not game.trick:
        return min(legal, key=lambda c: (SUIT_OF[c] == 3, RANK_OF[c]))
    power = trick_power(game.rules.jokers)[SUIT_OF[game.trick[0]]]
    seats = game.trick_seats()
    top = max(range(len(game.trick)), key=lambda i: power[game.trick[i]])
    partner_holds = seats[top] == game.turn ^ 2
    beat = [c for c in legal if power[c] > power[game.trick[top]]]
    if beat and not partner_holds:
        return min(beat, key=lambda c: power[c])
    return min(legal, key=lambda c: (power[c], RANK_OF[c]))
