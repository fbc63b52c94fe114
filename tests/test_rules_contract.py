"""docs/rules.md, rule by rule and example by example.

Each test is named for the rule it pins.  Scores are checked end to end: a hand is bid through
``Game.apply`` and finished with cards or with a score-sheet trick count, never by calling the
scoring function with numbers the engine did not produce.
"""

from __future__ import annotations

import random

import pytest

from deal_helpers import layout, play_hand
from varaq import BID, BLIND_NIL, LOOK, Game, IllegalAction, Rules, RulesError
from varaq.cards import BJ, LJ, TWO_CLUBS, TWO_HEARTS, parse_card
from varaq.engine import BIDDING, BLIND, EXCHANGE, PLAY
from varaq.seats import E, N, S, W

# -- helpers --------------------------------------------------------------------------------


def sheet_hand(game: Game, bids: dict[int, int | str], tricks: tuple[int, int, int, int]) -> None:
    """One score-sheet hand: every bid through the engine, then each seat's tricks."""
    game.deal_unknown()
    bid_all(game, bids)
    game.score_tricks(tricks)


def bid_all(game: Game, bids: dict[int, int | str]) -> None:
    while game.phase in (BLIND, BIDDING):
        seat = game.turn
        wanted = bids[seat]
        if game.phase == BLIND:
            game.apply(BLIND_NIL if wanted == "blind" else LOOK)
        else:
            game.apply(BID + (0 if wanted == "nil" else int(wanted)))


def score_of(rules: str | Rules, bids: dict[int, int | str], tricks: tuple[int, int, int, int],
             totals: tuple[int, int] = (0, 0), bags: tuple[int, int] = (0, 0)) -> Game:
    game = Game(rules, seed=1, totals=totals, bags=bags, dealer=W)
    sheet_hand(game, bids, tricks)
    return game


def dealt(rules: str | Rules = "classic", dealer: int = W, **cards: str) -> Game:
    r = Rules.from_spec(rules) if isinstance(rules, str) else rules
    game = Game(r, seed=1, dealer=dealer)
    game.deal(hands=layout(jokers=r.jokers, **cards), dealer=dealer)
    return game


def to_play(game: Game, bids: tuple[int, int, int, int] = (3, 3, 3, 3)) -> Game:
    """Finish the bidding (looking at the cards if asked) so that play can start."""
    while game.phase in (BLIND, BIDDING):
        game.apply(LOOK if game.phase == BLIND else BID + bids[game.turn])
    assert game.phase == PLAY
    return game


CLUBS_3_TO_A = "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"
DIAMONDS_2_TO_K = "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"


def c(text: str) -> int:
    return parse_card(text)


# -- table and cards ------------------------------------------------------------------------


def test_deck_has_52_cards_dealt_13_to_each_seat() -> None:
    game = Game("classic", seed=3)
    game.deal()
    assert [h.bit_count() for h in game.hands] == [13, 13, 13, 13]
    assert game.hands[0] | game.hands[1] | game.hands[2] | game.hands[3] == (1 << 52) - 1


def test_card_text_accepts_ten_lower_case_and_suit_symbols_and_writes_t_upper_case() -> None:
    assert parse_card("10d") == parse_card("TD") == parse_card("t♦")
    assert parse_card("a♠") == parse_card("AS")
    assert parse_card("bj") == BJ and parse_card("LJ") == LJ
    assert [parse_card(t) for t in ("2C", "AC", "2S", "AS")] == [0, 12, 39, 51]
    from varaq import card_text

    assert card_text(parse_card("10h")) == "TH"


def test_ace_is_high_in_every_suit() -> None:
    game = to_play(dealt(N="2H", E="KH", S="AH", W="QH"))  # dealer W: N leads
    for card in ("2H", "KH", "AH", "QH"):
        game.apply(c(card))
    assert game.tricks[0].winner == S


def test_first_dealer_is_chosen_at_random_from_the_seed() -> None:
    dealers = {Game("classic", seed=s).dealer for s in range(40)}
    assert dealers == {N, E, S, W}


