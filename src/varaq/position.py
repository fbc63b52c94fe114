"""A card-play position written as one line of text.

What EPD is to chess, this is to Varaq: a position a person can type, paste into an issue or keep
in a file, one per line, for the solver (``varaq solve``), for lessons and puzzles, and for
tests.  The line is PBN-style hands followed by options::

    N:AK2.QJ3.T98.765 QJ9.A54.KJ7.KQ4 T87.K987.65.AJ9 6543.T62.AQ432. leader=W broken=1

- ``N:`` is the seat of the first hand; the hands follow clockwise (N, E, S, W).
- A hand is ``spades.hearts.diamonds.clubs``, each suit its ranks (``AKQJT98765432``, ``T`` for
  ten), an empty suit left empty.  With ``jokers=1`` the jokers ``BJ`` and ``LJ`` go in the
  spade group, which is then written in trump order (``BJLJ2AK``: 2♠ above the ace).
- ``leader=`` the seat that led (or leads) the trick in progress; ``broken=1`` when a spade was
  played to an earlier trick; ``trick=KH,2H`` the cards already played to the trick, starting
  with the leader's (the seats that played hold one card fewer); ``two_clubs=1`` for the opening
  lead of a game played with the 2♣-leads variation; ``jokers=1`` for Big Joker Little Joker.

Written by :meth:`Position.to_line` with the hands from North and every option that is not its
default, so that a position has one canonical line.

>>> p = Position.parse("W:AK.2.. 3.AK.. QJ.4.. 54.3.. leader=W broken=1")
>>> seat_letter(p.turn), p.to_line()
('W', 'N:3.AK.. QJ.4.. 54.3.. AK.2.. leader=W broken=1')
>>> {card_text(card): tricks for card, tricks in p.values().items()}   # E-W's tricks
{'2H': 2, 'KS': 2, 'AS': 2}
>>> Position.parse(p.to_line()) == p
True
>>> Position.parse("N:A... 2... 3... leader=N")
Traceback (most recent call last):
...
varaq.position.PositionError: a position needs four hands, found 3
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import (
    BJ,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JOKER_DECK,
    LJ,
    RANK_LETTERS,
    SPADE_MASK,
    SPADES,
    STANDARD_DECK,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    TWO_CLUBS,
    CardError,
    card_text,
    parse_card,
    trump_order,
)
from .engine import Game
from .rules import Rules
from .seats import SEAT_LETTERS

__all__ = ["Position", "PositionError", "seat_letter", "parse_seat"]

#: Suits in the order a hand is written: spades, hearts, diamonds, clubs.
_WRITTEN_SUITS = (SPADES, HEARTS, DIAMONDS, CLUBS)
_OPTIONS = ("leader", "broken", "trick", "jokers", "two_clubs")


class PositionError(ValueError):
    """A line that is not a position; the message says why, in one line."""


def seat_letter(seat: int) -> str:
    """``N``, ``E``, ``S`` or ``W``."""
    return SEAT_LETTERS[seat]


def parse_seat(text: str) -> int:
    """A seat from its letter (either case)."""
    letter = text.strip().upper()
    if len(letter) != 1 or letter not in "NESW":
        raise PositionError(f"unknown seat {text!r} (use N, E, S or W)")
    return "NESW".index(letter)


@dataclass(frozen=True, slots=True)
class Position:
    """Four holdings, the trick in progress and the state the play depends on.

    ``hands`` are indexed by seat (0 N, 1 E, 2 S, 3 W); ``trick`` holds the cards already played
    to the trick led by ``leader``.
    """

    hands: tuple[int, int, int, int]
    leader: int
    trick: tuple[int, ...] = ()
    broken: bool = False
    jokers: bool = False
    two_clubs: bool = False

    def __post_init__(self) -> None:
        _check(self)

    # -- reading and writing ------------------------------------------------------------------

    @classmethod
    def parse(cls, line: str) -> Position:
        """Read a position line (see the module docstring); :class:`PositionError` says why not."""
        words = line.split()
        if not words:
            raise PositionError("empty line: a position needs four hands")
        first, colon, hand_text = words[0].partition(":")
        if not colon:
            raise PositionError("a position starts with the first hand's seat and a colon (N:...)")
        seat = parse_seat(first)
        hand_words = [hand_text]
        for w in words[1:4]:
            if "=" in w:
                break
            hand_words.append(w)
        if len(hand_words) != 4:
            raise PositionError(f"a position needs four hands, found {len(hand_words)}")
        options = _options(words[4:])
        jokers = _flag(options, "jokers")
        hands = [0, 0, 0, 0]
        for i, text in enumerate(hand_words):
            hands[(seat + i) & 3] = _parse_hand(text, jokers, seat_letter((seat + i) & 3))
        leader = parse_seat(options["leader"]) if "leader" in options else seat
        trick: tuple[int, ...] = ()
        if options.get("trick"):
            try:
                trick = tuple(parse_card(c) for c in options["trick"].split(","))
            except CardError as e:
                raise PositionError(f"trick: {e}") from None
        return cls(
            (hands[0], hands[1], hands[2], hands[3]), leader, trick,
            broken=_flag(options, "broken"), jokers=jokers, two_clubs=_flag(options, "two_clubs"),
        )

    def to_line(self) -> str:
        """The canonical line: hands from North, then the options that are not defaults."""
        hands = " ".join(_hand_text(h, self.jokers) for h in self.hands)
        words = [f"N:{hands}", f"leader={seat_letter(self.leader)}"]
        if self.broken:
            words.append("broken=1")
        if self.trick:
            words.append("trick=" + ",".join(card_text(c) for c in self.trick))
        if self.jokers:
            words.append("jokers=1")
        if self.two_clubs:
            words.append("two_clubs=1")
        return " ".join(words)

    # -- what the position means ---------------------------------------------------------------

    @property
    def turn(self) -> int:
        """The seat to play."""
        return (self.leader + len(self.trick)) & 3

    @property
    def tricks_left(self) -> int:
        """Tricks still to be won, the one in progress included."""
        return self.hands[self.turn].bit_count()

    def rules(self, preset: str = "classic") -> Rules:
        """A preset with this position's variations switched on."""
        return Rules.named(preset).with_options(jokers=self.jokers, two_clubs_leads=self.two_clubs)

    def values(self, backend: str | None = None) -> dict[int, int]:
        """Tricks the side to play takes after each of its legal cards, with perfect play."""
        from .solver import card_values

        return card_values(
            list(self.hands), self.leader, list(self.trick), self.broken, self.jokers,
            first_trick_two_clubs=self.two_clubs, backend=backend,
        )

    def to_game(self, bids: tuple[int, int, int, int] = (3, 3, 3, 3)) -> Game:
        """A :class:`~varaq.engine.Game` in the play phase at this position.

        The tricks already played are stand-ins credited to nobody and the bids are ``bids``
        (a position does not say them), so the rest of the play follows the rules exactly while
        the final score is only as meaningful as the bids given.
        """
        from .engine import PLAY
        from .events import TrickResult

        rules = self.rules()
        g = Game(rules, seed=0, dealer=(self.leader - 1) & 3)
        left = self.tricks_left
        g.phase = PLAY
        g.bids = list(bids)
        g.hands = list(self.hands)
        g.leader = self.leader
        g.trick = list(self.trick)
        g.turn = self.turn
        g.broken = self.broken
        g.tricks = [TrickResult(0, (0, 0, 0, 0), 0)] * (13 - left)
        deck = JOKER_DECK if self.jokers else STANDARD_DECK
        in_play = self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]
        for card in self.trick:
            in_play |= 1 << card
        g.played = deck & ~in_play
        return g


