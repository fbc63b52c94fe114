"""The Hard player: legal in every phase and variation, a function of its view and seed, and
sensible in the positions where the right card is clear."""

from __future__ import annotations

import random

import pytest

from varaq import Game
from varaq.actions import BID
from varaq.bots import Bot, make_bot
from varaq.bots.hard import EXPERT_MAX_LAYOUTS, MAX_LAYOUTS, ExpertBot, HardBot, hand_value
from varaq.bots.sampling import Sampler
from varaq.cards import JOKER_DECK, STANDARD_DECK, parse_card, parse_hand
from varaq.engine import DEAL, PLAY
from varaq.events import TrickResult
from varaq.rules import Rules
from varaq.scoring import score_hand

VARIATIONS = [
    Rules.named("classic"),
    Rules.named("varaq"),
    Rules.named("classic").with_options(jokers=True),
    Rules.named("classic").with_options(two_clubs_leads=True, min_team_bid=4),
    Rules.named("short").with_options(nil=False, blind_nil=False),
]


def _endgame(
    hands: list[int], leader: int, trick: list[int], bids: list[int], taken: list[int],
    broken: bool = True,
) -> Game:
    """A classic game in the play phase with the given holdings (other tricks are stand-ins)."""
    g = Game("classic", seed=0, dealer=(leader - 1) & 3)
    left = max(h.bit_count() for h in hands)
    g.phase = PLAY
    g.bids = list(bids)
    g.hands = list(hands)
    g.leader = leader
    g.trick = [parse_card(c) for c in trick] if trick and isinstance(trick[0], str) else trick
    g.turn = (leader + len(g.trick)) & 3
    g.broken = broken
    g.tricks = [TrickResult(0, (0, 0, 0, 0), 0)] * (13 - left)
    g.taken = list(taken)
    g.played = STANDARD_DECK & ~(hands[0] | hands[1] | hands[2] | hands[3])
    return g


@pytest.mark.parametrize(
    "rules", VARIATIONS, ids=["classic", "varaq", "jokers", "two-clubs-board", "short-no-nil"]
)
def test_hard_never_plays_an_illegal_action(rules: Rules) -> None:
    # Trail far enough for blind nil to come up where the rules offer it.
    g = Game(rules, seed=11, totals=(0, 150))
    bot = HardBot(samples=2)
    rng = random.Random(3)
    decisions = 0
    while decisions < 70 and not g.is_over:
        if g.phase == DEAL:
            g.deal()
            continue
        view = g.view(g.turn)
        decision = bot.decide(view, rng)
        assert decision.action in g.legal_actions(), decision
        assert decision.reason
        g.apply(decision.action)
        decisions += 1
    assert decisions == 70


def test_hard_is_registered_and_is_a_bot() -> None:
    bot = make_bot("hard", samples=3)
    assert isinstance(bot, Bot)
    assert isinstance(bot, HardBot)


def test_same_view_and_seed_give_the_same_decision() -> None:
    g = Game("classic", seed=21)
    g.deal()
    normal = make_bot("normal")
    while g.phase_name != "play":
        g.apply(normal.act(g.view(g.turn), random.Random(0)))
    for _ in range(9):
        g.apply(normal.act(g.view(g.turn), random.Random(0)))
    view = g.view(g.turn)
    a = HardBot(samples=8).decide(view, random.Random(5))
    b = HardBot(samples=8).decide(view, random.Random(5))
    assert a == b


def test_decision_depends_only_on_the_view() -> None:
    g = Game("classic", seed=8)
    g.deal()
    normal = make_bot("normal")
    while g.phase_name != "play":
        g.apply(normal.act(g.view(g.turn), random.Random(0)))
    for _ in range(6):
        g.apply(normal.act(g.view(g.turn), random.Random(0)))
    seat = g.turn
    view = g.view(seat)
    # Another table in the same public position, the hidden cards dealt differently.
    other_hands = Sampler(view, use_bids=False).deal(random.Random(99))
    assert list(other_hands) != g.hands
    twin = Game.from_view(view, other_hands)
    twin_view = twin.view(seat)
    assert twin_view.hand == view.hand and twin_view.legal == view.legal
    assert twin_view.played == view.played and twin_view.tricks == view.tricks
    bot = HardBot(samples=6)
    assert bot.decide(view, random.Random(2)) == bot.decide(twin_view, random.Random(2))


