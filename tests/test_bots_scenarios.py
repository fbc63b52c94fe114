"""Hand-built positions that pin what players ask of Spades computer players.

Each test deals known cards (dealer West, so North bids and leads first), applies the bids and
cards that lead to the position, and asks the bot for one decision from the seat's view.
"""

from __future__ import annotations

import random

import pytest

from varaq import Game, Rules, parse_card, parse_hand
from varaq.actions import BID, BLIND_NIL, LOOK, NIL_BID
from varaq.bots import Decision, make_bot
from varaq.bots.bidding import estimate_tricks
from varaq.cards import RANK_OF, SPADE_MASK, SUIT_OF
from varaq.seats import E, N, S, W
from varaq.view import View


def _position(
    hands: tuple[str, str, str, str],
    bids: tuple[int, int, int, int] | None,
    plays: str = "",
    bags: tuple[int, int] = (0, 0),
    totals: tuple[int, int] = (0, 0),
) -> Game:
    g = Game("classic", seed=1, bags=bags, totals=totals)
    g.deal(hands=[parse_hand(h) for h in hands], dealer=W)
    if bids is not None:
        for seat in (N, E, S, W):
            g.apply(BID + bids[seat], seat=seat)
    for card in plays.split():
        g.apply(parse_card(card))
    return g


def _decide(name: str, view: View, seed: int = 0) -> int:
    return make_bot(name).decide(view, random.Random(seed)).action


def _normal(hands: tuple[str, str, str, str], bids: tuple[int, int, int, int], plays: str,
            seat: int) -> Decision:
    """Normal's decision, with its reason, for ``seat`` once ``plays`` are made."""
    return make_bot("normal").decide(_position(hands, bids, plays).view(seat), random.Random(0))


# N's nil is covered by S; S has the top hearts.
NIL_COVER = (
    "9H 3H 2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S",
    "2H 4H 5H 6C 7C 8C 6D 7D 8D 5S 6S 7S 8S",
    "AH KH 6H 7H 9C TC JC 9D TD JD 9S TS JS",
    "8H TH JH QH QC KC AC QD KD AD QS KS AS",
)


def test_normal_covers_partners_nil_instead_of_dumping_a_low_card() -> None:
    g = _position(NIL_COVER, bids=(0, 2, 3, 5), plays="9H 2H")
    view = g.view(S)
    card = _decide("normal", view)
    assert card in (parse_card("KH"), parse_card("AH")), "S must beat N's 9H"
    reason = make_bot("normal").decide(view, random.Random(0)).reason
    assert "nil" in reason


def test_normal_cover_leads_a_winner_for_the_nil_bidder() -> None:
    # S wins the first trick with the king of hearts, then leads with N's nil still alive.
    g = _position(NIL_COVER, bids=(0, 2, 3, 5), plays="9H 2H KH 8H")
    assert g.turn == S
    card = _decide("normal", g.view(S))
    # The ace of hearts is the one card S holds that nobody can beat.
    assert card == parse_card("AH")


# N's nil, covered by S, who holds the two master spades and the master heart, and no clubs.
NIL_COVER_SPADES = (
    "9H 3H 2C 3C 4C 5C 2D 3D 4D 5D 2S 3S QS",
    "2H 4H 5H 6C 7C 8C 6D 7D 8D 5S 6S 7S 8S",
    "AH KH 6H 7H 9D TD JD 4S 9S TS JS KS AS",
    "8H TH JH QH 9C TC JC QC KC AC QD KD AD",
)


def test_normal_cover_leads_a_master_spade_before_other_masters() -> None:
    # S cuts the first trick (spades are broken) and leads: the ace of spades lets N shed
    # the queen under it, where the ace of hearts would be spent.
    decision = _normal(NIL_COVER_SPADES, (0, 2, 6, 5), "2C 6C 4S 9C", S)
    assert decision.action == parse_card("AS")
    assert "spade" in decision.reason


# N's nil; N shows out of clubs in the second trick and S wins it.
NIL_COVER_VOID = (
    "9H 3H 7H 2D 3D 4D 5D 6D 7D 2S 3S 4S 5S",
    "2H 4H 5H 2C 3C 4C 8D 9D TD 6S 7S 8S 9S",
    "AH KH 6H 8H 9C TC JC QC JD QD TS JS QS",
    "TH JH QH 5C 6C 7C 8C KC AC KD AD KS AS",
)


