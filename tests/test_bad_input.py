"""Every kind of bad input of issue 2, given to the engine directly: each gets a one-line
refusal that says why, and leaves the game exactly as it was.

(The same cases inside a record file are in ``test_record.py`` and ``test_replay_cli.py``.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from deal_helpers import layout
from varaq import BID, BLIND_NIL, LOOK, Game, IllegalAction, Rules, RulesError
from varaq.actions import ActionError, parse_action
from varaq.cards import CardError, parse_card, parse_hand
from varaq.engine import BIDDING, EXCHANGE, PLAY


def snapshot(game: Game) -> tuple[Any, ...]:
    """Every field of the game, copied, so that any change shows."""
    out = []
    for name in Game.__slots__:
        value = getattr(game, name)
        out.append(list(value) if isinstance(value, list) else value)
    return tuple(out)


def bidding(rules: str | Rules = "classic", totals: tuple[int, int] = (0, 0)) -> Game:
    game = Game(rules, seed=11, totals=totals, dealer=3)
    game.deal(hands=layout(N="AS KS 2D", E="3H 9S 4D", S="2H", W="5H"), dealer=3)
    return game


def playing(rules: str | Rules = "classic") -> Game:
    game = bidding(rules)
    while game.phase == BIDDING:
        game.apply(BID + 3)
    return game


def after_hand() -> Game:
    game = playing()
    while game.phase == PLAY:
        game.apply(game.legal_actions()[0])
    return game


def exchanging() -> Game:
    game = bidding(totals=(0, 300))
    game.apply(BLIND_NIL)  # N
    while game.phase == BIDDING:
        game.apply(BID + 3)
    assert game.phase == EXCHANGE
    return game


def _first(game: Game, text: str) -> Game:
    game.apply(parse_card(text))
    return game


CASES: list[tuple[str, Callable[[], Game], Callable[[Game], object], str]] = [
    ("bid out of range", bidding, lambda g: g.apply(BID + 14), r"^N must bid now, not "),
    ("unknown action number", bidding, lambda g: g.apply(99), r"^unknown action 99$"),
    ("negative action", bidding, lambda g: g.apply(-1), r"^unknown action -1$"),
    ("wrong seat bids", bidding, lambda g: g.apply(BID + 3, seat=1),
     r"^not E's turn: N is to bid$"),
    ("wrong seat plays", playing, lambda g: g.apply(parse_card("2H"), seat=2),
     r"^not S's turn: N is to play$"),
    ("nil when nil is off", lambda: bidding(Rules.named("varaq").with_options(nil=False)),
     lambda g: g.apply(BID + 0), r"^N cannot bid nil: nil is not played at this table$"),
    ("blind nil not trailing enough", lambda: bidding(totals=(250, 320)),
     lambda g: g.apply(BLIND_NIL), r"^blind nil by N refused: NS trails by 70, needs 100$"),
    ("blind nil at a table without it", lambda: bidding("varaq", totals=(0, 300)),
     lambda g: g.apply(BLIND_NIL), r"^blind nil by N refused: blind nil is not played"),
    ("below the board", lambda: _board_game(),
     lambda g: g.apply(BID + 1), r"^S cannot bid 1: NS's bid must reach 4 \(partner bid 2\)$"),
    ("a card during the bidding", bidding, lambda g: g.apply(parse_card("AS")),
     r"^N must bid now, not AS$"),
    ("a bid during the play", playing, lambda g: g.apply(BID + 3), r"^N must play a card now"),
    ("look during the play", playing, lambda g: g.apply(LOOK), r"^N must play a card now"),
    ("renege", lambda: _first(playing(), "2D"), lambda g: g.apply(parse_card("9S")),
     r"^E cannot play 9S: must follow diamonds$"),
    ("leading an unbroken spade", playing, lambda g: g.apply(parse_card("AS")),
     r"^N cannot lead AS: spades are not broken$"),
    ("a card not held", playing, lambda g: g.apply(parse_card("3H")), r"^N does not hold 3H$"),
    ("a card played twice", lambda: _first(playing(), "2D"), lambda g: g.apply(parse_card("2D")),
     r"^E does not hold 2D$"),
    ("a joker in a standard deck", playing, lambda g: g.apply(53), r"^N does not hold BJ$"),
    ("plays after the hand is over", after_hand, lambda g: g.apply(parse_card("2C")),
     r"^cannot play 2C: the hand is over; the next hand has not been dealt$"),
    ("a bid after the hand is over", after_hand, lambda g: g.apply(BID + 3),
     r"^cannot bid 3: the hand is over"),
    ("passing a card not held", exchanging, lambda g: g.apply(parse_card("AS")),
     r"^S does not hold AS$"),
    ("passing a card twice", lambda: _first(exchanging(), "2H"), lambda g: g.apply(
        parse_card("2H")), r"^S has already chosen 2H to pass$"),
    ("dealing in the middle of a hand", playing, lambda g: g.deal(),
     r"^the current hand is not finished$"),
    ("a deal with a card twice", lambda: Game("classic", seed=1),
     lambda g: g.deal(hands=[*layout()[:3], layout()[3] | 1]), r"repeats 2C$"),
    ("a deal missing a card", lambda: Game("classic", seed=1),
     lambda g: g.deal(hands=[*layout()[:3], layout()[3] & ~(1 << 51)]),
     r"^W was dealt 12 cards, not 13$"),
    ("a deal with a joker in a standard game", lambda: Game("classic", seed=1),
     lambda g: g.deal(hands=[layout()[0] & ~1 | 1 << 53, *layout()[1:]]),
     r"^N's hand has cards not in this deck: BJ$"),
    ("three hands", lambda: Game("classic", seed=1), lambda g: g.deal(hands=layout()[:3]),
     r"^a deal needs four hands$"),
    ("tricks for a hand played with cards", playing, lambda g: g.score_tricks([4, 3, 3, 3]),
     r"^tricks can be given only for a score-sheet hand after bidding$"),
    ("tricks that do not add up", lambda: _sheet(), lambda g: g.score_tricks([4, 3, 3, 4]),
     r"^tricks add up to 14, not 13$"),
    ("a concession after the match", lambda: _over(), lambda g: g.concede(0),
     r"^the match is over$"),
    ("a play after the match", lambda: _over(), lambda g: g.apply(0),
     r"^cannot play 2C: the match is over$"),
]


def _board_game() -> Game:
    game = bidding(Rules.named("classic").with_options(min_team_bid=4))
    game.apply(BID + 2)  # N
    game.apply(BID + 3)  # E
    return game


def _sheet() -> Game:
    game = Game("classic", seed=1, dealer=3)
    game.deal_unknown()
    while game.phase == BIDDING:
        game.apply(BID + 3)
    return game


def _over() -> Game:
    game = Game("classic", seed=1, dealer=3)
    game.concede(1)
    return game


@pytest.mark.parametrize(("setup", "act", "reason"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_is_refused_in_one_line_and_changes_nothing(
    setup: Callable[[], Game], act: Callable[[Game], object], reason: str
) -> None:
    game = setup()
    before = snapshot(game)
    views = [game.view(seat) for seat in range(4)]
    with pytest.raises(IllegalAction, match=reason) as refusal:
        act(game)
    assert "\n" not in str(refusal.value)
    assert snapshot(game) == before
    assert [game.view(seat) for seat in range(4)] == views


@pytest.mark.parametrize(
    ("text", "reason"),
    [("ZZ", "unknown card 'ZZ'"), ("1S", "unknown card '1S'"), ("", "unknown card ''"),
     ("11H", "unknown card '11H'"), ("AS ", None)],
)
def test_unknown_card_text_is_refused_in_one_line(text: str, reason: str | None) -> None:
    if reason is None:
        assert parse_card(text) == 51
        return
    with pytest.raises(CardError, match=f"^{reason}$"):
        parse_card(text)


def test_a_hand_naming_a_card_twice_is_refused() -> None:
    with pytest.raises(CardError, match=r"^card AS appears twice$"):
        parse_hand("AS KS as")


def test_action_text_out_of_range_is_refused() -> None:
    with pytest.raises(ActionError, match=r"^bid 14 is out of range 0-13$"):
        parse_action("bid 14")
    with pytest.raises(ActionError, match=r"^unknown action 'trump'$"):
        parse_action("trump")


def test_unknown_rules_are_refused_in_one_line() -> None:
    with pytest.raises(RulesError, match=r"^unknown preset 'poker'"):
        Game("poker")
    with pytest.raises(RulesError, match=r"^Target must be a whole number, not '300'$"):
        Rules.named("classic").with_options(target="300")


def test_apply_reads_action_text_and_refuses_non_actions_in_one_line() -> None:
    """Untyped callers (JSON, a REPL) may pass text; anything else is a refusal, not a TypeError."""
    game = Game("varaq", seed=11)
    game.deal()
    event = game.apply("bid 3")  # type: ignore[arg-type]
    assert event.kind == "bid" and event.action == BID + 3
    for junk in ("ZZ", 3.5, None, [1], "bid 14"):
        before = game.copy()
        with pytest.raises(IllegalAction) as refused:
            game.apply(junk)  # type: ignore[arg-type]
        assert "\n" not in str(refused.value)
        assert game.view(0) == before.view(0) and game.bids == before.bids


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("²", r"^unknown action '²': a bid is written with 0-9$"),
        ("bid ¹", r"^unknown action 'bid ¹': a bid is written with 0-9$"),
        ("bid ３", r"^unknown action 'bid ３': a bid is written with 0-9$"),
        ("٣", r"^unknown action '٣': a bid is written with 0-9$"),
        ("bid " + "9" * 5000, r"^bid of 5000 digits is out of range 0-13$"),
        ("1" * 5000, r"^bid of 5000 digits is out of range 0-13$"),
        ("bid 100", r"^bid 100 is out of range 0-13$"),
        ("x" * 5000, r"^unknown action 'x{24}'\.\.\. \(5000 characters\)$"),
    ],
)
def test_only_ascii_digits_make_a_bid_and_long_text_is_cut_short(text: str, reason: str) -> None:
    """``str.isdigit`` accepts superscripts and other scripts' digits, which ``int()`` either
    refuses with a ValueError or reads as a bid nobody typed; and ``int()`` refuses thousands
    of digits.  Each is one short ActionError line instead."""
    with pytest.raises(ActionError, match=reason):
        parse_action(text)


def test_leading_zeros_still_read_as_the_bid() -> None:
    assert parse_action("bid 007") == BID + 7 and parse_action("00") == BID
    assert parse_action("bid 0013") == BID + 13


def test_apply_refuses_a_non_ascii_bid_as_illegal_in_one_line() -> None:
    game = bidding()
    with pytest.raises(IllegalAction, match=r"^unknown action 'bid ３': a bid is written"):
        game.apply("bid ３")  # type: ignore[arg-type]
    assert game.bids == [-1, -1, -1, -1]
