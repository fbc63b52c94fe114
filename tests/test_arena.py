"""The duplicate arena: its determinism, its cancellation of the cards, its numbers and its CLI."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from varaq.arena import ArenaConfig, ArenaError, _Table, deal_bids, play_deal, run_arena
from varaq.bots import Decision
from varaq.cli import main
from varaq.engine import PLAY
from varaq.rules import Rules
from varaq.stats import (
    mean_ci95,
    percentile,
    running_ci95,
    t_quantile_975,
    wilson_ci95,
)
from varaq.view import View

CLASSIC = Rules.named("classic")
# Small matches that end: a low target, and mercy for sides that sink (random bots do).
SHORT_MATCH = Rules.from_spec({"preset": "classic", "target": 150, "mercy": -250})


class LowestBot:
    """A fixed policy: always the lowest-numbered legal action (it ignores its rng)."""

    name = "lowest"

    def decide(self, view: View, rng: random.Random) -> Decision:
        return Decision(min(view.legal), "the lowest action")

    def act(self, view: View, rng: random.Random) -> int:
        return min(view.legal)


class HighestBot(LowestBot):
    name = "highest"

    def act(self, view: View, rng: random.Random) -> int:
        return max(view.legal)


class CheatingOnceBot(LowestBot):
    """Plays a card it does not hold: the arena must refuse it and name the bot."""

    name = "broken"

    def act(self, view: View, rng: random.Random) -> int:
        if view.phase == "play":
            return next(c for c in range(52) if not (view.hand | view.played) >> c & 1)
        return min(view.legal)


def lowest() -> LowestBot:
    return LowestBot()


def highest() -> HighestBot:
    return HighestBot()


def broken() -> CheatingOnceBot:
    return CheatingOnceBot()


def _without_times(data: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(data))
    out.pop("seconds")
    for side in ("a", "b"):
        out[side].pop("decision_ms_p50")
        out[side].pop("decision_ms_p95")
    return out


# -- duplicate ------------------------------------------------------------------------------


def test_both_tables_get_the_same_cards_and_dealer_with_partnerships_swapped() -> None:
    config = ArenaConfig(a=lowest, b=highest, rules=CLASSIC, seed=5, deals=1)
    first, second = _Table(config, "5:deal:0", 0), _Table(config, "5:deal:0", 1)
    first.game.deal()
    second.game.deal()
    assert first.game.dealt == second.game.dealt
    assert first.game.dealer == second.game.dealer
    assert [type(b).__name__ for b in first.bots] == ["LowestBot", "HighestBot"] * 2
    assert [type(b).__name__ for b in second.bots] == ["HighestBot", "LowestBot"] * 2


def test_deterministic_bot_against_itself_cancels_to_zero_on_every_deal() -> None:
    config = ArenaConfig(a=lowest, b=lowest, rules=CLASSIC, seed=3, deals=20)
    result = run_arena(config)
    for pair in result.pairs:
        assert pair.difference == 0
        assert pair.a.points == pair.b.points
        assert pair.a.made == pair.b.made and pair.a.set == pair.b.set
    # The deals themselves are not all dull: the two sides do score differently at one table.
    nonzero = [play_deal(config, i).a.points for i in range(20)]
    assert len(set(nonzero)) > 1


def test_random_bot_against_itself_also_cancels_because_seats_share_their_rng() -> None:
    result = run_arena(ArenaConfig(a="random", b="random", rules=CLASSIC, seed=9, deals=15))
    assert all(p.difference == 0 for p in result.pairs)


def test_different_policies_give_a_nonzero_difference_equal_to_points_per_hand_gap() -> None:
    result = run_arena(ArenaConfig(a="random", b=lowest, rules=CLASSIC, seed=2, deals=30))
    data = result.to_json()
    assert any(p.difference != 0 for p in result.pairs)
    gap = data["a"]["points_per_hand"] - data["b"]["points_per_hand"]
    assert data["difference"]["mean"] == pytest.approx(gap, abs=0.01)
    low, high = data["difference"]["ci95"]
    assert low <= data["difference"]["mean"] <= high


# -- determinism ----------------------------------------------------------------------------


def test_results_do_not_depend_on_the_number_of_processes() -> None:
    config = ArenaConfig(a="random", b=lowest, rules=CLASSIC, seed=11, deals=24)
    one = run_arena(config, jobs=1).to_json()
    two = run_arena(config, jobs=2).to_json()
    assert _without_times(one) == _without_times(two)
    assert one["a"]["decisions"] == two["a"]["decisions"]


def test_matches_do_not_depend_on_the_number_of_processes() -> None:
    config = ArenaConfig(a="random", b=highest, rules=SHORT_MATCH, seed=4, matches=6)
    one = run_arena(config, jobs=1).to_json()
    two = run_arena(config, jobs=2).to_json()
    assert _without_times(one) == _without_times(two)


def test_another_seed_gives_other_deals() -> None:
    a = run_arena(ArenaConfig(a="random", b=lowest, rules=CLASSIC, seed=1, deals=10))
    b = run_arena(ArenaConfig(a="random", b=lowest, rules=CLASSIC, seed=2, deals=10))
    assert a.differences != b.differences


def test_hard_with_fixed_samples_plays_the_same_in_any_process_and_cheater_sees_all() -> None:
    hard = (("samples", 3),)
    config = ArenaConfig(a="hard", b="cheater", rules=CLASSIC, seed=8, deals=1, a_options=hard)
    one = run_arena(config, jobs=1).to_json()
    two = run_arena(config, jobs=2).to_json()
    assert _without_times(one) == _without_times(two)
    assert one["a"]["options"] == {"samples": 3}
    assert one["b"]["bot"] == "cheater" and one["b"]["decisions"] > 0


def test_a_time_box_keeps_a_prefix_of_the_same_deals() -> None:
    config = ArenaConfig(a="random", b=lowest, rules=CLASSIC, seed=6, deals=100)
    full = run_arena(config)
    # A time box already over when the first chunk of deals returns: nothing more is started.
    boxed = run_arena(config, minutes=1e-9)
    k = len(boxed.pairs)
    assert 1 <= k < 100
    assert boxed.differences == full.differences[:k]
    assert boxed.to_json()["deals"] == k and boxed.to_json()["requested"] == 100


def test_a_deal_bid_alone_has_the_bids_it_is_played_with_and_counts_nothing() -> None:
    # Normal against a random player: the random bids come from the seats' shared streams, so
    # a bidding that drew them differently from the played deal would show.
    config = ArenaConfig(a="normal", b="random", rules=CLASSIC, seed=3, deals=12)
    for index in range(12):
        bids = deal_bids(config, index)
        tables = [_Table(config, f"3:deal:{index}", a_side) for a_side in (0, 1)]
        for table in tables:
            table.play_hand("test")
        assert bids == [{"a_side": t.a_side, "bids": list(t.game.log[-1].bids)} for t in tables]
    table = _Table(config, "3:deal:0", 0)
    table.play_hand("test", bids_only=True)
    assert table.tally[0].hands == 0 and table.game.phase == PLAY


# -- matches --------------------------------------------------------------------------------


def test_each_match_is_played_both_ways_and_every_table_is_counted() -> None:
    config = ArenaConfig(a="random", b=highest, rules=SHORT_MATCH, seed=7, matches=5)
    data = run_arena(config).to_json()
    m = data["match"]
    assert m["played"] == 10
    assert data["a"]["match_wins"] + data["b"]["match_wins"] + m["unfinished"] == 10
    assert data["a"]["hands"] == data["b"]["hands"] == data["hands"]
    assert data["deals"] <= data["hands"]


def test_a_match_that_never_ends_is_stopped_and_counted_unfinished() -> None:
    # Random bots rarely make a contract, so a target of 1000 without mercy is out of reach.
    rules = Rules.from_spec({"preset": "classic", "target": 1000})
    config = ArenaConfig(a="random", b="random", rules=rules, seed=1, matches=2, max_hands=4)
    data = run_arena(config).to_json()
    assert data["match"]["unfinished"] == 4
    assert data["hands"] == 16
    assert data["match"]["a_win_rate"] is None


# -- refusals -------------------------------------------------------------------------------


def test_a_bot_that_plays_an_illegal_card_is_named_in_one_line() -> None:
    config = ArenaConfig(a=broken, b=lowest, rules=CLASSIC, seed=1, deals=2)
    with pytest.raises(ArenaError) as info:
        run_arena(config)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("deal 1, table 1: bot broken at ")
    assert "does not hold" in message


def test_an_illegal_card_in_a_worker_process_is_reported_the_same_way() -> None:
    config = ArenaConfig(a=lowest, b=broken, rules=CLASSIC, seed=1, deals=4)
    with pytest.raises(ArenaError, match=r"^deal \d, table \d: bot broken at [NESW]: "):
        run_arena(config, jobs=2)


def test_nothing_to_play_is_refused() -> None:
    with pytest.raises(ArenaError, match="nothing to play"):
        run_arena(ArenaConfig(a="random", b="random", rules=CLASSIC))


# -- statistics -----------------------------------------------------------------------------


def test_ci95_of_paired_differences_matches_a_hand_computed_example() -> None:
    # Differences 10, -20, 30, 0, 40: mean 12; squared deviations 4+1024+324+144+784 = 2280;
    # variance 2280/4 = 570; se = sqrt(570/5) = 10.6771; t(0.975, 4) = 2.7764;
    # half width 29.644: [-17.644, 41.644].
    m = mean_ci95([10, -20, 30, 0, 40])
    assert m.mean == 12
    assert m.se == pytest.approx(math.sqrt(570 / 5))
    assert m.low == pytest.approx(-17.644, abs=1e-3)
    assert m.high == pytest.approx(41.644, abs=1e-3)


@pytest.mark.parametrize(
    ("df", "t"),
    [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (30, 2.0423), (120, 1.9799),
     (5000, 1.9604)],
)
def test_t_quantile_matches_the_printed_table(df: int, t: float) -> None:
    assert t_quantile_975(df) == pytest.approx(t, abs=1e-4)


def test_a_single_value_has_an_empty_interval_and_none_is_refused() -> None:
    m = mean_ci95([7.5])
    assert (m.mean, m.low, m.high) == (7.5, 7.5, 7.5)
    with pytest.raises(ValueError):
        mean_ci95([])


def test_running_interval_agrees_with_the_direct_one_at_every_step() -> None:
    values = [random.Random(3).gauss(5, 20) for _ in range(40)]
    xs, means, lows, highs = running_ci95(values)
    assert xs == list(range(1, 41))
    for n in (2, 5, 17, 40):
        m = mean_ci95(values[:n])
        assert means[n - 1] == pytest.approx(m.mean)
        assert lows[n - 1] == pytest.approx(m.low)
        assert highs[n - 1] == pytest.approx(m.high)


def test_percentile_and_wilson_interval() -> None:
    assert percentile([4, 1, 3, 2], 50) == 2.5
    assert percentile(list(range(101)), 95) == 95
    assert percentile([5.0], 95) == 5.0
    # 8 wins of 10: the Wilson interval is [0.490, 0.943].
    low, high = wilson_ci95(8, 10)
    assert (round(low, 3), round(high, 3)) == (0.49, 0.943)
    assert wilson_ci95(0, 0) == (0.0, 1.0)
    assert wilson_ci95(10, 10)[1] == 1.0


# -- the command ----------------------------------------------------------------------------


def test_cli_json_has_the_documented_fields(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "--a", "random", "--b", "easy", "--deals", "6", "--jobs", "1",
                 "--json", "--seed", "3"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["deals"] == 6
    for side, bot in (("a", "random"), ("b", "easy")):
        s = data[side]
        assert s["bot"] == bot
        for key in ("points_per_hand", "bags_per_hand", "decision_ms_p50", "decision_ms_p95"):
            assert isinstance(s[key], float | int)
        for key in ("match_wins", "made", "set", "nil_bid", "nil_made", "blind_nil_bid",
                    "blind_nil_made"):
            assert isinstance(s[key], int) and s[key] >= 0
        assert s["made"] + s["set"] <= 12
        assert s["decision_ms_p50"] <= s["decision_ms_p95"]
    diff = data["difference"]
    assert isinstance(diff["mean"], float | int)
    assert len(diff["ci95"]) == 2 and diff["ci95"][0] <= diff["mean"] <= diff["ci95"][1]


def test_cli_table_and_plot(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "running.png"
    code = main(["arena", "--a", "random", "--b", "random", "--deals", "5", "--jobs", "1",
                 "--plot", str(png)])
    assert code == 0
    out = capsys.readouterr().out
    assert "points per hand" in out and "difference (a - b)" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_rules_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "--a", "random", "--b", "random", "--matches", "2", "--jobs", "1",
                 "--json", "--rules", '{"preset": "varaq", "target": 100, "mercy": -200}'])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"] == {"preset": "varaq", "target": 100, "mercy": -200}
    assert data["matches"] == 2 and data["match"]["played"] == 4


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--deals", "ten"], "--deals needs a whole number, not 'ten'"),
        (["--deals", "0"], "--deals must be at least 1, not 0"),
        (["--matches", "-2"], "--matches must be at least 1, not -2"),
        (["--deals", "3", "--matches", "3"], "give --deals or --matches, not both"),
        (["--jobs", "0"], "--jobs must be at least 1, not 0"),
        (["--a", "wizard"], "unknown bot 'wizard'"),
        (["--rules", "poker"], "--rules: unknown preset 'poker'"),
        (["--rules", '{"preset": "classic", "bags": 3}'], "--rules: unknown rule 'bags'"),
        (["--rules", "{oops"], "--rules is not valid JSON"),
        (["--budget", "1"], "--budget applies to a hard bot"),
        (["--a", "hard", "--budget", "-1"], "--budget must be a positive number"),
        (["--samples", "8"], "--samples applies to a hard bot"),
        (["--a", "hard", "--samples", "0"], "--samples must be at least 1, not 0"),
        (["--a", "hard", "--samples", "8", "--budget", "1"], "not both"),
        (["--minutes", "soon"], "--minutes needs a number of minutes, not 'soon'"),
        (["--minutes", "0"], "--minutes must be a positive number of minutes"),
        (["--deals", "３"], "--deals needs a whole number, not '３'"),
        (["--deals", "1_000"], "--deals needs a whole number, not '1_000'"),
        (["--seed", "9" * 5000], "--seed needs a whole number, not '999999999999999999999999'..."),
        (["--minutes", "１.5"], "--minutes needs a number of minutes, not '１.5'"),
        (["--minutes", "nan"], "--minutes needs a number of minutes, not 'nan'"),
        (["--minutes", "1e999"], "--minutes needs a number of minutes, not '1e999'"),
        (["--rules", '{"preset": "classic", "target": ' + "5" * 5000 + "}"],
         "--rules is not valid JSON: a number with thousands of digits"),
        (["--plot", "out.pdf"], "--plot needs a .png file name"),
    ],
)
def test_cli_bad_options_get_one_line(
    args: list[str], reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["arena", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("varaq arena: ")
    assert reason in err


def test_blind_nils_are_reported_per_player_with_what_they_scored() -> None:
    """The same bot on both sides, told apart by its options: one always bids blind nil when
    it may, the other never does."""
    config = ArenaConfig(
        a="normal", b="normal", rules=CLASSIC, seed=3, matches=3,
        a_options=(("blind_nil", "always"),), b_options=(("blind_nil", "never"),),
    )
    result = run_arena(config)
    data = result.to_json()
    a, b = data["a"], data["b"]
    assert b["blind_nil_bid"] == b["blind_nil_made"] == b["blind_nil_points"] == 0
    assert b["blind_nil_made_rate"] is None
    assert a["blind_nil_bid"] > 0
    value = CLASSIC.blind_nil_value
    assert a["blind_nil_points"] == value * (2 * a["blind_nil_made"] - a["blind_nil_bid"])
    assert a["blind_nil_made_rate"] == round(a["blind_nil_made"] / a["blind_nil_bid"], 4)
    text = result.table_text()
    assert "a: normal (blind_nil=always)" in text and "b: normal (blind_nil=never)" in text
    assert f"{a['blind_nil_made']} / {a['blind_nil_bid']}" in text
    assert f"{a['blind_nil_points']:+d}" in text
