"""What a seat infers from its view: cards out, voids, masters, contracts and live nils."""

from __future__ import annotations

import random

from varaq import Game, Rules, parse_card, parse_hand
from varaq.actions import BID, BLIND_NIL
from varaq.bots import make_bot
from varaq.bots.knowledge import Knowledge, beats, highest, lowest
from varaq.cards import CLUBS, DIAMONDS, HEARTS, SPADE_MASK, SPADES, STANDARD_DECK, SUIT_MASKS
from varaq.seats import E, N, S, W

# Dealer W, so N bids and leads first.  Each hand is built so the tests can steer the play.
HANDS = [
    parse_hand("AC KC QC 2D 3D 4D 2H 3H 4H 5H 2S 3S 4S"),  # N
    parse_hand("JC TC 9C 8C 7C 6C 5C 4C 3C 2C 6H 7H 5S"),  # E: clubs and two hearts, one spade
    parse_hand("5D 6D 7D 8D 9D TD JD QD KD AD 8H 6S 7S"),  # S
    parse_hand("9H TH JH QH KH AH 8S 9S TS JS QS KS AS"),  # W
]


def _game(bids: tuple[int, int, int, int] = (3, 2, 4, 3), rules: str | Rules = "classic") -> Game:
    g = Game(rules, seed=1)
    g.deal(hands=HANDS, dealer=W)
    for seat in (N, E, S, W):
        g.apply(BID + bids[seat], seat=seat)
    return g


def _play(g: Game, *cards: str) -> None:
    for text in cards:
        g.apply(parse_card(text))


def test_cards_out_are_everything_not_held_or_played() -> None:
    g = _game()
    _play(g, "AC", "2C")
    k = Knowledge.from_view(g.view(S))
    assert k.unseen == STANDARD_DECK & ~g.hands[S] & ~g.played
    assert k.unseen.bit_count() == 39 - 2
    assert k.spades_out == 13 - 2


def test_failing_to_follow_shows_a_void() -> None:
    g = _game()
    # N leads clubs; S has none and discards: every other seat now knows S is void in clubs.
    _play(g, "AC", "2C", "5D")
    for seat in (N, E, W):
        k = Knowledge.from_view(g.view(seat))
        assert k.is_void(S, CLUBS)
        assert not k.possible[S] & parse_hand("KC QC JC TC 9C 8C 7C 6C 5C 4C 3C")
        assert not k.is_void(S, DIAMONDS)


def test_unbroken_spade_lead_marks_the_other_suits_void() -> None:
    # A hand of thirteen spades must lead one before spades are broken.
    hands = [
        parse_hand("AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"),
        parse_hand("AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C"),
        parse_hand("AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D"),
        parse_hand("AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"),
    ]
    g = Game("classic", seed=1)
    g.deal(hands=hands, dealer=W)
    for seat in (N, E, S, W):
        g.apply(BID + 3, seat=seat)
    g.apply(parse_card("2S"))
    k = Knowledge.from_view(g.view(E))
    assert k.is_void(N, CLUBS) and k.is_void(N, DIAMONDS) and k.is_void(N, HEARTS)
    assert not k.is_void(N, SPADES)


def test_master_moves_down_as_high_cards_fall() -> None:
    g = _game()
    k = Knowledge.from_view(g.view(S))
    assert k.master(CLUBS) == parse_card("AC")
    assert not k.is_master(parse_card("KC"))
    # For N, who holds the ace too, the king is as good as a master: nothing out beats it.
    assert Knowledge.from_view(g.view(N)).is_master(parse_card("KC"))
    _play(g, "AC", "2C", "5D", "8S")
    k = Knowledge.from_view(g.view(S))
    assert k.master(CLUBS) == parse_card("KC")
    assert k.is_master(parse_card("KC"))
    assert k.higher_out(parse_card("QC")) == 1


def test_current_trick_winner_and_seats_still_to_play() -> None:
    g = _game()
    _play(g, "2H", "7H")
    k = Knowledge.from_view(g.view(S))
    assert (k.winning_seat, k.winning_card) == (E, parse_card("7H"))
    assert k.led == HEARTS
    assert k.after == (W,)
    assert k.opponents_after() == (W,)