def test_deal_passes_one_seat_clockwise_after_every_hand() -> None:
    game = Game("varaq", seed=5, dealer=S)
    rng = random.Random(5)
    seen = []
    for _ in range(5):
        play_hand(game, rng)
        seen.append(game.log[-1].dealer)
    assert seen == [S, W, N, E, S]


def test_a_dealer_out_of_turn_is_refused() -> None:
    game = Game("varaq", seed=5, dealer=S)
    play_hand(game, random.Random(1))
    with pytest.raises(IllegalAction, match="dealer must be W"):
        game.deal(dealer=N)


# -- bidding --------------------------------------------------------------------------------


def test_bidding_starts_at_the_dealers_left_and_goes_clockwise() -> None:
    game = dealt(dealer=E)
    order = []
    while game.phase == BIDDING:
        order.append(game.turn)
        game.apply(BID + 3)
    assert order == [S, W, N, E]


def test_each_player_bids_once_from_0_to_13_and_0_is_nil() -> None:
    game = dealt("varaq")
    assert game.legal_actions() == [BID + n for n in range(14)]
    with pytest.raises(IllegalAction):
        game.apply(BID + 14)


def test_contract_is_the_sum_of_the_sides_non_nil_bids() -> None:
    game = score_of("classic", {N: 4, E: 2, S: 3, W: 2}, (4, 2, 3, 4))
    assert game.history[0].contract == (7, 4)
    game = score_of("classic", {N: "nil", E: 2, S: 3, W: 2}, (0, 2, 3, 8))
    assert game.history[0].contract == (3, 4)


def test_both_partners_nil_leaves_the_side_without_contract() -> None:
    game = score_of("classic", {N: "nil", E: 6, S: "nil", W: 6}, (0, 7, 0, 6))
    assert game.history[0].contract[0] == 0 and game.history[0].made[0] is None
    assert game.history[0].score[0] == 200


def test_blind_nil_only_when_the_side_trails_by_the_threshold() -> None:
    eligible = Game("classic", seed=1, totals=(180, 280), dealer=W)
    eligible.deal()
    assert eligible.phase == BLIND and eligible.turn == N
    close = Game("classic", seed=1, totals=(181, 280), dealer=W)
    close.deal()
    assert close.phase == BIDDING
    with pytest.raises(IllegalAction, match="blind nil by N refused: NS trails by 99, needs 100"):
        close.apply(BLIND_NIL)


def test_at_most_one_blind_nil_per_side_in_a_hand() -> None:
    game = Game("classic", seed=1, totals=(0, 300), dealer=W)
    game.deal()
    assert game.blind_queue == [N, S]
    game.apply(BLIND_NIL)
    assert game.phase == BIDDING  # S is no longer asked
    while game.turn != S:
        game.apply(BID + 3)
    with pytest.raises(IllegalAction, match="NS already has a blind nil this hand"):
        game.apply(BLIND_NIL)


def test_looking_gives_up_blind_nil_but_ordinary_nil_stays_open() -> None:
    game = Game("classic", seed=1, totals=(0, 300), dealer=W)
    game.deal()
    game.apply(LOOK)  # N looks
    game.apply(LOOK)  # S looks
    assert game.phase == BIDDING and game.turn == N
    assert BID + 0 in game.legal_actions() and BLIND_NIL not in game.legal_actions()
    with pytest.raises(IllegalAction, match="blind nil by N refused"):
        game.apply(BLIND_NIL)
    game.apply(BID + 0)
    assert game.bids[N] == 0 and not game.blind[N]


def test_blind_nil_decision_comes_before_the_player_sees_the_cards() -> None:
    game = Game("classic", seed=1, totals=(0, 300), dealer=W)
    game.deal()
    view = game.view(N)
    assert view.cards_hidden and view.hand == 0 and view.to_json()["hand"] == []
    game.apply(LOOK)
    assert game.view(N).hand == game.hands[N]


def test_classic_exchange_partner_passes_two_then_the_blind_nil_bidder_passes_two_back() -> None:
    game = Game("classic", seed=1, totals=(0, 300), dealer=W)
    game.deal()
    game.apply(BLIND_NIL)  # N
    while game.phase == BIDDING:
        game.apply(BID + 3)
    assert game.phase == EXCHANGE and game.turn == S
    s_cards = list(game.legal_actions())[:2]
    for card in s_cards:
        game.apply(card)
    assert game.turn == N
    assert all(game.hands[N] >> card & 1 for card in s_cards)
    back = [card for card in game.legal_actions() if card not in s_cards][:2]
    for card in back:
        game.apply(card)
    assert game.phase == PLAY
    assert all(game.hands[S] >> card & 1 for card in back)
    assert [h.bit_count() for h in game.hands] == [13, 13, 13, 13]


