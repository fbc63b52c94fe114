"""Every option's range, the table's name and its badges (docs/rules.md, "Options").

Each whole-number option is tried at both ends of its range (accepted) and one step beyond each
end (refused with a one-line reason in the New game form's words).
"""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from varaq import Rules, RulesError
from varaq.rules import DEFAULT_PRESET, OPTIONS, PRESET_LABELS, PRESETS, signed

RANGED = [name for name, option in OPTIONS.items() if option.low is not None]


#: The classic game to the highest target, so that mercy may reach the top of its range.
WIDE = Rules.named("classic").with_options(target=OPTIONS["target"].high)


@pytest.mark.parametrize("name", RANGED)
def test_both_ends_of_each_range_are_accepted(name: str) -> None:
    option = OPTIONS[name]
    assert option.low is not None and option.high is not None
    for value in (option.low, option.high):
        assert getattr(WIDE.with_options(**{name: value}), name) == value


@pytest.mark.parametrize("name", RANGED)
def test_one_step_beyond_each_end_is_refused_in_the_forms_words(name: str) -> None:
    option = OPTIONS[name]
    assert option.low is not None and option.high is not None
    for value in (option.low - 1, option.high + 1):
        with pytest.raises(RulesError) as refusal:
            WIDE.with_options(**{name: value})
        reason = str(refusal.value)
        assert "\n" not in reason and name not in reason, reason
        assert reason.startswith(option.words), reason
        if name != "mercy" or value < option.low:
            assert reason == (
                f"{option.words} must be between {signed(option.low)} and {signed(option.high)}"
            )


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ({"target": 10**100}, "Target must be between 50 and 5000"),
        ({"mercy": -(10**30)}, "Mercy must be between −5000 and 4999"),
        ({"target": 300, "mercy": 300}, "Mercy must be below the target"),
        ({"bag_limit": 51}, "Bag limit must be between 1 and 50"),
        ({"boston_bonus": -200}, "Boston bonus must be between 0 and 1000"),
        ({"blind_nil_trail": 1001}, "Blind nil threshold must be between 0 and 1000"),
        ({"blind_nil_value": 5000}, "Blind nil value must be between 0 and 1000"),
        ({"nil": False}, "Blind nil needs nil: a table without nil has no blind nil"),
        ({"jokers": True, "two_clubs_leads": True},
         "Big Joker Little Joker and 2♣ leads cannot be combined: the 2♣ is not in the joker deck"),
        ({"target": "500"}, "Target must be a whole number, not '500'"),
    ],
)
def test_extreme_and_impossible_tables_are_refused_with_the_reason(
    spec: dict[str, Any], reason: str
) -> None:
    with pytest.raises(RulesError) as refusal:
        Rules.from_spec({"preset": "classic", **spec})
    assert str(refusal.value) == reason


def test_mercy_just_below_the_target_is_allowed() -> None:
    assert Rules.from_spec({"preset": "short", "mercy": 299}).mercy == 299


def test_every_preset_is_inside_every_range() -> None:
    for rules in PRESETS.values():
        for name in RANGED:
            option, value = OPTIONS[name], getattr(rules, name)
            assert value is None or option.low <= value <= option.high  # type: ignore[operator]


#: Each preset's badges: its name, then every rule that differs from the default table (Varaq).
PRESET_BADGES = {
    "varaq": ["Varaq"],
    "classic": ["Classic", "Blind nil", "Exchange 2", "Nil tricks do not score"],
    "short": ["Short, to 300", "Target 300", "Blind nil", "Exchange 2", "Nil tricks do not score"],
    "daily": ["Daily, to 250", "Target 250"],
}


@pytest.mark.parametrize(("name", "label"), list(PRESET_LABELS.items()))
def test_a_preset_is_named_for_what_it_is_with_a_badge_per_difference_from_varaq(
    name: str, label: str
) -> None:
    rules = Rules.named(name)
    assert rules.label == label and rules.badges() == PRESET_BADGES[name]
    # Setting an option to the preset's own value changes nothing.
    assert Rules.from_spec({"preset": name, "target": rules.target}).label == label