def _options(words: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for word in words:
        key, equals, value = word.partition("=")
        if not equals:
            raise PositionError(f"{word!r} after the four hands is not an option (key=value)")
        key = key.lower()
        if key not in _OPTIONS:
            raise PositionError(f"unknown option {key!r} (known: {', '.join(_OPTIONS)})")
        if key in out:
            raise PositionError(f"option {key} given twice")
        out[key] = value
    return out


def _flag(options: dict[str, str], key: str) -> bool:
    value = options.get(key, "0")
    if value not in ("0", "1"):
        raise PositionError(f"{key} must be 0 or 1, not {value!r}")
    return value == "1"


def _parse_hand(text: str, jokers: bool, seat: str) -> int:
    groups = text.split(".")
    if len(groups) != 4:
        raise PositionError(
            f"{seat}'s hand {text!r} needs four suits, spades.hearts.diamonds.clubs"
        )
    mask = 0
    for suit, group in zip(_WRITTEN_SUITS, groups, strict=True):
        g = group.upper()
        i = 0
        while i < len(g):
            if g[i] in "BL" and g[i:i + 2] in ("BJ", "LJ"):
                if suit != SPADES or not jokers:
                    where = "outside the spade group" if suit != SPADES else "without jokers=1"
                    raise PositionError(f"{seat}'s hand: joker {g[i:i + 2]} {where}")
                card = BJ if g[i] == "B" else LJ
                i += 2
            elif g[i] in RANK_LETTERS:
                card = suit * 13 + RANK_LETTERS.index(g[i])
                i += 1
            else:
                raise PositionError(f"{seat}'s hand: {group[i]!r} is not a rank in {text!r}")
            if mask >> card & 1:
                raise PositionError(f"{seat}'s hand holds {card_text(card)} twice")
            mask |= 1 << card
    return mask


def _hand_text(hand: int, jokers: bool) -> str:
    order = trump_order(jokers)
    groups = []
    for suit in _WRITTEN_SUITS:
        cards = [c for c in range(54) if hand >> c & 1 and SUIT_OF[c] == suit]
        if suit == SPADES:
            cards.sort(key=lambda c: order[c], reverse=True)
        else:
            cards.sort(reverse=True)
        groups.append("".join(card_text(c) if c >= 52 else RANK_LETTERS[c % 13] for c in cards))
    return ".".join(groups)


def _check(p: Position) -> None:
    """Refuse what cannot happen in play, one reason at a time."""
    if not 0 <= p.leader <= 3:
        raise PositionError("leader must be a seat")
    if len(p.trick) > 3:
        raise PositionError(f"a trick in progress holds at most 3 cards, not {len(p.trick)}")
    if p.jokers and p.two_clubs:
        raise PositionError("jokers and two_clubs cannot go together: the 2C is not in the deck")
    deck = JOKER_DECK if p.jokers else STANDARD_DECK
    seen = 0
    for card in (*_cards(p.hands), *p.trick):
        if not deck >> card & 1:
            what = "the joker deck" if p.jokers else "the deck (jokers=1 adds the jokers)"
            raise PositionError(f"{card_text(card)} is not in {what}")
        if seen >> card & 1:
            raise PositionError(f"{card_text(card)} appears twice")
        seen |= 1 << card
    turn = p.turn
    left = p.hands[turn].bit_count()
    if left == 0:
        raise PositionError("the player to act holds no card: nothing to solve")
    for k in range(4):
        seat = (p.leader + k) & 3
        want = left - 1 if k < len(p.trick) else left
        have = p.hands[seat].bit_count()
        if have != want:
            played = " (it has played to the trick)" if k < len(p.trick) else ""
            raise PositionError(f"{seat_letter(seat)} holds {have} cards, expected {want}{played}")
    if p.trick:
        led = SUIT_OF[p.trick[0]]
        if led == SPADES and not p.broken and p.hands[p.leader] & ~SPADE_MASK:
            raise PositionError("a spade was led before spades were broken (set broken=1?)")
        for k, card in enumerate(p.trick[1:], 1):
            seat = (p.leader + k) & 3
            if SUIT_OF[card] != led and p.hands[seat] & SUIT_MASKS[led]:
                raise PositionError(
                    f"{seat_letter(seat)} played {card_text(card)} to a {SUIT_NAMES[led][:-1]} "
                    "lead but still holds that suit"
                )
    if p.two_clubs:
        if p.trick or left != 13:
            raise PositionError("two_clubs=1 is the opening lead: 13 cards each, no trick")
        if not p.hands[p.leader] >> TWO_CLUBS & 1:
            raise PositionError(f"two_clubs=1 but the leader {seat_letter(p.leader)} lacks the 2C")


def _cards(hands: tuple[int, ...]) -> list[int]:
    out: list[int] = []
    for h in hands:
        out.extend(c for c in range(54) if h >> c & 1)
    return out
