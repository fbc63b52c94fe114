"""Inference: the weighted layouts put the key cards where a strong player would.

Each test builds a position whose reading is clear to a good player (a nil bidder does not hold
the A♠; a bid of 5 comes with spade honours; the last to play wins with the cheapest card that
does it; nobody throws a queen under a trick already lost while holding a small card of the
suit) and counts, over the sampler's layouts, where the key card sits, with the evidence used
and without it.
"""

from __future__ import annotations

import random

from deal_helpers import layout
from varaq import Game
from varaq.actions import BID, bid
from varaq.bots.sampling import PlayEvidence, Sampler, play_evidence
from varaq.cards import SPADE_MASK, parse_card, parse_hand
from varaq.seats import E, N, S, W

LAYOUTS = 60


def _share(
    view_seat: int, g: Game, seat: int, mask: int, use: bool, seed: int = 1, n: int = LAYOUTS,
) -> float:
    """Share of the layouts in which ``seat`` holds any card of ``mask``."""
    lays = Sampler(g.view(view_seat), use_bids=use).layouts(random.Random(seed), n)
    return sum(bool(lay.hands[seat] & mask) for lay in lays) / len(lays)


def _played(hands: list[int], bids: tuple[int, int, int, int], cards: str) -> Game:
    """A classic game of ``hands``, West dealing, bid ``bids`` from North on, then ``cards``
    played (names separated by spaces)."""
    g = Game("classic", seed=1)
    g.deal(hands=list(hands), dealer=W)
    for seat, b in zip((N, E, S, W), bids, strict=True):
        g.apply(bid(b), seat=seat)
    for card in cards.split(" "):
        g.apply(parse_card(card))
    return g


def test_a_nil_bidder_is_given_the_ace_of_spades_almost_never() -> None:
    hands = layout(N="2S 3S 4S 5H 6H 7H 8H 2D 3D 4D 5D 6D 7D",
                   S="KS QS 9H TH JH 8D 9D TD 2C 3C 4C 5C 6C")
    g = Game("classic", seed=1)
    g.deal(hands=hands, dealer=W)
    g.apply(BID + 2, seat=N)
    g.apply(BID + 0, seat=E)  # E: nil
    ace = 1 << parse_card("AS")
    assert _share(S, g, E, ace, use=False) > 0.2
    assert _share(S, g, E, ace, use=True) < 0.1


def test_a_bid_of_five_comes_with_spade_honours() -> None:
    # South holds no high spade; East bid 5: the honours are mostly East's.
    hands = layout(S="2S 3S 4S 5H 6H 7H 8H 2D 3D 4D 5D 6D 7D")
    g = Game("classic", seed=1)
    g.deal(hands=hands, dealer=N)
    g.apply(BID + 5, seat=E)
    honours = parse_hand("AS KS")
    # About 0.55 without the bid and 0.74 with it (2,000 layouts): 400 keep the noise of
    # each share near 0.02, well inside the margins below.
    without = _share(S, g, E, honours, use=False, n=400)
    with_bids = _share(S, g, E, honours, use=True, n=400)
    assert with_bids > without + 0.15
    assert with_bids > 0.6


def test_the_last_to_play_wins_as_cheaply_as_possible() -> None:
    # N leads the 2C, E plays the 5C, S the 9C, W wins with the KC: W holds no QC, JC or TC
    # (the QC and the JC would have won as well), so East (or North) holds them.
    hands = layout(N="2C 3C 2S 3S 4S 5H 6H 7H 8H 2D 3D 4D 5D",
                   E="5C QC 6S 7S 8S 9H TH JH 6D 7D 8D 9D TD",
                   S="9C 4C 9S TS JS QH KH AH JD QD KD AD 2H",
                   W="KC 6C 7C 8C JC TC QS KS AS AC 3H 4H 5S")
    g = _played(hands, (3, 3, 3, 3), "2C 5C 9C KC")
    queen = 1 << parse_card("QC")
    evidence = play_evidence(g.view(S))
    assert [e.seat for e in evidence] == [W]
    assert _share(S, g, W, queen, use=False) > 0.2
    assert _share(S, g, W, queen, use=True) < 0.12


