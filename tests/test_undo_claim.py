"""Undo and claims in the engine and the record (issue 18).

Undo rebuilds the hand from its deal without the moves taken back, so the position after an
undo must be the very one those moves left; the history and the record keep the undo, and read
back to the same game.  A claim holds only when the claiming side takes every trick left
against any defence; it credits the tricks and the hand is scored like a hand played out.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from varaq import Game
from varaq.actions import BID, UNDO
from varaq.cards import card_text, parse_hand
from varaq.claims import why_wrong
from varaq.cli import main
from varaq.engine import IllegalAction
from varaq.record import RecordError, load_record, to_record

#: Every slot that makes the position (the history is compared apart: it keeps the undo).
_POSITION = [name for name in Game.__slots__ if name != "actions"]


def _position(g: Game) -> dict[str, object]:
    return {name: getattr(g, name) for name in _POSITION}


def _to_play(seed: int, cards: int) -> Game:
    """A classic game dealt from ``seed`` (dealer N), bid, and ``cards`` cards into the play."""
    g = Game("classic", seed=seed, dealer=0)
    g.deal()
    rng = random.Random(seed)
    while g.phase_name != "play":
        legal = g.legal_actions()
        g.apply(BID + 3 if BID + 3 in legal else rng.choice(legal))
    for _ in range(cards):
        g.apply(rng.choice(g.legal_actions()))
    return g


@pytest.mark.parametrize("seed", range(12))
def test_undo_rebuilds_the_exact_position(seed: int) -> None:
    rng = random.Random(seed)
    g = _to_play(seed, rng.randrange(0, 40))
    before = g.copy()
    count = rng.randrange(1, 8)
    for _ in range(count):
        g.apply(rng.choice(g.legal_actions()))
    event = g.undo(count)
    assert _position(g) == _position(before)
    assert g.actions[:len(before.actions)] == before.actions
    assert g.actions[len(before.actions):-1] != [] and g.actions[-1] == UNDO + count
    assert len(g.actions) == len(before.actions) + count + 1
    assert event.kind == "undo" and event.seat == before.turn
    assert g.legal_actions() == before.legal_actions()


def test_undo_reaches_back_into_the_bidding() -> None:
    g = Game("classic", seed=4, dealer=0)
    g.deal()
    start = g.copy()
    g.apply(BID + 2)
    g.apply(BID + 5)
    g.undo(2)
    assert _position(g) == _position(start)
    assert g.legal_actions() == start.legal_actions()


def test_a_history_with_undos_rebuilds_the_same_game() -> None:
    g = _to_play(3, 20)
    g.apply(g.legal_actions()[0])
    g.apply(g.legal_actions()[-1])
    g.undo(1)
    g.apply(g.legal_actions()[0])
    g.undo(2)
    rebuilt = Game("classic", seed=3, dealer=0)
    for action in g.actions:
        rebuilt.push(action)
    assert _position(rebuilt) == _position(g)
    assert rebuilt.actions == g.actions


def test_undo_refusals_say_why_and_change_nothing() -> None:
    g = Game("classic", seed=2, dealer=0)
    with pytest.raises(IllegalAction, match="nothing to undo: the hand is over"):
        g.undo(1)
    g.deal()
    with pytest.raises(IllegalAction, match="0 stand in this hand"):
        g.undo(1)
    while g.phase_name != "deal":
        g.apply(g.legal_actions()[0])
    before = _position(g)
    with pytest.raises(IllegalAction, match="a scored hand cannot be taken back"):
        g.undo(1)
    assert _position(g) == before


def test_a_record_keeps_its_undos_and_reads_back_to_the_same_game() -> None:
    g = _to_play(7, 13)
    first = g.legal_actions()[-1]
    g.apply(first)
    g.apply(g.legal_actions()[0])
    g.undo(2)  # one card and the next seat's answer
    played = g.plays()
    g.apply(g.legal_actions()[0])
    g.undo(1)
    doc = to_record(g)
    undos = doc["hands"][-1]["undos"]
    assert undos[0]["at"] == undos[1]["at"] == len(played) + 4  # the four bids stand first
    assert undos[0]["moves"][0] == card_text(first) and len(undos[0]["moves"]) == 2
    back = load_record(doc)
    assert to_record(back) == doc
    assert back.hands == g.hands and back.trick == g.trick and back.turn == g.turn
    # Finished, the hand still lists its undos, and the score is the one played.
    while g.phase_name != "deal":
        g.apply(g.legal_actions()[0])
    done = to_record(g)
    assert done["hands"][-1]["undos"] == undos
    assert load_record(done).totals == g.totals


def test_an_undone_move_that_was_never_legal_is_refused() -> None:
    g = _to_play(7, 13)
    g.apply(g.legal_actions()[0])
    g.undo(1)
    doc = to_record(g)
    holder = g.turn
    foreign = next(c for c in range(52) if not g.hands[holder] >> c & 1 and not g.played >> c & 1)
    doc["hands"][-1]["undos"][0]["moves"] = [card_text(foreign)]
    with pytest.raises(RecordError, match=r"hand 1: undos: .* does not hold"):
        load_record(doc)
    doc["hands"][-1]["undos"][0]["at"] = 500
    with pytest.raises(RecordError, match="at must be a whole number"):
        load_record(doc)


# -- claims -------------------------------------------------------------------------------------

#: N holds every spade and leads (W deals): N wins all 13 tricks whatever anyone plays.
_SPADES_NORTH = [
    parse_hand("AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"),
    parse_hand("AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D"),
    parse_hand("AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"),
    parse_hand("AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C"),
]


def _spades_north(bids: tuple[int, int, int, int]) -> Game:
    g = Game("classic", seed=1, dealer=3)
    g.deal(hands=_SPADES_NORTH, dealer=3)
    for seat in (0, 1, 2, 3):  # N bids first: W dealt
        g.apply(BID + bids[seat])
    return g


def test_a_right_claim_awards_every_trick_left_and_scores_as_played_out() -> None:
    g = _spades_north((10, 1, 0, 1))
    for _ in range(6):  # a trick and a half
        g.apply(g.legal_actions()[0])
    played_out = g.copy()
    while played_out.phase_name != "deal":
        played_out.apply(played_out.legal_actions()[0])
    assert why_wrong(g, 2) == ""
    event = g.claim(2)  # South bid nil: the claim is North's tricks
    assert event.kind == "claim" and event.seat == 2
    assert g.taken == [13, 0, 0, 0] == played_out.taken
    assert g.log[-1].result == played_out.log[-1].result
    assert g.log[-1].result.nil_made[2] is True  # South's nil stands
    assert g.log[-1].claim == 2 and g.phase_name == "deal"


def test_a_wrong_claim_is_refused_with_the_trick_it_loses() -> None:
    g = _spades_north((10, 1, 2, 1))
    before = _position(g)
    refusal = r"^North can still take a trick$"  # the spade that wins is in North's hand: unnamed
    with pytest.raises(IllegalAction, match=refusal):
        g.claim(1)
    assert _position(g) == before
    assert why_wrong(g, 3).startswith("North can still take a trick")


def test_a_claim_beside_a_nil_needs_the_nil_bidder_to_take_nothing() -> None:
    # S bid nil and holds every heart; N holds the spades.  N's claim holds (N leads spades
    # and wins them all, S never wins a trick)...
    g = _spades_north((11, 1, 0, 1))
    assert why_wrong(g, 0) == ""
    # ...but when N bid nil with the spades, S's claim would make N win tricks: refused.
    g = _spades_north((0, 1, 12, 1))
    assert g.claim_seat(2) == 2
    with pytest.raises(IllegalAction, match=r"^North bid nil and can be made to take a trick"):
        g.claim(2)


def test_claims_are_made_in_the_play_only() -> None:
    g = Game("classic", seed=1, dealer=3)
    g.deal(hands=_SPADES_NORTH, dealer=3)
    with pytest.raises(IllegalAction, match="during the play of the cards"):
        g.claim(0)


def test_a_record_with_a_claim_replays_to_the_same_score() -> None:
    g = _spades_north((10, 1, 0, 1))
    for _ in range(5):
        g.apply(g.legal_actions()[0])
    g.claim(0)
    doc = to_record(g)
    assert doc["hands"][-1]["claim"] == "N"
    assert len(doc["hands"][-1]["plays"].split()) == 5
    back = load_record(doc)
    assert back.totals == g.totals and back.bags == g.bags
    assert to_record(back) == doc
    doc["hands"][-1]["claim"] = "E"
    with pytest.raises(RecordError, match="hand 1: claim by E refused: North can still take"):
        load_record(doc)


def test_a_claim_with_the_trick_in_progress_counts_it() -> None:
    # N leads the AS; E, S, W follow with whatever; mid-trick, N's side claims the rest.
    g = _spades_north((13, 0, 0, 0))
    g.apply(g.legal_actions()[-1])  # N leads its top spade
    assert g.trick and why_wrong(g, 0) == ""
    g.claim(0)
    assert g.log[-1].result.tricks == (13, 0, 0, 0)
    assert g.log[-1].plays == (51,)  # the AS: the trick in progress is in the record


def test_a_refusal_names_only_a_card_the_claimer_has_seen() -> None:
    g = _spades_north((10, 1, 2, 1))
    assert why_wrong(g, 1) == "North can still take a trick"  # North's spades are unseen
    g.apply(g.legal_actions()[-1])  # North leads its top spade: now it is on the table
    assert why_wrong(g, 1) == "North can still take a trick with the A♠"
    assert why_wrong(g, 1, name_card=False) == "North can still take a trick"


def test_varaq_replay_reads_a_record_with_undos_and_a_claim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    g = _spades_north((10, 1, 0, 1))
    g.apply(g.legal_actions()[0])
    g.apply(g.legal_actions()[0])
    g.undo(1)
    g.apply(g.legal_actions()[-1])
    g.claim(2)
    path = tmp_path / "claimed.json"
    path.write_text(json.dumps(to_record(g)))
    assert main(["replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hands"][0]["tricks"] == {"N": 13, "E": 0, "S": 0, "W": 0}
    assert out["total"] == {"NS": g.totals[0], "EW": g.totals[1]}


def test_a_hand_with_undos_is_reviewed_as_it_stands() -> None:
    from varaq.review import HandFacts, hand_actions, reviewable_hands

    g = _to_play(9, 10)
    g.apply(g.legal_actions()[-1])
    g.apply(g.legal_actions()[0])
    g.undo(2)
    while g.phase_name != "deal":
        g.apply(g.legal_actions()[0])
    assert reviewable_hands(g) == [1]
    facts = HandFacts.from_game(g, 1)
    assert facts.plays == g.log[0].plays
    assert len(hand_actions(g, 1)) == 4 + 52  # the bids and the cards that stand
    # The record read back gives the same facts (the review of a downloaded record).
    assert HandFacts.from_game(load_record(to_record(g)), 1).key == facts.key


def test_a_hand_ended_by_a_claim_is_not_offered_for_review() -> None:
    from varaq.review import reviewable_hands

    g = _spades_north((10, 1, 0, 1))
    g.claim(0)
    assert reviewable_hands(g) == []
