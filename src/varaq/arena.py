"""``varaq arena``: computer players against each other, in duplicate.

Luck in Spades is mostly the cards, so comparing two bots by raw scores needs a huge number of
hands.  Duplicate removes most of it: every deal is played twice on the same cards with the
same dealer, side *a* sitting North-South at the first table and East-West at the second.  What
a good hand gives *a* at one table it gives *b* at the other, and the paired difference of the
two tables measures the players, not the deal.

Two ways to play:

- **deals** (``--deals N``): N single hands from a score of 0-0.  Each duplicate deal gives one
  paired difference, ``((a - b) at table 1 + (a - b) at table 2) / 2`` points per hand; the
  difference reported is their mean with a t-based 95% interval.  (At 0-0 nobody trails, so
  blind nil never comes up in this mode.)
- **matches** (``--matches N``): N whole matches to the target, each played both ways on the
  same seeded sequence of deals.  The two tables may last a different number of hands; a pair's
  difference is its ``a - b`` points over all its hands divided by those hands.  Match wins are
  counted per table, with a Wilson interval on side a's win rate.

Everything a bot receives is ``game.view(seat)``: the arena never hands it the game.  The one
exception is a bot with an ``act_full(game)`` method (the cheater), which exists only as the
ceiling a fair bot is measured against and is never offered to players.

Results are a function of the options and the seed only, whatever ``--jobs`` is: each deal or
match owns its seeds (cards from ``"{seed}:deal:{i}"``, each seat's random generator from that
and the seat), so it plays the same in any process and in any order.  Only the decision times
vary, and with them the play of a bot that thinks for a *time* (Hard's default): give it
``--samples`` for a run that repeats exactly.  Because a seat's generator is the same at both
tables, a bot against itself scores an exact zero difference on every deal: the duplicate
cancels completely.

``--minutes`` time-boxes a run (Hard is slow): no new pair starts after it, and the result keeps
the unbroken run of finished pairs from the first, so a shorter run is a prefix of a longer one.
"""

from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from .actions import quoted
from .bots import make_bot
from .engine import BIDDING, BLIND, DEAL, EXCHANGE, OVER, PLAY, Game, IllegalAction
from .rules import Rules, RulesError
from .seats import SEAT_LETTERS
from .stats import mean_ci95, percentile, running_ci95, wilson_ci95

__all__ = [
    "ArenaConfig", "ArenaError", "ArenaResult", "PairResult", "SideTally", "run_arena",
    "play_deal", "deal_bids", "play_match", "add_arguments", "run",
]

#: Arena-only players, never offered at the table: name -> "module:Class".
ARENA_ONLY = {
    "cheater": "varaq.bots.cheater:CheaterBot",
    # The Hard of version 0.1 (solving the last 4 cards only), to measure today's Hard against.
    "hard-classic": "varaq.bots.hard:ClassicHardBot",
}
#: Bots that take a thinking budget in seconds (``--budget``).
BUDGETED = ("hard", "hard-classic")
#: A match that has not ended after this many hands is stopped and counted as unfinished
#: (two weak bots can both sink below zero and never reach the target).
DEFAULT_MAX_HANDS = 200

#: The longest number an option takes, in characters: enough for any seed or count.
_MAX_DIGITS = 30

#: A player is a bot name, or a zero-argument factory (tests use one for a fixed policy).
Player = str | Callable[[], Any]


class ArenaError(ValueError):
    """A bad option or a bot that broke the rules; the message is one line saying which."""


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """What to play.  Picklable, so worker processes get exactly the same instructions."""

    a: Player
    b: Player
    rules: Rules
    seed: int = 1
    #: Duplicate deals to play (single hands from 0-0); ignored when ``matches`` is set.
    deals: int = 0
    #: Whole matches to play in duplicate (0: play ``deals`` instead).
    matches: int = 0
    #: Options for each bot's constructor.
    a_options: tuple[tuple[str, Any], ...] = ()
    b_options: tuple[tuple[str, Any], ...] = ()
    max_hands: int = DEFAULT_MAX_HANDS

    @property
    def mode(self) -> str:
        return "matches" if self.matches else "deals"

    @property
    def pairs(self) -> int:
        """How many duplicate pairs (deals or matches) this arena plays."""
        return self.matches or self.deals


