"""``varaq play``: a match in the terminal, you at South against the computer players.

Type bids and cards as you would say them — ``4``, ``nil``, ``QH``, ``10s``, ``q♥`` — and the
table is drawn again in text after every card.  ``help`` lists the words, ``score`` prints the
score sheet, ``quit`` (or end of input) stops.

``--daily [YYYY-MM-DD]`` deals that date's daily (today's, UTC, without a date) from this
machine's server secret — the deals ``varaq serve`` on this machine gives everyone that day —
with the daily's Hard players, as practice: nothing is stored or counted.  The computer players
get the same seeds as at the web table, so the same play meets the same answers there.

Every refusal is one line (``You cannot play 9S: must follow hearts``) and the prompt comes back;
bad options are one line on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import sys
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import TextIO

from .actions import ActionError, action_text, is_card, parse_action
from .bots import LEVELS, Bot, make_bot
from .bots.advice import decision_seed
from .cards import card_text, card_unicode, cards_of, sort_key
from .daily import (
    DAILY_LEVEL,
    DAILY_RULES,
    DailyError,
    check_playable,
    daily_samples,
    daily_seed,
    parse_day,
)
from .engine import DEAL, Game, IllegalAction
from .events import Event
from .replay import score_table
from .rulebook import rules_from_text
from .rules import Rules, RulesError
from .seats import SEAT_LETTERS, SEAT_NAMES, S
from .view import View

__all__ = ["add_arguments", "run", "Terminal", "draw_table"]

#: Exit status for options that cannot be played.
BAD_OPTIONS = 2
#: A daily table's journal holds four ``sit`` lines and a ``start`` before its first deal; a
#: computer player's seed names the table's version, so the terminal counts the same way.
DAILY_LINES_BEFORE_PLAY = 5

HELP = """\
Bid a number of tricks (4, bid 4) or nil; play a card by rank and suit (QH, 10s, ah, q♥);
'blind nil' or 'look' when you are offered blind nil; in an exchange, name a card to pass.
'score' shows the score sheet, 'hand' your cards, 'help' this text, 'quit' stops."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--daily", nargs="?", const="today", default=None, metavar="YYYY-MM-DD",
        help="practise a day's daily (today's without a date): its deals and Hard players",
    )
    parser.add_argument(
        "--rules", default=None, metavar="PRESET",
        help='a preset (classic, short, varaq, daily) or a JSON spec; default varaq',
    )
    parser.add_argument(
        "--bots", default=None, choices=LEVELS, metavar="LEVEL",
        help="the computer players: easy, normal or hard (default normal; hard at a daily)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, metavar="N",
        help="deal from this seed, to play the same cards again (not with --daily)",
    )


def _refuse(message: str) -> int:
    print(f"varaq play: {' '.join(message.split())}", file=sys.stderr)
    return BAD_OPTIONS


def run(args: argparse.Namespace) -> int:
    try:
        terminal = Terminal.from_options(args.daily, args.rules, args.bots, args.seed)
    except (DailyError, RulesError, ValueError) as e:
        return _refuse(str(e))
    try:
        return terminal.play(_ask_stdin, sys.stdout)
    except BrokenPipeError:  # the reader went away (``| head``): nothing left to say
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes it at exit
        return 0


def _ask_stdin(prompt: str) -> str | None:
    """A line from the person, or ``None`` at the end of input."""
    try:
        return input(prompt)
    except EOFError:
        return None


# -- drawing ----------------------------------------------------------------------------------


