"""`varaq replay FILE|- [--json]`: output as docs/record-format.md shows it; one-line refusals.

A refused record exits with status 2.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from varaq.cli import build_parser, main, replay_words

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["replay", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_output_has_the_shape_in_docs_record_format(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = replay(capsys, str(EXAMPLES / "rules-examples-classic.json"), "--json")
    assert status == 0 and err == ""
    doc = json.loads(out)
    assert set(doc) == {"hands", "total", "bags", "winner", "complete"}
    first = doc["hands"][0]
    assert set(first) == {"tricks", "score", "bags", "total"}
    assert first == {
        "tricks": {"N": 5, "E": 3, "S": 3, "W": 2},
        "score": {"NS": 71, "EW": 41},
        "bags": {"NS": 1, "EW": 1},
        "total": {"NS": 71, "EW": 41},
    }
    assert [h["score"]["NS"] for h in doc["hands"]] == [71, -70, 72, 94, 51, -47, -140, 0, 251]
    assert doc["total"] == doc["hands"][-1]["total"] == {"NS": 282, "EW": 293}
    assert doc["bags"] == {"NS": 5, "EW": 3}
    assert doc["winner"] is None and doc["complete"] is False


def test_varaq_examples_5_6_and_8(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = replay(capsys, str(EXAMPLES / "rules-examples-varaq-nil.json"), "--json")
    hands = json.loads(out)["hands"]
    assert [h["score"]["NS"] for h in hands] == [141, -138, 1]
    assert [h["bags"]["NS"] for h in hands] == [1, 3, 4]


def test_a_finished_match_names_its_winner(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = replay(capsys, str(EXAMPLES / "rules-example-9-finish.json"), "--json")
    doc = json.loads(out)
    assert doc["total"] == {"NS": 522, "EW": 511}
    assert doc["winner"] == "NS" and doc["complete"] is True


def test_a_tie_on_the_target_plays_another_hand(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = replay(capsys, str(EXAMPLES / "rules-example-10-tie-at-500.json"), "--json")
    doc = json.loads(out)
    assert doc["hands"][0]["total"] == {"NS": 500, "EW": 500}
    assert doc["winner"] == "NS" and len(doc["hands"]) == 2


def test_hands_lists_only_completed_hands(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    doc = json.loads((EXAMPLES / "classic-match.json").read_text())
    hand = doc["hands"][1]
    hand["plays"] = " ".join(hand["plays"].split()[:10])
    doc["hands"] = doc["hands"][:2]
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(doc))
    status, out, _ = replay(capsys, str(path), "--json")
    summary = json.loads(out)
    assert status == 0 and len(summary["hands"]) == 1 and summary["complete"] is False


def test_text_output_is_a_score_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = replay(capsys, str(EXAMPLES / "classic-match.json"))
    lines = out.splitlines()
    assert status == 0
    assert "bids N E S W" in lines[1] and "total NS/EW" in lines[1]
    assert lines[-1].startswith("Winner: ")
    hand_lines = [line for line in lines if line[:4].strip().isdigit()]
    doc = json.loads((EXAMPLES / "classic-match.json").read_text())
    assert len(hand_lines) == len(doc["hands"])


def test_standard_input_with_a_dash(capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    data = (EXAMPLES / "rules-example-9-finish.json").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    status, out, _ = replay(capsys, "-", "--json")
    assert status == 0 and json.loads(out)["winner"] == "NS"


def _bad(tmp_path: Path, content: bytes | str | dict[str, Any]) -> str:
    path = tmp_path / "bad.json"
    if isinstance(content, dict):
        content = json.dumps(content)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "malformed JSON at line 1, column 2: Expecting property name enclosed in double"
              " quotes"),
        (b"\xff\xfe\x00", "the record is not UTF-8 text (byte 0)"),
        ({"hands": [{"bids": {"N": "x"}}]},
         "hand 1: N's bid must be 0-13, \"nil\" or \"blind\", not 'x'"),
        ({"start": {"total": {"NS": 250, "EW": 320}},
          "hands": [{"bids": {"N": "blind"}}]},
         "hand 1: blind nil by N refused: NS trails by 70, needs 100"),
        ({"hands": [{"dealer": "W", "deal": {"N": "ZS", "E": "", "S": "", "W": ""}}]},
         "hand 1: deal N: unknown card 'ZS'"),
    ],
)
def test_a_bad_record_prints_one_line_and_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: Any, message: str
) -> None:
    status, out, err = replay(capsys, _bad(tmp_path, content))
    assert status == 2 and out == ""
    assert err == message + "\n"


def test_missing_file_and_directory_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, err = replay(capsys, str(tmp_path / "nope.json"))
    assert status == 2 and err == f"{tmp_path / 'nope.json'}: no such file\n"
    status, _, err = replay(capsys, str(tmp_path))
    assert status == 2 and err == f"{tmp_path}: is a directory, not a record\n"


def test_the_installed_command_never_prints_a_traceback(tmp_path: Path) -> None:
    doc = json.loads((EXAMPLES / "classic-match.json").read_text())
    plays = doc["hands"][0]["plays"].split()
    plays[1], plays[5] = plays[5], plays[1]  # very likely a renege, certainly not the record
    doc["hands"][0]["plays"] = " ".join(plays)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc))
    for args in ([str(path)], [str(tmp_path)], ["-"]):
        proc = subprocess.run(
            [sys.executable, "-m", "varaq.cli", "replay", *args, "--json"],
            input=b"not json", capture_output=True, timeout=60, check=False,
        )
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count(b"\n") == 1 and b"Traceback" not in proc.stderr
        assert proc.stdout == b""


def test_help_lists_the_replay_command() -> None:
    proc = subprocess.run([sys.executable, "-m", "varaq.cli", "--help"],
                          capture_output=True, text=True, timeout=60, check=True)
    assert "replay" in proc.stdout


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")))
def test_the_json_is_exactly_what_json_dumps_writes(name: str) -> None:
    """``summary_json`` lays the hands out by hand for speed; it must stay the standard
    library's text to the byte."""
    from varaq.record import load_record
    from varaq.replay import summary, summary_json

    game = load_record((EXAMPLES / name).read_bytes())
    assert summary_json(game) == json.dumps(summary(game), indent=2)


