"""docs/rules.md is true: its generated parts are current and its examples are the engine's.

The worked examples are data run through the engine (``varaq.worked_examples``); these tests
check that the page says what the engine computes today, that each explanation adds up, and
that the ten classic examples of the rules give the scores the rules promise.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from varaq.rules import PRESETS
from varaq.worked_examples import (
    EXAMPLES,
    examples_markdown,
    main,
    work_out,
    worked_examples,
    write_generated,
)

ROOT = Path(__file__).resolve().parents[1]
RULES_DOC = ROOT / "docs" / "rules.md"


def test_rules_doc_generated_parts_are_current() -> None:
    text = RULES_DOC.read_text(encoding="utf-8")
    assert write_generated(text) == text, (
        "docs/rules.md is out of date: run python -m varaq.worked_examples --write docs/rules.md"
    )
    for block in ("options", "presets", "examples"):
        assert f"<!-- generated:{block} -->" in text and f"<!-- end:{block} -->" in text


def test_every_example_appears_in_the_rules_doc() -> None:
    text = RULES_DOC.read_text(encoding="utf-8")
    assert examples_markdown() in text
    for example in EXAMPLES:
        assert f". {example.title}\n" in text


def test_write_updates_a_stale_doc_and_then_finds_it_current(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = RULES_DOC.read_text(encoding="utf-8").replace("**+71**", "**+70**")
    doc = tmp_path / "rules.md"
    doc.write_text(stale, encoding="utf-8")
    assert main(["--write", str(doc)]) == 0
    assert doc.read_text(encoding="utf-8") == RULES_DOC.read_text(encoding="utf-8")
    assert main(["--write", str(doc)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{doc}: updated", f"{doc}: already current"]


def test_an_unknown_generated_block_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown generated block 'nope'"):
        write_generated("<!-- generated:nope -->\nx\n<!-- end:nope -->\n")


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.key for e in EXAMPLES])
def test_each_explanation_adds_up_to_the_engines_score(example: Any) -> None:
    for hand in work_out(example)["hands"]:
        for side in hand["sides"].values():
            assert sum(line["points"] for line in side["lines"]) == side["score"]


def by_key() -> dict[str, dict[str, Any]]:
    return {e["key"]: e for e in worked_examples()}


def ns(example: dict[str, Any], hand: int = 0) -> dict[str, Any]:
    side: dict[str, Any] = example["hands"][hand]["sides"]["NS"]
    return side


@pytest.mark.parametrize(
    ("key", "score", "bags"),
    [
        ("contract-made", 71, 1),
        ("contract-set", -70, 0),
        ("overtricks", 72, 2),
        ("all-thirteen", 94, 4),
        ("bag-penalty", -47, 1),
        ("nil-made-varaq", 141, 1),
        ("nil-failed-varaq", -138, 2),
        ("nil-failed-classic", -140, 2),
        ("blind-nil", 251, 1),
        ("both-nil-classic", 0, 1),
        ("both-nil-varaq", 1, 1),
        ("two-bag-penalties", -273, 0),
        ("boston", 294, 4),
    ],
)
def test_the_examples_give_the_scores_the_rules_promise(key: str, score: int, bags: int) -> None:
    side = ns(by_key()[key])
    assert (side["score"], side["bags"]) == (score, bags)


def test_the_end_of_match_examples() -> None:
    examples = by_key()
    finish = examples["finish"]["hands"][0]
    assert finish["total"] == {"NS": 522, "EW": 511} and finish["winner"] == "NS"
    tie = examples["tie-at-target"]["hands"]
    assert tie[0]["total"] == {"NS": 500, "EW": 500} and tie[0]["winner"] is None
    assert tie[1]["winner"] == "NS"
    mercy = examples["mercy"]["hands"][0]
    assert mercy["total"]["NS"] == -220 and mercy["winner"] == "EW"
    assert "below the mercy line of −200" in examples["mercy"]["text"][-1]


def test_refusal_and_legal_bid_examples_come_from_the_engine() -> None:
    examples = by_key()
    refused = examples["blind-nil-refused"]["hands"][0]
    assert refused["refused"] == "blind nil by N refused: NS trails by 70, needs 100"
    board = examples["board"]["hands"][0]["next"]
    assert board["seat"] == "S"
    assert board["legal"] == ["nil"] + [f"bid {n}" for n in range(3, 14)]
    assert "South may bid nil or 3 to 13." in examples["board"]["text"]


def test_two_penalties_in_one_hand_are_explained_as_such() -> None:
    side = ns(by_key()["two-bag-penalties"])
    assert side["penalties"] == 2
    assert {"words": "bag penalty ×2", "points": -200} in side["lines"]


def test_the_prose_defaults_are_the_classic_presets() -> None:
    """The hand-written rules quote the classic values; they must be the engine's."""
    text = RULES_DOC.read_text(encoding="utf-8")
    classic = PRESETS["classic"]
    claims = {
        r"\*\*Nil\*\*: \+(\d+) if": classic.nil_value,
        r"\*\*Blind nil\*\*: \+(\d+) or": classic.blind_nil_value,
        r"reaches the \*\*bag limit\*\* \((\d+)\)": classic.bag_limit,
        r"\*\*bag penalty\*\* \((\d+) points\)": classic.bag_penalty,
        r"the target \((\d+) unless": classic.target,
        r"blind nil threshold\* \((\d+)\)": classic.blind_nil_trail,
        r"\*\*exchange\*\* \((\d+) cards in `classic`": classic.exchange,
    }
    for pattern, value in claims.items():
        found = re.search(pattern, text)
        assert found, pattern
        assert int(found.group(1)) == value, pattern
