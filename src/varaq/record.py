"""Game records: a whole match as one ``varaq-record/1`` JSON document (see docs/record-format.md).

A record is written from a :class:`~varaq.engine.Game` with :func:`to_record` — finished or not,
the hand in progress included — and read back with :func:`load_record`, which does not trust a
single number in it: every blind nil decision, bid, exchanged card and played card goes through
:meth:`Game.apply`, so a record that loads is a record that obeys the rules, and the scores come
from the engine rather than from the file.  A refusal is a :class:`RecordError` whose one-line
message names the place (``hand 2, trick 5: W cannot play 9S: must follow hearts``).

The score-sheet form (each seat's ``tricks`` instead of the cards) is for people playing with
real cards: its bids are still checked, and its tricks are scored by the same engine.

A hand in progress may carry ``"looked": ["E"]``, the seats that
chose to look at their cards instead of bidding blind nil and have not bid yet.  Without it a
saved game would ask them again, after they have seen their cards.

>>> from varaq import Game
>>> g = Game("varaq", seed=5, dealer=0)
>>> _ = g.deal()
>>> for a in (70, 68, 66, 67):
...     _ = g.apply(a)
>>> doc = to_record(g)
>>> doc["hands"][0]["bids"]
{'E': 6, 'S': 4, 'W': 2, 'N': 3}
>>> to_record(load_record(doc)) == doc
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from itertools import product
from typing import Any

from .actions import BID, BLIND_NIL, DEAL_GIVEN, LOOK, ActionError, action_text, parse_action
from .cards import (
    CARD_WORDS,
    SPADE_MASK,
    STANDARD_DECK,
    SUIT_MASKS,
    SUIT_OF,
    TWO_CLUBS,
    CardError,
    card_text,
    hand_text,
    parse_card,
)
from .engine import BIDDING, BLIND, DEAL, EXCHANGE, OVER, PLAY, Game, HandLog, IllegalAction
from .rules import PRESETS, Rules, RulesError
from .scoring import match_winner, score_hand
from .seats import SEAT_LETTERS, SIDE_NAMES, parse_seat

__all__ = ["FORMAT", "RecordError", "to_record", "load_record", "parse_record"]

FORMAT = "varaq-record/1"

_TOP_KEYS = ("format", "rules", "partial", "reader", "start", "hands", "conceded")
_HAND_KEYS = (
    "dealer", "deal", "bids", "looked", "exchange", "plays", "undos", "claim", "tricks",
)
_HAND_KEY_SET = frozenset(_HAND_KEYS)
#: ``1 << card``, made once: above bit 30 each shift would make a new int.
_BIT = tuple(1 << card for card in range(54))
#: Card text -> the card's bit, for every spelling :func:`~varaq.cards.parse_card` reads.
_CARD_BITS = {word: _BIT[card] for word, card in CARD_WORDS.items()}
#: The seat letters a record writes, looked up before ``parse_seat`` reads other spellings.
_SEAT_KEYS = {letter: seat for seat, letter in enumerate(SEAT_LETTERS)}
#: Whether :func:`load_record` may check ordinary hands without the engine (see
#: :class:`_FastHands`); the tests turn it off to compare.
_FAST = True


class RecordError(ValueError):
    """A record that cannot be read or breaks a rule; ``str()`` is one line naming the place."""


# -- writing --------------------------------------------------------------------------------


def to_record(game: Game, reader: int | None = None) -> dict[str, Any]:
    """The ``varaq-record/1`` document of ``game``: finished hands, then the hand in progress.

    With a ``reader`` seat and a match still running, the record holds only what that seat may
    see (a player's "Download record"): finished hands in full (every one of their cards has
    been played face up), and of the hand in progress the bids, the cards played, the reader's
    own cards as dealt (none while it is still choosing blind nil) and the exchange cards it
    gave or was given.  Such a record says ``"partial": true`` and names its ``"reader"``.  Once
    the match is over every card may be seen, and the record is the full one.
    """
    doc: dict[str, Any] = {"format": FORMAT, "rules": game.rules.to_spec()}
    if reader is not None and game.phase != OVER:
        doc["partial"] = True
        doc["reader"] = SEAT_LETTERS[reader] if reader >= 0 else "watcher"
    if any(game.start_totals) or any(game.start_bags):
        doc["start"] = {
            "total": _by_side(game.start_totals),
            "bags": _by_side(game.start_bags),
        }
    hands = [_finished_hand(log) for log in game.log]
    if game.phase in (BLIND, BIDDING, EXCHANGE, PLAY) or _conceded_mid_hand(game):
        current = _current_hand(game)
        if doc.get("partial") and reader is not None:
            _keep_what_reader_sees(game, current, reader)
        hands.append(current)
    doc["hands"] = hands
    doc["conceded"] = None if game.conceded is None else SIDE_NAMES[game.conceded]
    return doc


def _keep_what_reader_sees(game: Game, hand: dict[str, Any], reader: int) -> None:
    """Strip the hand in progress down to what ``reader`` may know (see :func:`to_record`)."""
    deal = hand.pop("deal", None)
    exchange = hand.pop("exchange", None)
    if reader < 0:  # a watcher: no hand, no exchange
        return
    view = game.view(reader)
    if deal is not None and not view.cards_hidden:
        hand["deal"] = {SEAT_LETTERS[reader]: deal[SEAT_LETTERS[reader]]}
    if exchange:
        # A seat sees what it gave and what its partner gave it; the other side's exchange
        # stays between them.
        mine = {k: v for k, v in exchange.items() if k in (SEAT_LETTERS[reader],)}
        if view.received:
            mine[SEAT_LETTERS[reader ^ 2]] = hand_text(view.received)
        if mine:
            hand["exchange"] = {k: mine[k] for k in exchange if k in mine}
    # Keys in the record's usual order.
    order = {key: i for i, key in enumerate(_HAND_KEYS)}
    items = sorted(hand.items(), key=lambda kv: order.get(kv[0], len(order)))
    hand.clear()
    hand.update(items)


def _conceded_mid_hand(game: Game) -> bool:
    """Whether a concession stopped a hand that had been dealt but not finished: its cards and
    bids so far belong in the record too."""
    if game.conceded is None or not (game.sheet or any(game.dealt)):
        return False
    return sum(game.taken) < 13 or min(game.bids) < 0


def _by_side(pair: tuple[int, int] | list[int]) -> dict[str, int]:
    return {"NS": pair[0], "EW": pair[1]}


def _bidding_order(dealer: int) -> list[int]:
    return [(dealer + 1 + i) & 3 for i in range(4)]


def _bid_word(value: int, blind: bool) -> int | str:
    if blind:
        return "blind"
    return "nil" if value == 0 else value


def _bids_doc(dealer: int, bids: list[int] | tuple[int, ...], blind: Any) -> dict[str, Any]:
    return {
        SEAT_LETTERS[s]: _bid_word(bids[s], blind[s])
        for s in _bidding_order(dealer)
        if bids[s] >= 0
    }


def _plays_text(plays: Any) -> str:
    return " ".join(card_text(c) for c in plays)


def _finished_hand(log: HandLog) -> dict[str, Any]:
    hand: dict[str, Any] = {"dealer": SEAT_LETTERS[log.dealer]}
    if log.dealt is not None:
        hand["deal"] = {SEAT_LETTERS[s]: hand_text(log.dealt[s]) for s in range(4)}
    hand["bids"] = _bids_doc(log.dealer, log.bids, log.blind)
    exchange = {SEAT_LETTERS[s]: hand_text(m) for s, m in enumerate(log.exchanged) if m}
    if exchange:
        hand["exchange"] = exchange
    if log.dealt is None:
        hand["tricks"] = {SEAT_LETTERS[s]: log.result.tricks[s] for s in range(4)}
    else:
        hand["plays"] = _plays_text(log.plays)
    if log.undos:
        hand["undos"] = _undos_doc(log.undos)
    if log.claim >= 0:
        hand["claim"] = SEAT_LETTERS[log.claim]
    return hand


def _undos_doc(undos: Any) -> list[dict[str, Any]]:
    """Each undo of a hand: how many moves stood before it, and the moves it took back."""
    return [{"at": at, "moves": [action_text(a) for a in moves]} for at, moves in undos]


def _current_hand(game: Game) -> dict[str, Any]:
    hand: dict[str, Any] = {"dealer": SEAT_LETTERS[game.dealer]}
    if not game.sheet:
        hand["deal"] = {SEAT_LETTERS[s]: hand_text(game.dealt[s]) for s in range(4)}
    hand["bids"] = _bids_doc(game.dealer, game.bids, game.blind)
    looked = _looked_without_bid(game)
    if looked:
        hand["looked"] = [SEAT_LETTERS[s] for s in looked]
    gave = list(game.exchanged)
    if game.phase == EXCHANGE and game.passing:
        gave[game.exchange_queue[0][0]] |= game.passing
    exchange = {SEAT_LETTERS[s]: hand_text(m) for s, m in enumerate(gave) if m}
    if exchange:
        hand["exchange"] = exchange
    plays = game.plays()
    if plays:
        hand["plays"] = _plays_text(plays)
    undos = game.undos()
    if undos:
        hand["undos"] = _undos_doc(undos)
    return hand


def _looked_without_bid(game: Game) -> list[int]:
    """Seats that chose to look at their cards and have not bid, while no ordinary bid shows
    that the blind nil round is over (the reader infers that much on its own)."""
    if game.phase not in (BLIND, BIDDING) and not _conceded_mid_hand(game):
        return []
    if any(b >= 0 and not game.blind[s] for s, b in enumerate(game.bids)):
        return []
    out = []
    order = _bidding_order(game.dealer)
    for seat in order:
        if game.bids[seat] >= 0 or seat in game.blind_queue or not game.rules.blind_nil:
            continue
        mate = seat ^ 2
        if game.blind[mate] and order.index(mate) < order.index(seat):
            continue  # never asked: the partner took the side's blind nil first
        side = seat & 1
        if game.totals[1 - side] - game.totals[side] >= game.rules.blind_nil_trail:
            out.append(seat)
    return out


# -- reading --------------------------------------------------------------------------------


def parse_record(text: str | bytes) -> dict[str, Any]:
    """Read a record's JSON text; malformed JSON is a one-line :class:`RecordError`."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise RecordError(f"the record is not UTF-8 text (byte {e.start})") from None
    try:
        doc = json.loads(text, object_pairs_hook=_no_repeated_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise RecordError(f"malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise RecordError("malformed JSON: nested too deeply") from None
    except RecordError:
        raise  # a repeated key or a NaN, already named by the hooks below
    except ValueError:
        # json gives int() every run of digits, and int() refuses more than 4300 of them.
        raise RecordError("malformed JSON: a number with thousands of digits") from None
    if not isinstance(doc, dict):
        raise RecordError(f"a record is a JSON object, not {_json_kind(doc)}")
    return doc


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)  # built in C; only an object that lost a key is looked at again
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RecordError(
                    f"malformed JSON: key {_shown(key)} appears twice in one object"
                )
            seen.add(key)
    return out


def _no_constant(name: str) -> Any:
    raise RecordError(f"malformed JSON: {name} is not a number")


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: Any, limit: int = 40) -> str:
    """``repr`` of a value from the record, cut short so that a refusal stays one line."""
    if _is_int(value) and value.bit_length() > 128:
        return f"a number of about {int(value.bit_length() * 0.30103)} digits"
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def load_record(doc: Mapping[str, Any] | str | bytes, *, seed: int | str = 0) -> Game:
    """Replay a record through the engine and return the game at its end.

    ``doc`` is the parsed document or its JSON text.  ``seed`` only matters for hands dealt
    after loading with :meth:`Game.deal`; the record's own hands carry their cards.
    """
    if isinstance(doc, (str, bytes)):
        doc = parse_record(doc)
    if not isinstance(doc, Mapping):
        raise RecordError(f"a record is a JSON object, not {_json_kind(doc)}")
    for key in doc:
        if key not in _TOP_KEYS:
            raise RecordError(
                f"unknown record key {_shown(key)} (expected {', '.join(_TOP_KEYS)})"
            )
    fmt = doc.get("format", FORMAT)
    if fmt != FORMAT:
        raise RecordError(f"format must be {FORMAT!r}, not {_shown(fmt)}")
    rules = _read_rules(doc.get("rules", "classic"))
    totals, bags = _read_start(doc.get("start"))
    hands = doc.get("hands", [])
    if not isinstance(hands, list):
        raise RecordError(f"hands must be a list, not {_json_kind(hands)}")
    if doc.get("partial") is True and hands and _unseen_cards(hands[-1]):
        # One player's record of a running match: the hand in progress shows that player's
        # cards only, so it cannot be replayed; its finished hands can.
        hands = hands[:-1]
    first_dealer = 0
    if hands and isinstance(hands[0], Mapping) and hands[0].get("dealer") is not None:
        first_dealer = _read_seat(hands[0]["dealer"], "hand 1: dealer")
    game = Game(rules, seed=seed, totals=totals, bags=bags, dealer=first_dealer)
    # Every hand but the last may take the fast path; the last always goes through the engine,
    # which leaves the game (the hand's tricks, turn, holdings) exactly as it was played.
    fast = _FastHands(game)
    fast_until = len(hands) if _FAST and fast.enabled else 1
    for number, hand in enumerate(hands, 1):
        if game.phase == OVER:
            raise RecordError(f"hand {number}: the match was already over after hand {number - 1}")
        if game.phase != DEAL:
            raise RecordError(
                f"hand {number - 1}: unfinished ({_where_it_stopped(game)}), "
                f"but hand {number} follows"
            )
        if number < fast_until and fast.play(hand):
            continue
        before = game.copy() if isinstance(hand, Mapping) and hand.get("undos") else None
        _HandReader(game, number, hand).read()
        if before is not None:
            _UndoReader(before, number, hand).replay_into(game)
    conceded = doc.get("conceded")
    if conceded is not None:
        if conceded not in SIDE_NAMES:
            raise RecordError(f"conceded must be \"NS\", \"EW\" or null, not {conceded!r}")
        if game.phase == OVER:
            raise RecordError(f"{conceded} cannot concede: the match was already over")
        game.concede(SIDE_NAMES.index(conceded))
    return game