def test_normal_cover_leads_into_the_nil_bidders_void_before_cashing_a_master() -> None:
    decision = _normal(NIL_COVER_VOID, (0, 3, 4, 5), "2D 8D QD KD 5C 7D 2C QC", S)
    # The ace of hearts stays to cover N when the opponents lead hearts.
    assert SUIT_OF[decision.action] == SUIT_OF[parse_card("2C")]
    assert "void" in decision.reason


# E bids nil; S can play under E's card.
NIL_DEFENCE = (
    "9H 3H 2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S",
    "7H 4H 5H 6C 7C 8C 6D 7D 8D 5S 6S 7S 8S",
    "AH KH 6H 2H 9C TC JC 9D TD JD 9S TS JS",
    "8H TH JH QH QC KC AC QD KD AD QS KS AS",
)


def test_normal_plays_under_the_opponents_nil() -> None:
    g = _position(NIL_DEFENCE, bids=(3, 0, 3, 4), plays="3H 7H")
    card = _decide("normal", g.view(S))
    assert SUIT_OF[card] == SUIT_OF[parse_card("7H")]
    assert RANK_OF[card] < RANK_OF[parse_card("7H")], "S must leave E's 7H winning"


def test_normal_leads_low_into_the_opponents_nil_keeping_its_lowest_for_a_later_round() -> None:
    # A low card E must go over, but not one of N's twos: no suit has been played yet, so N
    # opens one with a three and keeps its two for a later round.
    decision = _normal(NIL_DEFENCE, (3, 0, 3, 4), "", N)
    assert decision.action in (parse_card("3C"), parse_card("3D"))
    assert "keeping the two" in decision.reason


def test_normal_keeps_its_lowest_in_the_joker_game_too() -> None:
    # NIL_DEFENCE with N's 2C and S's 2H, cards the joker deck leaves out, traded for the
    # jokers.  The 2C is not in play, yet clubs have not been played: N keeps its 3C as it
    # keeps its 2D, and leads the 3D.
    n, e, s, w = NIL_DEFENCE
    g = Game(Rules.named("classic").with_options(jokers=True), seed=1)
    hands = (n.replace("2C", "LJ"), e, s.replace("2H", "BJ"), w)
    g.deal(hands=[parse_hand(h) for h in hands], dealer=W)
    for seat in (N, E, S, W):
        g.apply(BID + (3, 0, 3, 4)[seat], seat=seat)
    decision = make_bot("normal").decide(g.view(N), random.Random(0))
    assert decision.action == parse_card("3D")
    assert "keeping the two" in decision.reason


def test_normal_leads_its_lowest_once_the_suit_has_been_played() -> None:
    # NIL_LEAD with N's 3C and S's 3D traded: after the ace of diamonds wins the first round,
    # N leads the 3D, its lowest (under it E may hold nothing); only a suit not yet played
    # keeps its lowest card back.
    n, e, s, w = NIL_LEAD
    hands = (n.replace("3C", "3D"), e, s.replace("3D", "3C"), w)
    decision = _normal(hands, (4, 0, 4, 4), "AD 7D 8D 2D", N)
    assert decision.action == parse_card("3D")
    assert "nil" in decision.reason


def test_normal_attacks_the_nil_unless_the_contract_needs_every_trick() -> None:
    # N and S bid 12 of the 13 tricks: a set nil is still worth a trick given up.  With 13
    # bid every trick counts for the contract and the nil is left alone.
    assert "nil" in _normal(NIL_DEFENCE, (6, 0, 6, 1), "", N).reason
    assert "nil" not in _normal(NIL_DEFENCE, (7, 0, 6, 1), "", N).reason


# W bids nil and plays last to the first trick; N leads a small heart.
NIL_LAST = (
    "5H 2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S 6S",
    "2H 6C 7C 8C 9C 6D 7D 8D 9D 5S 7S 8S 9S",
    "AH 3H 4H KH TC JC QC TD JD QD TS JS AS",
    "6H 7H 8H 9H TH JH QH KC AC KD AD KS QS",
)