@dataclass(slots=True)
class SideTally:
    """What one bot's side did, summed over the tables it sat at."""

    hands: int = 0
    points: int = 0
    made: int = 0
    set: int = 0
    nil_bid: int = 0
    nil_made: int = 0
    blind_nil_bid: int = 0
    blind_nil_made: int = 0
    #: What the side's blind nils scored: + the blind nil value for each made, - for each set.
    blind_nil_points: int = 0
    bags: int = 0
    bag_penalties: int = 0
    tricks: int = 0
    match_wins: int = 0
    #: Milliseconds per decision, in the order made.
    decision_ms: list[float] = field(default_factory=list)

    def add(self, other: SideTally) -> None:
        for name in (
            "hands", "points", "made", "set", "nil_bid", "nil_made", "blind_nil_bid",
            "blind_nil_made", "blind_nil_points", "bags", "bag_penalties", "tricks",
            "match_wins",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.decision_ms.extend(other.decision_ms)


@dataclass(slots=True)
class PairResult:
    """One duplicate pair: the same deal (or match) played with the partnerships swapped."""

    index: int
    a: SideTally
    b: SideTally
    #: Side a minus side b, points per hand over both tables.
    difference: float
    #: Hands played at table 1 (a sits NS) and table 2 (a sits EW).
    hands: tuple[int, int]
    #: Matches that hit ``max_hands`` without a winner (0, 1 or 2).
    unfinished: int = 0


# -- playing --------------------------------------------------------------------------------


def _load_bot(player: Player, options: Sequence[tuple[str, Any]]) -> Any:
    if not isinstance(player, str):
        return player()
    if player in ARENA_ONLY:
        module, cls = ARENA_ONLY[player].split(":")
        return getattr(importlib.import_module(module), cls)(**dict(options))
    return make_bot(player, **dict(options))


def _player_name(player: Player) -> str:
    if isinstance(player, str):
        return player
    return str(getattr(player, "__name__", type(player).__name__))


class _Table:
    """One game with a bot in each seat; ``a_side`` is 0 (a sits NS) or 1 (a sits EW)."""

    def __init__(self, config: ArenaConfig, game_seed: str, a_side: int) -> None:
        self.config = config
        self.game = Game(config.rules, seed=game_seed)
        self.a_side = a_side
        self.bots: list[Any] = []
        self.rngs: list[random.Random] = []
        for seat in range(4):
            mine = (seat & 1) == a_side
            player = config.a if mine else config.b
            options = config.a_options if mine else config.b_options
            self.bots.append(_load_bot(player, options))
            # Keyed by seat, not by table: the seat's random choices repeat at the other table,
            # so whatever differs between the tables is the players.
            self.rngs.append(random.Random(f"{game_seed}:{SEAT_LETTERS[seat]}"))
        self.tally = (SideTally(), SideTally())  # (a, b)

    def play_hand(self, where: str, *, bids_only: bool = False) -> None:
        """Deal and play one hand, counted in the tally; with ``bids_only``, stop (uncounted)
        once the bidding is over."""
        game = self.game
        game.deal()
        while game.phase in (BLIND, BIDDING, EXCHANGE, PLAY):
            if bids_only and game.phase == PLAY:
                return
            seat = game.turn
            bot = self.bots[seat]
            tally = self.tally[0 if (seat & 1) == self.a_side else 1]
            # The clock runs only while the bot thinks, not while the arena builds its input.
            if hasattr(bot, "act_full"):
                full = game.copy()
                started = time.perf_counter()
                action = bot.act_full(full)
            else:
                view = game.view(seat)
                started = time.perf_counter()
                action = bot.act(view, self.rngs[seat])
            tally.decision_ms.append((time.perf_counter() - started) * 1000)
            try:
                game.apply(action, seat)
            except IllegalAction as exc:
                name = getattr(bot, "name", type(bot).__name__)
                raise ArenaError(f"{where}: bot {name} at {SEAT_LETTERS[seat]}: {exc}") from None
        self._count(game.log[-1].result)

    def _count(self, hand: Any) -> None:
        for which in (0, 1):
            side = self.a_side if which == 0 else 1 - self.a_side
            t = self.tally[which]
            t.hands += 1
            t.points += hand.score[side]
            if hand.made[side] is True:
                t.made += 1
            elif hand.made[side] is False:
                t.set += 1
            for seat in (side, side + 2):
                if hand.nil_made[seat] is None:
                    continue
                if hand.blind[seat]:
                    t.blind_nil_bid += 1
                    t.blind_nil_made += bool(hand.nil_made[seat])
                    value = self.config.rules.blind_nil_value
                    t.blind_nil_points += value if hand.nil_made[seat] else -value
                else:
                    t.nil_bid += 1
                    t.nil_made += bool(hand.nil_made[seat])
            t.bags += hand.new_bags[side]
            t.bag_penalties += hand.penalties[side]
            t.tricks += hand.tricks[side] + hand.tricks[side + 2]


def _pair(index: int, tables: tuple[_Table, _Table], unfinished: int = 0) -> PairResult:
    a, b = SideTally(), SideTally()
    for table in tables:
        a.add(table.tally[0])
        b.add(table.tally[1])
    hands = (tables[0].tally[0].hands, tables[1].tally[0].hands)
    difference = (a.points - b.points) / max(1, sum(hands))
    return PairResult(index, a, b, difference, hands, unfinished)


def _deal_tables(
    config: ArenaConfig, index: int, *, bids_only: bool = False,
) -> tuple[_Table, _Table]:
    """Duplicate deal ``index``'s two tables, its hand played at each (with ``bids_only``, bid
    only): side a NS at table 1 and EW at table 2, on the same cards."""
    game_seed = f"{config.seed}:deal:{index}"
    tables = (_Table(config, game_seed, 0), _Table(config, game_seed, 1))
    for n, table in enumerate(tables, 1):
        table.play_hand(f"deal {index + 1}, table {n}", bids_only=bids_only)
    return tables


def play_deal(config: ArenaConfig, index: int) -> PairResult:
    """Duplicate deal ``index``: one hand from 0-0, side a NS at table 1 and EW at table 2."""
    return _pair(index, _deal_tables(config, index))


def deal_bids(config: ArenaConfig, index: int) -> list[dict[str, Any]]:
    """How the two tables of duplicate deal ``index`` bid, without playing a card: for each,
    ``a_side`` and the four ``bids`` (0 = nil), as :func:`play_deal` would have them for
    players that decide by their view and the seat's seeded randomness alone (not by a clock,
    as a time budget does).  A benchmark uses it to play only the deals a change can touch,
    such as those with a nil."""
    return [{"a_side": t.a_side, "bids": list(t.game.bids)}
            for t in _deal_tables(config, index, bids_only=True)]


def play_match(config: ArenaConfig, index: int) -> PairResult:
    """Duplicate match ``index``: the whole match to the target, both ways on the same deals."""
    game_seed = f"{config.seed}:match:{index}"
    tables = (_Table(config, game_seed, 0), _Table(config, game_seed, 1))
    unfinished = 0
    for n, table in enumerate(tables, 1):
        game = table.game
        while game.phase == DEAL and game.hand_no < config.max_hands:
            table.play_hand(f"match {index + 1}, table {n}, hand {game.hand_no + 1}")
        if game.phase == OVER and game.winner is not None:
            table.tally[0 if game.winner == table.a_side else 1].match_wins += 1
        else:
            unfinished += 1
    return _pair(index, tables, unfinished)


def _play_chunk(job: tuple[ArenaConfig, list[int]]) -> list[PairResult]:
    config, indices = job
    play = play_match if config.matches else play_deal
    return [play(config, i) for i in indices]


def _chunks(total: int, jobs: int, slow: bool) -> list[list[int]]:
    """Split the pairs into chunks: small enough to balance the processes and keep the
    progress bar moving, large enough that sending them costs little."""
    size = 1 if slow else max(1, min(20, total // (jobs * 8)))
    return [list(range(i, min(total, i + size))) for i in range(0, total, size)]


def run_arena(
    config: ArenaConfig, jobs: int = 1, progress: bool = False, minutes: float | None = None
) -> ArenaResult:
    """Play the arena and gather the results in pair order (the same for any ``jobs``).

    With ``minutes``, no new pair is started once that much time has passed, and the result
    holds the pairs ``0 .. k-1`` that had all finished by then: "as many deals as fit" in a
    time box, still the same deals whatever ``jobs`` is.
    """
    if config.pairs < 1:
        raise ArenaError("nothing to play: give --deals or --matches a number of at least 1")
    if jobs < 1:
        raise ArenaError("--jobs must be at least 1")
    # Check both bots can be built here, so a bad name fails at once with its own message.
    for player, options in ((config.a, config.a_options), (config.b, config.b_options)):
        try:
            _load_bot(player, options)
        except (ValueError, TypeError, ImportError) as exc:
            raise ArenaError(str(exc).splitlines()[0]) from None
    slow = bool(config.matches) or any(
        p in ("hard", "cheater") for p in (config.a, config.b) if isinstance(p, str)
    )
    chunks = _chunks(config.pairs, jobs, slow)
    jobs = min(jobs, len(chunks))
    started = time.perf_counter()
    deadline = None if minutes is None else started + 60 * minutes
    results: list[PairResult] = []
    bar = _progress_bar(config, progress)
    batches = _map_chunks(config, chunks, jobs)
    try:
        for batch in batches:
            results.extend(batch)
            if bar is not None:
                bar.update(len(batch))
            if deadline is not None and time.perf_counter() >= deadline:
                break
    finally:
        batches.close()  # stops the worker processes if the time box ended the run
        if bar is not None:
            bar.close()
    results.sort(key=lambda r: r.index)
    finished = next((i for i, r in enumerate(results) if r.index != i), len(results))
    return ArenaResult(config, results[:finished], time.perf_counter() - started)


def _map_chunks(
    config: ArenaConfig, chunks: list[list[int]], jobs: int
) -> Generator[list[PairResult], None, None]:
    """Each chunk's results as it finishes, on ``jobs`` worker processes.

    The workers are *spawned*, not forked, and run by :class:`ProcessPoolExecutor`, not
    :class:`multiprocessing.Pool`: a forked child inherits whatever locks the parent's
    threads held at that instant, and ``Pool.terminate`` after a worker's error could then
    wait forever (a test hung that way now and then).  When the caller stops early (an error,
    or the time box) the chunks not started are cancelled and the ones under way finish:
    chunks are small, a few pairs at most.
    """
    if jobs == 1:
        for chunk in chunks:
            yield _play_chunk((config, chunk))
        return
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
    try:
        futures = [pool.submit(_play_chunk, (config, c)) for c in chunks]
        for future in as_completed(futures):
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _progress_bar(config: ArenaConfig, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    unit = "match" if config.matches else "deal"
    return tqdm(total=config.pairs, unit=unit, file=sys.stderr, dynamic_ncols=True)


# -- results --------------------------------------------------------------------------------


@dataclass(slots=True)
class ArenaResult:
    config: ArenaConfig
    pairs: list[PairResult]
    seconds: float

    def tally(self, which: str) -> SideTally:
        """Side ``"a"`` or ``"b"`` summed over every pair."""
        total = SideTally()
        for p in self.pairs:
            total.add(p.a if which == "a" else p.b)
        return total

    @property
    def differences(self) -> list[float]:
        """Per-pair ``a - b`` in points per hand, in pair order."""
        return [p.difference for p in self.pairs]

    def to_json(self) -> dict[str, Any]:
        c = self.config
        diff = mean_ci95(self.differences)
        hands = sum(sum(p.hands) for p in self.pairs)
        out: dict[str, Any] = {
            "mode": c.mode,
            # In match mode, the distinct deals dealt: the longer table of each pair.
            "deals": len(self.pairs) if not c.matches else sum(max(p.hands) for p in self.pairs),
            "matches": len(self.pairs) if c.matches else 0,
            # Fewer pairs than asked for when a time box (--minutes) ended the run.
            "requested": c.pairs,
            "hands": hands,
            "rules": c.rules.to_spec(),
            "seed": c.seed,
            "a": _side_json(_player_name(c.a), dict(c.a_options), self.tally("a")),
            "b": _side_json(_player_name(c.b), dict(c.b_options), self.tally("b")),
            "difference": {
                "mean": round(diff.mean, 3),
                "ci95": [round(diff.low, 3), round(diff.high, 3)],
                "se": round(diff.se, 3),
                "pairs": diff.n,
            },
            "seconds": round(self.seconds, 2),
        }
        if c.matches:
            a_wins, b_wins = out["a"]["match_wins"], out["b"]["match_wins"]
            decided = a_wins + b_wins
            low, high = wilson_ci95(a_wins, decided)
            out["match"] = {
                "played": 2 * len(self.pairs),
                "unfinished": sum(p.unfinished for p in self.pairs),
                "hands_per_match": round(hands / (2 * len(self.pairs)), 2),
                "a_win_rate": round(a_wins / decided, 4) if decided else None,
                "a_win_rate_ci95": [round(low, 4), round(high, 4)],
            }
        return out

    def table_text(self) -> str:
        """The result as a small table a person can read."""
        data = self.to_json()
        a, b = data["a"], data["b"]
        c = self.config
        what = (
            f"{data['matches']} matches to {c.rules.target}" if c.matches
            else f"{data['deals']} deals"
        )
        if len(self.pairs) < c.pairs:
            what += f" (of {c.pairs} asked; the time box ended the run)"
        names = ("a: " + _label(a), "b: " + _label(b))
        width = max(16, *(len(n) + 2 for n in names))
        lines = [
            f"Duplicate arena: {_label(a)} (a) vs {_label(b)} (b), {_rules_text(c.rules)},"
            f" {what} x 2 tables, seed {c.seed}, {data['hands']} hands",
            "",
            f"{'':22}{names[0]:>{width}}{names[1]:>{width}}",
        ]

        def row(label: str, left: object, right: object) -> None:
            lines.append(f"{label:22}{left!s:>{width}}{right!s:>{width}}")

        row("points per hand", f"{a['points_per_hand']:.1f}", f"{b['points_per_hand']:.1f}")
        if c.matches:
            row("match wins", a["match_wins"], b["match_wins"])
        row("contracts made / set", f"{a['made']} / {a['set']}", f"{b['made']} / {b['set']}")
        row("set rate", _pct(a["set_rate"]), _pct(b["set_rate"]))
        row("nil made / bid", f"{a['nil_made']} / {a['nil_bid']}",
            f"{b['nil_made']} / {b['nil_bid']}")
        row("blind nil made / bid", f"{a['blind_nil_made']} / {a['blind_nil_bid']}",
            f"{b['blind_nil_made']} / {b['blind_nil_bid']}")
        if a["blind_nil_bid"] or b["blind_nil_bid"]:
            row("blind nil points", f"{a['blind_nil_points']:+d}", f"{b['blind_nil_points']:+d}")
        row("bags per hand", f"{a['bags_per_hand']:.2f}", f"{b['bags_per_hand']:.2f}")
        row("decision ms p50/p95", f"{a['decision_ms_p50']:.2f} / {a['decision_ms_p95']:.2f}",
            f"{b['decision_ms_p50']:.2f} / {b['decision_ms_p95']:.2f}")
        d = data["difference"]
        low, high = d["ci95"]
        lines += [
            "",
            f"difference (a - b): {d['mean']:+.1f} points per hand,"
            f" 95% CI [{low:+.1f}, {high:+.1f}] over {d['pairs']} duplicate pairs",
        ]
        if c.matches:
            m = data["match"]
            rate = "n/a" if m["a_win_rate"] is None else _pct(m["a_win_rate"])
            wl, wh = m["a_win_rate_ci95"]
            lines.append(
                f"a wins {rate} of decided matches (95% CI {_pct(wl)}-{_pct(wh)}),"
                f" {m['unfinished']} unfinished after {c.max_hands} hands"
            )
        lines.append(f"{data['seconds']:.1f} s")
        return "\n".join(lines)

    def plot(self, path: str) -> None:
        """Draw the running mean difference with its 95% band, so one sees it settle."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        xs, means, lows, highs = running_ci95(self.differences)
        c = self.config
        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
        ax.fill_between(xs, lows, highs, alpha=0.25, label="95% confidence interval")
        ax.plot(xs, means, linewidth=1.6, label="mean difference")
        ax.axhline(0, color="black", linewidth=0.8)
        # The first few pairs have a band tens of times wider than the rest; scale the axis to
        # the band once it has settled a little so the later part stays readable.
        settled = min(len(xs) - 1, max(2, len(xs) // 20))
        top = max(0.0, *highs[settled:])
        bottom = min(0.0, *lows[settled:])
        margin = 0.1 * (top - bottom) or 1.0
        ax.set_ylim(bottom - margin, top + margin)
        ax.set_xlabel("duplicate matches" if c.matches else "duplicate deals")
        ax.set_ylabel("points per hand, a - b")
        ax.set_title(
            f"{_player_name(c.a)} (a) vs {_player_name(c.b)} (b), {_rules_text(c.rules)}"
        )
        ax.legend(loc="best")
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)


def _side_json(bot: str, options: dict[str, Any], t: SideTally) -> dict[str, Any]:
    hands = max(1, t.hands)
    contracts = t.made + t.set
    ms = t.decision_ms or [0.0]
    out: dict[str, Any] = {
        "bot": bot,
        "hands": t.hands,
        "points": t.points,
        "points_per_hand": round(t.points / hands, 3),
        "match_wins": t.match_wins,
        "made": t.made,
        "set": t.set,
        "set_rate": round(t.set / contracts, 4) if contracts else 0.0,
        "nil_bid": t.nil_bid,
        "nil_made": t.nil_made,
        "nil_made_rate": round(t.nil_made / t.nil_bid, 4) if t.nil_bid else None,
        "blind_nil_bid": t.blind_nil_bid,
        "blind_nil_made": t.blind_nil_made,
        "blind_nil_made_rate": (
            round(t.blind_nil_made / t.blind_nil_bid, 4) if t.blind_nil_bid else None
        ),
        "blind_nil_points": t.blind_nil_points,
        "bags_per_hand": round(t.bags / hands, 3),
        "bag_penalties": t.bag_penalties,
        "tricks_per_hand": round(t.tricks / hands, 3),
        "decisions": len(t.decision_ms),
        "decision_ms_p50": round(percentile(ms, 50), 3),
        "decision_ms_p95": round(percentile(ms, 95), 3),
    }
    if options:
        out["options"] = options
    return out


def _label(side: dict[str, Any]) -> str:
    """A side's bot with its options, so two sides of the same bot can be told apart."""
    options = side.get("options") or {}
    words = " ".join(f"{k}={v}" for k, v in options.items())
    return f"{side['bot']} ({words})" if words else str(side["bot"])


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rules_text(rules: Rules) -> str:
    spec = rules.to_spec()
    return spec if isinstance(spec, str) else json.dumps(spec, separators=(",", ":"))


# -- command line ---------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # Numbers are read as text and checked in run(), so a bad value gets one line, not usage.
    parser.add_argument("--a", default="normal", metavar="BOT",
                        help="side a's bot: easy, normal, hard, random or cheater (normal)")
    parser.add_argument("--b", default="easy", metavar="BOT", help="side b's bot (easy)")
    parser.add_argument("--deals", metavar="N",
                        help="duplicate deals: single hands from 0-0 (default 500)")
    parser.add_argument("--matches", metavar="N",
                        help="duplicate whole matches to the target, instead of deals")
    parser.add_argument("--rules", default="classic", metavar="PRESET|JSON",
                        help='a preset name or a JSON object, e.g. \'{"preset":"varaq",'
                             '"target":300}\' (classic)')
    parser.add_argument("--seed", default="1", metavar="N", help="seed of the deals (1)")
    parser.add_argument("--jobs", metavar="N",
                        help="worker processes (default: all cores); results do not depend on it")
    parser.add_argument("--budget", metavar="SECONDS",
                        help="thinking time per decision for a hard bot (its default if unset)")
    parser.add_argument("--samples", metavar="N",
                        help="a hard bot evaluates exactly N layouts per decision instead of"
                             " thinking for a time: its play no longer depends on the machine's"
                             " load, and results are the same for any --jobs")
    parser.add_argument("--max-hands", default=str(DEFAULT_MAX_HANDS), metavar="N",
                        help="stop a match unfinished after this many hands"
                             f" ({DEFAULT_MAX_HANDS})")
    parser.add_argument("--minutes", metavar="M",
                        help="time box: start no new deal or match after M minutes and report"
                             " the ones finished")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw the running difference and its 95%% band")


def config_from_args(args: argparse.Namespace) -> tuple[ArenaConfig, int, float | None]:
    """The arena, the processes and the time box the options ask for; ArenaError if bad."""
    if args.deals is not None and args.matches is not None:
        raise ArenaError("give --deals or --matches, not both")
    deals = _whole(args.deals, "--deals", 1) if args.deals is not None else 500
    matches = _whole(args.matches, "--matches", 1) if args.matches is not None else 0
    seed = _whole(args.seed, "--seed", 0)
    jobs = _whole(args.jobs, "--jobs", 1) if args.jobs is not None else (os.cpu_count() or 1)
    max_hands = _whole(args.max_hands, "--max-hands", 1)
    rules = _rules(args.rules)
    if args.budget is not None and args.samples is not None:
        raise ArenaError("give --budget or --samples, not both")
    options: list[tuple[tuple[str, Any], ...]] = []
    for name in (args.a, args.b):
        known = (*_bot_names(), *ARENA_ONLY)
        if name not in known:
            raise ArenaError(f"unknown bot {name!r} (choose from {', '.join(known)})")
        opts: tuple[tuple[str, Any], ...] = ()
        if args.budget is not None and name in BUDGETED:
            opts = (("budget", _positive(args.budget, "--budget", "seconds")),)
        if args.samples is not None and name in BUDGETED:
            opts = (("samples", _whole(args.samples, "--samples", 1)),)
        options.append(opts)
    for option, given in (("--budget", args.budget), ("--samples", args.samples)):
        if given is not None and not any(n in BUDGETED for n in (args.a, args.b)):
            raise ArenaError(f"{option} applies to a hard bot, and neither side is hard")
    if args.plot is not None and not args.plot.lower().endswith(".png"):
        raise ArenaError(f"--plot needs a .png file name, not {args.plot!r}")
    config = ArenaConfig(
        a=args.a, b=args.b, rules=rules, seed=seed,
        deals=0 if matches else deals, matches=matches,
        a_options=options[0], b_options=options[1], max_hands=max_hands,
    )
    minutes = None if args.minutes is None else _positive(args.minutes, "--minutes", "minutes")
    return config, jobs, minutes


def _bot_names() -> tuple[str, ...]:
    from .bots import BOT_NAMES

    return BOT_NAMES


def _whole(text: str, option: str, low: int) -> int:
    # int() alone would also take "３", "1_000" and " 5 ", and fail on thousands of digits.
    digits = text.removeprefix("-")
    if not (digits.isascii() and digits.isdigit()) or len(digits) > _MAX_DIGITS:
        raise ArenaError(f"{option} needs a whole number, not {quoted(text)}")
    value = int(text)
    if value < low:
        raise ArenaError(f"{option} must be at least {low}, not {value}")
    return value


def _positive(text: str, option: str, unit: str) -> float:
    # float() alone would also take "１.5", "1_0", "nan", "1e999" and " 2 ".
    number = text.removeprefix("-")
    whole, _, fraction = number.partition(".")
    digits = whole + fraction
    if not (digits.isascii() and digits.isdigit()) or len(number) > _MAX_DIGITS:
        raise ArenaError(f"{option} needs a number of {unit}, not {quoted(text)}")
    value = float(text)
    if not value > 0:
        raise ArenaError(f"{option} must be a positive number of {unit}, not {quoted(text)}")
    return value


def _rules(text: str) -> Rules:
    spec: Any = text
    if text.lstrip().startswith("{"):
        try:
            spec = json.loads(text)
        except json.JSONDecodeError as exc:
            where = f"{exc.msg} at column {exc.colno}"
            raise ArenaError(f"--rules is not valid JSON: {where}") from None
        except ValueError:  # int() refuses a number of more than 4300 digits
            why = "a number with thousands of digits"
            raise ArenaError(f"--rules is not valid JSON: {why}") from None
    try:
        return Rules.from_spec(spec)
    except RulesError as exc:
        raise ArenaError(f"--rules: {exc}") from None


def run(args: argparse.Namespace) -> int:
    try:
        config, jobs, minutes = config_from_args(args)
        show = not args.json and sys.stderr.isatty()
        result = run_arena(config, jobs=jobs, progress=show, minutes=minutes)
        if args.plot:
            try:
                result.plot(args.plot)
            except OSError as exc:
                raise ArenaError(f"cannot write {args.plot}: {exc.strerror}") from None
    except ArenaError as exc:
        print(f"varaq arena: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(result.table_text())
    return 0