def _unseen_cards(hand: Any) -> bool:
    """Whether a hand's deal leaves some seat's cards out (a partial record's last hand)."""
    if not isinstance(hand, Mapping) or "tricks" in hand:
        return False
    deal = hand.get("deal")
    return not isinstance(deal, Mapping) or len(deal) < 4


def _where_it_stopped(game: Game) -> str:
    if game.phase == PLAY and game.sheet:
        return "no tricks given"
    if game.phase == PLAY:
        return f"{len(game.plays())} of 52 cards played"
    return {BLIND: "blind nil undecided", BIDDING: "bidding unfinished",
            EXCHANGE: "exchange unfinished"}.get(game.phase, "not finished")


def _read_rules(spec: Any) -> Rules:
    if isinstance(spec, Mapping):
        preset = spec.get("preset", "classic")
        if not isinstance(preset, str):
            raise RecordError(f"rules: preset must be a name, not {_json_kind(preset)}")
        spec = dict(spec)
    elif not isinstance(spec, str):
        raise RecordError(f"rules must be a preset name or an object, not {_json_kind(spec)}")
    elif spec not in PRESETS:
        raise RecordError(f"rules: unknown preset {spec!r} (choose from {', '.join(PRESETS)})")
    try:
        return Rules.from_spec(spec)
    except RulesError as e:
        raise RecordError(f"rules: {e}") from None
    except TypeError as e:
        raise RecordError(f"rules: {e}") from None


