"""Property tests: thousands of random legal games under every preset and variation.

Each Hypothesis example picks a table (a preset plus variations), a seed and starting totals,
then plays several games of random legal actions — blind nil or look, any bid offered,
exchanges, cards — checking at every step against a second, independent reading of docs/rules.md
written here from scratch: which cards are legal, who wins each trick, what each hand scores
and who wins the match.  It also checks that the 52 cards are conserved, a hand has 13 tricks,
records round-trip, ``copy()`` is independent of its original, and a game rebuilt from a
view with ``Game.from_view`` (how bots try layouts) plays on exactly like the original.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from varaq import BID, BLIND_NIL, LOOK, Game, Rules
from varaq.engine import BIDDING, BLIND, DEAL, OVER, PLAY
from varaq.record import load_record, to_record

# -- an independent reading of the rules ----------------------------------------------------

LJ, BJ = 52, 53


def suit(card: int) -> int:
    return 3 if card >= 52 else card // 13


def strength(card: int, led: int, jokers: bool) -> int:
    """How strongly ``card`` plays in a trick led in suit ``led``; -1 cannot win."""
    if card == BJ:
        return 300
    if card == LJ:
        return 299
    if suit(card) == 3:
        if jokers and card % 13 == 0:  # the 2S ranks above the ace with jokers
            return 298
        return 200 + card % 13
    return card % 13 if suit(card) == led else -1


def trick_winner(leader: int, cards: list[int], jokers: bool) -> int:
    led = suit(cards[0])
    best = max(range(4), key=lambda i: strength(cards[i], led, jokers))
    return (leader + best) % 4


def legal_cards(hand: set[int], trick: list[int], first_trick: bool, broken: bool,
                rules: Rules) -> set[int]:
    if trick:
        follow = {c for c in hand if suit(c) == suit(trick[0])}
        return follow or set(hand)
    if first_trick and rules.two_clubs_leads:
        return {0}
    if not broken:
        plain = {c for c in hand if suit(c) != 3}
        if plain:
            return plain
    return set(hand)


def score_side(rules: Rules, bids: list[int], blind: list[bool], tricks: list[int],
               side: int, bags: int) -> tuple[int, int]:
    """Points and carried bags of one side for one hand, straight from docs/rules.md."""
    points, new_bags, contract, contract_tricks = 0, 0, 0, 0
    for seat in (side, side + 2):
        if bids[seat] == 0:
            worth = rules.blind_nil_value if blind[seat] else rules.nil_value
            points += worth if tricks[seat] == 0 else -worth
            new_bags += tricks[seat]
            if rules.nil_bags_score:
                points += tricks[seat]
        else:
            contract += bids[seat]
            contract_tricks += tricks[seat]
    if contract:
        if contract_tricks >= contract:
            points += 10 * contract + (contract_tricks - contract)
            new_bags += contract_tricks - contract
        else:
            points -= 10 * contract
    if tricks[side] + tricks[side + 2] == 13:
        points += rules.boston_bonus
    bags += new_bags
    # docs/rules.md: each penalty takes the limit itself off the count (10 at the standard limit).
    while rules.bag_penalty and bags >= rules.bag_limit:
        bags -= rules.bag_limit
        points -= rules.bag_penalty
    return points, bags


def winner_after(rules: Rules, totals: list[int]) -> int | None:
    ns, ew = totals
    ends = max(ns, ew) >= rules.target
    if rules.mercy is not None and min(ns, ew) < rules.mercy:
        ends = True
    if not ends or ns == ew:
        return None
    return 0 if ns > ew else 1


# -- the tables -----------------------------------------------------------------------------


@st.composite
def tables(draw: st.DrawFn) -> Rules:
    base = Rules.named(draw(st.sampled_from(["classic", "short", "varaq", "daily"])))
    options: dict[str, Any] = {}
    deck = draw(st.sampled_from(["standard", "jokers", "two_clubs_leads"]))
    if deck != "standard":
        options[deck] = True
    if draw(st.booleans()):
        nil = draw(st.sampled_from(["off", "blind", "plain"]))
        if nil == "off":
            options.update(nil=False, blind_nil=False)
        elif nil == "blind":
            options.update(blind_nil=True, exchange=draw(st.sampled_from([0, 1, 2, 3])),
                           blind_nil_trail=draw(st.sampled_from([0, 100])))
    if draw(st.booleans()):
        options["mercy"] = draw(st.sampled_from([-200, -100, 0]))
    if draw(st.booleans()):
        options["min_team_bid"] = draw(st.sampled_from([4, 7, 13]))
    if draw(st.booleans()):
        options["boston_bonus"] = 200
    if draw(st.booleans()):
        options["bag_penalty"] = draw(st.sampled_from([0, 50]))
        options["bag_limit"] = draw(st.sampled_from([5, 10]))
    if draw(st.booleans()):
        options["nil_bags_score"] = draw(st.booleans())
    if draw(st.booleans()):
        options["target"] = draw(st.sampled_from([100, 250]))
    if draw(st.booleans()):
        options.update(nil_value=draw(st.sampled_from([0, 50])), blind_nil_value=300)
    return base.with_options(**options)


STARTS = st.sampled_from([(0, 0), (0, 150), (220, 0), (0, 300), (480, 470), (-150, 60)])


# -- one checked random game ----------------------------------------------------------------


class Referee:
    """Follows a game step by step with the independent rules above."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.rules = game.rules
        self.totals = list(game.totals)
        self.bags = list(game.bags)
        self.broken = False
        self.first_trick = True
        self.deck = sum(1 << c for c in range(52)) if not self.rules.jokers else (
            (sum(1 << c for c in range(52)) & ~1 & ~(1 << 26)) | (1 << LJ) | (1 << BJ)
        )

    def check_cards_conserved(self) -> None:
        g = self.game
        if g.phase in (DEAL, OVER) or g.sheet:
            return
        held = g.hands[0] | g.hands[1] | g.hands[2] | g.hands[3]
        assert sum(h.bit_count() for h in g.hands) + g.played.bit_count() == 52
        assert held | g.played == self.deck and not held & g.played
        if g.phase in (BLIND, BIDDING):
            assert [h.bit_count() for h in g.hands] == [13] * 4

    def check_legal(self) -> None:
        g = self.game
        if g.phase == PLAY and not g.sheet:
            hand = {c for c in range(54) if g.hands[g.turn] >> c & 1}
            expected = legal_cards(hand, list(g.trick), self.first_trick, self.broken, self.rules)
            assert set(g.legal_actions()) == expected
        elif g.phase == BIDDING:
            low = 1
            mate = g.bids[g.turn ^ 2]
            if self.rules.min_team_bid and mate > 0:
                low = max(1, self.rules.min_team_bid - mate)
            values = ([0] if self.rules.nil else []) + list(range(low, 14))
            assert g.legal_actions() == [BID + v for v in values]
        elif g.phase == BLIND:
            side = g.turn & 1
            assert self.rules.blind_nil
            assert self.totals[1 - side] - self.totals[side] >= self.rules.blind_nil_trail
            assert not g.blind[g.turn ^ 2]

    def step(self, action: int) -> None:
        g = self.game
        phase, leader, trick = g.phase, g.leader, list(g.trick)
        hand_no = g.hand_no
        g.apply(action)
        if phase == PLAY:
            if suit(action) == 3:
                self.broken = True
            if len(trick) == 3:
                done = g.tricks[-1] if g.hand_no == hand_no else None
                cards = [*trick, action]
                if done is not None:
                    assert list(done.cards) == cards
                    assert done.winner == trick_winner(leader, cards, self.rules.jokers)
                self.first_trick = False
        if g.hand_no != hand_no:
            self.finish_hand()

    def finish_hand(self) -> None:
        g = self.game
        log = g.log[-1]
        if log.dealt is not None:
            assert len(log.plays) == 52
            taken = [0, 0, 0, 0]
            leader = (log.dealer + 1) % 4
            if self.rules.two_clubs_leads:
                assert log.plays[0] == 0
                leader = next(s for s in range(4) if held_after_exchange(log)[s] & 1)
            for i in range(13):
                cards = list(log.plays[4 * i: 4 * i + 4])
                leader = trick_winner(leader, cards, self.rules.jokers)
                taken[leader] += 1
            assert taken == list(log.result.tricks)
        tricks = list(log.result.tricks)
        assert sum(tricks) == 13
        for side in (0, 1):
            points, bags = score_side(self.rules, list(log.bids), list(log.blind), tricks,
                                      side, self.bags[side])
            self.totals[side] += points
            self.bags[side] = bags
        assert g.totals == self.totals and g.bags == self.bags
        assert g.winner == winner_after(self.rules, self.totals)
        self.broken = False
        self.first_trick = True