def test_could_beat_follows_the_shown_voids() -> None:
    g = _game()
    _play(g, "AC", "2C", "5D", "8S")  # S and W show club voids; W cuts and wins
    _play(g, "AS", "2S", "5S", "6S")
    k = Knowledge.from_view(g.view(N))
    assert k.is_void(W, CLUBS) and k.is_void(S, CLUBS)
    # Only E can hold the clubs still out, so E surely holds them and cannot cut the king.
    assert k.known[E] & parse_hand("JC 3C") == parse_hand("JC 3C")
    assert not k.could_beat(E, parse_card("KC"), CLUBS)
    # W is void in clubs and may still hold a spade: the king can be cut.
    assert k.could_beat(W, parse_card("KC"), CLUBS)
    assert not k.holds_up(parse_card("KC"), (E, S, W))
    assert k.holds_up(parse_card("KC"), (E,))


def test_contract_need_and_nil_status() -> None:
    g = _game(bids=(0, 2, 4, 3))
    k = Knowledge.from_view(g.view(S))
    assert k.contract == (4, 5)
    assert k.need(0) == 4 and k.need(1) == 5
    assert k.nil_alive == (True, False, False, False)
    _play(g, "AC", "2C", "5D", "8S")  # W cuts: EW takes one
    k = Knowledge.from_view(g.view(S))
    assert k.need(1) == 4
    assert k.nil_alive[N]


def test_a_broken_nil_is_no_longer_alive() -> None:
    g = _game(bids=(0, 2, 4, 3))
    _play(g, "2H", "6H", "8H", "9H")  # W wins: N's nil lives
    assert Knowledge.from_view(g.view(E)).nil_alive[N]
    g = _game(bids=(0, 2, 4, 3))
    _play(g, "AC", "2C", "5D", "9H")  # N's ace wins: the nil is broken
    k = Knowledge.from_view(g.view(E))
    assert not k.nil_alive[N]
    assert k.need(0) == 4  # a nil bidder's trick never counts for the partner's contract


def test_cards_passed_in_the_exchange_are_known_to_be_with_partner() -> None:
    g = Game("classic", seed=3, totals=(0, 200))
    g.deal(hands=HANDS, dealer=W)
    # NS trails by 200: N and S may bid blind nil; N does, S looks.
    assert g.phase_name == "blind"
    g.apply(BLIND_NIL, seat=N)
    assert g.phase_name == "bid"
    for seat in (E, S, W):
        g.apply(BID + 3, seat=seat)
    assert g.phase_name == "exchange"
    assert g.turn == S
    g.apply(parse_card("5D"))
    g.apply(parse_card("6D"))
    k = Knowledge.from_view(g.view(S))
    assert k.known[N] == parse_hand("5D 6D")
    assert not k.possible[E] & parse_hand("5D 6D")
    assert not k.possible[W] & parse_hand("5D 6D")


def test_card_order_helpers_follow_the_trump_order() -> None:
    assert beats(parse_card("2S"), parse_card("AH"), HEARTS, jokers=False)
    assert not beats(parse_card("AD"), parse_card("2H"), HEARTS, jokers=False)
    assert beats(parse_card("2S"), parse_card("AS"), SPADES, jokers=True)
    mask = parse_hand("2S AH 3C")
    assert lowest(mask, False) == parse_card("3C")
    assert highest(mask, False) == parse_card("2S")
    assert highest(parse_hand("AS 2S"), True) == parse_card("2S")


def test_jokers_are_the_top_spades() -> None:
    g = Game(Rules.named("classic").with_options(jokers=True), seed=2)
    g.deal()
    k = Knowledge.from_view(g.view(N))
    assert k.master(SPADES) == parse_card("BJ")
    assert k.spades_out + (g.hands[N] & SPADE_MASK).bit_count() == 15


def test_inferences_are_never_wrong_in_random_games() -> None:
    """Whatever a seat infers holds for the real cards: known cards are held, held cards are
    possible, and a seat marked void really has none of the suit."""
    for preset in ("classic", "varaq"):
        rules = Rules.named(preset)
        for seed in range(25):
            g = Game(rules.with_options(jokers=seed % 2 == 1), seed=seed, totals=(0, 250))
            g.deal()
            bot = make_bot("random")
            rng = random.Random(seed)
            while g.phase_name not in ("deal", "over"):
                for seat in range(4):
                    view = g.view(seat)
                    if view.cards_hidden:
                        continue
                    k = Knowledge.from_view(view)
                    for s in range(4):
                        held = g.hands[s]
                        assert k.known[s] & ~held == 0, (seed, seat, s)
                        assert held & ~k.possible[s] == 0, (seed, seat, s)
                        for suit in range(4):
                            if k.voids[s] >> suit & 1 and s != seat:
                                assert not held & SUIT_MASKS[suit], (seed, seat, s, suit)
                g.apply(bot.act(g.view(g.turn), rng))