#: The largest total or bag count a record may start from.
_START_LIMIT = 10**9


def _read_start(start: Any) -> tuple[tuple[int, int], tuple[int, int]]:
    if start is None:
        return (0, 0), (0, 0)
    if not isinstance(start, Mapping):
        raise RecordError(f"start must be an object, not {_json_kind(start)}")
    for key in start:
        if key not in ("total", "bags"):
            raise RecordError(f"start: unknown key {key!r} (expected total, bags)")
    out = []
    for key in ("total", "bags"):
        part = start.get(key, {"NS": 0, "EW": 0})
        if not isinstance(part, Mapping) or set(part) - {"NS", "EW"}:
            raise RecordError(f'start: {key} must be {{"NS": number, "EW": number}}')
        pair = (part.get("NS", 0), part.get("EW", 0))
        for side, value in zip(SIDE_NAMES, pair, strict=True):
            if not _is_int(value):
                raise RecordError(
                    f"start: {key} {side} must be a whole number, not {_shown(value)}"
                )
            if key == "bags" and value < 0:
                raise RecordError(f"start: bags {side} cannot be negative")
            if abs(value) > _START_LIMIT:
                # Scores are printed as text, and int() -> str() stops at 4300 digits.
                raise RecordError(
                    f"start: {key} {side} {_shown(value)} is beyond {_START_LIMIT:,} either way"
                )
        out.append((pair[0], pair[1]))
    return out[0], out[1]


def _read_seat(value: Any, place: str) -> int:
    seat = _SEAT_KEYS.get(value) if isinstance(value, str) else None
    if seat is not None:
        return seat
    if not isinstance(value, str):
        raise RecordError(f"{place}: a seat is N, E, S or W, not {_shown(value)}")
    try:
        return parse_seat(value)
    except ValueError:
        raise RecordError(f"{place}: unknown seat {_shown(value)}") from None


