"""The daily game, as pure arithmetic: its seed, its field, its leaderboard and its share line.

Everyone who plays a day's daily on one server gets the same deals, hand by hand.  The deals
come from a *keyed* seed: HMAC-SHA256 of the date under the server's secret.  The code alone
therefore tells nobody tomorrow's cards, and since the engine deals hand ``k`` from
``f"{seed}:{k}"`` (:meth:`varaq.engine.Game.deal`), hand 3 is the same deal whether hand 2 was
made or set.  The computer players' seeds derive from the same seed and the table's version
(:mod:`varaq.service.driver`), so two people who play alike meet the same choices.

A try is judged against the *field*, as in duplicate bridge: on each hand, your side's points
against the average of every signed-in player who reached that hand with the same cards (you
included, so the comparisons of one hand add up to zero).  The day's leaderboard ranks the
counted tries by the sum of those comparisons.  The arithmetic is exact (fractions), so two
tries with the same points tie exactly.

>>> day = parse_day("2026-12-01")
>>> daily_seed(b"secret", day) == daily_seed(b"secret", day) != daily_seed(b"other", day)
True
>>> share_line(day, Result(totals=(263, 190), hands=4, won=True), Fraction(38))
'Varaq daily 2026-12-01: won 263–190 in 4 hands, +38 vs the field'
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from typing import Any

from .actions import CONCEDE
from .engine import Game
from .record import to_record

__all__ = [
    "DAILY_RULES", "DAILY_LEVEL", "DAILY_SAMPLES", "DAILY_SAMPLES_FROM", "daily_samples",
    "FIRST_DAY", "DailyError", "daily_seed",
    "parse_day", "parse_month", "check_playable", "Try", "Result", "Standing", "Board",
    "field_averages", "duplicate", "standings", "beaten_percent", "histogram", "share_line",
    "signed", "score_words", "daily_record", "Progress",
]

#: The preset every daily is played under (to 250, no blind nil, nil tricks score).
DAILY_RULES = "daily"
#: The computer players' strength at every daily.
DAILY_LEVEL = "hard"
#: Layouts a daily's Hard player deals for each card it plays.  A fixed count rather than a time
#: budget, so that its choices do not depend on how busy the machine is: two people who play the
#: same cards meet the same answers, which the duplicate comparison needs.  Chosen so a card
#: still comes within a second on the project's machine (p95, ``benchmarks/hard_speed.py
#: --samples``); a Hard player at a table deals a few hundred in its 0.6 s.  Its bids are
#: priced over :data:`~varaq.bots.advice.BID_SAMPLES` solved layouts, as at every table.
DAILY_SAMPLES = 150
#: The first day whose computer players deal :data:`DAILY_SAMPLES` layouts a card; the days
#: before keep the 20 they were first played with, so that everyone who plays one day's daily,
#: then or later, meets the same players.
DAILY_SAMPLES_FROM = date(2026, 12, 7)
#: Layouts a card of the dailies before :data:`DAILY_SAMPLES_FROM`.
_EARLIER_SAMPLES = 20


def daily_samples(day: date) -> int:
    """Layouts a card for ``day``'s computer players (see :data:`DAILY_SAMPLES_FROM`).

    >>> daily_samples(date(2026, 12, 6)), daily_samples(DAILY_SAMPLES_FROM) == DAILY_SAMPLES
    (20, True)
    """
    return DAILY_SAMPLES if day >= DAILY_SAMPLES_FROM else _EARLIER_SAMPLES


#: The first date with a daily: the past dailies go back to here.
FIRST_DAY = date(2026, 1, 1)

_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_MONTH = re.compile(r"[0-9]{4}-[0-9]{2}")


class DailyError(ValueError):
    """A date that is not a daily's (badly written, too early, not out yet); one line."""


def daily_seed(secret: bytes, day: date) -> str:
    """The seed of ``day``'s daily on a server keyed by ``secret``: every deal of the day and
    every computer player's random choice derive from it.

    A keyed hash, so that knowing the code (and the date) is not enough to deal tomorrow's
    cards; the seed itself never leaves the server.
    """
    if not secret:
        raise DailyError("the server has no secret to key the daily deals with")
    message = f"varaq daily {day.isoformat()}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def parse_day(text: object) -> date:
    """A date written ``YYYY-MM-DD`` (nothing else: ``date.fromisoformat`` would also take week
    dates and other forms nobody means here)."""
    if not isinstance(text, str) or not _DAY.fullmatch(text):
        raise DailyError("a daily's date is written YYYY-MM-DD, such as 2026-12-01")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise DailyError(f"{text} is not a date on the calendar") from None