def test_the_json_of_a_match_without_finished_hands_is_exact() -> None:
    from varaq import Game
    from varaq.replay import summary, summary_json

    game = Game("classic", seed=2, totals=(-40, 120))
    assert summary_json(game) == json.dumps(summary(game), indent=2)
    game.deal()
    assert summary_json(game) == json.dumps(summary(game), indent=2)


def test_replay_starts_without_the_other_commands_modules(tmp_path: Path) -> None:
    """``varaq replay`` imports what it needs and no more: not the arena (and its process
    pool), the solver, the bots or the web stack."""
    script = (
        "import sys\n"
        "from varaq.cli import main\n"
        f"status = main(['replay', {str(EXAMPLES / 'classic-match.json')!r}, '--json'])\n"
        "loaded = [m for m in ('varaq.arena', 'varaq.solver', 'varaq.bots', 'varaq.analysis',\n"
        "          'varaq.web', 'multiprocessing', 'starlette') if m in sys.modules]\n"
        "print(status, loaded, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=True)
    assert proc.stderr.strip() == "0 []"


def test_the_plain_replay_words_skip_the_parser_and_mean_what_it_means(tmp_path: Path) -> None:
    """``varaq replay FILE [--json]`` is read without argparse's parser (whose help formatter
    imports ``shutil``, ``bz2``, ``lzma`` and ``locale``), into what the parser would give."""
    record = str(EXAMPLES / "classic-match.json")
    parser = build_parser("replay")
    for words in (["replay", record], ["replay", record, "--json"], ["replay", "--json", record],
                  ["replay", "-"], ["replay", "-", "--json"]):
        fast = replay_words(words)
        assert fast is not None, words
        slow = parser.parse_args(words)
        assert vars(fast) == vars(slow), words
    # Anything else goes through the parser, which explains it.
    for words in (["replay"], ["replay", "--help"], ["replay", "a.json", "b.json"],
                  ["replay", record, "--json", "--json"], ["replay", record, "--jsn"],
                  ["replay", "--", record], ["arena", record], [record, "replay"]):
        assert replay_words(words) is None, words
    script = (
        "import sys\n"
        "from varaq.cli import main\n"
        f"status = main(['replay', {record!r}, '--json'])\n"
        "loaded = [m for m in ('shutil', 'locale', 'lzma') if m in sys.modules]\n"
        "print(status, loaded, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=True)
    assert proc.stderr.strip() == "0 []"


def test_other_commands_still_take_their_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["arena", "--help"])
    assert "--matches" in capsys.readouterr().out


def test_a_record_with_a_number_of_thousands_of_digits_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    content = '{"hands": [{"bids": {"N": ' + "9" * 5000 + "}}]}"
    status, out, err = replay(capsys, _bad(tmp_path, content))
    assert status == 2 and out == ""
    assert err == "malformed JSON: a number with thousands of digits\n"