def _read_cards(value: Any, place: str) -> list[int]:
    """Cards from text (``"AS KS"``) or a list of card texts, in the order given.

    A long match has about a hundred cards a hand, so the usual case is one dictionary
    lookup per card; only a record with a bad card goes word by word to name it.
    """
    if isinstance(value, str):
        words = value.replace(",", " ").split()
    elif isinstance(value, list) and all(isinstance(w, str) for w in value):
        words = value
    else:
        raise RecordError(f"{place}: cards must be text like \"AS KS 2C\", not {_shown(value)}")
    try:
        return list(map(CARD_WORDS.__getitem__, words))
    except (KeyError, TypeError):
        pass
    cards = []
    for word in words:
        try:
            cards.append(parse_card(word))
        except CardError:
            raise RecordError(f"{place}: unknown card {_shown(word.strip())}") from None
    return cards


def _by_seat(value: Any, place: str) -> dict[int, Any]:
    """A ``{"N": …, "E": …}`` object keyed by seat numbers; a seat named twice is an error."""
    if not isinstance(value, Mapping):
        raise RecordError(f"{place} must be an object by seat, not {_json_kind(value)}")
    out: dict[int, Any] = {}
    for key, item in value.items():
        seat = _SEAT_KEYS.get(key)
        if seat is None:
            seat = _read_seat(key, place)
        if seat in out:
            raise RecordError(f"{place}: seat {SEAT_LETTERS[seat]} appears twice")
        out[seat] = item
    return out


# -- the fast path -------------------------------------------------------------------------
#
# A long match is thousands of hands that obey the rules, and most of a replay's time went into
# the engine's ``apply``, once per card.  :class:`_FastHands` checks an ordinary finished hand
# (four hands of 13 cards dealt, four bids, the exchange its blind nils call for, 52 cards
# played, all written the way Varaq writes them) with a few integer operations a trick, and
# writes into the game what the engine would have.  It never explains a refusal: at the first
# thing it does not like, a broken rule or only an unusual way of writing the hand, it leaves
# the game untouched and the hand goes card by card through the engine (:class:`_HandReader`),
# which accepts or refuses it in its own words.  So a record loads, or is refused with the same
# line, with or without it; tests compare the two on many good and spoiled records.

#: The keys a hand may have and still take the fast path (``tricks`` and ``looked`` never do).
_FAST_KEYS = frozenset(("dealer", "deal", "bids", "exchange", "plays"))
#: A bid's value by the way it is written; ``"blind"`` is -2.  Looked up only for an ``int`` or
#: a ``str``: ``True`` or ``3.0`` would find 1 or 3 in it, and the engine refuses both.
_BID_VALUES: dict[int | str, int] = {**{n: n for n in range(14)}, "nil": 0, "blind": -2}
_BID_TYPES = frozenset((int, str))
_NO_BLIND = (False, False, False, False)
#: The seats in bidding order after each dealer: from the dealer's left.
_ORDER_AFTER = tuple(tuple((dealer + i) & 3 for i in (1, 2, 3, 4)) for dealer in range(4))
#: ``_NEXT_SEAT[k]``: a seat's byte -> the seat ``k`` places after it, for ``bytes.translate``.
_SEAT_BYTES = bytes(range(4))
_NEXT_SEAT = [bytes.maketrans(_SEAT_BYTES, bytes((s + k) & 3 for s in range(4))) for k in range(4)]
#: ``_HOLDS[seat]``: that seat's byte -> the digit ``1``, the others' -> ``0``.
_HOLDS = [
    bytes.maketrans(_SEAT_BYTES, b"".join(b"1" if s == seat else b"0" for s in range(4)))
    for seat in range(4)
]
#: The suit (0-3) of each card.
_SUIT_NUMBERS = list(SUIT_OF[:52])
#: ``1 << card`` in a list: mapping a list's ``__getitem__`` is faster than a tuple's.
_BIT_LIST = list(_BIT)
#: The lowest spade's bit.  Without jokers the spades are the top 13 bits of the deck, so a
#: mask at least this large holds a spade, and the highest card of such a trick is its best.
_LOWEST_SPADE = _BIT[39]
_NOT_SPADES = STANDARD_DECK & ~SPADE_MASK
#: The seats that pass in the exchange, in order, by dealer and blind nil bidders: for each
#: blind nil from the dealer's left, its partner, then the bidder.
_GIVERS = {
    (dealer, blind): tuple(g for s in _ORDER_AFTER[dealer] if blind[s] for g in (s ^ 2, s))
    for dealer in range(4)
    for blind in product((False, True), repeat=4)
}
#: Who holds each card of a deal read as the 52 cards of N, E, S and W one after the other.
_SEAT_OF_DEALT = bytes([0] * 13 + [1] * 13 + [2] * 13 + [3] * 13)


def _byte_table(values: dict[int, int], other: int) -> bytes:
    table = bytearray([other]) * 256
    for byte, value in values.items():
        table[byte] = value
    return bytes(table)


#: A rank letter's byte -> the rank (0-12), a suit letter's -> its first card (0, 13, 26, 39).
#: Any other byte becomes 64 as a rank and 128 as a suit, so that a card made of it is 52 or
#: more (and below 256: adding a rank to a suit never carries into the next card's byte).
_RANK_BYTE = _byte_table({ord(r): rank for rank, r in enumerate("23456789TJQKA")}, 64)
_SUIT_BYTE = _byte_table({ord(s): 13 * suit for suit, s in enumerate("CDHS")}, 128)
_CARD_BYTES = bytes(range(52))
#: The spaces between ``count`` cards written the plain way.
_GAPS = {count: " " * (count - 1) for count in range(1, 105)}


