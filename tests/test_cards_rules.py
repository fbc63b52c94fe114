"""Card text, seats, actions and rules as data: everything can be written down and read back."""

from __future__ import annotations

from typing import Any

import pytest

from varaq import BID, BLIND_NIL, LOOK, Rules, RulesError
from varaq.actions import action_text, parse_action
from varaq.cards import (
    BJ,
    JOKER_DECK,
    LJ,
    STANDARD_DECK,
    CardError,
    card_name,
    card_text,
    card_unicode,
    hand_text,
    parse_card,
    parse_hand,
    trump_order,
)
from varaq.rules import PRESETS
from varaq.seats import parse_seat, parse_side, partner, side_of


def test_every_card_text_reads_back_as_the_same_card() -> None:
    for card in range(54):
        assert parse_card(card_text(card)) == card
        assert parse_card(card_unicode(card)) == card
        assert parse_card(card_text(card).lower()) == card


def test_card_text_is_rank_then_suit_with_t_for_ten() -> None:
    assert [card_text(c) for c in (0, 8, 22, 51, LJ, BJ)] == ["2C", "TC", "JD", "AS", "LJ", "BJ"]
    assert card_unicode(parse_card("TH")) == "10♥"


def test_card_names_are_spoken_words_for_accessible_labels() -> None:
    assert card_name(parse_card("QH")) == "Queen of hearts"
    assert card_name(BJ) == "Big joker" and card_name(LJ) == "Little joker"


def test_hand_text_sorts_spades_first_and_high_to_low() -> None:
    assert hand_text(parse_hand("2C AS 9H KS 3D")) == "AS KS 9H 2C 3D"


def test_decks_hold_52_cards_and_the_joker_deck_swaps_two_twos_for_the_jokers() -> None:
    assert STANDARD_DECK.bit_count() == JOKER_DECK.bit_count() == 52
    assert JOKER_DECK ^ STANDARD_DECK == (1 << 0) | (1 << 26) | (1 << LJ) | (1 << BJ)


def test_trump_order_standard_and_with_jokers() -> None:
    plain, jokers = trump_order(False), trump_order(True)
    spades = [parse_card(f"{r}S") for r in "23456789TJQKA"]
    assert [plain[c] for c in spades] == list(range(1, 14))
    assert plain[LJ] == plain[BJ] == 0 and plain[parse_card("AH")] == 0
    ranked = sorted([*spades, LJ, BJ], key=lambda c: jokers[c])
    assert [card_text(c) for c in ranked[-4:]] == ["AS", "2S", "LJ", "BJ"]


def test_seats_and_sides() -> None:
    assert [parse_seat(t) for t in ("N", "e", "South", "west")] == [0, 1, 2, 3]
    assert partner(0) == 2 and side_of(3) == 1 and parse_side("ew") == 1
    with pytest.raises(ValueError, match="unknown seat 'X'"):
        parse_seat("X")


@pytest.mark.parametrize("action", [*range(54), *range(BID, BID + 14), BLIND_NIL, LOOK])
def test_every_action_text_reads_back(action: int) -> None:
    assert parse_action(action_text(action)) == action


@pytest.mark.parametrize("name", list(PRESETS))
def test_each_preset_is_written_as_its_name(name: str) -> None:
    assert Rules.named(name).to_spec() == name
    assert Rules.from_spec(name) == PRESETS[name]


@pytest.mark.parametrize(
    "spec",
    [
        {"preset": "varaq", "target": 300},
        {"preset": "classic", "jokers": True, "bag_penalty": 0},
        {"preset": "daily", "mercy": -200, "min_team_bid": 4, "boston_bonus": 200},
        {"preset": "short", "nil": False, "blind_nil": False},
    ],
)
def test_rules_with_overrides_round_trip_through_their_spec(spec: dict[str, Any]) -> None:
    rules = Rules.from_spec(spec)
    assert rules.to_spec() == spec
    assert Rules.from_spec(rules.to_spec()) == rules


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"target": 0}, "Target must be between 50 and 5000"),
        ({"bag_limit": 0}, "Bag limit must be between 1 and 50"),
        ({"bag_penalty": -1}, "Bag penalty must be between 0 and 1000"),
        ({"mercy": 600}, "Mercy must be below the target"),
        ({"min_team_bid": 14}, "Minimum team bid must be between 0 and 13"),
        ({"exchange": 5}, "Exchange must be between 0 and 4"),
        ({"nil_value": -5}, "Nil value must be between 0 and 1000"),
        ({"jokers": "yes"}, "Big Joker Little Joker must be true or false"),
        ({"mercy": "low"}, "Mercy must be a whole number or null"),
        ({"label": "mine"}, "unknown rule 'label'"),
    ],
)
def test_bad_rule_values_are_refused_with_the_reason(options: dict[str, Any], reason: str) -> None:
    with pytest.raises(RulesError, match=reason):
        Rules.named("classic").with_options(**options)


def test_badges_name_the_variations_in_force() -> None:
    rules = Rules.named("varaq").with_options(jokers=True, min_team_bid=4, bag_penalty=0)
    badges = rules.badges()
    assert "Big Joker Little Joker" in badges and "Board 4" in badges
    assert "No bag penalty" in badges
    assert "2♣ leads" in Rules.named("classic").with_options(two_clubs_leads=True).badges()


def test_every_spelling_of_a_card_reads_the_same_and_nothing_else_does() -> None:
    """The lookup table behind ``parse_card`` holds each card in every case, with ``10`` for
    ``T`` and the filled and open suit symbols; a look-alike letter is not a card."""
    for card in range(52):
        rank, suit = card_text(card)
        ranks = {rank, rank.lower()} | ({"10"} if rank == "T" else set())
        i = "CDHS".index(suit)
        suits = {suit, suit.lower(), "♣♦♥♠"[i], "♧♢♡♤"[i]}
        for r in ranks:
            for s in suits:
                assert parse_card(r + s) == card, r + s
                assert parse_card(f" {r}{s}\t") == card
    assert {parse_card(w) for w in ("BJ", "bj", "Bj", "bJ")} == {BJ}
    assert {parse_card(w) for w in ("LJ", "lj", "Lj", "lJ")} == {LJ}
    for junk in ("Aſ", "ſ", "1C", "11S", "AS KS", "", "   ", "ＡS", "A♠♠", "JB"):
        with pytest.raises(CardError, match=r"^unknown card '"):
            parse_card(junk)