def test_a_queen_thrown_under_a_lost_trick_is_a_singleton() -> None:
    # N leads the AH and wins; E follows with the QH: East has no smaller heart (players
    # follow with their lowest card, the lower of touching ones too).
    hands = layout(N="AH 2C 3C 2S 3S 4S 5S 2D 3D 4D 5D 6D 7D",
                   E="QH 4C 5C 6C 7C 8C 9C TC 8D 9D TD JD 6S",
                   S="2H 3H 4H 5H 6H JC QC KC AC QD KD AD 7S")
    g = _played(hands, (3, 3, 3, 3), "AH QH")
    small = parse_hand("7H 8H 9H TH JH")  # the hearts South cannot see below the queen
    assert _share(S, g, E, small, use=False) > 0.5
    assert _share(S, g, E, small, use=True) < 0.3


def test_no_evidence_from_a_follow_that_won() -> None:
    hands = layout(N="2H 2C 3C 2S 3S 4S 5S 2D 3D 4D 5D 6D 7D",
                   E="AH 4C 5C 6C 7C 8C 9C TC 8D 9D TD JD 6S")
    g = _played(hands, (3, 3, 3, 3), "2H AH")  # second to play, East wins: nothing is said
    assert play_evidence(g.view(S)) == []
    assert SPADE_MASK  # the module's constants are in reach for the reader


def test_a_live_nil_ducks_with_its_highest_safe_card() -> None:
    # N leads the KH; East, on a nil, drops the 9H under it.  A nil sheds its highest card
    # that is still safe, so East probably holds no QH (it would have gone first, and is a
    # danger later), unless with the TH and JH: then the four are one run, which the cards out
    # cannot tell apart.  For the same reason the 9H says nothing against the TH, touching it.
    hands = layout(N="KH 2C 3C 2S 3S 4S 5S 2D 3D 4D 5D 6D 7D",
                   E="9H 4C 5C 6C 7C 8C 9C TC 8D 9D TD JD 6S",
                   S="2H 3H 4H 5H 6H JC QC KC AC QD KD AD 7S")
    g = _played(hands, (3, 0, 3, 3), "KH 9H")
    [e] = play_evidence(g.view(S))
    assert (e.seat, e.nil, e.cheaper) == (E, True, parse_hand("TH JH QH"))
    assert not e.wasted(parse_hand("TH 2C"))  # the ten touches the nine
    assert e.wasted(parse_hand("QH 2C"))  # the ten and jack, out, lie between
    assert not e.wasted(parse_hand("TH JH QH"))  # one run with the nine
    # About 0.33 without the evidence and 0.15-0.18 with it (400 layouts, two seeds).
    queen = 1 << parse_card("QH")
    assert _share(S, g, E, queen, use=False, n=400) > 0.27
    assert _share(S, g, E, queen, use=True, n=400) < 0.23


def test_no_nil_evidence_from_a_broken_nil() -> None:
    # East's nil takes the first trick with the AH; later it drops the 8D under North's KD,
    # which a live nil holding the 9D and TD would not have done, but a broken one may.
    hands = layout(N="2H 3H KD 2C 3C 2S 3S 4S 5S 2D 3D 4D 5D",
                   E="AH 9H 4C 5C 6C 7C 8C 9C TC 8D 9D TD 6S",
                   S="4H 5H 6H 7H 8H JC QC KC AC QD AD 7S 8S",
                   W="TH JH QH KH 6D 7D JD 9S TS JS QS KS AS")
    g = _played(hands, (3, 0, 3, 3), "2H AH 4H TH 9H 5H KH 3H JD KD 8D")
    assert not any(e.nil for e in play_evidence(g.view(S)))


def _after_west_leads(hands: list[int], cards: str) -> Game:
    """A classic game of ``hands``, South dealing (so West leads), East bidding nil and the
    others 3, then ``cards`` played."""
    g = Game("classic", seed=1)
    g.deal(hands=list(hands), dealer=S)
    for seat in (W, N, E, S):
        g.apply(bid(0 if seat == E else 3), seat=seat)
    for card in cards.split(" "):
        g.apply(parse_card(card))
    return g


