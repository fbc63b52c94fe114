"""Game records (docs/record-format.md): writing, replaying through the engine, refusals."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

import varaq.record as record_module
from deal_helpers import play_hand
from varaq import BID, BLIND_NIL, LOOK, Game, Rules
from varaq.cards import SUIT_MASKS, SUIT_NAMES, SUIT_OF, card_text, parse_card
from varaq.engine import BIDDING, BLIND, EXCHANGE, PLAY
from varaq.record import RecordError, load_record, parse_record, to_record

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def example(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((EXAMPLES / name).read_text())
    return doc


def refusal(doc: Any) -> str:
    with pytest.raises(RecordError) as caught:
        load_record(doc)
    message = str(caught.value)
    assert "\n" not in message and message
    return message


def sheet(*hands: dict[str, Any], rules: Any = "classic", **top: Any) -> dict[str, Any]:
    return {"format": "varaq-record/1", "rules": rules, "hands": list(hands), **top}


def sheet_hand(bids: tuple[Any, ...], tricks: tuple[int, ...]) -> dict[str, Any]:
    return {"bids": dict(zip("NESW", bids, strict=True)),
            "tricks": dict(zip("NESW", tricks, strict=True))}


# -- round trips ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")))
def test_every_example_replays_and_round_trips(name: str) -> None:
    doc = example(name)
    game = load_record(doc)
    again = to_record(game)
    assert to_record(load_record(again)) == again
    assert again["rules"] == doc["rules"]
    assert len(again["hands"]) == len(doc["hands"])
    for mine, theirs in zip(again["hands"], doc["hands"], strict=True):
        for key, value in theirs.items():
            assert mine.get(key) == value or key == "tricks", (name, key)


def test_played_examples_are_written_exactly_as_to_record_writes_them() -> None:
    for name in ("classic-match.json", "blind-nil-exchange.json", "jokers-hand.json",
                 "two-clubs-leads-hand.json"):
        doc = example(name)
        assert to_record(load_record(doc)) == doc, name


def test_the_classic_example_match_is_complete_with_a_winner() -> None:
    game = load_record(example("classic-match.json"))
    assert game.is_over and game.winner is not None and max(game.totals) >= 500


def test_the_blind_nil_example_scores_251_and_shows_its_exchange() -> None:
    doc = example("blind-nil-exchange.json")
    game = load_record(doc)
    assert game.history[0].score[0] == 251 and game.history[0].blind[0]
    assert set(doc["hands"][0]["exchange"]) == {"N", "S"}


@pytest.mark.parametrize("seed", range(30))
def test_a_game_stopped_anywhere_round_trips_with_the_same_views(seed: int) -> None:
    rng = random.Random(seed)
    rules = rng.choice([
        Rules.named("classic"), Rules.named("varaq"), Rules.named("short"),
        Rules.named("classic").with_options(jokers=True, min_team_bid=4),
        Rules.named("classic").with_options(two_clubs_leads=True, exchange=3),
    ])
    game = Game(rules, seed=seed, totals=(0, rng.choice([0, 120, 300])))
    for _ in range(rng.randrange(1, 300)):
        if game.is_over:
            break
        if game.phase_name == "deal":
            game.deal()
        else:
            game.apply(rng.choice(game.legal_actions()))
    doc = to_record(game)
    loaded = load_record(json.loads(json.dumps(doc)))
    assert to_record(loaded) == doc
    for seat in range(4):
        assert loaded.view(seat) == game.view(seat)
    assert loaded.legal_actions() == game.legal_actions()


def test_a_record_stopped_in_the_blind_nil_round_keeps_who_looked() -> None:
    game = Game("classic", seed=4, totals=(0, 300), dealer=3)
    game.deal()
    game.apply(LOOK)  # N looks; S still to decide
    doc = to_record(game)
    assert doc["hands"][0]["looked"] == ["N"] and doc["hands"][0]["bids"] == {}
    loaded = load_record(doc)
    assert loaded.phase == BLIND and loaded.turn == 2
    assert loaded.view(0).hand == game.hands[0]


def test_a_record_stopped_mid_exchange_keeps_the_cards_chosen_so_far() -> None:
    game = Game("classic", seed=4, totals=(0, 300), dealer=3)
    game.deal()
    game.apply(BLIND_NIL)
    while game.phase == BIDDING:
        game.apply(BID + 3)
    assert game.phase == EXCHANGE
    game.apply(game.legal_actions()[0])
    doc = to_record(game)
    assert len(doc["hands"][0]["exchange"]["S"].split()) == 1
    loaded = load_record(doc)
    assert loaded.passing == game.passing and loaded.view(2) == game.view(2)


def test_a_partial_hand_may_leave_later_bidders_out() -> None:
    doc = to_record(_dealt_game())
    doc["hands"][0]["bids"] = {"N": 3, "E": 2}
    game = load_record(doc)
    assert game.phase == BIDDING and game.turn == 2 and game.bids[:2] == [3, 2]


def test_bids_are_applied_in_bidding_order_whatever_the_key_order() -> None:
    doc = to_record(_dealt_game())
    doc["hands"][0]["bids"] = {"W": 3, "S": 1, "E": 2, "N": 4}
    game = load_record(doc)
    assert game.bids == [4, 2, 1, 3] and game.phase == PLAY


def test_bid_words_nil_and_numbers() -> None:
    game = load_record(sheet(sheet_hand(("nil", 4, 3, 0), (0, 5, 3, 5))))
    assert game.history[0].bids == (0, 4, 3, 0)


def test_first_hand_without_dealer_is_dealt_by_north_and_later_dealers_rotate() -> None:
    game = load_record(sheet(sheet_hand((3, 3, 3, 3), (4, 3, 3, 3)),
                             sheet_hand((3, 3, 3, 3), (4, 3, 3, 3))))
    assert [h.dealer for h in game.log] == [0, 1]
    doc = sheet({"dealer": "S", **sheet_hand((3, 3, 3, 3), (4, 3, 3, 3))},
                {"dealer": "W", **sheet_hand((3, 3, 3, 3), (4, 3, 3, 3))})
    assert [h.dealer for h in load_record(doc).log] == [2, 3]


def test_a_later_dealer_must_be_the_previous_dealers_left() -> None:
    doc = sheet(sheet_hand((3, 3, 3, 3), (4, 3, 3, 3)),
                {"dealer": "S", **sheet_hand((3, 3, 3, 3), (4, 3, 3, 3))})
    assert refusal(doc) == "hand 2: dealer must be E, the previous dealer's left"


def test_rules_as_an_object_override_the_preset() -> None:
    game = load_record(sheet(rules={"preset": "varaq", "target": 300, "blind_nil": True}))
    assert game.rules.target == 300 and game.rules.blind_nil and game.rules.nil_bags_score


@pytest.mark.parametrize(
    ("rules", "reason"),
    [
        ({"preset": "varaq", "trumps": "hearts"}, "rules: unknown rule 'trumps'"),
        ({"preset": "classic", "jokers": True, "two_clubs_leads": True},
         "rules: Big Joker Little Joker and 2♣ leads cannot be combined"),
        ({"preset": "classic", "nil": False}, "rules: Blind nil needs nil"),
        ("poker", "rules: unknown preset 'poker'"),
        ({"preset": "classic", "target": "500"}, "rules: Target must be a whole number"),
        (5, "rules must be a preset name or an object, not a number"),
        ({"preset": ["classic"]}, "rules: preset must be a name, not a list"),
    ],
)
def test_unknown_rules_and_incompatible_combinations_are_refused(rules: Any, reason: str) -> None:
    assert refusal(sheet(rules=rules)).startswith(reason)


def test_start_totals_and_bags_carry_into_the_first_hand() -> None:
    doc = sheet(sheet_hand((3, 3, 3, 3), (5, 3, 2, 3)),
                start={"total": {"NS": 100, "EW": 50}, "bags": {"NS": 9, "EW": 0}})
    game = load_record(doc)
    assert game.totals == [100 + 61 - 100, 50 + 60] and game.bags == [0, 0]
    assert to_record(game)["start"] == doc["start"]


def test_tricks_beside_the_plays_must_agree() -> None:
    doc = example("jokers-hand.json")
    game = load_record(doc)
    tricks = dict(zip("NESW", game.history[0].tricks, strict=True))
    doc["hands"][0]["tricks"] = tricks
    assert load_record(doc).totals == game.totals
    donor = next(seat for seat in "ESW" if tricks[seat])
    doc["hands"][0]["tricks"] = dict(tricks, N=tricks["N"] + 1, **{donor: tricks[donor] - 1})
    assert refusal(doc).startswith(f"hand 1: tricks say N took {tricks['N'] + 1}, the plays give")


def test_a_conceded_match_is_over_and_the_other_side_wins() -> None:
    doc = sheet(sheet_hand((3, 3, 3, 3), (4, 3, 3, 3)), conceded="EW")
    game = load_record(doc)
    assert game.is_over and game.winner == 0 and to_record(game)["conceded"] == "EW"


@pytest.mark.parametrize("plays", [0, 1, 23])
def test_a_concession_in_the_middle_of_a_hand_keeps_the_hand_so_far(plays: int) -> None:
    game = _dealt_game()
    while game.phase == BIDDING:
        game.apply(BID + 3)
    for _ in range(plays):
        game.apply(game.legal_actions()[0])
    game.concede(0)
    doc = to_record(game)
    assert len(doc["hands"]) == 1 and len(doc["hands"][0].get("plays", "").split()) == plays
    loaded = load_record(doc)
    assert loaded.winner == 1 and loaded.plays() == game.plays()
    assert to_record(loaded) == doc


def test_a_concession_during_the_blind_nil_round_keeps_who_looked() -> None:
    game = Game("classic", seed=4, totals=(0, 300), dealer=3)
    game.deal()
    game.apply(LOOK)  # N looks
    game.apply(BLIND_NIL)  # S
    game.concede(1)
    doc = to_record(game)
    assert doc["hands"][0]["looked"] == ["N"]
    assert to_record(load_record(doc)) == doc


def test_a_concession_between_hands_adds_no_empty_hand() -> None:
    game = Game("varaq", seed=3)
    play_hand(game, random.Random(3))
    game.concede(1)
    assert len(to_record(game)["hands"]) == 1


def test_score_sheet_blind_nil_goes_through_the_blind_round() -> None:
    doc = sheet(sheet_hand(("blind", 3, 5, 3), (0, 4, 6, 3)),
                start={"total": {"NS": 180, "EW": 320}})
    assert load_record(doc).history[0].score == (251, 61)


# -- refusals, each naming its place ----------------------------------------------------------


def _dealt_game() -> Game:
    game = Game("classic", seed=8, dealer=3)
    game.deal()
    return game


def _renege_record() -> tuple[dict[str, Any], str]:
    """The classic example with one card of hand 2, trick 5 swapped for a renege."""
    doc = example("classic-match.json")
    game = load_record({**doc, "hands": doc["hands"][:1]})
    hand = doc["hands"][1]
    plays = [parse_card(w) for w in hand["plays"].split()]
    game.deal(hands=[_mask(hand["deal"][s]) for s in "NESW"])
    dealer = "NESW".index(hand["dealer"])
    order = sorted(hand["bids"].items(), key=lambda kv: ("NESW".index(kv[0]) - dealer - 1) % 4)
    for _, value in order:
        game.apply(BID + (0 if value == "nil" else value))
    for card in plays[:16]:
        game.apply(card)
    for i in range(16, 20):
        seat = game.turn
        led = SUIT_OF[game.trick[0]] if game.trick else None
        offsuit = game.hands[seat] & ~SUIT_MASKS[led] if led is not None else 0
        if led is not None and game.hands[seat] & SUIT_MASKS[led] and offsuit:
            bad = next(c for c in range(52) if offsuit >> c & 1)
            plays[i] = bad
            hand["plays"] = " ".join(card_text(c) for c in plays[: i + 1])
            who = "NESW"[seat]
            return doc, f"hand 2, trick 5: {who} cannot play {card_text(bad)}: must follow " \
                        f"{SUIT_NAMES[led]}"
        game.apply(plays[i])
    pytest.skip("no renege possible in trick 5 of this deal")


def _mask(text: str) -> int:
    from varaq.cards import parse_hand

    return parse_hand(text)


def test_a_renege_names_the_hand_the_trick_the_seat_and_the_suit() -> None:
    doc, expected = _renege_record()
    assert refusal(doc) == expected


def test_blind_nil_refused_when_the_side_trails_by_too_little() -> None:
    doc = sheet(sheet_hand(("blind", 3, 5, 3), (0, 4, 6, 3)),
                start={"total": {"NS": 250, "EW": 320}})
    assert refusal(doc) == "hand 1: blind nil by N refused: NS trails by 70, needs 100"


def test_a_second_blind_nil_on_one_side_is_refused() -> None:
    doc = sheet(sheet_hand(("blind", 3, "blind", 3), (0, 4, 6, 3)),
                start={"total": {"NS": 100, "EW": 320}})
    # the first dealer is N, so S decides first and takes the side's one blind nil
    assert refusal(doc) == "hand 1: blind nil by N refused: NS already has a blind nil this hand"


def _with_hand(change: dict[str, Any]) -> dict[str, Any]:
    doc = to_record(_dealt_game())
    doc["hands"][0].update(change)
    return doc


def _played_doc() -> dict[str, Any]:
    return copy.deepcopy(example("two-clubs-leads-hand.json"))


@pytest.mark.parametrize(
    ("doc", "reason"),
    [
        ("[1, 2", "malformed JSON at line 1, column 6"),
        ('{"hands": [], "hands": []}', "malformed JSON: key 'hands' appears twice"),
        ('{"hands": NaN}', "malformed JSON: NaN is not a number"),
        ("[]", "a record is a JSON object, not a list"),
        ({"format": "varaq-record/2"}, "format must be 'varaq-record/1'"),
        ({"players": []}, "unknown record key 'players'"),
        ({"hands": {}}, "hands must be a list, not an object"),
        ({"hands": [5]}, "hand 1: a hand is an object, not a number"),
        ({"hands": [{"cards": 1}]}, "hand 1: unknown key 'cards'"),
        (sheet(sheet_hand((3, 3, 3, 14), (4, 3, 3, 3))), "hand 1: W's bid 14 is out of range 0-13"),
        (sheet(sheet_hand((3, 3, 3, -1), (4, 3, 3, 3))), "hand 1: W's bid -1 is out of range"),
        (sheet(sheet_hand((3, 3, 3, "3"), (4, 3, 3, 3))), "hand 1: W's bid must be 0-13"),
        (sheet(sheet_hand((3, 3, 3, True), (4, 3, 3, 3))), "hand 1: W's bid must be 0-13"),
        (sheet({"bids": {"X": 3}}), "hand 1: bids: unknown seat 'X'"),
        (sheet({"bids": {"N": 3, "north": 4}}), "hand 1: bids: seat N appears twice"),
        (sheet(sheet_hand((3, 3, 3, 3), (4, 3, 3, 4))), "hand 1: tricks add up to 14, not 13"),
        (sheet(sheet_hand((3, 3, 3, 3), (4, 3, 3, 3.0))), "hand 1: W's tricks must be a whole"),
        (sheet({"bids": {"E": 3}, "tricks": {"N": 13, "E": 0, "S": 0, "W": 0}}),
         "hand 1: tricks are given before every seat has bid"),
        (sheet(sheet_hand(("nil", 3, 3, 3), (0, 4, 6, 3)), rules={"preset": "varaq", "nil": False}),
         "hand 1: N cannot bid nil: nil is not played at this table"),
        (sheet({"bids": {"N": 3}}), "hand 1: N's bid 3 comes before E has bid"),
        (sheet({"bids": {"E": 3}}, sheet_hand((3, 3, 3, 3), (4, 3, 3, 3))),
         "hand 1: unfinished (bidding unfinished), but hand 2 follows"),
        (sheet(sheet_hand((3, 3, 3, 3), (4, 3, 3, 3)), start={"total": {"NS": 480, "EW": 0}},
               conceded=None) | {"hands": [sheet_hand((3, 3, 3, 3), (4, 3, 3, 3))] * 2},
         "hand 2: the match was already over after hand 1"),
        (sheet(conceded="both"), 'conceded must be "NS", "EW" or null'),
        (sheet(start={"total": {"NS": "0"}}), "start: total NS must be a whole number"),
        (sheet({"plays": "2C"}), "hand 1: plays and an exchange need the deal"),
    ],
)
def test_bad_records_are_refused_in_one_line(doc: Any, reason: str) -> None:
    assert refusal(doc).startswith(reason)


def test_unknown_card_in_the_deal_is_refused() -> None:
    doc = _with_hand({})
    doc["hands"][0]["deal"]["N"] = doc["hands"][0]["deal"]["N"].replace("2C", "1C", 1)
    if "1C" not in doc["hands"][0]["deal"]["N"]:
        doc["hands"][0]["deal"]["N"] += " ZZ"
    assert refusal(doc).startswith("hand 1: deal N: unknown card")


def test_a_card_dealt_twice_or_missing_is_refused() -> None:
    doc = _with_hand({})
    deal = doc["hands"][0]["deal"]
    first_e = deal["E"].split()[0]
    deal["N"] = " ".join([*deal["N"].split()[:-1], first_e])
    assert refusal(doc).startswith(f"hand 1: E's hand repeats {first_e}")
    doc = _with_hand({})
    deal = doc["hands"][0]["deal"]
    deal["N"] = " ".join(deal["N"].split()[:-1])
    assert refusal(doc) == "hand 1: N was dealt 12 cards, not 13"
    doc = _with_hand({})
    deal = doc["hands"][0]["deal"]
    dup = deal["N"].split()[0]
    deal["N"] = f"{deal['N']} {dup}"
    assert refusal(doc) == f"hand 1: N's hand repeats {dup}"
    doc = _with_hand({})
    del doc["hands"][0]["deal"]["W"]
    assert refusal(doc) == "hand 1: the deal has no hand for W"


def test_a_joker_in_a_standard_deck_is_refused() -> None:
    doc = _with_hand({})
    deal = doc["hands"][0]["deal"]
    deal["N"] = " ".join([*deal["N"].split()[:-1], "BJ"])
    assert refusal(doc).startswith("hand 1: N's hand has cards not in this deck: BJ")


def test_unknown_card_in_the_plays_is_refused() -> None:
    doc = _played_doc()
    doc["hands"][0]["plays"] = "2C XX"
    assert refusal(doc) == "hand 1: plays: unknown card 'XX'"


def test_leading_an_unbroken_spade_is_refused() -> None:
    game = _dealt_game()
    while game.phase == BIDDING:
        game.apply(BID + 3)
    leader = game.turn
    spade = next((c for c in range(39, 52) if game.hands[leader] >> c & 1), None)
    assert spade is not None, "seed 8 gives the leader a spade"
    doc = to_record(game)
    doc["hands"][0]["plays"] = card_text(spade)
    assert refusal(doc) == (
        f"hand 1, trick 1: {'NESW'[leader]} cannot lead {card_text(spade)}: spades are not broken"
    )


def test_a_card_not_held_is_refused() -> None:
    game = _dealt_game()
    while game.phase == BIDDING:
        game.apply(BID + 3)
    other = next(c for c in range(52) if game.hands[(game.turn + 1) & 3] >> c & 1)
    doc = to_record(game)
    doc["hands"][0]["plays"] = card_text(other)
    assert refusal(doc) == f"hand 1, trick 1: {'NESW'[game.turn]} does not hold {card_text(other)}"


def test_plays_after_the_hand_is_over_are_refused() -> None:
    doc = _played_doc()
    doc["hands"][0]["plays"] += " 2C"
    assert refusal(doc) == "hand 1: 2C is played after the 13th trick"


def test_plays_before_the_bidding_is_finished_are_refused() -> None:
    doc = _played_doc()
    del doc["hands"][0]["bids"]["W"]  # the dealer, W, bids last
    assert refusal(doc).startswith("hand 1: cards are played before the bidding is finished")


def test_an_exchange_without_blind_nil_is_refused() -> None:
    doc = _played_doc()
    doc["hands"][0]["exchange"] = {"N": "2D 3D"}
    assert refusal(doc).startswith("hand 1: this hand has no exchange")


def test_an_exchange_of_cards_not_held_is_refused() -> None:
    doc = copy.deepcopy(example("blind-nil-exchange.json"))
    s_cards = doc["hands"][0]["deal"]["S"].split()
    n_card = doc["hands"][0]["deal"]["N"].split()[0]
    doc["hands"][0]["exchange"]["S"] = f"{s_cards[0]} {n_card}"
    assert refusal(doc) == f"hand 1: exchange: S does not hold {n_card}"


def test_parse_record_refuses_bytes_that_are_not_utf8() -> None:
    with pytest.raises(RecordError, match="not UTF-8"):
        parse_record(b"\xff{}")


def test_a_refused_record_leaves_no_half_loaded_game_behind() -> None:
    with pytest.raises(RecordError):
        load_record(sheet(sheet_hand((3, 3, 3, 3), (4, 3, 3, 3)), {"bids": {"E": 14}}))
    # nothing global changed: the same valid record still loads the same way
    game = load_record(sheet(sheet_hand((3, 3, 3, 3), (4, 3, 3, 3))))
    assert game.totals == [61, 60]


def test_records_of_random_matches_round_trip(tmp_path: Path) -> None:
    rng = random.Random(77)
    for seed in range(5):
        game = Game("daily", seed=seed)
        while not game.is_over and game.hand_no < 6:
            play_hand(game, rng)
        doc = to_record(game)
        path = tmp_path / f"{seed}.json"
        path.write_text(json.dumps(doc))
        loaded = load_record(path.read_bytes())
        assert loaded.totals == game.totals and loaded.winner == game.winner
        assert to_record(loaded) == doc


# -- numbers and long text in a record ----------------------------------------------------------


def test_a_number_too_long_for_int_is_malformed_json_not_a_value_error() -> None:
    text = '{"hands": [{"bids": {"N": ' + "7" * 5000 + "}}]}"
    with pytest.raises(RecordError, match=r"^malformed JSON: a number with thousands of digits$"):
        parse_record(text)


def test_huge_numbers_and_long_text_are_named_briefly() -> None:
    assert refusal(sheet(sheet_hand((3, 3, 3, 10**4000), (4, 3, 3, 3)))) == (
        "hand 1: W's bid a number of about 4000 digits is out of range 0-13"
    )
    message = refusal(sheet(sheet_hand((3, 3, 3, "x" * 5000), (4, 3, 3, 3))))
    assert message.startswith("hand 1: W's bid must be 0-13") and len(message) < 140
    message = refusal({"k" * 5000: 1})
    assert message.startswith("unknown record key 'kkk") and len(message) < 170
    message = refusal(sheet({"plays": "2C", "deal": {"N": "Q" * 5000}}))
    assert message.startswith("hand 1: deal N: unknown card 'QQQ") and len(message) < 140


def test_start_totals_are_bounded_so_the_scores_can_always_be_printed() -> None:
    doc = sheet(start={"total": {"NS": 10**4000, "EW": 0}})
    assert refusal(doc) == (
        "start: total NS a number of about 4000 digits is beyond 1,000,000,000 either way"
    )
    assert refusal(sheet(start={"total": {"NS": 0, "EW": -(10**9) - 1}})).startswith(
        "start: total EW -1000000001 is beyond"
    )
    assert load_record(sheet(start={"total": {"NS": 10**9, "EW": -(10**9)}})).totals == [
        10**9, -(10**9)
    ]


# -- the fast reading paths give the slow paths' answers ------------------------------------------


def test_cards_written_as_a_list_or_with_commas_and_any_spelling_read_the_same() -> None:
    doc = example("two-clubs-leads-hand.json")
    expected = to_record(load_record(doc))
    hand = doc["hands"][0]
    hand["deal"]["N"] = ", ".join(hand["deal"]["N"].split())
    hand["deal"]["E"] = [w.lower().replace("t", "10") for w in hand["deal"]["E"].split()]
    hand["plays"] = " ".join(w[0] + "♣♦♥♠"["CDHS".index(w[1])] for w in hand["plays"].split())
    assert to_record(load_record(doc)) == expected


def test_a_card_repeated_in_one_seat_is_named_whatever_its_spelling() -> None:
    """The deal is read by adding card bits; a repeat must still be caught and named."""
    doc = _with_hand({})
    deal = doc["hands"][0]["deal"]
    words = deal["N"].split()
    deal["N"] = " ".join([*words[:-1], words[0].lower()])
    assert refusal(doc) == f"hand 1: N's hand repeats {words[0]}"


def test_a_bad_card_late_in_the_plays_is_named_with_its_place() -> None:
    doc = _played_doc()
    words = doc["hands"][0]["plays"].split()
    doc["hands"][0]["plays"] = " ".join([*words[:30], "1S", *words[31:]])
    assert refusal(doc) == "hand 1: plays: unknown card '1S'"


def test_a_wrong_52nd_card_and_a_53rd_card_are_told_apart() -> None:
    """The plays are applied in one run up to the hand's last card; what is wrong at its end
    still names the trick, and a card beyond it says so."""
    doc = _played_doc()
    words = doc["hands"][0]["plays"].split()
    game = load_record({**doc, "hands": [{**doc["hands"][0], "plays": " ".join(words[:51])}]})
    assert game.phase == PLAY and len(game.tricks) == 12
    doc["hands"][0]["plays"] = " ".join([*words[:51], words[0]])
    assert refusal(doc) == f"hand 1, trick 13: {'NESW'[game.turn]} does not hold {words[0]}"
    doc["hands"][0]["plays"] = " ".join([*words, words[0]])
    assert refusal(doc) == f"hand 1: {words[0]} is played after the 13th trick"


# -- the fast path (issue 17) ---------------------------------------------------------------
#
# load_record checks ordinary hands without the engine and hands anything unusual to it; these
# tests hold the two to the same answers: the same game, or the same one-line refusal.

FAST_RULES = [
    "classic",
    "varaq",
    {"preset": "classic", "two_clubs_leads": True},
    {"preset": "classic", "min_team_bid": 4, "exchange": 1},
    {"preset": "classic", "nil": False, "blind_nil": False, "exchange": 0},
    {"preset": "classic", "exchange": 3, "blind_nil_trail": 0},
]


def random_match(rules: Any, seed: int, hands: int = 6) -> dict[str, Any]:
    """A record of random legal play, NS starting 300 behind so that blind nils come up."""
    rng = random.Random(seed)
    game = Game(Rules.from_spec(rules), seed=seed, totals=(0, 300), dealer=seed % 4)
    while game.hand_no < hands and not game.is_over:
        if game.phase_name == "deal":
            game.deal()
        else:
            game.apply(rng.choice(game.legal_actions()))
    return to_record(game)


def game_state(game: Game) -> dict[str, Any]:
    return {slot: getattr(game, slot) for slot in Game.__slots__}


def both_ways(doc: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """What load_record makes of ``doc`` with the fast path and without it: a game's state, or
    the refusal."""
    out: list[Any] = []
    for fast in (True, False):
        monkeypatch.setattr(record_module, "_FAST", fast)
        try:
            out.append(game_state(load_record(copy.deepcopy(doc))))
        except RecordError as e:
            out.append(f"refused: {e}")
    return out[0], out[1]


def test_the_fast_path_takes_ordinary_hands(monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[bool] = []
    play = record_module._FastHands.play

    def counted(self: record_module._FastHands, hand: Any) -> bool:
        taken.append(play(self, hand))
        return taken[-1]

    monkeypatch.setattr(record_module._FastHands, "play", counted)
    for number, rules in enumerate(FAST_RULES):
        doc = random_match(rules, number)
        load_record(doc)
    assert taken and all(taken)  # every hand but each record's last


@pytest.mark.parametrize("rules", FAST_RULES, ids=str)
def test_the_fast_path_and_the_engine_agree_on_good_records(
    rules: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for seed in range(4):
        doc = random_match(rules, seed)
        fast, engine = both_ways(doc, monkeypatch)
        assert not isinstance(fast, str), fast
        assert fast == engine


def _spoil(doc: dict[str, Any], rng: random.Random) -> str:
    """Change one thing in a hand before the last, the way a bad or unusual record would."""
    number = rng.randrange(len(doc["hands"]) - 1)
    hand = doc["hands"][number]
    plays = hand["plays"].split()
    seats = "NESW"
    kind = rng.choice([
        "swap plays", "swap in trick", "other card", "swap dealt", "bid", "dealer", "drop",
        "exchange", "spelling", "tricks", "fewer plays", "more plays", "key", "types",
    ])
    if kind == "swap plays":
        i, j = rng.sample(range(52), 2)
        plays[i], plays[j] = plays[j], plays[i]
    elif kind == "swap in trick":
        t = 4 * rng.randrange(13)
        i, j = rng.sample(range(t, t + 4), 2)
        plays[i], plays[j] = plays[j], plays[i]
    elif kind == "other card":
        plays[rng.randrange(52)] = rng.choice(plays)
    elif kind == "swap dealt":
        a, b = rng.sample(seats, 2)
        x, y = hand["deal"][a].split(), hand["deal"][b].split()
        i, j = rng.randrange(13), rng.randrange(13)
        x[i], y[j] = y[j], x[i]
        hand["deal"][a], hand["deal"][b] = " ".join(x), " ".join(y)
    elif kind == "bid":
        hand["bids"][rng.choice(seats)] = rng.choice(
            [0, 1, 2, 3, 5, 9, 13, 14, -1, "nil", "blind", "x", True, False, 3.0, None, [2]]
        )
    elif kind == "dealer":
        hand["dealer"] = rng.choice(["N", "E", "S", "W", "n", "north", 1, None, "X"])
    elif kind == "drop":
        part = rng.choice(["deal", "bids", "exchange"])
        if part in hand:
            del hand[part][rng.choice(list(hand[part]))]
    elif kind == "exchange":
        given = hand.get("exchange") or {rng.choice(seats): "2C 3C"}
        seat = rng.choice(list(given))
        own = hand["deal"][seat].split()
        given[seat] = " ".join(rng.sample(own, min(len(own), rng.choice([1, 2, 3]))))
        hand["exchange"] = given
    elif kind == "spelling":
        i = rng.randrange(52)
        plays[i] = rng.choice([plays[i].lower(), plays[i].replace("T", "10"), plays[i] + ","])
    elif kind == "tricks":
        hand["tricks"] = {s: rng.choice([3, 4]) for s in seats}
    elif kind == "fewer plays":
        del plays[rng.randrange(52):]
    elif kind == "more plays":
        plays.append(rng.choice(plays))
    elif kind == "key":
        hand[rng.choice(["looked", "note"])] = []
    elif kind == "types":
        hand[rng.choice(["deal", "bids", "plays"])] = rng.choice([None, [], "AS", 3])
    if isinstance(hand.get("plays"), str):
        hand["plays"] = " ".join(plays)
    return kind


def test_the_fast_path_and_the_engine_agree_on_spoiled_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(17)
    refused = 0
    for trial in range(300):
        doc = random_match(FAST_RULES[trial % len(FAST_RULES)], 100 + trial, hands=4)
        kind = _spoil(doc, rng)
        fast, engine = both_ways(doc, monkeypatch)
        assert fast == engine, (trial, kind)
        refused += isinstance(fast, str)
    assert refused > 150  # most spoils break a rule; the rest are read the slow way


def test_a_spade_led_before_spades_are_broken_is_refused_in_any_hand() -> None:
    doc = random_match("classic", 3, hands=3)
    good = load_record(doc)
    hand = doc["hands"][0]
    plays = hand["plays"].split()
    # Lead a spade at the first trick from a hand that has other suits: find such a deal.
    leader = "NESW"[("NESW".index(hand["dealer"]) + 1) % 4]
    spades = [c for c in hand["deal"][leader].split() if c.endswith("S")]
    if spades and plays[0] not in spades and len(spades) < 13:
        plays[plays.index(spades[0])], plays[0] = plays[0], spades[0]
        hand["plays"] = " ".join(plays)
        message = refusal(doc)
        assert message.startswith("hand 1, trick 1:")
    assert good.hand_no == 3