def test_varaq_preset_has_no_exchange_after_blind_nil() -> None:
    rules = Rules.named("varaq").with_options(blind_nil=True)
    game = Game(rules, seed=1, totals=(0, 300), dealer=W)
    game.deal()
    game.apply(BLIND_NIL)
    while game.phase == BIDDING:
        game.apply(BID + 3)
    assert game.phase == PLAY


def test_blind_nil_needs_nil() -> None:
    with pytest.raises(RulesError, match="Blind nil needs nil"):
        Rules.named("classic").with_options(nil=False)
    assert not Rules.named("classic").with_options(nil=False, blind_nil=False).nil


def test_without_nil_the_lowest_bid_is_one() -> None:
    game = dealt(Rules.named("varaq").with_options(nil=False))
    assert game.legal_actions() == [BID + n for n in range(1, 14)]
    with pytest.raises(IllegalAction, match="cannot bid nil: nil is not played"):
        game.apply(BID + 0)


# -- play -----------------------------------------------------------------------------------


def test_first_trick_is_led_by_the_dealers_left() -> None:
    assert to_play(dealt(dealer=S)).turn == W


def test_two_clubs_leads_the_holder_of_the_two_of_clubs_leads_it() -> None:
    rules = Rules.named("classic").with_options(two_clubs_leads=True)
    game = to_play(dealt(rules, dealer=W, E="2C"))
    assert game.turn == E and game.legal_actions() == [TWO_CLUBS]
    with pytest.raises(IllegalAction, match="the 2C leads the first trick"):
        game.apply(next(x for x in range(52) if game.hands[E] >> x & 1 and x != TWO_CLUBS))


def test_a_player_must_follow_the_led_suit() -> None:
    game = to_play(dealt(N="KH", E="3H 9S"))
    game.apply(c("KH"))
    assert all(card // 13 == 2 for card in game.legal_actions())
    with pytest.raises(IllegalAction, match="E cannot play 9S: must follow hearts"):
        game.apply(c("9S"))


def test_a_player_who_cannot_follow_may_cut_with_a_spade_even_on_the_first_trick() -> None:
    hearts = " ".join(f"{r}H" for r in "23456789TJQKA")
    game = to_play(dealt(N=hearts, E="2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"))
    game.apply(c("2H"))
    assert game.legal_actions() == list(range(39, 52))
    game.apply(c("2S"))
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[0])
    assert game.tricks[0].winner == E and game.broken


def test_a_spade_cannot_be_led_until_spades_are_broken() -> None:
    game = to_play(dealt(N="AS KS 2D"))
    assert not any(card >= 39 for card in game.legal_actions())
    with pytest.raises(IllegalAction, match="N cannot lead AS: spades are not broken"):
        game.apply(c("AS"))


def test_a_leader_holding_only_spades_may_lead_one_before_they_are_broken() -> None:
    spades = " ".join(f"{r}S" for r in "23456789TJQKA")
    game = to_play(dealt(N=spades))
    assert game.legal_actions() == list(range(39, 52))
    game.apply(c("5S"))
    assert game.broken


def test_spades_are_broken_by_a_spade_played_to_an_earlier_trick() -> None:
    game = to_play(dealt(N="2H", E="3H", S="4H", W="KS AS 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC"))
    assert game.broken is False
    for card in ("2H", "3H", "4H", "KS"):  # W has no heart: cuts and wins
        game.apply(c(card))
    assert game.broken and game.turn == W
    assert c("AS") in game.legal_actions()  # W still holds clubs, yet may lead a spade now


def test_the_highest_spade_wins_the_trick() -> None:
    game = to_play(dealt(N="AH", E="3S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
                         S="QS 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD", W="KH"))
    for card in ("AH", "3S", "QS", "KH"):
        game.apply(c(card))
    assert game.tricks[0].winner == S