def test_hard_keeps_its_nil_safe_by_playing_under() -> None:
    # S bid nil and has taken nothing; W led the KH, S holds AH 2H 5C: the 2H keeps the nil.
    hands = [parse_hand("8C 9C"), parse_hand("6D 7D"), parse_hand("AH 2H 5C"), parse_hand("8D 9D")]
    g = _endgame(hands, leader=3, trick=["KH", "3H", "4H"], bids=[4, 3, 0, 3], taken=[6, 2, 0, 2])
    decision = HardBot(samples=12).decide(g.view(2), random.Random(1))
    assert decision.action == parse_card("2H")
    # The reason is the Hint's words to the player whose nil it is.
    assert "keeps your nil safe" in decision.reason and "layouts" in decision.reason


def test_hard_draws_the_last_trump_before_cashing_its_winner() -> None:
    # NS bid 7 and took 5: S must win both tricks.  Leading the AH first risks a cut by the
    # outstanding KS; the AS first draws it and the AH then wins.  The stand-in tricks say
    # nothing of the bids, so the layouts are not weighed by them.
    hands = [parse_hand("6C 7C"), parse_hand("4D 5H"), parse_hand("AS AH"), parse_hand("KS 3D")]
    g = _endgame(hands, leader=2, trick=[], bids=[4, 3, 3, 3], taken=[3, 4, 2, 4])
    decision = HardBot(samples=30, use_bids=False).decide(g.view(2), random.Random(4))
    assert decision.action == parse_card("AS")
    assert "contract" in decision.reason and "layouts" in decision.reason


def test_hard_bids_within_the_legal_bids_and_explains() -> None:
    g = Game("classic", seed=2)
    g.deal()
    view = g.view(g.turn)
    decision = HardBot(samples=6).decide(view, random.Random(0))
    assert decision.action in view.legal and decision.action >= BID
    assert "layouts" in decision.reason or "only sensible" in decision.reason


def test_hard_does_not_bid_nil_holding_the_top_trump() -> None:
    hands = [
        parse_hand("AS 2H 3H 4H 2D 3D 4D 2C 3C 4C 5C 6C 7C"),
        *[0, 0, 0],
    ]
    used = hands[0]
    rest = [c for c in range(52) if not used >> c & 1]
    for i, c in enumerate(rest):
        hands[1 + i % 3] |= 1 << c
    g = Game("classic", seed=0)
    g.deal(hands=hands, dealer=3)
    decision = HardBot(samples=6).decide(g.view(0), random.Random(0))
    assert decision.action != BID


def test_match_value_rewards_winning_the_match_and_charges_bags() -> None:
    rules = Rules.named("classic")
    bids = (4, 3, 3, 3)
    blind = (False,) * 4
    win = score_hand(rules, bids, blind, (4, 3, 3, 3), (0, 0))
    assert hand_value(rules, 0, win, (480, 300)) > hand_value(rules, 0, win, (0, 0)) + 200
    bagged = score_hand(rules, bids, blind, (6, 1, 3, 3), (8, 0))
    clean = score_hand(rules, bids, blind, (6, 1, 3, 3), (0, 0))
    # Same hand, but two bags bring a side carrying 8 to the penalty.
    assert hand_value(rules, 0, bagged, (0, 0)) < hand_value(rules, 0, clean, (0, 0)) - 90