def _plain_cards(text: str, count: int) -> bytes:
    """The ``count`` cards of ``text`` written the way records write them (``"KS JS 7S"``: upper
    case, ``T`` for ten, one space between), one byte a card; ``ValueError`` for other text.

    Cutting the text into a string a card and looking each up, as :func:`_read_cards` does for
    every spelling, took a third of the fast path's time.  Here the ranks and the suits are two
    slices of the text, each made numbers by one ``translate``, and added as two big integers.
    """
    if len(text) != 3 * count - 1 or text[2::3] != _GAPS[count]:
        raise ValueError("not plain card text")
    cards = (
        int.from_bytes(text[0::3].encode("ascii").translate(_RANK_BYTE))
        + int.from_bytes(text[1::3].encode("ascii").translate(_SUIT_BYTE))
    ).to_bytes(count)
    if cards.translate(None, _CARD_BYTES):
        raise ValueError("not plain card text")
    return cards


#: What the blind nil choices and the bids of a hand come to: the actions in order, each seat's
#: bid and whether it is blind; ``None`` where the engine refuses them.
_Bidding = tuple[tuple[int, ...], tuple[int, int, int, int], tuple[bool, bool, bool, bool]]


class _FastHands:
    """The fast path for one record's hands under one set of rules (see the comment above)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.rules = rules = game.rules
        #: Off for rules whose tricks the order of the bits does not rank (the jokers).
        self.enabled = not rules.jokers
        #: Whether any bid 0-13 is open to any seat (nil played, no minimum for a side).
        self.plain_bids = rules.nil and not rules.min_team_bid
        #: The bidding of each (dealer, sides that may bid blind nil, bids) met so far: a long
        #: match meets many of them more than once.
        self.biddings: dict[tuple[Any, ...], _Bidding | None] = {}

    def play(self, hand: Any) -> bool:
        """Apply ``hand`` to the game if it is an ordinary finished hand that obeys the rules;
        ``False``, with the game untouched, for anything else."""
        try:
            if type(hand) is not dict or not _FAST_KEYS.issuperset(hand):
                return False
            game, rules = self.game, self.rules
            deal, words = hand["deal"], hand["bids"]
            if type(deal) is not dict or len(deal) != 4 or type(words) is not dict or len(
                words
            ) != 4:
                return False
            dealer = (game.dealer + 1) & 3 if game.hand_no else game.first_dealer
            named = hand.get("dealer")
            if named is not None and (type(named) is not str or _SEAT_KEYS[named] != dealer):
                return False

            # The deal: 13 cards each, 52 different cards.
            # (The plays are read here too: one reading of 104 cards costs less than two.)
            texts = (deal["N"], deal["E"], deal["S"], deal["W"], hand["plays"])
            if len(texts[0]) != 38 or len(texts[1]) != 38 or len(texts[2]) != 38 or len(
                texts[3]
            ) != 38:
                return False  # (and so 52 cards played: 104 in all)
            both = _plain_cards(" ".join(texts), 104)
            cards, plays = both[:52], both[52:]
            if cards.translate(bytes.maketrans(cards, _CARD_BYTES)) != _CARD_BYTES:
                return False  # a card twice: its place does not map back to itself
            #: card -> the seat holding it, as a table for ``bytes.translate``
            own = bytearray(bytes.maketrans(cards, _SEAT_OF_DEALT))
            # Each seat's mask: its cards as the digits of a binary number, highest first.
            highest_first = own[51::-1]
            dealt = (
                int(highest_first.translate(_HOLDS[0]), 2),
                int(highest_first.translate(_HOLDS[1]), 2),
                int(highest_first.translate(_HOLDS[2]), 2),
                int(highest_first.translate(_HOLDS[3]), 2),
            )

            # Blind nil and the bids.
            n, e, s, w = words["N"], words["E"], words["S"], words["W"]
            if not (
                type(n) in _BID_TYPES and type(e) in _BID_TYPES and type(s) in _BID_TYPES
                and type(w) in _BID_TYPES
            ):
                return False
            values = (_BID_VALUES[n], _BID_VALUES[e], _BID_VALUES[s], _BID_VALUES[w])
            may_blind = 0  # bit 0: NS trails by enough for a blind nil; bit 1: EW does
            if rules.blind_nil:
                totals, need = game.totals, rules.blind_nil_trail
                may_blind = (totals[1] - totals[0] >= need) | (totals[0] - totals[1] >= need) << 1
            if not may_blind and self.plain_bids and -2 not in values:
                # No blind nil to choose, and every bid 0-13 is open: the bids as they are.
                o0, o1, o2, o3 = _ORDER_AFTER[dealer]
                actions: tuple[int, ...] = (
                    DEAL_GIVEN, BID + values[o0], BID + values[o1], BID + values[o2],
                    BID + values[o3],
                )
                bids, blind = values, _NO_BLIND
            else:
                key = (dealer, may_blind, values)
                if key in self.biddings:
                    bidding = self.biddings[key]
                else:
                    bidding = self.biddings[key] = self.bidding(dealer, may_blind, values)
                if bidding is None:
                    return False
                actions, bids, blind = bidding

            # The exchange: for each blind nil, the partner passes first, then the bidder.
            hands = list(dealt)
            exchanged = (0, 0, 0, 0)
            passes = hand.get("exchange")
            size = rules.exchange
            if size and True in blind:
                givers = _GIVERS[dealer, blind]
                if type(passes) is not dict or len(passes) != len(givers):
                    return False
                gave = [0, 0, 0, 0]
                passed: list[int] = []
                for giver in givers:
                    some = list(map(CARD_WORDS.__getitem__, passes[SEAT_LETTERS[giver]].split()))
                    mask = sum(map(_BIT_LIST.__getitem__, some))
                    if len(some) != size or mask.bit_count() != size or mask & ~hands[giver]:
                        return False
                    receiver = giver ^ 2
                    hands[giver] ^= mask
                    hands[receiver] |= mask
                    gave[giver] = mask
                    passed += some
                    for card in some:
                        own[card] = receiver
                exchanged = (gave[0], gave[1], gave[2], gave[3])
                actions += tuple(passed)
            elif passes is not None:
                return False

            # The play.  Who played each card is checked once, at the end: the seats that held
            # the cards, in order, must be each trick's leader and the three after it.  Until
            # then a trick asks only what the order of the cards cannot show: that a seat that
            # did not follow suit had none left, and that a spade led before spades were broken
            # came from a hand of nothing else.  A seat's cards left are the cards it was
            # dealt and passed, less every card played so far (it never held the others).
            if rules.two_clubs_leads:
                if plays[0] != TWO_CLUBS:
                    return False
                leader = own[TWO_CLUBS]
            else:
                leader = (dealer + 1) & 3
            leaders = bytearray((leader,))
            bit, suit_of = _BIT_LIST, _SUIT_NUMBERS
            played = 0
            stream = iter(plays)
            for c0, c1, c2, c3 in zip(stream, stream, stream, stream, strict=True):
                led = suit_of[c0]
                if suit_of[c1] == led and suit_of[c2] == led and suit_of[c3] == led:
                    best = c0 if c0 > c1 else c1  # (cheaper than calling max)
                    if c2 > best:
                        best = c2
                    if c3 > best:
                        best = c3
                else:
                    left = SUIT_MASKS[led] & ~played
                    if (
                        (suit_of[c1] != led and hands[(leader + 1) & 3] & left)
                        or (suit_of[c2] != led and hands[(leader + 2) & 3] & left)
                        or (suit_of[c3] != led and hands[(leader + 3) & 3] & left)
                    ):
                        return False
                    best = max(c0, c1, c2, c3)  # the highest spade, if any
                    if best < 39:  # none: the best card of the suit led
                        best = max([c for c in (c0, c1, c2, c3) if suit_of[c] == led])
                if led == 3 and played < _LOWEST_SPADE and hands[leader] & ~played & _NOT_SPADES:
                    return False
                leader = own[best]
                leaders.append(leader)
                played |= bit[c0] | bit[c1] | bit[c2] | bit[c3]
            if played != STANDARD_DECK:
                return False  # a card played twice, so another never
            owners = plays.translate(own)
            first = owners[0::4]
            if (
                first != leaders[:13]
                or owners[1::4] != first.translate(_NEXT_SEAT[1])
                or owners[2::4] != first.translate(_NEXT_SEAT[2])
                or owners[3::4] != first.translate(_NEXT_SEAT[3])
            ):
                return False
        except (KeyError, TypeError, AttributeError, IndexError, ValueError, OverflowError):
            return False  # not written the plain way: the engine reads it

        # The hand obeys the rules: record it as Game._finish_hand does.
        del leaders[0]
        taken = (leaders.count(0), leaders.count(1), leaders.count(2), leaders.count(3))
        result = score_hand(rules, bids, blind, taken, (game.bags[0], game.bags[1]))
        game.actions += actions
        game.actions += plays
        totals = game.totals
        totals[0] += result.score[0]
        totals[1] += result.score[1]
        game.bags = [result.bags[0], result.bags[1]]
        game.log.append(HandLog(dealer, dealt, bids, blind, exchanged, tuple(plays), result))
        game.dealer = dealer
        game.hand_no += 1
        game.winner = match_winner(rules, totals)
        game.phase = OVER if game.winner is not None else DEAL
        game.turn = -1
        return True

    def bidding(self, dealer: int, may_blind: int, values: tuple[int, ...]) -> _Bidding | None:
        """The blind nil choices and the bids of a hand as the engine takes them (``values``
        by seat, -2 for a blind nil; ``may_blind`` the sides trailing by enough for one)."""
        rules = self.rules
        order = _ORDER_AFTER[dealer]
        actions = [DEAL_GIVEN]
        bids = [-1, -1, -1, -1]
        blind = [False, False, False, False]
        queue = [seat for seat in order if may_blind >> (seat & 1) & 1]
        while queue:
            seat = queue.pop(0)
            if values[seat] == -2:
                actions.append(BLIND_NIL)
                blind[seat] = True
                bids[seat] = 0
                queue = [s for s in queue if s != seat ^ 2]  # one blind nil a side
            else:
                actions.append(LOOK)
        for seat in order:
            if blind[seat]:
                continue
            value = values[seat]
            lowest = 1
            mate = bids[seat ^ 2]
            if rules.min_team_bid and mate > 0:
                lowest = max(1, rules.min_team_bid - mate)
            if value < lowest and not (value == 0 and rules.nil):
                return None  # -2 too: a blind nil the blind nil choices did not take
            bids[seat] = value
            actions.append(BID + value)
        return (
            tuple(actions), (bids[0], bids[1], bids[2], bids[3]),
            (blind[0], blind[1], blind[2], blind[3]),
        )


class _UndoReader:
    """Replays a hand's undos through the engine, so a record keeps them and checks them.

    A hand's ``undos`` are in the order they were made; each says how many moves stood before
    it (``at``) and the moves it took back.  Read backwards from the moves that stand at the
    end, they give the moves standing before each undo: after the last undo the hand went on
    from its first ``at`` moves without another, and so on back.  The hand is then played
    again from its deal, each undo's moves applied and taken back in turn, so every move a
    record says was taken back was a legal one.
    """

    def __init__(self, start: Game, number: int, hand: Mapping[str, Any]) -> None:
        self.start = start
        self.number = number
        self.hand = hand

    def fail(self, reason: str) -> RecordError:
        return RecordError(f"hand {self.number}: undos: {reason}")

    def entries(self) -> list[tuple[int, list[int]]]:
        raw = self.hand.get("undos")
        if not isinstance(raw, list):
            raise self.fail(f"a list of undos, not {_json_kind(raw)}")
        out = []
        for i, entry in enumerate(raw, 1):
            if not isinstance(entry, Mapping) or set(entry) != {"at", "moves"}:
                raise self.fail(f'undo {i} must be {{"at": number, "moves": [move, ...]}}')
            at, words = entry["at"], entry["moves"]
            if not _is_int(at) or not 0 <= at <= 200:
                raise self.fail(f"undo {i}: at must be a whole number, not {_shown(at)}")
            if not isinstance(words, list) or not words or not all(
                isinstance(w, str) for w in words
            ):
                raise self.fail(f"undo {i}: moves must be a list of moves such as \"QS\"")
            try:
                out.append((at, [parse_action(w) for w in words]))
            except ActionError as e:
                raise self.fail(f"undo {i}: {e}") from None
        return out

    def replay_into(self, game: Game) -> None:
        """Play the hand again with its undos and leave ``game`` as that replay ends."""
        entries = self.entries()
        final, _ = game._walk_hand()
        standing = final
        befores: list[list[int]] = []
        for i in range(len(entries) - 1, -1, -1):
            at, moves = entries[i]
            if at > len(standing):
                raise self.fail(f"undo {i + 1} is at move {at}, but only {len(standing)} stood")
            standing = standing[:at] + moves
            befores.append(standing)
        befores.reverse()
        g = self.start
        finished = game.hand_no > g.hand_no
        dealt = game.log[-1].dealt if finished else game.dealt
        dealer = game.log[-1].dealer if finished else game.dealer
        try:
            g.deal(hands=dealt, dealer=dealer)
            now: list[int] = []
            for i, (before, (at, moves)) in enumerate(zip(befores, entries, strict=True), 1):
                for action in before[len(now):]:
                    g.apply(action)
                try:
                    g.undo(len(moves))
                except IllegalAction as e:
                    raise self.fail(f"undo {i}: {e}") from None
                now = before[:at]
            for action in final[len(now):]:
                g.apply(action)
            if self.hand.get("claim") is not None:
                g.claim(_read_seat(self.hand["claim"], f"hand {self.number}: claim"))
        except IllegalAction as e:
            raise self.fail(str(e)) from None
        for name in Game.__slots__:
            setattr(game, name, getattr(g, name))


class _HandReader:
    """Feeds one hand of a record to the engine, naming the place of any refusal."""

    def __init__(self, game: Game, number: int, hand: Any) -> None:
        if not isinstance(hand, Mapping):
            raise RecordError(f"hand {number}: a hand is an object, not {_json_kind(hand)}")
        if not _HAND_KEY_SET.issuperset(hand):
            key = next(key for key in hand if key not in _HAND_KEY_SET)
            raise RecordError(
                f"hand {number}: unknown key {_shown(key)} (expected {', '.join(_HAND_KEYS)})"
            )
        self.game = game
        self.number = number
        self.hand = hand

    def fail(self, reason: str, trick: int | None = None) -> RecordError:
        where = f"hand {self.number}" if trick is None else f"hand {self.number}, trick {trick}"
        return RecordError(f"{where}: {reason}")

    def apply(self, action: int, trick: int | None = None) -> None:
        try:
            self.game.apply(action)
        except IllegalAction as e:
            raise self.fail(str(e), trick) from None

    def read(self) -> None:
        game, hand = self.game, self.hand
        dealer = None
        if hand.get("dealer") is not None:
            dealer = _read_seat(hand["dealer"], f"hand {self.number}: dealer")
        bids = self.read_bids()
        looked = self.read_looked()
        has_cards = hand.get("deal") is not None
        if not has_cards and (hand.get("plays") or hand.get("exchange")):
            raise self.fail("plays and an exchange need the deal")
        try:
            if has_cards:
                game.deal(hands=self.read_deal(), dealer=dealer)
            else:
                game.deal_unknown(dealer=dealer)
        except IllegalAction as e:
            raise self.fail(str(e)) from None
        self.decide_blind(bids, looked)
        self.bid(bids)
        if has_cards:
            self.exchange()
            self.play()
            self.claim()
        elif hand.get("claim") is not None:
            raise self.fail("a claim needs the cards: a score-sheet hand gives its tricks")
        self.check_tricks(has_cards)

    def claim(self) -> None:
        """An accepted claim ends the hand: the solver checks it again, as the table did."""
        raw = self.hand.get("claim")
        if raw is None:
            return
        seat = _read_seat(raw, f"hand {self.number}: claim")
        try:
            self.game.claim(seat)
        except IllegalAction as e:
            raise self.fail(f"claim by {SEAT_LETTERS[seat]} refused: {e}") from None

    # each part of a hand, in the order the table does it

    def read_deal(self) -> list[int]:
        deal = _by_seat(self.hand["deal"], f"hand {self.number}: deal")
        masks = []
        for seat in range(4):
            if seat not in deal:
                raise self.fail(f"the deal has no hand for {SEAT_LETTERS[seat]}")
            text = deal[seat]
            try:
                # The sum of the cards' bits is their mask when no card is written twice, and
                # then only: a repeat carries into another bit, and carrying loses a bit.
                words = text.split()
                mask = sum(map(_CARD_BITS.__getitem__, words))
                if mask.bit_count() == len(words):
                    masks.append(mask)
                    continue
            except (KeyError, AttributeError, TypeError):
                pass  # not plain card text: read it word by word below, for the reason
            cards = _read_cards(text, f"hand {self.number}: deal {SEAT_LETTERS[seat]}")
            masks.append(self.mask_of(cards, seat))
        return masks

    def mask_of(self, cards: list[int], seat: int) -> int:
        """The mask of ``seat``'s dealt cards, naming the first card written twice."""
        mask = 0
        for card in cards:
            if mask & _BIT[card]:
                raise self.fail(f"{SEAT_LETTERS[seat]}'s hand repeats {card_text(card)}")
            mask |= _BIT[card]
        return mask

    def read_bids(self) -> dict[int, int | str]:
        raw = _by_seat(self.hand.get("bids", {}), f"hand {self.number}: bids")
        bids: dict[int, int | str] = {}
        for seat, value in raw.items():
            who = SEAT_LETTERS[seat]
            if value in ("nil", "blind") or (_is_int(value) and 0 <= value <= 13):
                bids[seat] = value
            elif _is_int(value):
                raise self.fail(f"{who}'s bid {_shown(value)} is out of range 0-13")
            else:
                raise self.fail(f'{who}\'s bid must be 0-13, "nil" or "blind", not {_shown(value)}')
        return bids

    def read_looked(self) -> set[int]:
        raw = self.hand.get("looked", [])
        if not isinstance(raw, list):
            raise self.fail(f"looked must be a list of seats, not {_json_kind(raw)}")
        return {_read_seat(s, f"hand {self.number}: looked") for s in raw}

    def decide_blind(self, bids: dict[int, int | str], looked: set[int]) -> None:
        game = self.game
        # Bidding has begun once any seat made an ordinary bid: everyone still to decide
        # then must have looked (a blind nil is written as the bid "blind").
        bidding_begun = game.phase == BLIND and any(v != "blind" for v in bids.values())
        while game.phase == BLIND:
            seat = game.turn
            choice = bids.get(seat)
            if choice == "blind":
                self.apply(BLIND_NIL)
            elif choice is not None or seat in looked or bidding_begun:
                self.apply(LOOK)
            else:
                break
        for seat in looked:
            if bids.get(seat) is not None:
                raise self.fail(f"{SEAT_LETTERS[seat]} is listed as looked but has a bid")

    def bid(self, bids: dict[int, int | str]) -> None:
        game = self.game
        while game.phase == BIDDING and game.turn in bids:
            value = bids[game.turn]
            if value == "blind":
                self.apply(BLIND_NIL)
            else:
                self.apply(BID + (0 if value == "nil" else int(value)))
        for seat, value in bids.items():
            why = game.blind_eligible(seat) if value == "blind" and game.bids[seat] < 0 else ""
            if why:  # a blind nil is refused whatever the order of the bids around it
                raise self.fail(f"blind nil by {SEAT_LETTERS[seat]} refused: {why}")
        for seat, value in bids.items():
            if game.bids[seat] < 0:
                missing = SEAT_LETTERS[game.turn] if game.turn >= 0 else "?"
                raise self.fail(
                    f"{SEAT_LETTERS[seat]}'s bid {value} comes before {missing} has "
                    f"{'chosen blind nil or looked' if game.phase == BLIND else 'bid'}"
                )

    def exchange(self) -> None:
        game, number = self.game, self.number
        raw = self.hand.get("exchange")
        if raw is None:
            return
        gave = _by_seat(raw, f"hand {number}: exchange")
        if game.phase != EXCHANGE:
            if game.phase in (BLIND, BIDDING):
                raise self.fail("an exchange is given before the bidding is finished")
            raise self.fail("this hand has no exchange: no blind nil, or the rules pass no cards")
        size = game.rules.exchange
        cards_by_seat = {
            seat: _read_cards(text, f"hand {number}: exchange {SEAT_LETTERS[seat]}")
            for seat, text in gave.items()
        }
        for seat, cards in cards_by_seat.items():
            if len(cards) > size:
                raise self.fail(
                    f"{SEAT_LETTERS[seat]} passes {len(cards)} cards in the exchange, not {size}"
                )
        done: set[int] = set()
        while game.phase == EXCHANGE and game.turn in cards_by_seat and game.turn not in done:
            giver = game.turn
            done.add(giver)
            for card in cards_by_seat[giver]:
                try:
                    game.apply(card)
                except IllegalAction as e:
                    raise self.fail(f"exchange: {e}") from None
        for seat in cards_by_seat:
            if seat not in done:
                raise self.fail(
                    f"exchange: {SEAT_LETTERS[seat]} does not pass cards in this exchange"
                    if all(seat != g for g, _ in game.exchange_queue)
                    else f"exchange: {SEAT_LETTERS[seat]} passes before "
                    f"{SEAT_LETTERS[game.turn]} has passed"
                )

    def play(self) -> None:
        game = self.game
        raw = self.hand.get("plays")
        if raw is None:
            return
        plays = _read_cards(raw, f"hand {self.number}: plays")
        if not plays:
            return
        if game.phase in (BLIND, BIDDING):
            raise self.fail("cards are played before the bidding is finished")
        if game.phase == EXCHANGE:
            raise self.fail("cards are played before the exchange is finished")
        # The hand ends when the cards held run out, so the plays that fit are known before
        # playing them, and the loop is the engine's own: one call a card, one ``try`` a hand.
        room = sum(hand.bit_count() for hand in game.hands)
        apply = game.apply
        try:
            for card in plays[:room]:
                apply(card)
        except IllegalAction as e:
            raise self.fail(str(e), trick=len(game.tricks) + 1) from None
        if len(plays) > room:
            raise self.fail(f"{card_text(plays[room])} is played after the 13th trick")

    def check_tricks(self, has_cards: bool) -> None:
        game = self.game
        raw = self.hand.get("tricks")
        if raw is None:
            return
        given = _by_seat(raw, f"hand {self.number}: tricks")
        if set(given) != {0, 1, 2, 3}:
            raise self.fail("tricks must give a number for each of N, E, S and W")
        tricks = [given[s] for s in range(4)]
        for seat, value in enumerate(tricks):
            if not _is_int(value) or not 0 <= value <= 13:
                raise self.fail(
                    f"{SEAT_LETTERS[seat]}'s tricks must be a whole number 0-13, "
                    f"not {_shown(value)}"
                )
        if not has_cards:
            if game.phase != PLAY:
                raise self.fail("tricks are given before every seat has bid")
            try:
                game.score_tricks(tricks)
            except IllegalAction as e:
                raise self.fail(str(e)) from None
            return
        if game.hand_no < self.number:
            raise self.fail("tricks are given beside plays that do not finish the hand")
        taken = game.log[-1].result.tricks
        for seat in range(4):
            if taken[seat] != tricks[seat]:
                raise self.fail(
                    f"tricks say {SEAT_LETTERS[seat]} took {tricks[seat]}, "
                    f"the plays give {taken[seat]}"
                )