def test_without_a_spade_the_highest_card_of_the_led_suit_wins() -> None:
    game = to_play(dealt(N="9H", E="AD 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", S="TH", W="3H"))
    for card in ("9H", "AD", "TH", "3H"):
        game.apply(c(card))
    assert game.tricks[0].winner == S


def test_the_winner_of_a_trick_leads_the_next() -> None:
    game = to_play(dealt(N="9H", E="JH", S="TH", W="3H"))
    for card in ("9H", "JH", "TH", "3H"):
        game.apply(c(card))
    assert game.turn == E and game.leader == E


def test_a_hand_has_13_tricks() -> None:
    game = Game("classic", seed=9)
    play_hand(game, random.Random(9))
    assert len(game.log[-1].plays) == 52 and sum(game.history[-1].tricks) == 13


def test_an_illegal_card_is_refused_with_a_reason_and_nothing_changes() -> None:
    game = to_play(dealt(N="KH", E="3H 9S"))
    game.apply(c("KH"))
    before = game.view(E)
    with pytest.raises(IllegalAction) as refusal:
        game.apply(c("9S"))
    assert "\n" not in str(refusal.value)
    assert game.view(E) == before


# -- scoring --------------------------------------------------------------------------------


def test_contract_made_scores_ten_a_trick_plus_one_per_overtrick_which_is_a_bag() -> None:
    h = score_of("classic", {N: 4, E: 2, S: 3, W: 2}, (5, 2, 4, 2)).history[0]
    assert h.score[0] == 72 and h.bags[0] == 2 and h.made[0] is True


def test_a_set_contract_loses_ten_a_trick_bid_and_its_tricks_score_nothing() -> None:
    h = score_of("classic", {N: 4, E: 2, S: 3, W: 2}, (3, 4, 3, 3)).history[0]
    assert h.score[0] == -70 and h.bags[0] == 0 and h.made[0] is False


def test_nil_made_scores_100_and_failed_nil_loses_100() -> None:
    made = score_of("classic", {N: "nil", E: 2, S: 3, W: 2}, (0, 5, 3, 5)).history[0]
    failed = score_of("classic", {N: "nil", E: 2, S: 3, W: 2}, (1, 4, 3, 5)).history[0]
    assert made.score[0] == 130 and failed.score[0] == -70


def test_blind_nil_is_worth_200_either_way() -> None:
    made = score_of("classic", {N: "blind", E: 2, S: 3, W: 2}, (0, 5, 3, 5), totals=(0, 100))
    failed = score_of("classic", {N: "blind", E: 2, S: 3, W: 2}, (1, 4, 3, 5), totals=(0, 100))
    assert made.history[0].score[0] == 230 and failed.history[0].score[0] == -170


def test_nil_and_blind_nil_values_are_rules_of_the_table() -> None:
    rules = Rules.named("classic").with_options(nil_value=50, blind_nil_value=300)
    nil = score_of(rules, {N: "nil", E: 2, S: 3, W: 2}, (0, 5, 3, 5)).history[0]
    blind = score_of(rules, {N: "blind", E: 2, S: 3, W: 2}, (1, 4, 3, 5), totals=(0, 100))
    assert nil.score[0] == 50 + 30 and blind.history[0].score[0] == -300 + 30


def test_minimum_team_bid_does_not_bind_a_side_with_a_blind_nil() -> None:
    rules = Rules.named("classic").with_options(min_team_bid=4)
    game = Game(rules, seed=1, totals=(0, 300), dealer=W)
    game.deal()
    game.apply(BLIND_NIL)  # N
    game.apply(BID + 2)  # E
    assert game.turn == S and game.legal_actions() == [BID + n for n in range(14)]


def test_nil_tricks_are_bags_not_contract() -> None:
    h = score_of("classic", {N: "nil", E: 2, S: 3, W: 2}, (2, 4, 2, 5)).history[0]
    assert h.made[0] is False  # N's 2 tricks do not help S's 3
    assert h.score[0] == -130 and h.new_bags[0] == 2