# -- the bid advisor's words ------------------------------------------------------------------


def random_hands(seed: int, count: int) -> list[tuple[int, bool]]:
    """``count`` random 13-card hands, one in four from the joker deck: (hand, jokers)."""
    from varaq.cards import JOKER_DECK, cards_of

    rng = random.Random(seed)
    hands = []
    for i in range(count):
        jokers = i % 4 == 0
        deck = list(cards_of(JOKER_DECK if jokers else STANDARD_DECK))
        rng.shuffle(deck)
        hands.append((sum(1 << c for c in deck[:13]), jokers))
    return hands


def test_the_estimate_reason_by_reason_adds_up_to_the_estimate() -> None:
    from varaq.bots.bidding import estimate_parts, estimate_tricks

    for hand, jokers in random_hands(5, 500):
        total = sum(part.tricks for part in estimate_parts(hand, jokers))
        assert estimate_tricks(hand, jokers) == max(0.0, min(total, 13.0))


def test_the_bid_advice_names_sure_tricks_side_winners_and_ruffs() -> None:
    from varaq.bots.advice import bid_advice, trick_reasons
    from varaq.cards import parse_hand

    strong = parse_hand("AS KS 5S 4S AD 7D 6D 3H 9H 8H 2H QC 4C")
    assert trick_reasons(strong, False).startswith("two sure spade tricks (A♠ K♠), the A♦")
    short = parse_hand("AS 7S 6S 5S AC KC QC JC 9C 8C 7H 6H 5H")
    assert "likely diamond ruff" in trick_reasons(short, False)
    assert bid_advice(strong, False, 4, "We make it.").startswith("4: two sure spade tricks")
    assert bid_advice(strong, False, 0, "Nil: no high cards.") == "Nil: no high cards."


def test_a_bid_away_from_the_count_says_why() -> None:
    from varaq.bots.advice import bid_advice
    from varaq.bots.bidding import estimate_tricks
    from varaq.cards import parse_hand

    strong = parse_hand("AS KS 5S 4S AD 7D 6D 3H 9H 8H 2H QC 4C")
    count = round(estimate_tricks(strong, False))
    layouts = "Bid 1: expected score +50 for our side; made in 24 layouts"
    under = bid_advice(strong, False, 1, layouts)
    # The count, where it comes from, then why the bid is lower, then the bot's own reason.
    assert under.startswith(f"1, though your cards count about {count} (two sure spade")
    assert "played out over the layouts, 1 scores best for your side. Bid 1:" in under
    over = bid_advice(strong, False, count + 2, "Bid 6: about 4 tricks, far behind")
    assert over.startswith(f"{count + 2}, more than your cards count (two sure spade")
    assert "bidding over the count pays here. Bid 6" in over
    assert bid_advice(strong, False, count, "We make it.").startswith(f"{count}: two sure")


def test_the_count_line_by_line_is_the_estimate_in_the_advisors_words() -> None:
    from varaq.bots.advice import LIKELY, SURE, count_lines, trick_reasons
    from varaq.bots.bidding import estimate_parts
    from varaq.cards import card_unicode

    for hand, jokers in random_hands(6, 300):
        lines = count_lines(hand, jokers)
        parts = estimate_parts(hand, jokers)
        # One line per reason, worth what the reason is worth, on a card of the hand.
        assert sorted(line.tricks for line in lines) == sorted(p.tricks for p in parts)
        assert all(line.words for line in lines)
        assert all(line.card is None or hand >> line.card & 1 for line in lines)
        assert all(line.card is not None for line in lines) == bool(hand & SPADE_MASK)
        # A card the Hint calls sure or probable is called so on its line too.
        reasons = trick_reasons(hand, jokers)
        for line in lines[: sum(p.kind in ("trump", "side") for p in parts)]:
            assert line.card is not None
            if line.tricks >= SURE:
                assert line.words.endswith("a sure trick")
                assert card_unicode(line.card) in reasons
            elif line.tricks >= LIKELY:
                assert line.words.startswith("probably a trick")
                assert f"the {card_unicode(line.card)}" in reasons
            else:
                assert "rarely a trick" in line.words or "often cut" in line.words
