"""Hard plays for the score of the hand, not for tricks: hand-built endgames where the score
asks for a card that trick counting alone would not choose (issue 17), and its blind nil
choices at a few scores."""

from __future__ import annotations

import random

from varaq import Game
from varaq.actions import BID, BLIND_NIL, LOOK
from varaq.bots import make_bot
from varaq.bots.hard import HardBot
from varaq.cards import STANDARD_DECK, parse_card, parse_hand
from varaq.engine import PLAY
from varaq.events import TrickResult
from varaq.rules import Rules
from varaq.seats import E, N, W

SAMPLES = 12


def _endgame(
    hands: list[str], leader: int, trick: list[str], bids: list[int], taken: list[int],
    bags: tuple[int, int] = (0, 0),
) -> Game:
    """A classic game in the play phase with these holdings, spades broken."""
    g = Game("classic", seed=0, dealer=(leader - 1) & 3)
    masks = [parse_hand(h) for h in hands]
    left = max(h.bit_count() for h in masks)
    g.phase = PLAY
    g.bids = list(bids)
    g.hands = masks
    g.leader = leader
    g.trick = [parse_card(c) for c in trick]
    g.turn = (leader + len(g.trick)) & 3
    g.broken = True
    g.tricks = [TrickResult(0, (0, 0, 0, 0), 0)] * (13 - left)
    g.taken = list(taken)
    g.bags = list(bags)
    g.played = STANDARD_DECK & ~(masks[0] | masks[1] | masks[2] | masks[3])
    for c in g.trick:
        g.played |= 1 << c
    return g


def _hard(g: Game, seed: int = 1) -> int:
    view = g.view(g.turn)
    decision = HardBot(samples=SAMPLES, use_bids=False).decide(view, random.Random(seed))
    assert decision.action in view.legal
    return decision.action


def test_hard_ruffs_to_protect_partners_nil() -> None:
    # S bid nil.  W led the 5H; N has no heart.  A discard lets E play low and may leave a
    # heart of S's on top; the 2S ruff (the last spade) takes the trick, S drops any heart
    # under it, and N's AC then takes the last trick too: the nil holds in every layout.
    # (With the 4C instead of the AC the ruff is no better: S may hold the KC for the last
    # trick, and the discard keeps the nil in 21 of the 30 layouts against the ruff's 19.)
    g = _endgame(["2S AC", "3H KC", "QH 5C", "9C"], leader=W, trick=["5H"],
                 bids=[5, 3, 0, 4], taken=[5, 3, 0, 3])
    assert _hard(g) == parse_card("2S")


def test_hard_ducks_to_set_the_opponents_nil() -> None:
    # W bid nil and has played the KH over E's 4H and S's 5H.  NS have made their 7; N's AH
    # would save the nil, the 6H leaves W the trick and sets it.
    g = _endgame(["AH 6H 2C", "3C 4C", "9C TC", "7D 8D"], leader=E, trick=["4H", "5H", "KH"],
                 bids=[5, 3, 2, 0], taken=[5, 3, 2, 0])
    assert _hard(g) == parse_card("6H")


def test_hard_ducks_near_the_bag_limit_when_nothing_else_is_at_stake() -> None:
    # NS carry 8 bags and have made 4 with 5; the tricks left do not decide EW's contract
    # (they have made it).  Winning the 5D with the AD is a tenth bag: duck with the 3D.
    g = _endgame(["AD 3D", "5C", "2C", "KH"], leader=E, trick=["5D", "4C", "7D"],
                 bids=[2, 2, 2, 2], taken=[5, 4, 0, 2], bags=(8, 0))
    assert g.turn == N
    assert _hard(g) == parse_card("3D")


def test_hard_takes_the_set_when_it_is_worth_more_than_the_bags() -> None:
    # The same cards, but EW bid 8 and need both tricks: the AD sets them (-80 for them),
    # worth more than NS's bag penalty.
    g = _endgame(["AD 3D", "QH", "2H", "KH"], leader=E, trick=["5D", "2C", "7D"],
                 bids=[2, 4, 2, 4], taken=[5, 3, 0, 3], bags=(8, 0))
    assert _hard(g) == parse_card("AD")


def _blind(rules: Rules, totals: tuple[int, int]) -> int:
    g = Game(rules, seed=3, totals=totals)
    g.deal(dealer=W)
    assert g.phase_name == "blind", "the table should offer N a blind nil"
    return make_bot("hard", samples=SAMPLES).act(g.view(g.turn), random.Random(0))


def test_hard_bids_blind_nil_far_behind_with_an_exchange() -> None:
    assert _blind(Rules.named("classic"), totals=(100, 400)) == BLIND_NIL


def test_hard_looks_when_blind_nil_does_not_pay() -> None:
    # Behind by 120 without an exchange, the opponents far from the target: look.
    assert _blind(Rules.named("classic").with_options(exchange=0), totals=(0, 120)) == LOOK


def test_a_hard_bid_is_explained_by_its_expected_score_and_its_tricks() -> None:
    from varaq.bots.advice import bid_advice, hard_bid

    g = Game("classic", seed=4)
    g.deal(hands=[parse_hand("AS KS QS 5S 4S AH KH 2H AD 3D 4C 5C 6C"),
                  parse_hand("2S 3S 6S 7S 3H 4H 5H 2D 4D 5D 2C 3C 7C"),
                  parse_hand("8S 9S TS 6H 7H 8H 6D 7D 8D 9D 8C 9C TC"),
                  parse_hand("JS 9H TH JH QH TD JD QD KD JC QC KC AC")], dealer=W)
    view = g.view(N)
    decision = hard_bid(view, samples=6)
    assert decision == hard_bid(view, samples=6)  # asked twice, the same bid
    bid = decision.action - BID
    assert bid >= 5  # three top spades, two more aces, a king under the ace
    assert "expected score" in decision.reason and "6 layouts" in decision.reason
    text = bid_advice(view.hand, False, bid, decision.reason)
    assert text.startswith(f"{bid}") and "three sure spade tricks" in text
    assert "expected score" in text