def test_nil_tricks_score_a_point_each_in_varaq_but_not_in_classic() -> None:
    bids: dict[int, int | str] = {N: "nil", E: 2, S: 3, W: 2}
    assert score_of("varaq", bids, (2, 2, 4, 5)).history[0].score[0] == -100 + 31 + 2
    assert score_of("classic", bids, (2, 2, 4, 5)).history[0].score[0] == -100 + 31


def test_bags_carry_from_hand_to_hand() -> None:
    game = Game("classic", seed=1, dealer=W)
    sheet_hand(game, {N: 3, E: 3, S: 3, W: 3}, (4, 3, 3, 3))
    sheet_hand(game, {N: 3, E: 3, S: 3, W: 3}, (5, 3, 2, 3))
    assert game.bags == [2, 0] and game.totals == [61 + 61, 60 + 60]


def test_reaching_the_bag_limit_costs_the_penalty_and_drops_the_count_by_ten() -> None:
    h = score_of("classic", {N: 3, E: 3, S: 3, W: 3}, (5, 3, 2, 3), bags=(9, 0)).history[0]
    assert h.penalties[0] == 1 and h.bags[0] == 0 and h.score[0] == 61 - 100


def test_more_than_one_bag_penalty_in_one_hand() -> None:
    h = score_of("classic", {N: "nil", E: 1, S: "nil", W: 1}, (13, 0, 0, 0), bags=(9, 0))
    r = h.history[0]
    assert r.new_bags[0] == 13 and r.penalties[0] == 2 and r.bags[0] == 2
    assert r.score[0] == -100 + 100 - 200


def test_bag_penalty_zero_turns_the_penalty_off_but_bags_still_score() -> None:
    rules = Rules.named("classic").with_options(bag_penalty=0)
    h = score_of(rules, {N: 3, E: 3, S: 3, W: 3}, (6, 3, 3, 1), bags=(9, 0)).history[0]
    assert h.penalties[0] == 0 and h.bags[0] == 12 and h.score[0] == 63


def test_boston_scores_like_any_hand_unless_the_bonus_is_set() -> None:
    bids: dict[int, int | str] = {N: 5, E: 2, S: 4, W: 2}
    plain = score_of("classic", bids, (7, 0, 6, 0)).history[0]
    bonus = score_of(Rules.named("classic").with_options(boston_bonus=200), bids, (7, 0, 6, 0))
    assert plain.score[0] == 94 and bonus.history[0].score[0] == 294
    assert bonus.history[0].boston == (True, False)


def test_minimum_team_bid_offers_only_bids_reaching_the_board() -> None:
    rules = Rules.named("varaq").with_options(min_team_bid=4)
    game = dealt(rules, dealer=W)
    game.apply(BID + 1)  # N
    game.apply(BID + 2)  # E
    assert game.legal_actions() == [BID + 0] + [BID + n for n in range(3, 14)]
    with pytest.raises(IllegalAction, match="NS's bid must reach 4"):
        game.apply(BID + 2)


def test_minimum_team_bid_does_not_bind_a_side_with_a_nil() -> None:
    rules = Rules.named("varaq").with_options(min_team_bid=4)
    game = dealt(rules, dealer=W)
    game.apply(BID + 0)  # N nil
    game.apply(BID + 2)
    assert game.legal_actions() == [BID + n for n in range(14)]


# -- winning --------------------------------------------------------------------------------


def test_match_ends_when_a_side_reaches_the_target_and_the_higher_total_wins() -> None:
    game = score_of("classic", {N: 3, E: 3, S: 3, W: 3}, (3, 3, 3, 4), totals=(440, 480))
    assert game.totals == [500, 541] and game.winner == 1 and game.is_over


def test_exactly_equal_totals_play_another_hand() -> None:
    game = score_of("classic", {N: 3, E: 3, S: 3, W: 3}, (3, 3, 3, 4), totals=(440, 440))
    assert game.totals == [500, 501] and game.winner == 1
    tie = score_of("classic", {N: 3, E: 3, S: 3, W: 3}, (3, 3, 3, 4), totals=(441, 440))
    assert tie.totals == [501, 501] and tie.winner is None and not tie.is_over