def _can_print(out: TextIO, text: str) -> bool:
    encoding = getattr(out, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _card_words(unicode: bool) -> Callable[[int], str]:
    return card_unicode if unicode else lambda c: card_text(c).replace("T", "10", 1)


def hand_words(mask: int, unicode: bool = True) -> str:
    """A hand by suit in display order: ``♠ A Q 10  ♥ K 7``."""
    word = _card_words(unicode)
    groups: list[list[str]] = []
    last = None
    for card in sorted(cards_of(mask), key=sort_key):
        text = word(card)
        suit = text[-1] if card < 52 else "J"
        if suit != last:
            groups.append([suit] if card < 52 else [])
            last = suit
        groups[-1].append(text[:-1] if card < 52 else text)
    return "  ".join(" ".join(g) for g in groups) or "(no cards)"


def _bid_words(view: View, seat: int) -> str:
    bid = view.bids[seat]
    if bid is None:
        return "no bid yet"
    said = "blind nil" if view.blind[seat] else ("nil" if bid == 0 else f"bid {bid}")
    return f"{said}, took {view.taken[seat]}"


#: The column the trick in the middle of the drawn table is centred on.
_MIDDLE = 30


def draw_table(view: View, names: dict[int, str], unicode: bool = True) -> str:
    """The table as South sees it: partner across, each seat's bid and tricks, the trick in
    the middle (``--`` for a seat yet to play), the seat to play marked, then the score."""
    word = _card_words(unicode)
    played = dict(view.trick)
    mark = " ◂" if unicode else " <"

    def about(seat: int) -> str:
        return f"{names[seat]} · {_bid_words(view, seat)}" + (mark if view.turn == seat else "")

    def card(seat: int) -> str:
        return word(played[seat]) if seat in played else "--"

    def centred(text: str) -> str:
        return " " * max(0, _MIDDLE - len(text) // 2) + text

    trick = len(view.tricks) + (1 if view.trick else 0)
    return "\n".join([
        centred(about(0)),
        " " * (_MIDDLE - 1) + card(0),
        f"{about(3):>{_MIDDLE - 8}}  {card(3):>3}      {card(1):<3}  {about(1)}",
        " " * (_MIDDLE - 1) + card(2),
        centred(about(2)),
        f"NS {view.totals[0]} (bags {view.bags[0]}) · EW {view.totals[1]} (bags "
        f"{view.bags[1]}) · to {view.rules.target} · hand {view.hand_no}, trick {max(1, trick)}",
    ])


# -- the match ----------------------------------------------------------------------------------


class Terminal:
    """One match in the terminal: the game, the computer players, and how to ask the person."""

    def __init__(self, game: Game, level: str, bot_options: dict[str, object], title: str,
                 *, daily: bool = False) -> None:
        self.game = game
        self.level = level
        self.bots: dict[object, Bot] = {}
        self.bot_options = bot_options
        self.title = title
        self.daily = daily
        self.names = {0: "North", 1: "East", 2: "You", 3: "West"}

    @classmethod
    def from_options(cls, daily: str | None, rules_text: str | None, bots: str | None,
                     seed: int | None) -> Terminal:
        if daily is None:
            rules = rules_from_text(rules_text) if rules_text else Rules.named("varaq")
            level = bots or "normal"
            game = Game(rules, seed=secrets.randbits(48) if seed is None else seed)
            return cls(game, level, {}, f"Varaq: {rules.label} rules, {level} computer players")
        if seed is not None:
            raise ValueError("--seed and --daily do not go together: the daily has its deals")
        if rules_text and rules_from_text(rules_text) != Rules.named(DAILY_RULES):
            raise ValueError(f"the daily is played under the {DAILY_RULES} preset; leave out "
                             "--rules")
        today = datetime.now(UTC).date()
        day = today if daily == "today" else parse_day(daily)
        check_playable(day, today)
        return cls.for_day(day, bots)

    @classmethod
    def for_day(cls, day: date, bots: str | None = None, secret: bytes | None = None,
                ) -> Terminal:
        """A practice of ``day``'s daily with this machine's secret (or ``secret``)."""
        if secret is None:
            from .service.settings import load_secret

            secret = load_secret()
        game = Game(DAILY_RULES, seed=daily_seed(secret, day))
        level = bots or DAILY_LEVEL
        options: dict[str, object] = {"samples": daily_samples(day)} if level == "hard" else {}
        title = f"Varaq daily {day.isoformat()} · practice, not counted"
        if level != DAILY_LEVEL:
            title += f" · {level} computer players"
        return cls(game, level, options, title, daily=True)

    def bot(self, samples: object) -> Bot:
        """The computer player that decides with ``samples`` layouts (a Hard bid asks for its
        own fixed number, as at the web table: :func:`~varaq.bots.advice.decision_seed`)."""
        if samples not in self.bots:
            options = dict(self.bot_options)
            if samples is not None:
                options["samples"] = samples
            self.bots[samples] = make_bot(self.level, **options)
        return self.bots[samples]

    def _seed(self, seat: int) -> str:
        """A computer player's seed for this decision: at a daily, the web table's."""
        version = len(self.game.actions) + (DAILY_LINES_BEFORE_PLAY if self.daily else 0)
        return f"{self.game.seed}:{version}:{SEAT_LETTERS[seat]}"

    def play(self, ask: Callable[[str], str | None], out: TextIO) -> int:
        """Play until the match ends or the person stops; 0 either way."""
        unicode = _can_print(out, "♠♥♦♣–·")

        def say(text: str = "") -> None:
            if not unicode:
                text = text.replace("·", "-").replace("–", "-")
            print(text, file=out, flush=True)

        game = self.game
        say(self.title)
        say("You sit South; North is your partner. Type 'help' for the words.")
        while not game.is_over:
            if game.phase == DEAL:
                if game.log:
                    say(self._hand_summary())
                game.deal()
                say()
                say(f"Hand {len(game.log) + 1}: {SEAT_NAMES[game.dealer]} deals.")
                say(f"Your cards: {hand_words(game.view(S).hand, unicode)}")
                continue
            seat = game.turn
            if seat != S:
                view = game.view(seat)
                samples = self.bot_options.get("samples")
                seed, samples = decision_seed(self.level, view, self._seed(seat),
                                              samples if isinstance(samples, int) else None)
                action = self.bot(samples).decide(view, random.Random(seed)).action
                self._after(say, game.apply(action, seat=seat), unicode)
                continue
            view = game.view(S)
            say()
            say(draw_table(view, self.names, unicode))
            if not view.cards_hidden:
                say(f"Your cards: {hand_words(view.hand, unicode)}")
            say(self._choices(view, unicode))
            done = False
            while not done:  # until an answer is an action: help or a refusal asks again
                answer = ask("> ")
                if answer is None or answer.strip().lower() in ("quit", "exit", "q"):
                    say("Stopped; the match is not finished.")
                    return 0
                done = self._answer(say, answer, view, unicode)
        say(self._hand_summary() if game.log and game.conceded is None else "")
        say(self._final())
        return 0

    def _answer(self, say: Callable[[str], None], text: str, view: View, unicode: bool) -> bool:
        """Do what the person typed; whether it was an action (else ask again)."""
        word = text.strip().lower()
        if word in ("help", "?", "h"):
            say(HELP)
            return False
        if word == "score":
            say(score_table(self.game) if self.game.log else "No hand has been scored yet.")
            return False
        if word == "hand":
            say(f"Your cards: {hand_words(view.hand, unicode)}")
            return False
        if not word:
            return False
        try:
            action = parse_action(text[:40])
        except ActionError as e:
            say(f"{str(e).splitlines()[0]}; type 'help' for the words")
            return False
        if action not in view.legal:
            reason = self.game.why_illegal(action) or "that is not open to you now"
            verb = "play " if is_card(action) and view.phase == "play" else ""
            say(f"You cannot {verb}{action_text(action)}: {reason}")
            return False
        try:
            event = self.game.apply(action, seat=S)
        except IllegalAction as e:  # the engine's reason, in one line
            say(str(e).splitlines()[0])
            return False
        self._after(say, event, unicode)
        return True

    def _after(self, say: Callable[[str], None], event: Event, unicode: bool) -> None:
        """Say what a seat did — never a card another seat passed in an exchange — and after a
        card, draw the table (unless South is next: the prompt draws it)."""
        seat, action = event.seat, event.action
        name = "You" if seat == S else SEAT_NAMES[seat]
        word = _card_words(unicode)
        if event.kind == "pass":
            say(f"{name} passed {word(action) if seat == S else 'a card'}.")
        elif event.kind == "look":
            say(f"{name} looked at the cards.")
        elif event.kind != "play":
            say(f"{name}: {action_text(action)}.")
        elif event.trick is not None:
            trick = event.trick
            cards = "  ".join(f"{SEAT_LETTERS[(trick.leader + i) & 3]} {word(c)}"
                              for i, c in enumerate(trick.cards))
            say(f"{name} played {word(action)}.  Trick: {cards}; "
                f"{SEAT_NAMES[trick.winner]} takes it.")
        else:
            say(f"{name} played {word(action)}.")
            if self.game.turn != S:
                say(draw_table(self.game.view(S), self.names, unicode))

    def _choices(self, view: View, unicode: bool) -> str:
        legal = view.legal
        if view.phase == "blind":
            return "Blind nil, or look at your cards? (blind nil / look)"
        if view.phase == "bid":
            bids = sorted(a for a in legal if action_text(a).startswith("bid "))
            low = action_text(bids[0])[4:] if bids else "?"
            high = action_text(bids[-1])[4:] if bids else "?"
            nil = " or nil" if any(action_text(a) == "nil" for a in legal) else ""
            return f"Your bid: {low} to {high}{nil}."
        word = _card_words(unicode)
        cards = " ".join(word(a) for a in sorted(legal, key=sort_key) if is_card(a))
        if view.phase == "exchange":
            return f"Pass a card to your partner: {cards}"
        return f"You may play: {cards}"

    def _hand_summary(self) -> str:
        game = self.game
        result = game.log[-1].result
        lines = [f"Hand {len(game.log)} scored:"]
        for side, seats in ((0, (0, 2)), (1, (1, 3))):
            bids = ", ".join(
                f"{SEAT_NAMES[s]} {'nil' if result.bids[s] == 0 else result.bids[s]}"
                f" took {result.tricks[s]}" for s in seats
            )
            made = {True: "made", False: "set", None: "no contract"}[result.made[side]]
            lines.append(f"  {('NS', 'EW')[side]}: {bids}; {made}; {result.score[side]:+d} "
                         f"points, {result.new_bags[side]} bags")
        lines.append(f"  Score: NS {game.totals[0]} · EW {game.totals[1]}")
        return "\n".join(lines)

    def _final(self) -> str:
        game = self.game
        ours, theirs = game.totals
        hands = len(game.log)
        verb = "won" if game.winner == 0 else "lost"
        how = " (a side conceded)" if game.conceded is not None else ""
        practice = " Practice: nothing is counted." if self.daily else ""
        return (f"Match over: you {verb} {ours}–{theirs} in {hands} hand"
                f"{'' if hands == 1 else 's'}{how}.{practice}")