def parse_month(text: object) -> tuple[int, int]:
    """A month written ``YYYY-MM``, as (year, month)."""
    if not isinstance(text, str) or not _MONTH.fullmatch(text):
        raise DailyError("a month is written YYYY-MM, such as 2026-11")
    year, month = int(text[:4]), int(text[5:])
    if not 1 <= month <= 12 or year < 1:
        raise DailyError(f"{text} is not a month on the calendar")
    return year, month


def check_playable(day: date, today: date) -> None:
    """Refuse a date with no daily: before the first one, or after today (its deals must stay
    on the server until the day comes)."""
    if day > today:
        raise DailyError(f"the daily of {day.isoformat()} is not out yet")
    if day < FIRST_DAY:
        raise DailyError(f"the dailies begin on {FIRST_DAY.isoformat()}")


# -- the field and the leaderboard ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Try:
    """One try at a day's daily, as the leaderboard reads it."""

    #: Who: unique among the day's tries (``u7`` for a person, the table for a guest).
    key: str
    name: str
    #: Your side's (NS) points on each finished hand, oldest first.
    hands: tuple[int, ...]
    #: The match score now: (NS, EW).
    totals: tuple[int, int]
    finished: bool = False
    #: Whether your side won (``None`` while the match runs).
    won: bool | None = None
    #: Played on its day by a signed-in person: ranked.
    counted: bool = False
    #: Played after its day: compared, never ranked.
    late: bool = False
    #: Played by a signed-in person (counted or late): part of the field.  A guest can play
    #: again and again, so a guest's tries are compared with the field but never shape it.
    person: bool = True
    #: The match ended by a concession.
    conceded: bool = False

    @property
    def margin(self) -> int:
        return self.totals[0] - self.totals[1]


def field_averages(tries: Sequence[Try]) -> list[Fraction | None]:
    """On each hand, the average of the field's points (``None`` past the last hand anyone
    in the field finished)."""
    field = [t for t in tries if t.person]
    longest = max((len(t.hands) for t in field), default=0)
    out: list[Fraction | None] = []
    for k in range(longest):
        points = [t.hands[k] for t in field if len(t.hands) > k]
        out.append(Fraction(sum(points), len(points)))
    return out


def duplicate(hands: Sequence[int], averages: Sequence[Fraction | None]) -> list[Fraction]:
    """Your points against the field's average on each of your hands (0 on a hand nobody
    in the field has finished: there is nothing to compare with)."""
    out = []
    for k, points in enumerate(hands):
        average = averages[k] if k < len(averages) else None
        out.append(Fraction(0) if average is None else points - average)
    return out


@dataclass(frozen=True, slots=True)
class Standing:
    """A try with its comparison and, when counted and finished, its rank."""

    entry: Try
    per_hand: tuple[Fraction, ...]
    total: Fraction
    #: 1 for the best; tries with the same total share a rank (1, 2, 2, 4).
    rank: int | None


@dataclass(frozen=True, slots=True)
class Board:
    """A day's leaderboard: the field's averages, the ranked tries best first, then the late
    and unfinished ones."""

    averages: tuple[Fraction | None, ...]
    ranked: tuple[Standing, ...]
    others: tuple[Standing, ...]

    def find(self, key: str) -> Standing | None:
        return next((s for s in (*self.ranked, *self.others) if s.entry.key == key), None)

    def compare(self, entry: Try) -> Standing:
        """``entry`` against this board's field (a guest's try, which is not on the board)."""
        found = self.find(entry.key)
        if found is not None:
            return found
        per_hand = tuple(duplicate(entry.hands, self.averages))
        return Standing(entry, per_hand, sum(per_hand, Fraction(0)), None)

    def beaten(self, standing: Standing) -> int | None:
        """The share of the ranked players this try beat, in whole percent (rounded down, so
        100 means every one of them), or ``None`` with nobody to beat."""
        others = [s.total for s in self.ranked if s.entry.key != standing.entry.key]
        return beaten_percent(standing.total, others)


def standings(tries: Sequence[Try]) -> Board:
    """Rank the counted, finished tries by their total against the field."""
    averages = field_averages(tries)
    done: list[Standing] = []
    rest: list[Standing] = []
    for t in tries:
        per_hand = tuple(duplicate(t.hands, averages))
        standing = Standing(t, per_hand, sum(per_hand, Fraction(0)), None)
        (done if t.counted and t.finished else rest).append(standing)
    # Best total first; among equals the wider margin, then the name, only to fix the order.
    done.sort(key=lambda s: (-s.total, -s.entry.margin, s.entry.name.casefold(), s.entry.key))
    ranked: list[Standing] = []
    for i, s in enumerate(done):
        rank = ranked[-1].rank if ranked and ranked[-1].total == s.total else i + 1
        ranked.append(Standing(s.entry, s.per_hand, s.total, rank))
    rest.sort(key=lambda s: (not s.entry.finished, -s.total, s.entry.name.casefold(),
                             s.entry.key))
    return Board(tuple(averages), tuple(ranked), tuple(rest))