def test_mercy_a_side_below_the_line_loses() -> None:
    rules = Rules.named("classic").with_options(mercy=-200)
    game = score_of(rules, {N: 6, E: 3, S: 6, W: 3}, (3, 3, 3, 4), totals=(-100, 0))
    assert game.totals[0] == -220 and game.winner == 1


def test_mercy_with_both_sides_below_the_higher_total_wins() -> None:
    rules = Rules.named("classic").with_options(mercy=-200)
    game = score_of(rules, {N: 6, E: 6, S: 6, W: 6}, (3, 3, 3, 4), totals=(-100, -150))
    assert game.totals == [-220, -270] and game.winner == 0


def test_a_player_may_concede_and_the_other_side_wins_at_once() -> None:
    game = dealt()
    game.concede(1)
    assert game.is_over and game.winner == 0 and game.legal_actions() == []


# -- presets and variations -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "target", "blind_nil", "exchange", "nil_bags_score"),
    [
        ("classic", 500, True, 2, False),
        ("short", 300, True, 2, False),
        ("varaq", 500, False, 0, True),
        ("daily", 250, False, 0, True),
    ],
)
def test_presets_match_the_table(
    name: str, target: int, blind_nil: bool, exchange: int, nil_bags_score: bool
) -> None:
    r = Rules.named(name)
    assert (r.target, r.nil, r.blind_nil, r.exchange, r.nil_bags_score) == (
        target, True, blind_nil, exchange, nil_bags_score
    )
    if blind_nil:
        assert r.blind_nil_trail == 100


def test_incompatible_variations_are_refused_with_a_reason() -> None:
    with pytest.raises(RulesError, match="the 2♣ is not in the joker deck"):
        Rules.named("classic").with_options(jokers=True, two_clubs_leads=True)
    with pytest.raises(RulesError, match="unknown rule 'trumps'"):
        Rules.named("classic").with_options(trumps="hearts")


def test_jokers_deck_drops_two_of_clubs_and_hearts_and_keeps_52_cards() -> None:
    game = Game(Rules.named("varaq").with_options(jokers=True), seed=2)
    game.deal()
    deck = game.hands[0] | game.hands[1] | game.hands[2] | game.hands[3]
    assert deck.bit_count() == 52
    assert not deck >> TWO_CLUBS & 1 and not deck >> TWO_HEARTS & 1
    assert deck >> BJ & 1 and deck >> LJ & 1 and deck >> c("2D") & 1


def test_jokers_trump_order_big_little_two_of_spades_then_ace() -> None:
    rules = Rules.named("varaq").with_options(jokers=True)
    for cards, winner in (
        (("AH", "AS", "2S", "KH"), S),
        (("AH", "2S", "LJ", "KH"), S),
        (("AH", "LJ", "BJ", "KH"), S),
        (("AH", "KS", "AS", "KH"), S),
    ):
        # E and S hold no heart, so they may play the trumps given to them on a heart lead.
        hands = layout(jokers=True, N=cards[0], E=f"{cards[1]} {CLUBS_3_TO_A}",
                       S=f"{cards[2]} {DIAMONDS_2_TO_K}", W=cards[3])
        game = Game(rules, seed=1, dealer=W)
        game.deal(hands=hands, dealer=W)
        to_play(game)
        for card in cards:
            game.apply(c(card))
        assert game.tricks[0].winner == winner, cards


def test_jokers_may_not_be_led_before_spades_are_broken_and_cutting_with_one_breaks_them(
) -> None:
    rules = Rules.named("varaq").with_options(jokers=True)
    game = Game(rules, seed=1, dealer=W)
    game.deal(hands=layout(jokers=True, N="BJ 3D"), dealer=W)
    to_play(game)
    with pytest.raises(IllegalAction, match="cannot lead BJ: spades are not broken"):
        game.apply(BJ)
    game = Game(rules, seed=1, dealer=W)
    hearts = "BJ 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"  # the joker deck has no 2H
    game.deal(hands=layout(jokers=True, N="3D", E=hearts), dealer=W)
    to_play(game)
    game.apply(c("3D"))
    assert BJ in game.legal_actions()
    game.apply(BJ)
    assert game.broken