def test_normal_does_not_overtake_partner_in_front_of_the_opponents_nil() -> None:
    # Only W's nil is left to beat N's 5H, and beating it breaks the nil: S plays under it
    # rather than win with the ace and let the nil duck under that.  Its 3H and 4H leave W the
    # same card to go under; S spends the 4H and keeps the 3H to lead at the nil later.
    decision = _normal(NIL_LAST, (3, 4, 4, 0), "5H 2H", S)
    assert decision.action == parse_card("4H")
    assert "nil" in decision.reason


def test_normal_keeps_its_lowest_card_only_when_a_small_one_can_go_instead() -> None:
    # NIL_LAST with N's 5H and S's 4H traded for W's QH and TH.  Under N's QH, S holds the TH
    # and the 3H.  A ten may still win a trick, so S does not spend it to keep the 3H: it
    # plays the 3H (the king or the ace would let W duck).
    n, e, s, w = NIL_LAST
    hands = (n.replace("5H", "QH"), e, s.replace("4H", "TH"),
             w.replace("QH", "5H").replace("TH", "4H"))
    decision = _normal(hands, (3, 4, 4, 0), "QH 2H", S)
    assert decision.action == parse_card("3H")
    assert "nil" in decision.reason


# E bids nil.  N wins the first trick and leads again, holding the 3C and the 4D.
NIL_LEAD = (
    "AD 4D 3C KC QC JC AH KH QH JH TH 9H AS",
    "2C 5D 6D 7D 2H 3H 4H 2S 3S 4S 5S 6S 7S",
    "3D 8D 9D TD 5H 6H 7H 8H 4C 5C 6C 8S 9S",
    "2D JD QD KD 7C 8C 9C TC AC TS JS QS KS",
)


def test_normal_leads_the_card_the_nil_has_fewest_cards_under() -> None:
    # The 2D and 3D fell to the first trick: E cannot go under N's 4D.  Under the 3C, the
    # lower-ranked card, E may still hold the 2C.
    decision = _normal(NIL_LEAD, (4, 0, 4, 4), "AD 7D 3D 2D", N)
    assert decision.action == parse_card("4D")
    assert "nil" in decision.reason


def test_normal_does_not_lead_into_a_suit_the_nils_partner_can_cut() -> None:
    # W shows out of hearts and may still hold spades: N's 2H led at E's nil could be cut by
    # W, covering the nil, so N leads the 3C (E may hold only the 2C under it).
    hands = (NIL_LEAD[0].replace("9H", "2H"), NIL_LEAD[1].replace("2H", "9H"), *NIL_LEAD[2:])
    decision = _normal(hands, (4, 0, 4, 4), "AH 9H 5H 7C", N)
    assert decision.action == parse_card("3C")


def test_normal_does_not_cut_partners_card_in_front_of_the_opponents_nil() -> None:
    hands = (
        "5H 2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S 6S",
        "2H 3H 6C 7C 8C 9C 6D 7D 8D 5S 7S 8S 9S",
        "TC JC QC KC AC 9D TD JD QD KD TS JS AS",
        "4H 6H 7H 8H 9H TH JH QH KH AH AD QS KS",
    )
    decision = _normal(hands, (3, 3, 5, 0), "5H 2H", S)
    assert SUIT_OF[decision.action] != SUIT_OF[parse_card("AS")], "a cut lets W throw anything"
    assert "nil" in decision.reason


def test_normal_nil_bidder_sheds_a_high_spade_under_a_higher_cut() -> None:
    # E cuts N's heart with the A♠; W (nil, void in hearts) gets rid of its K♠ for good.
    hands = (
        "5H 6H 7H 2C 3C 4C 5C 2D 3D 4D 5D 2S 3S",
        "AS 4S TC JC QC KC AC KD AD 9S TS JS QS",
        "2H 3H 4H 8H 9H TH JH QH KH AH 5S 6S 7S",
        "KS 8S 6C 7C 8C 9C 6D 7D 8D 9D TD JD QD",
    )
    decision = _normal(hands, (3, 4, 3, 0), "5H AS 2H", W)
    assert decision.action == parse_card("KS")
    assert "under the winning spade" in decision.reason


A_SPADE_AND_LOW_CARDS = (
    "AS 2H 3H 4H 2D 3D 4D 2C 3C 4C 5C 5D 5H",
    "KS QS JS TS 6H 7H 8H 6D 7D 8D 6C 7C 8C",
    "9S 8S 7S 6S 9H TH JH 9D TD JD 9C TC JC",
    "5S 4S 3S 2S QH KH AH QD KD AD QC KC AC",
)