def held_after_exchange(log: Any) -> list[int]:
    """Each seat's cards once the blind nil exchange is done: partner gives, bidder gives back."""
    held = list(log.dealt)
    for bidder in range(4):
        if log.blind[bidder]:
            mate = bidder ^ 2
            held[mate] &= ~log.exchanged[mate]
            held[bidder] |= log.exchanged[mate]
            held[bidder] &= ~log.exchanged[bidder]
            held[mate] |= log.exchanged[bidder]
    return held


def check_copy_is_independent(game: Game, rng: random.Random) -> None:
    if game.phase in (DEAL, OVER):
        return
    before = to_record(game)
    views = [game.view(s) for s in range(4)]
    twin = game.copy()
    action = rng.choice(twin.legal_actions())
    twin.apply(action)
    assert to_record(game) == before and [game.view(s) for s in range(4)] == views
    again = game.copy()
    again.apply(action)
    assert to_record(again) == to_record(twin)


def check_from_view(game: Game, rng: random.Random) -> None:
    """A game rebuilt from the mover's view and the true layout plays on exactly alike."""
    if game.phase not in (BIDDING, PLAY) or game.sheet:
        return
    original = game.copy()
    rebuilt = Game.from_view(game.view(game.turn), list(game.hands))
    hand_no = original.hand_no
    while original.hand_no == hand_no and not original.is_over:
        legal = original.legal_actions()
        assert rebuilt.legal_actions() == legal
        action = rng.choice(legal)
        original.apply(action)
        rebuilt.apply(action)
    assert rebuilt.totals == original.totals and rebuilt.bags == original.bags
    assert rebuilt.taken == original.taken and rebuilt.winner == original.winner