def test_a_joker_follows_a_spade_lead() -> None:
    rules = Rules.named("varaq").with_options(jokers=True)
    spades_only = "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2S"
    game = Game(rules, seed=1, dealer=W)
    game.deal(hands=layout(jokers=True, N=spades_only, E="LJ 3H"), dealer=W)
    to_play(game)
    game.apply(c("3S"))
    assert game.legal_actions() == [LJ]


# -- the numbered examples ------------------------------------------------------------------


def test_example_1_contract_7_taking_8_scores_71_and_1_bag() -> None:
    h = score_of("classic", {N: 4, E: 2, S: 3, W: 2}, (5, 3, 3, 2)).history[0]
    assert h.contract[0] == 7 and h.score[0] == 71 and h.bags[0] == 1


@pytest.mark.parametrize(
    ("taken", "points", "bags"), [((3, 3, 3, 4), -70, 0), ((5, 2, 4, 2), 72, 2)]
)
def test_example_2_contract_7_set_at_6_and_made_with_9(
    taken: tuple[int, int, int, int], points: int, bags: int
) -> None:
    h = score_of("classic", {N: 4, E: 2, S: 3, W: 2}, taken).history[0]
    assert h.score[0] == points and h.bags[0] == bags


def test_example_3_contract_9_taking_all_13_scores_94_without_boston_bonus() -> None:
    h = score_of("classic", {N: 5, E: 2, S: 4, W: 2}, (7, 0, 6, 0)).history[0]
    assert h.score[0] == 94 and h.bags[0] == 4


def test_example_4_eight_bags_carried_then_three_more_scores_minus_47() -> None:
    h = score_of("classic", {N: 3, E: 2, S: 2, W: 2}, (4, 3, 4, 2), bags=(8, 0)).history[0]
    assert h.score[0] == -47 and h.bags[0] == 1


def test_example_5_varaq_nil_made_and_partner_makes_4_of_5() -> None:
    h = score_of("varaq", {N: "nil", E: 3, S: 4, W: 3}, (0, 4, 5, 4)).history[0]
    assert h.score[0] == 141 and h.bags[0] == 1


@pytest.mark.parametrize(("preset", "points"), [("varaq", -138), ("classic", -140)])
def test_example_6_failed_nil_and_set_partner(preset: str, points: int) -> None:
    h = score_of(preset, {N: "nil", E: 3, S: 4, W: 3}, (2, 4, 3, 4)).history[0]
    assert h.score[0] == points and h.bags[0] == 2


def test_example_7_blind_nil_when_trailing_140_scores_251() -> None:
    game = score_of("classic", {N: "blind", E: 3, S: 5, W: 3}, (0, 4, 6, 3), totals=(180, 320))
    assert game.history[0].score[0] == 251 and game.history[0].blind[N]


def test_example_7_blind_nil_refused_when_trailing_only_70() -> None:
    game = Game("classic", seed=1, totals=(250, 320), dealer=W)
    game.deal_unknown()
    assert game.phase == BIDDING
    with pytest.raises(IllegalAction, match="blind nil by N refused: NS trails by 70, needs 100"):
        game.apply(BLIND_NIL)


@pytest.mark.parametrize(("preset", "points"), [("classic", 0), ("varaq", 1)])
def test_example_8_both_nil_one_fails_by_one_trick(preset: str, points: int) -> None:
    h = score_of(preset, {N: "nil", E: 5, S: "nil", W: 5}, (0, 6, 1, 6)).history[0]
    assert h.score[0] == points and h.bags[0] == 1


def test_example_9_both_pass_the_target_and_the_higher_total_wins() -> None:
    game = score_of("classic", {N: 3, E: 2, S: 3, W: 2}, (4, 3, 4, 2), totals=(460, 470))
    assert game.history[0].score == (62, 41)
    assert game.totals == [522, 511] and game.winner == 0 and game.is_over


def test_example_10_both_sides_on_exactly_500_play_another_hand() -> None:
    game = score_of("classic", {N: 4, E: 3, S: 3, W: 3}, (4, 3, 3, 3), totals=(430, 440))
    assert game.totals == [500, 500] and game.winner is None and game.phase_name == "deal"
    sheet_hand(game, {N: 3, E: 3, S: 3, W: 3}, (4, 3, 3, 3))
    assert game.totals == [561, 560] and game.winner == 0