def test_time_budget_bounds_the_number_of_layouts() -> None:
    ticks = iter(range(10_000))
    bot = HardBot(time_budget=5, min_samples=2, clock=lambda: float(next(ticks)))
    g = Game("classic", seed=4)
    g.deal()
    decision = bot.decide(g.view(g.turn), random.Random(0))
    # Each clock reading advances a second.  Before the sixth layout 4 s have passed and the
    # average cost says it would end at 4.8 s: it runs.  Before the seventh, 5 s have passed:
    # it would overrun the 5 s budget, so Hard stops at 6.
    assert "of 6 layouts" in decision.reason, decision.reason


def test_the_budget_not_the_cap_ends_a_searched_play_at_the_table() -> None:
    """A decision that costs nothing goes on to the cap: 1,000 layouts for Hard, 3,000 for
    Expert (300 and 600 before, where two thirds of Hard's searched plays stopped in a median
    0.17 s of their 0.6)."""
    for bot, cap in ((HardBot(), MAX_LAYOUTS), (ExpertBot(), EXPERT_MAX_LAYOUTS)):
        bot._clock = lambda: 0.0
        assert bot._keep_going(cap - 1, 0.0) and not bot._keep_going(cap, 0.0)
    assert MAX_LAYOUTS >= 1000 and EXPERT_MAX_LAYOUTS >= 3 * MAX_LAYOUTS


def test_joker_deck_layouts_work_for_hard() -> None:
    g = Game(Rules.named("classic").with_options(jokers=True), seed=6)
    g.deal()
    bot = HardBot(samples=2)
    rng = random.Random(0)
    while g.phase_name != "deal":
        view = g.view(g.turn)
        g.apply(bot.act(view, rng))
    assert g.log[-1].result.tricks and sum(g.log[-1].result.tricks) == 13
    assert JOKER_DECK >> 53 & 1


def test_cheater_plays_whole_hands_legally_and_sees_every_card() -> None:
    from varaq.bots.cheater import CheaterBot

    cheater = CheaterBot(solver_cards=4)
    g = Game("classic", seed=13, totals=(0, 120))
    g.deal()
    while g.phase_name != "deal":
        full = g.copy()
        action = cheater.act_full(full)
        assert action in g.legal_actions()
        assert full.hands == g.hands  # it reads the game, never changes it
        g.apply(action)
    assert sum(g.log[-1].result.tricks) == 13