def test_only_the_default_table_shows_its_name_alone() -> None:
    assert DEFAULT_PRESET == "varaq"
    alone = [name for name in PRESETS if Rules.named(name).badges() == [PRESET_LABELS[name]]]
    assert alone == [DEFAULT_PRESET]


def test_the_daily_preset_has_a_name_of_its_own() -> None:
    assert Rules.named("daily").label == "Daily, to 250"
    labels = list(PRESET_LABELS.values())
    assert len(set(labels)) == len(labels)
    # No two presets read as one name with another number ("Short, to 300" / "Short, to 250").
    stems = [label.split(",")[0] for label in labels]
    assert len(set(stems)) == len(stems)


def test_a_customised_table_is_labelled_custom_with_a_badge_per_difference() -> None:
    rules = Rules.from_spec({
        "preset": "classic", "target": 300, "two_clubs_leads": True, "blind_nil": False,
        "mercy": -200, "bag_penalty": 0, "boston_bonus": 200,
    })
    assert rules.label == "Custom"
    # Against the default table: Classic without blind nil keeps only its nil scoring apart.
    assert rules.badges() == [
        "Custom", "Target 300", "Nil tricks do not score", "2♣ leads", "No bag penalty",
        "Mercy −200", "Boston +200",
    ]


def test_every_option_has_a_badge_when_it_differs() -> None:
    changed = {
        "target": 1000, "nil_value": 50, "blind_nil": True,
        "blind_nil_value": 300, "blind_nil_trail": 150, "exchange": 3, "nil_bags_score": False,
        "two_clubs_leads": True, "bag_limit": 5, "bag_penalty": 50, "mercy": -300,
        "min_team_bid": 4, "boston_bonus": 100,
    }
    assert set(changed) | {"jokers", "nil"} == set(OPTIONS)
    rules = Rules.named("varaq").with_options(**changed)
    assert rules.badges() == [
        "Custom", "Target 1000", "Nil ±50", "Blind nil", "Blind nil ±300",
        "Blind nil when 150 behind", "Exchange 3", "Nil tricks do not score", "2♣ leads",
        "Bag limit 5", "Bag penalty −50", "Mercy −300", "Board 4", "Boston +100",
    ]
    assert Rules.named("varaq").with_options(jokers=True).badges() == [
        "Custom", "Big Joker Little Joker"]
    assert Rules.named("varaq").with_options(nil=False).badges() == ["Custom", "No nil"]


def test_a_value_whose_rule_is_off_is_no_badge() -> None:
    # Blind nil's worth and the exchange mean nothing at a table without blind nil, and nil's
    # worth nothing without nil: they differ from Varaq's values but change no hand.
    rules = Rules.named("classic").with_options(
        nil=False, blind_nil=False, nil_value=50, blind_nil_value=300)
    assert rules.badges() == ["Custom", "No nil"]


def test_presets_api_publishes_every_options_words_and_range(client: TestClient) -> None:
    doc = client.get("/api/presets").json()
    assert doc["presets"]["daily"]["label"] == "Daily, to 250"
    assert doc["bounds"]["target"] == {
        "words": "Target", "help": OPTIONS["target"].help, "low": 50, "high": 5000}
    assert doc["bounds"]["jokers"]["low"] is None
    assert set(doc["bounds"]) == set(OPTIONS)


def test_the_view_carries_the_tables_label(frozen: TestClient) -> None:
    custom = frozen.post("/api/games", json={"level": "easy", "rules": {
        "preset": "varaq", "target": 300}}).json()["state"]["view"]
    assert custom["label"] == "Custom" and custom["badges"] == ["Custom", "Target 300"]
    plain = frozen.post("/api/games", json={"level": "easy", "rules": "short"}).json()
    assert plain["state"]["view"]["label"] == "Short, to 300"