def beaten_percent(total: Fraction, others: Sequence[Fraction]) -> int | None:
    """How many of ``others`` ``total`` beats (a tie is not a win), in whole percent rounded
    down; ``None`` when there is nobody else."""
    if not others:
        return None
    beaten = sum(1 for other in others if total > other)
    return beaten * 100 // len(others)


def histogram(totals: Sequence[Fraction], bins: int = 8) -> list[dict[str, Any]]:
    """The ranked totals in ``bins`` equal ranges, for the page's picture of the field:
    ``[{"low", "high", "count"}]`` (one range when everyone has the same total)."""
    if not totals:
        return []
    low, high = math.floor(min(totals)), math.ceil(max(totals))
    if low == high:
        return [{"low": low, "high": high, "count": len(totals)}]
    width = Fraction(high - low, bins)
    counts = [0] * bins
    for t in totals:
        counts[min(bins - 1, int((t - low) / width))] += 1
    return [
        {"low": round(float(low + i * width), 1), "high": round(float(low + (i + 1) * width), 1),
         "count": n}
        for i, n in enumerate(counts)
    ]


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a daily try stands, as its row keeps it: what the leaderboard needs, no card."""

    #: Your side's (NS) points on each finished hand.
    hands: tuple[int, ...]
    totals: tuple[int, int]
    finished: bool
    won: bool | None
    conceded: bool

    @classmethod
    def of(cls, game: Game) -> Progress:
        """South's side is NS, the side the person plays for."""
        over = game.is_over
        return cls(
            tuple(h.score[0] for h in game.history), (game.totals[0], game.totals[1]), over,
            None if not over else game.winner == 0, game.conceded is not None,
        )


# -- the share line ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Result:
    """How a finished try ended, for its share line."""

    totals: tuple[int, int]
    hands: int
    won: bool
    conceded: bool = False
    late: bool = False


def signed(value: Fraction | int) -> str:
    """A comparison with the field in whole points and a sign: ``+38``, ``−12``, ``±0``."""
    exact = Fraction(value)
    whole = math.floor(abs(exact) + Fraction(1, 2))  # halves away from zero, on exact values
    if exact < 0:
        whole = -whole
    if whole == 0:
        return "±0"
    return f"+{whole}" if whole > 0 else f"−{-whole}"


def _points(value: int) -> str:
    return str(value) if value >= 0 else f"−{-value}"


def score_words(ours: int, theirs: int) -> str:
    """``263–190``; ``104 to −119`` when the dash would run into a minus sign."""
    return f"{_points(ours)}{' to ' if theirs < 0 else '–'}{_points(theirs)}"


def share_line(day: date, result: Result, against_field: Fraction | None) -> str:
    """One line to paste anywhere: the date, the result, the score, the hands and the
    comparison with the field — and no card, so it spoils nothing for those yet to play.

    ``against_field`` is ``None`` when nobody else played those hands to compare with.
    """
    when = f"Varaq daily {day.isoformat()}" + (" (played late)" if result.late else "")
    verb = "won" if result.won else "lost"
    ours, theirs = result.totals
    hands = f"{result.hands} hand" + ("" if result.hands == 1 else "s")
    line = f"{when}: {verb} {score_words(ours, theirs)} in {hands}"
    if result.conceded:
        line += " (conceded)"
    if against_field is not None:
        line += f", {signed(against_field)} vs the field"
    return line


# -- the record of a daily --------------------------------------------------------------------


def daily_record(game: Game, reader: int | None) -> dict[str, Any]:
    """A daily's record as ``reader`` may have it.

    Like any table's (:func:`varaq.record.to_record`), except after a concession in the middle
    of a hand: an ordinary table then shows that hand's four deals in full, but at a daily
    other people have yet to play those cards, so the hand stays as the reader saw it.
    """
    doc = to_record(game, reader)
    if reader is None or reader < 0 or game.conceded is None or not game.actions:
        return doc
    if game.actions[-1] not in (CONCEDE, CONCEDE + 1) or len(doc["hands"]) <= len(game.log):
        return doc
    before = Game(game.rules, seed=game.seed, totals=game.start_totals, bags=game.start_bags,
                  dealer=game.first_dealer)
    for action in game.actions[:-1]:
        before.push(action)
    seen = to_record(before, reader)
    doc["hands"][-1] = seen["hands"][-1]
    doc["partial"] = True
    doc["reader"] = seen["reader"]
    return doc
