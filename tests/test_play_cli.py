"""``varaq play``: a match in the terminal — typed bids and cards, one-line refusals, the table
drawn after each card, and ``--daily`` dealing the web daily's cards as practice."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from varaq.actions import action_text, bid
from varaq.cards import card_text, card_unicode
from varaq.daily import DAILY_SAMPLES, DAILY_SAMPLES_FROM, daily_samples, daily_seed
from varaq.play import Terminal, draw_table
from varaq.record import to_record
from varaq.seats import S
from varaq.service.daily import Daily
from web_helpers import make_app, south_choice, wait_for_south

pytestmark = pytest.mark.timeout(240)

DAY = date(2026, 12, 1)
SECRET = b"the terminal tests' secret"


def first_legal(terminal: Terminal) -> str:
    """What a test types at the prompt: the web tests' fixed South choice."""
    view = terminal.game.view(S)
    legal = [action_text(a) for a in view.legal]
    return south_choice({"legal": legal})


def typed(terminal: Terminal, script: list[str] | None = None) -> Iterator[str]:
    """The lines a person types: ``script`` first, then a legal choice at every prompt."""
    yield from script or []
    while True:
        yield first_legal(terminal)


def play(terminal: Terminal, script: list[str] | None = None) -> str:
    out = io.StringIO()
    lines = typed(terminal, script)
    assert terminal.play(lambda prompt: next(lines), out) == 0
    return out.getvalue()


def test_a_match_is_played_to_its_end_with_the_table_drawn_after_each_card() -> None:
    terminal = Terminal.from_options(None, "daily", "easy", 11)
    text = play(terminal)
    game = terminal.game
    assert game.is_over
    hands = len(game.log)
    assert text.count("Hand 1: ") == 1 and text.count(" scored:") == hands
    assert f"in {hands} hand" in text and "Match over: you " in text
    # After every card but those that end a trick (and South's own turn), the table.
    assert text.count("North · ") >= 13 * hands
    assert "Trick: " in text and " takes it." in text


def test_mistakes_are_refused_in_one_line_and_the_prompt_comes_back() -> None:
    terminal = Terminal.from_options(None, "varaq", "easy", 3)
    out = io.StringIO()
    answers = iter(["", "help", "xx", "bid 14", "blind nil", "score", "quit"])
    terminal.play(lambda prompt: next(answers), out)
    text = out.getvalue()
    assert "Bid a number of tricks" in text
    assert "unknown action 'xx'; type 'help' for the words" in text
    assert "bid 14 is out of range 0-13" in text
    assert "You cannot blind nil: " in text
    assert "No hand has been scored yet." in text
    assert text.rstrip().endswith("Stopped; the match is not finished.")
    assert "Traceback" not in text and terminal.game.phase_name == "bid"


def test_cards_are_typed_in_any_case_with_10_for_ten() -> None:
    terminal = Terminal.from_options(None, "varaq", "easy", 3)
    out = io.StringIO()
    cards: list[int] = []

    def ask(prompt: str) -> str:
        view = terminal.game.view(S)
        if view.phase != "play":
            return first_legal(terminal)
        if len(cards) == 3:
            return "quit"
        cards.append(view.legal[-1])
        return card_text(view.legal[-1]).replace("T", "10").lower()

    terminal.play(ask, out)
    assert len(cards) == 3
    for card in cards:
        assert f"You played {card_unicode(card)}" in out.getvalue()


def test_the_drawn_table_shows_bids_tricks_the_trick_and_whose_turn() -> None:
    terminal = Terminal.from_options(None, "varaq", "easy", 3)
    game = terminal.game
    game.deal()
    while game.phase_name == "bid":
        game.apply(bid(3) if game.turn == S else game.legal_actions()[0])
    leader = game.turn
    card = game.legal_actions()[0]
    game.apply(card)
    lines = draw_table(game.view(S), terminal.names, unicode=False).splitlines()
    assert len(lines) == 6
    assert "You · bid 3, took 0" in lines[4]
    row = {0: 1, 1: 2, 3: 2, 2: 3}[leader]  # the middle: N above, W and E, then S
    shown = card_text(card).replace("T", "10", 1)
    assert shown in lines[row] and sum(shown in line for line in lines) == 1
    assert "<" in lines[{0: 0, 1: 2, 2: 4, 3: 2}[game.turn]]
    assert sum(line.count("<") for line in lines) == 1
    assert lines[5].endswith("to 500 · hand 1, trick 1")
    assert "♠" not in "".join(lines) and "♥" not in "".join(lines)


def test_the_terminal_daily_deals_the_web_daily_and_meets_the_same_players(
    tmp_path: Path,
) -> None:
    terminal = Terminal.for_day(DAY, secret=SECRET)
    assert terminal.level == "hard" and "practice" in terminal.title
    # The web daily's layouts a card, which its day decides (20 before the stronger players).
    assert terminal.bot_options == {"samples": daily_samples(DAY)} == {"samples": 20}
    later = Terminal.for_day(DAILY_SAMPLES_FROM, secret=SECRET)
    assert later.bot_options == {"samples": DAILY_SAMPLES}
    terminal.bot_options = {"samples": 1}  # as quick as the web test server's Hard players
    assert terminal.game.seed == daily_seed(SECRET, DAY)
    app = make_app(tmp_path, secret=SECRET)
    with TestClient(app) as client:
        app.state.daily = Daily(app.state.tables, samples=1, today=lambda: DAY)
        table = client.post("/api/daily/2026-12-01/start", json={}).json()["id"]
        # South plays the same fixed choices at both tables, to the end of the first hand.
        while True:
            state = wait_for_south(client, table)
            if state["view"]["phase"] != "play" and state["view"]["phase"] != "bid":
                break
            client.post(f"/api/games/{table}/actions",
                        json={"action": south_choice(state["view"]),
                              "version": state["version"]})
        web = client.get(f"/api/games/{table}/record").json()["hands"][0]

    out = io.StringIO()

    def ask(prompt: str) -> str:
        return "quit" if terminal.game.log else first_legal(terminal)

    terminal.play(ask, out)
    assert to_record(terminal.game)["hands"][0] == web


def test_varaq_play_reads_what_is_typed_and_refuses_bad_options_in_one_line(
    tmp_path: Path,
) -> None:
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src, "VARAQ_SECRET": "a secret for this test",
           "VARAQ_HOME": str(tmp_path)}
    command = [sys.executable, "-m", "varaq.cli", "play"]
    done = subprocess.run([*command, "--bots", "easy", "--seed", "2"], input="nonsense\nquit\n",
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "unknown action 'nonsense'" in done.stdout and "Your cards: " in done.stdout
    daily = subprocess.run([*command, "--daily"], input="", capture_output=True, text=True,
                           env=env, timeout=120)
    assert daily.returncode == 0 and "practice, not counted" in daily.stdout
    for options, words in (
        (["--daily", "2999-01-01"], "not out yet"),
        (["--daily", "yesterday"], "YYYY-MM-DD"),
        (["--daily", "2026-12-01", "--seed", "4"], "do not go together"),
        (["--rules", "nope"], "unknown preset"),
        (["--daily", "--rules", "classic"], "leave out --rules"),
    ):
        refused = subprocess.run([*command, *options], input="", capture_output=True,
                                 text=True, env=env, timeout=60)
        assert refused.returncode == 2, options
        assert words in refused.stderr and len(refused.stderr.splitlines()) == 1