def _bid_par(seed: int) -> Game:
    """A classic deal whose bids are each side's double-dummy tricks from the first lead, split
    between the partners (no nil): with the contracts exactly what perfect play makes, a card
    that gives up a trick sets the side, so the best card by match value is a best card by
    tricks too (a bag to avoid would let a good player give a trick away on purpose)."""
    from varaq.solver import solve

    g = Game("classic", seed=seed, dealer=3)
    g.deal()
    ns = solve(g.hands, 0, (), False, side=0).tricks
    assert 2 <= ns <= 11, "each seat must bid at least 1"
    for bid in (ns // 2, (13 - ns) // 2, ns - ns // 2, 13 - ns - (13 - ns) // 2):  # N E S W
        g.apply(BID + bid)
    assert g.phase == PLAY and 0 not in g.bids
    return g


def test_the_cheater_plays_a_double_dummy_best_card_from_the_first_trick() -> None:
    from varaq.bots.cheater import CheaterBot
    from varaq.solver import default_backend, game_card_values

    assert default_backend() == "c", "the cheater solves from the first trick with the core"
    cheater = CheaterBot()
    assert cheater.solver_cards == 13
    choices = 0
    for seed in (3, 8):
        g = _bid_par(seed)
        for _ in range(8):  # the first two tricks, every seat
            side = g.turn & 1
            values = game_card_values(g, side)
            best = max(values.values())
            decision = cheater.decide_full(g.copy())
            assert values[decision.action] == best, (seed, len(g.tricks), g.trick)
            assert decision.reason in ("best by perfect play", "the only legal card")
            choices += min(values.values()) < best
            g.apply(decision.action)
    assert choices >= 4, "too few decisions where a card gives up a trick: nothing was tested"


def test_hard_covers_partners_nil_by_winning_over_it() -> None:
    # S bid nil and has taken nothing.  W led the 5H; N (Hard) holds AH 2H and plays before E
    # and S: the AH takes the trick, so S can follow with any heart; the 2H leaves S exposed.
    hands = [parse_hand("AH 2H 3C"), parse_hand("3H KC QC"), parse_hand("9H TH 4C"),
             parse_hand("JC 8D")]
    g = _endgame(hands, leader=3, trick=["5H"], bids=[5, 3, 0, 4], taken=[4, 3, 0, 3])
    decision = HardBot(samples=20, use_bids=False).decide(g.view(0), random.Random(2))
    assert decision.action == parse_card("AH")
    assert "partner's nil" in decision.reason and "layouts" in decision.reason


def test_hard_ducks_with_eight_bags_when_the_contract_is_safe() -> None:
    # NS bid 4 and took 5: one bag already on top of the 8 carried.  W led the 5D; N holds
    # AD 2D.  Winning with the AD brings the tenth bag and its penalty; the 2D ducks.
    hands = [parse_hand("AD 2D"), parse_hand("9C 8C"), parse_hand("4H 3H"), parse_hand("7S")]
    g = _endgame(hands, leader=3, trick=["5D"], bids=[2, 3, 2, 3], taken=[3, 3, 2, 3])
    g.bags = [8, 0]
    decision = HardBot(samples=20, use_bids=False).decide(g.view(0), random.Random(3))
    assert decision.action == parse_card("2D")
    assert "layouts" in decision.reason  # searched, not a fallback


def test_a_solved_layout_where_no_trick_changes_the_contracts_is_priced_by_shedding_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # NS bid 3 and took 5, EW bid 4 and took 5: each of the last three tricks is a bag for
    # whoever takes it.  N leads the 9S, which W's TS wins.  Taking all they can, NS keep the
    # JD to win W's diamond lead and cash the AH: 2 of the 3.  Shedding, S throws the JD under
    # the spade trick and W's diamonds win the rest: NS take none, which is what the card is
    # worth when both sides duck their bags.
    import varaq.bots.hard as hard

    hands = [parse_hand("7C 9C 9S"), parse_hand("6H QH 7S"), parse_hand("JD 9H AH"),
             parse_hand("5D TD TS")]
    layout = (hands[0], hands[1], hands[2], hands[3])
    s9 = parse_card("9S")
    monkeypatch.setattr(hard, "SHED_BAGS", True)
    safe = _endgame(hands, leader=0, trick=[], bids=[2, 2, 1, 2], taken=[3, 3, 2, 2]).view(0)
    shed = hard.play_outcomes(safe, layout, [s9], True)[s9]
    assert (shed.tricks[0] + shed.tricks[2], shed.new_bags) == (5, (2, 4))
    monkeypatch.setattr(hard, "SHED_BAGS", False)
    most = hard.play_outcomes(safe, layout, [s9], True)[s9]
    assert (most.tricks[0] + most.tricks[2], most.new_bags) == (7, (4, 2))
    assert hand_value(safe.rules, 0, shed, safe.totals) > hand_value(safe.rules, 0, most,
                                                                     safe.totals)
    monkeypatch.setattr(hard, "SHED_BAGS", True)
    # NS one short of a contract of 6: priced as taking the one they need, no more.
    short = _endgame(hands, leader=0, trick=[], bids=[4, 2, 2, 2], taken=[3, 3, 2, 2]).view(0)
    needed = hard.play_outcomes(short, layout, [s9], True)[s9]
    assert needed.tricks[0] + needed.tricks[2] == 6 and needed.made[0] is True
    # NS three short of a contract of 8 with two tricks at most: set whatever they do, so
    # every trick they leave to EW is a bag for EW.
    lost = _endgame(hands, leader=0, trick=[], bids=[5, 2, 3, 2], taken=[3, 3, 2, 2]).view(0)
    set_anyway = hard.play_outcomes(lost, layout, [s9], True)[s9]
    assert set_anyway.made[0] is False and set_anyway.new_bags[1] == 4


def test_hard_solves_from_ten_cards_with_the_compiled_solver_the_classic_hard_from_four() -> None:
    from varaq.arena import _load_bot
    from varaq.bots.cheater import DEFAULTS, CheaterBot
    from varaq.bots.hard import SOLVER_CARDS, ClassicHardBot
    from varaq.solver import default_backend

    backend = default_backend()
    assert HardBot().solver_cards == SOLVER_CARDS[backend]
    assert HardBot(solver_cards=7).solver_cards == 7
    with pytest.raises(ValueError, match="solver_cards"):
        HardBot(solver_cards=0)
    classic = _load_bot("hard-classic", (("samples", 3),))
    assert isinstance(classic, ClassicHardBot)
    assert classic.solver_cards == 4 and classic.samples == 3
    assert (CheaterBot().solver_cards, CheaterBot().tail_cards) == DEFAULTS[backend]


def test_without_the_compiled_solver_hard_bids_by_the_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Solving whole deals in pure Python takes seconds a layout: Hard then bids as Normal
    counts (a table never waits minutes for a bid), and the review's Hard bid follows."""
    from varaq.bots.advice import hard_bid
    from varaq.bots.normal import choose_bid

    monkeypatch.setenv("VARAQ_SOLVER", "python")
    for seed in range(5):
        g = Game("varaq", seed=seed)
        g.deal()
        view = g.view(g.turn)
        assert hard_bid(view).action == choose_bid(view).action


def test_a_late_layout_with_a_live_nil_is_solved_nil_and_all() -> None:
    # E bid nil and has taken nothing; N leads with QH 3D.  E holds KH 2D, S 4D 5D, W 3C 4C:
    # the QH forces the KH to win (nobody can beat it), the 3D lets E shed its KH later.
    from varaq.bots.hard import play_outcomes

    hands = [parse_hand("QH 3D"), parse_hand("KH 2D"), parse_hand("4D 5D"),
             parse_hand("3C 4C")]
    g = _endgame(hands, leader=0, trick=[], bids=[3, 0, 3, 4], taken=[3, 0, 3, 5])
    view = g.view(0)
    alive = (False, True, False, False)
    qh, d3 = parse_card("QH"), parse_card("3D")
    solved = play_outcomes(view, (hands[0], hands[1], hands[2], hands[3]), [d3, qh], True,
                           alive)
    assert solved[qh].nil_made[1] is False and solved[qh].tricks[1] == 1
    assert solved[d3].nil_made[1] is True and solved[d3].tricks[1] == 0
    # Every trick is somebody's: the side counts add up to the hand's 13.
    assert all(sum(r.tricks) == 13 for r in solved.values())
    # Asked to, Hard solves its defence of a nil too; by default it plays it out with Normal
    # (the proof assumes a nil bidder who sees every card).  Asked at a follow (W led the 3C):
    # its leads against a live nil are Normal's whatever it is asked.
    hands[3] = parse_hand("4C")
    view = _endgame(hands, leader=3, trick=["3C"], bids=[3, 0, 3, 4], taken=[3, 0, 3, 5]).view(0)
    decision = HardBot(samples=12, use_bids=False, solve_nils=True).decide(view, random.Random(5))
    assert "solved double dummy" in decision.reason
    assert "played out" in HardBot(samples=4, use_bids=False).decide(view, random.Random(5)).reason


def test_hard_solves_a_late_layout_while_its_own_sides_nil_is_alive() -> None:
    # The nil bidder (S, ducking the KH with its 2H) and its partner (N, covering with the AH)
    # each get their card from solved layouts, the nil proved after every candidate.
    hands = [parse_hand("8C 9C"), parse_hand("6D 7D"), parse_hand("AH 2H 5C"), parse_hand("8D 9D")]
    g = _endgame(hands, leader=3, trick=["KH", "3H", "4H"], bids=[4, 3, 0, 3], taken=[6, 2, 0, 2])
    own = HardBot(samples=12).decide(g.view(2), random.Random(1))
    assert own.action == parse_card("2H") and "solved double dummy" in own.reason
    hands = [parse_hand("AH 2H 3C"), parse_hand("3H KC QC"), parse_hand("9H TH 4C"),
             parse_hand("JC 8D")]
    g = _endgame(hands, leader=3, trick=["5H"], bids=[5, 3, 0, 4], taken=[4, 3, 0, 3])
    cover = HardBot(samples=20, use_bids=False).decide(g.view(0), random.Random(2))
    assert cover.action == parse_card("AH") and "solved double dummy" in cover.reason


def _nil_from_trick_six(seed: int) -> tuple[Game, bool] | None:
    """A classic hand where North bid nil and kept it through five tricks of Normal's play,
    with whether a defence seeing every card can still force a trick on it from there."""
    from varaq.bots.normal import choose_play
    from varaq.solver import Solver

    g = Game("classic", seed=seed, dealer=3)
    g.deal()
    for bid in (0, 3, 4, 3):  # N E S W
        g.apply(BID + bid)
    while len(g.tricks) < 5:
        g.apply(choose_play(g.view(g.turn)).action)
    if g.taken[0]:
        return None
    defence = Solver(1, counted=[True, False, False, False])
    return g, defence.at_least(g.hands, g.leader, (), g.broken, 1)


def test_the_cheater_keeps_every_nil_perfect_defence_cannot_break_and_breaks_the_others() -> None:
    """Four cheaters: a nil holds exactly when the solver says no defence can force a trick on
    it.  The cheater once chose among its cards by a playout and the side's double-dummy
    tricks, and threw away nils that could not be broken (BENCHMARKS.md, "Hard 0.3", ninth pass)."""
    from varaq.bots.cheater import CheaterBot

    cheater = CheaterBot()
    seen = {True: 0, False: 0}
    for seed in range(200):
        found = _nil_from_trick_six(seed)
        if found is None:
            continue
        g, breakable = found
        if seen[breakable] == 3:
            continue
        seen[breakable] += 1
        while g.phase == PLAY:
            g.apply(cheater.act_full(g.copy()))
        assert g.log[-1].result.nil_made[0] is not breakable, f"seed {seed}"
        if seen == {True: 3, False: 3}:
            break
    assert seen == {True: 3, False: 3}


def test_hard_breaks_a_tie_the_way_normal_would_a_nil_sheds_its_highest_safe_card() -> None:
    # E bid nil and plays last to S's Q♥ with the 9♥ and the 3♥, both safe; the last trick is
    # all spades, so every layout scores the two cards alike.  The tie goes to Normal's card,
    # the 9♥ (a nil sheds its highest safe card), not to the cheapest.
    from varaq.lessons.positions import Setup, build

    setup = Setup(dealer="E", bids={"S": 3, "W": 3, "N": 4, "E": "nil"},
                  taken={"S": 4, "W": 3, "N": 4}, leader="S", trick="QH 5H 2C",
                  hands={"N": "KS", "E": "9H 3H", "S": "AS", "W": "QS"})
    _, g = build(setup)
    decision = HardBot(samples=8).decide(g.view(g.turn), random.Random(1))
    assert decision.action == parse_card("9H")
    assert "8 of 8" in decision.reason


def test_hard_leads_against_a_nil_early_by_normals_rule_when_no_card_surely_catches_it() -> None:
    # A deal of a strength run: East bid nil; after two tricks South (a defender) leads from
    # S QJ93, H 5, D KT752, C A.  Played out to the end, the layouts could not tell which suit
    # catches the nil (Hard's picks moved with the seed: K♦, 5♥, A♣, 2♦).  No card makes the
    # nil win this trick in more than about one layout of twelve, far below CATCH_SHARE, so
    # Hard leads by Normal's rule, the lowest card of a suit the nil bidder still holds: the
    # 2♦.  (Normal itself keeps the 2♦ back, diamonds not having been played; Hard does not,
    # KEEP_LOWEST.)
    from varaq.bots.normal import choose_play

    g = Game("classic")
    g.deal(hands=[1178751773868056, 141605341250950, 915893809133568, 2267348703117921],
           dealer=2)
    for bid in (4, 1, 0, 4):  # W, N, E, S
        g.apply(BID + bid)
    for card in ("KH", "7H", "JH", "2H", "JC", "5C", "9C", "KC"):
        g.apply(parse_card(card))
    view = g.view(g.turn)
    assert g.turn == 2 and view.bids[1] == 0
    for seed in range(1, 6):
        decision = HardBot(samples=8).decide(view, random.Random(seed))
        assert decision.action == parse_card("2D")
        assert decision.reason == "Lead the low two of diamonds to make the nil bidder win it"
    assert choose_play(view).action == parse_card("5D")


def test_hard_leads_against_a_live_nil_the_card_it_must_win_a_void_nil_cuts() -> None:
    # Normal plays a seeded deal to the eleventh trick: East bid nil and holds only spades
    # (9 7 2), void in the rest as it showed; its partner West holds only hearts.  North leads
    # from K♠ A♦ K♦.  Normal's rule leads in a suit the nil bidder still holds (the K♠, which
    # it ducks); a diamond makes it cut, and nobody can overtrump: the nil is broken in every
    # layout, and Hard leads one.
    from varaq.bots.knowledge import Knowledge
    from varaq.bots.normal import choose_play

    g = Game("classic", seed=107)
    g.deal()
    for _ in range(4):  # the dealer's partner, East, bids nil
        g.apply(BID + (0 if g.turn == (g.dealer + 2) & 3 else 3))
    while len(g.tricks) < 10 or g.trick:
        g.apply(choose_play(g.view(g.turn)).action)
    view = g.view(g.turn)
    assert g.turn == 2 and view.bids[3] == 0 and not g.taken[3]
    assert g.hands[3] == sum(1 << parse_card(c) for c in ("9S", "7S", "2S"))
    assert choose_play(view, Knowledge.from_view(view)).action == parse_card("KS")
    for seed in (1, 2):
        decision = HardBot(samples=12).decide(view, random.Random(seed))
        assert decision.action in (parse_card("KD"), parse_card("AD"))
        assert decision.reason.endswith("the nil bidder has to win it in 12 of 12 layouts")


def test_hard_leads_late_against_a_live_nil_the_card_that_keeps_it_breakable() -> None:
    # Normal plays a seeded deal to the seventh trick, East's nil still alive and North on
    # lead.  No card makes the nil win this very trick, so Hard asks the solver, in each
    # layout, whether a defence could still force a trick on the nil after each lead: the
    # four of spades leaves it breakable in most layouts, and in the actual deal too, where
    # Normal's three of hearts would let it go.
    from varaq.bots.knowledge import Knowledge
    from varaq.bots.normal import choose_play
    from varaq.solver import Solver

    g = Game("classic", seed=238)
    g.deal()
    nil = (g.dealer + 2) & 3
    for _ in range(4):
        g.apply(BID + (0 if g.turn == nil else 3))
    while len(g.tricks) < 6 or g.trick:
        g.apply(choose_play(g.view(g.turn)).action)
    view = g.view(g.turn)
    assert g.turn == 0 and nil == 1 and view.bids[1] == 0 and not g.taken[1]
    normal = choose_play(view, Knowledge.from_view(view)).action
    assert normal == parse_card("3H")
    decision = HardBot(samples=12).decide(view, random.Random(1))
    assert decision.action == parse_card("4S")
    assert "their nil can still be broken after it in 8 of 12 layouts" in decision.reason
    defence = Solver.nil_defence(nil)
    for card, breakable in ((decision.action, True), (normal, False)):
        after = g.copy()
        after.apply(card)
        assert defence.at_least(after.hands, after.leader, tuple(after.trick), after.broken,
                                1) is breakable