def check_round_trip(game: Game) -> None:
    doc = to_record(game)
    loaded = load_record(doc)
    assert to_record(loaded) == doc
    assert loaded.totals == game.totals and loaded.bags == game.bags
    assert loaded.winner == game.winner and loaded.phase == game.phase
    assert [loaded.view(s) for s in range(4)] == [game.view(s) for s in range(4)]


def play_checked_game(rules: Rules, seed: int, start: tuple[int, int], hands: int,
                      modest_bids: bool = False) -> int:
    """Play random legal actions for up to ``hands`` hands, checking everything; with
    ``modest_bids`` every bid is 1 to 4 and nobody bids blind nil, so that contracts are made
    and matches end."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed, totals=start)
    referee = Referee(game)
    stop_at = rng.randrange(60 * hands)  # a random moment for the mid-game checks
    steps = 0
    while not game.is_over and game.hand_no < hands:
        if game.phase == DEAL:
            if rng.random() < 0.1:
                game.deal_unknown()  # a score-sheet hand now and then
            else:
                game.deal()
            continue
        referee.check_cards_conserved()
        if game.sheet and game.phase == PLAY:
            cuts = sorted(rng.sample(range(14), 3))
            tricks = [cuts[0], cuts[1] - cuts[0], cuts[2] - cuts[1], 13 - cuts[2]]
            hand_no = game.hand_no
            game.score_tricks(tricks)
            assert game.hand_no == hand_no + 1
            referee.finish_hand()
            continue
        referee.check_legal()
        if steps == stop_at:
            check_copy_is_independent(game, rng)
            check_from_view(game, rng)
            check_round_trip(game)
            if rng.random() < 0.15:
                game.concede(rng.randrange(2))
                break
        legal = game.legal_actions()
        if game.phase == BLIND:
            action = LOOK if modest_bids else rng.choice([BLIND_NIL, LOOK])
        elif game.phase == BIDDING and modest_bids:
            action = rng.choice([a for a in legal if BID < a <= BID + 4] or legal)
        else:
            action = rng.choice(legal)
        referee.step(action)
        steps += 1
    check_round_trip(game)
    return game.hand_no


@settings(max_examples=400, deadline=None)
@given(rules=tables(), seed=st.integers(0, 2**32), start=STARTS)
def test_random_games_follow_the_rules_under_every_variation(
    rules: Rules, seed: int, start: tuple[int, int]
) -> None:
    for game_no in range(4):
        play_checked_game(rules, seed + game_no, start, hands=2)


@settings(max_examples=25, deadline=None)
@given(preset=st.sampled_from(["classic", "short", "varaq", "daily"]),
       seed=st.integers(0, 2**32))
def test_presets_play_whole_random_matches_by_the_rules(preset: str, seed: int) -> None:
    hands = play_checked_game(Rules.named(preset), seed, (0, 0), hands=80, modest_bids=True)
    assert hands >= 2