@pytest.mark.parametrize("name", ["easy", "normal"])
def test_no_nil_bid_holding_the_ace_of_spades(name: str) -> None:
    g = _position(A_SPADE_AND_LOW_CARDS, bids=None)
    view = g.view(N)
    assert NIL_BID in view.legal
    for seed in range(20):
        assert _decide(name, view, seed) != NIL_BID


def test_normal_bids_nil_on_a_hand_of_small_cards() -> None:
    hands = (
        "2S 3S 2H 3H 4H 6H 2D 3D 4D 7D 2C 3C 5C",
        "AS KS QS JS 5H 7H 8H 5D 6D 8D 4C 6C 7C",
        "TS 9S 8S 7S 9H TH JH 9D TD JD 9C TC JC",
        "6S 5S 4S QH KH AH QD KD AD QC KC AC 8C",
    )
    g = _position(hands, bids=None)
    assert _decide("normal", g.view(N)) == NIL_BID


# N cashes two clubs: NS (bid 1 + 1) has its contract after two tricks.
BAGS = (
    "AC KC 2D 3D 4D 5D 2H 3H 4H 5H 2S 3S 4S",
    "2C 3C 4C 7C 8C 9C 8D 7D 6H 7H 8H 5S 6S",
    "5C 6C AD KD 6D 9H TH 7S 8S 9S TS JS QS",
    "TC JC QC 9D TD JD QD JH QH KH AH KS AS",
)


def test_normal_ducks_with_eight_bags_once_the_contract_is_safe() -> None:
    g = _position(BAGS, bids=(1, 1, 1, 2), plays="AC 2C 5C TC KC 3C 6C JC 2D 7D", bags=(8, 0))
    assert g.taken[N] == 2
    view = g.view(S)
    decision = make_bot("normal").decide(view, random.Random(0))
    assert decision.action == parse_card("6D"), decision
    assert "8 bags" in decision.reason


def test_normal_takes_the_trick_when_the_contract_needs_it() -> None:
    # Same cards, but NS bid 4 + 4: the contract needs S's diamonds.
    g = _position(BAGS, bids=(4, 1, 4, 2), plays="AC 2C 5C TC KC 3C 6C JC 2D 7D", bags=(8, 0))
    card = _decide("normal", g.view(S))
    assert card in (parse_card("AD"), parse_card("KD"))


# N leads the master ace of hearts; S is void in hearts with plenty of spades.
PARTNER_WINNER = (
    "AH 3H 2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S",
    "2H 4H 5H 6C 7C 8C 6D 7D 8D 5S 6S 7S 8S",
    "9C TC JC QC 9D TD JD QD 9S TS JS QS KS",
    "6H 7H 8H 9H TH JH QH KH KC AC KD AD AS",
)


@pytest.mark.parametrize("name", ["easy", "normal"])
def test_no_cut_of_partners_winning_ace(name: str) -> None:
    g = _position(PARTNER_WINNER, bids=(2, 2, 4, 4), plays="AH 2H")
    view = g.view(S)
    assert view.hand & SPADE_MASK
    for seed in range(10):
        card = _decide(name, view, seed)
        assert not SPADE_MASK >> card & 1, "S must not cut partner's ace of hearts"


def test_normal_bids_the_tricks_of_a_clear_hand() -> None:
    hands = (
        "AS KS QS AH AD AC 2H 3H 4D 5D 6C 7C 8C",
        "JS TS 9S 8S KH QH JH KD QD JD KC QC JC",
        "7S 6S 5S 4S TH 9H 8H TD 9D 8D TC 9C 2D",
        "3S 2S 7H 6H 5H 4H 7D 6D 3D 5C 4C 3C 2C",
    )
    g = _position(hands, bids=None)
    assert round(estimate_tricks(parse_hand(hands[0]))) == 6
    bid = _decide("normal", g.view(N)) - BID
    assert bid == 6


def test_easy_bids_roughly_but_near_the_hand() -> None:
    hands = (
        "AS KS QS AH AD AC 2H 3H 4D 5D 6C 7C 8C",
        "JS TS 9S 8S KH QH JH KD QD JD KC QC JC",
        "7S 6S 5S 4S TH 9H 8H TD 9D 8D TC 9C 2D",
        "3S 2S 7H 6H 5H 4H 7D 6D 3D 5C 4C 3C 2C",
    )
    view = _position(hands, bids=None).view(N)
    bids = {_decide("easy", view, seed) - BID for seed in range(30)}
    assert bids <= {5, 6, 7}
    assert len(bids) > 1, "Easy's bids vary a little"