def _east_went_over(hands: list[int], cards: str) -> tuple[Game, PlayEvidence]:
    """:func:`_after_west_leads`, and the one piece of evidence South reads: East's card over
    the winner."""
    g = _after_west_leads(hands, cards)
    [e] = play_evidence(g.view(S))
    assert (e.seat, e.nil, e.over) == (E, False, True)
    return g, e


def test_a_live_nil_goes_over_the_winner_only_without_a_card_under_it() -> None:
    # West leads the 9H, North covers with the TH, and East, on a nil, plays the KH over it
    # with only South to come.  A live nil never goes over the winner while holding a heart
    # that stays under the ten, so East probably holds none of the 5H, 6H and 7H, which South
    # cannot see (South holds the 2H-4H and the 8H).
    hands = layout(W="9H 5H 6H 2S 3S 4S 5S 2D 3D 4D 5D 6D 7D",
                   N="TH 7H QC 8S 9S TS JS QS KS AS 8D 9D TD",
                   E="KH 5C 6C 7C 8C 9C TC JD QD KD AD 6S 7S",
                   S="2H 3H 4H 8H JH QH AH 2C 3C 4C JC KC AC")
    g, e = _east_went_over(hands, "9H TH KH")
    assert e.cheaper == parse_hand("2H 3H 4H 5H 6H 7H 8H 9H")
    assert e.wasted(parse_hand("5H 2C")) and not e.wasted(parse_hand("AH 2C"))
    low = parse_hand("5H 6H 7H")
    assert _share(S, g, E, low, use=False, n=400) > 0.6
    assert _share(S, g, E, low, use=True, n=400) < 0.25


def test_a_nil_second_to_a_trick_may_go_over_a_low_lead() -> None:
    # North leads the 3H and East, on a nil, plays the 7H over it: West, its partner, plays
    # last, and a nil keeps its lowest heart back as a way out.  Nothing is read from it.
    hands = layout(N="3H 2C 3C 2S 3S 4S 5S 2D 3D 4D 5D 6D 7D",
                   E="7H 2H 5C 6C 7C 8C 9C TC 8D 9D TD JD 6S")
    g = _played(hands, (3, 0, 3, 3), "3H 7H")
    assert play_evidence(g.view(S)) == []


def test_a_live_nil_that_cuts_held_nothing_else_to_play() -> None:
    # West leads the AD, North follows, and East, on a nil and out of diamonds, cuts with the
    # 6S: it would have thrown a club or a heart had it held one (a spade under the ace cannot
    # exist), so the layouts that give East a card of another suit than spades are unlikely.
    hands = layout(W="AD 2C 3C 2S 3S 4S 5S 8D 9D TD JD QD KD",
                   N="2D 3D 4D 5D 6D 7D 8H 9H TH JH QH KH AH",
                   E="6S 7S 8S 9S TS JS QS 2H 3H 4H 5H 6H 7H",
                   S="4C 5C 6C 7C 8C 9C TC JC QC KC AC KS AS")
    _, e = _east_went_over(hands, "AD 2D 6S")
    assert e.cheaper == parse_hand(
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")
    assert e.wasted(parse_hand("2H 7S")) and not e.wasted(parse_hand("7S 8S"))


def test_a_nil_that_goes_over_after_it_was_broken_says_nothing() -> None:
    hands = layout(N="2H 3H KD 2C 3C 2S 3S 4S 5S 2D 3D 4D 5D",
                   E="AH 9H 4C 5C 6C 7C 8C 9C TC 8D 9D TD 6S",
                   S="4H 5H 6H 7H 8H JC QC KC AC QD AD 7S 8S",
                   W="TH JH QH KH 6D 7D JD 9S TS JS QS KS AS")
    # East's nil takes the first trick with the AH; later it plays the 8D over West's 6D.
    g = _played(hands, (3, 0, 3, 3), "2H AH 4H TH 9H 5H KH 3H 6D 2D 8D")
    assert [e for e in play_evidence(g.view(S)) if e.seat == E] == []