def _blind_game(rules: Rules, totals: tuple[int, int]) -> Game:
    g = Game(rules, seed=1, totals=totals)
    g.deal(hands=[parse_hand(h) for h in NIL_COVER], dealer=W)
    return g


def test_normal_bids_blind_nil_when_trailing_with_an_exchange() -> None:
    g = _blind_game(Rules.named("classic"), totals=(100, 250))
    assert g.phase_name == "blind" and g.turn == N
    view = g.view(N)
    assert view.cards_hidden and view.hand == 0
    assert _decide("normal", view) == BLIND_NIL


def test_normal_looks_when_a_blind_nil_is_not_worth_it() -> None:
    # No exchange, trailing by 120 and the opponents far from the target: look.
    g = _blind_game(Rules.named("classic").with_options(exchange=0), totals=(0, 120))
    assert g.phase_name == "blind"
    assert _decide("normal", g.view(g.turn)) == LOOK
    # Without an exchange a blind nil costs points from any score (issue 17): Normal takes it
    # only at the end of the race, where made it takes the side to 500 first.
    g = _blind_game(Rules.named("classic").with_options(exchange=0), totals=(200, 450))
    assert _decide("normal", g.view(g.turn)) == LOOK
    g = _blind_game(Rules.named("classic").with_options(exchange=0), totals=(300, 450))
    assert _decide("normal", g.view(g.turn)) == BLIND_NIL


def test_blind_nil_exchange_low_cards_over_and_dangers_back() -> None:
    g = _blind_game(Rules.named("classic"), totals=(100, 250))
    g.apply(BLIND_NIL, seat=N)
    for seat in (E, S, W):
        g.apply(bid_action(g, seat), seat=seat)
    assert g.phase_name == "exchange" and g.turn == S
    bot = make_bot("normal")
    rng = random.Random(0)
    given = 0
    while g.turn == S and g.phase_name == "exchange":
        card = bot.act(g.view(S), rng)
        given |= 1 << card
        g.apply(card)
    # S passes its two lowest side cards (the six and seven of hearts), never an honour.
    assert given == parse_hand("6H 7H")
    assert g.turn == N
    back = 0
    while g.phase_name == "exchange":
        card = bot.act(g.view(N), rng)
        back |= 1 << card
        g.apply(card)
    # N passes back its most dangerous cards: its highest heart and its highest spade.
    assert back == parse_hand("9H 4S")
    assert g.phase_name == "play"


def bid_action(g: Game, seat: int) -> int:
    """Normal's bid for ``seat`` in ``g`` (a helper so the exchange test bids like a table)."""
    return _decide("normal", g.view(seat))


@pytest.mark.parametrize("name", ["easy", "normal"])
def test_bids_respect_the_board_and_no_nil_tables(name: str) -> None:
    weak = (
        "2S 3S 2H 3H 4H 6H 2D 3D 4D 7D 2C 3C 5C",
        "AS KS QS JS 5H 7H 8H 5D 6D 8D 4C 6C 7C",
        "TS 9S 8S 7S 9H TH JH 9D TD JD 9C TC JC",
        "6S 5S 4S QH KH AH QD KD AD QC KC AC 8C",
    )
    # Board 4: N (weak) bids first and may bid nil; with nil off it must bid at least 1.
    no_nil = Rules.named("varaq").with_options(nil=False)
    g = Game(no_nil, seed=1)
    g.deal(hands=[parse_hand(h) for h in weak], dealer=W)
    view = g.view(N)
    assert NIL_BID not in view.legal
    assert _decide(name, view) in view.legal
    board = Rules.named("classic").with_options(min_team_bid=4)
    g = Game(board, seed=1)
    g.deal(hands=[parse_hand(h) for h in weak], dealer=W)
    g.apply(BID + 1, seat=N)
    g.apply(BID + 3, seat=E)
    view = g.view(S)
    bid = _decide(name, view)
    assert bid in view.legal
    assert bid == NIL_BID or bid - BID >= 3, "S must bring NS to the board of 4"
