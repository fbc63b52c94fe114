"""Storage and the journal: games rows, optimistic versions, exact rebuilds, and what the browser
is shown never depending on cards South cannot see."""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

import pytest

from varaq.actions import BID, BLIND_NIL, LOOK
from varaq.cards import SUIT_OF, cards_of
from varaq.engine import Game
from varaq.rules import Rules
from varaq.seats import E, N, S, W
from varaq.service.journal import Journal, JournalError, event_json, record_of
from varaq.service.store import StaleWrite, Store, default_db_url
from varaq.service.tables import Table

# -- the games table ----------------------------------------------------------------------


def journal_doc(seed: int = 1) -> dict[str, Any]:
    return Journal.new("varaq", seed).to_json()


def test_insert_load_and_save_after_a_version(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    doc = journal_doc()
    store.insert("game-0001", "normal", doc, {"format": "varaq-record/1"}, 1, "playing")
    got = store.load("game-0001")
    assert got is not None
    assert (got.level, got.version, got.status, got.journal) == ("normal", 1, "playing", doc)
    doc2 = dict(doc, entries=["deal", "E bid 3"])
    store.save("game-0001", 1, doc2, {"format": "varaq-record/1", "x": 1}, 2, "playing")
    got = store.load("game-0001")
    assert got is not None and got.version == 2 and got.journal["entries"] == ["deal", "E bid 3"]
    assert store.record("game-0001") == {"format": "varaq-record/1", "x": 1}
    with pytest.raises(StaleWrite):  # a second writer that read version 1 loses
        store.save("game-0001", 1, doc, {}, 2, "playing")
    assert store.load("game-0001").version == 2  # type: ignore[union-attr]
    assert store.load("no-such-game") is None and store.record("no-such-game") is None
    assert store.count() == 1
    store.close()


def test_rows_survive_a_new_store_on_the_same_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sub' / 'g.db'}"  # the folder is created
    first = Store(url)
    first.insert("game-0002", "hard", journal_doc(5), {}, 1, "playing")
    first.close()
    again = Store(url)
    assert again.load("game-0002").journal["seed"] == 5  # type: ignore[union-attr]
    again.close()


def test_an_in_memory_database_is_shared_between_threads() -> None:
    store = Store("sqlite://")
    store.insert("game-0003", "easy", journal_doc(), {}, 1, "playing")
    found: list[object] = []
    worker = threading.Thread(target=lambda: found.append(store.load("game-0003")))
    worker.start()
    worker.join()
    assert found[0] is not None


def test_default_database_is_varaq_db_or_the_user_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VARAQ_DB", "sqlite:////somewhere/else.db")
    assert default_db_url() == "sqlite:////somewhere/else.db"
    monkeypatch.delenv("VARAQ_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    url = default_db_url()
    assert url == f"sqlite:///{tmp_path / 'data' / 'varaq' / 'varaq.db'}"
    assert (tmp_path / "data" / "varaq").is_dir()


# -- the journal --------------------------------------------------------------------------


def played_journal(seed: int, steps: int, rules: str = "classic") -> tuple[Journal, Game]:
    """A journal of ``steps`` actions chosen at random (legal), as a table would keep it."""
    journal = Journal.new(rules, seed)
    game = journal.new_game()
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        event = game.deal() if game.phase_name == "deal" else game.apply(
            rng.choice(game.legal_actions()))
        journal.record_entry(game, event)
    return journal, game


@pytest.mark.parametrize(("seed", "steps"), [(1, 1), (2, 30), (3, 57), (4, 130)])
def test_a_replayed_journal_is_the_same_game(seed: int, steps: int) -> None:
    journal, game = played_journal(seed, steps)
    rebuilt, events = Journal.from_json(journal.to_json()).replay()
    assert len(events) == len(journal.entries)
    for seat in (N, E, S, W):
        assert rebuilt.view(seat) == game.view(seat)
    assert rebuilt.legal_actions() == game.legal_actions()
    assert record_of(rebuilt) == record_of(game)
    # The seed is kept, so the hands still to come are the same deals.
    while not game.is_over:
        if game.phase_name == "deal":
            assert rebuilt.deal() == game.deal()
            assert rebuilt.hands == game.hands
            break
        action = game.legal_actions()[0]
        game.apply(action)
        rebuilt.apply(action)


def test_a_journal_that_does_not_replay_says_where() -> None:
    journal, _ = played_journal(7, 10)
    journal.entries[5] = "S ZZ"
    with pytest.raises(JournalError, match=r"entry 6 \('S ZZ'\) does not replay"):
        journal.replay()
    with pytest.raises(JournalError, match="not a varaq-journal/1"):
        Journal.from_json({"format": "something"})


def test_journal_keeps_start_score_and_first_dealer() -> None:
    journal = Journal.new({"preset": "classic", "target": 300}, 9, (0, 150), (3, 1), dealer=N)
    doc = journal.to_json()
    assert doc["start"] == {"total": {"NS": 0, "EW": 150}, "bags": {"NS": 3, "EW": 1}}
    assert doc["dealer"] == "N" and doc["rules"] == {"preset": "classic", "target": 300}
    game = Journal.from_json(doc).new_game()
    game.deal()
    assert game.totals == [0, 150] and game.bags == [3, 1] and game.dealer == N
    assert game.phase_name == "blind"  # NS trails by 150: blind nil is open


# -- what the browser sees never depends on hidden cards -----------------------------------


def shown(game: Game, events: list[dict[str, Any]]) -> dict[str, Any]:
    """Exactly what the server sends: the STATE and the last event message."""
    table = Table("g" * 22, "easy", Journal.new(game.rules, 0), game, events, None)  # type: ignore[arg-type]
    return {"state": table.state(0), "last": events[-1]}


def swap_hidden_cards(hands: list[int], played: int, rng: random.Random) -> list[int]:
    """Swap unplayed cards of the same suit between the seats South cannot see.

    Every seat keeps its suit lengths and its played cards, so the same bids and plays stay
    legal in the new layout, while the unseen cards are different.
    """
    out = hands[:]
    for _ in range(40):
        a, b = rng.sample([N, E, W], 2)
        ca = [c for c in cards_of(out[a]) if not played >> c & 1]
        cb = [c for c in cards_of(out[b]) if not played >> c & 1]
        pairs = [(x, y) for x in ca for y in cb if SUIT_OF[x] == SUIT_OF[y]]
        if pairs:
            x, y = rng.choice(pairs)
            out[a] ^= (1 << x) | (1 << y)
            out[b] ^= (1 << x) | (1 << y)
    return out


def replay_actions(
    rules: Rules, hands: list[int], dealer: int, actions: list[int],
    totals: tuple[int, int] = (0, 0),
) -> tuple[Game, list[dict[str, Any]]]:
    game = Game(rules, seed=0, totals=totals, dealer=dealer)
    events = [event_json(1, game.deal(hands=hands, dealer=dealer))]
    for action in actions:
        events.append(event_json(len(events) + 1, game.apply(action)))
    return game, events


@pytest.mark.parametrize("seed", range(6))
def test_what_south_is_shown_does_not_depend_on_hidden_cards(seed: int) -> None:
    rules = Rules.named("classic")
    rng = random.Random(seed)
    game = Game(rules, seed=seed, dealer=seed % 4)
    game.deal()
    hands0 = list(game.hands)
    actions = []
    stop = rng.randrange(5, 52)  # bids and some cards, stopping anywhere in the hand
    while len(actions) < stop and game.phase_name in ("bid", "play"):
        action = rng.choice(game.legal_actions())
        game.apply(action)
        actions.append(action)
    for _ in range(3):
        other = swap_hidden_cards(hands0, game.played, rng)
        assert other != hands0 and other[S] == hands0[S]
        a, ev_a = replay_actions(rules, hands0, game.dealer, actions)
        b, ev_b = replay_actions(rules, other, game.dealer, actions)
        assert a.hands != b.hands
        assert shown(a, ev_a) == shown(b, ev_b)


def test_an_east_west_exchange_shows_south_nothing_of_the_cards() -> None:
    rules = Rules.named("classic")
    deck = list(range(52))
    random.Random(3).shuffle(deck)
    base = [sum(1 << c for c in deck[i::4]) for i in range(4)]
    other = swap_hidden_cards(base, 0, random.Random(8))
    results = []
    for hands in (base, other):
        # EW trails by 150; dealer S: West decides first, bids blind nil; then the bids.
        game = Game(rules, seed=0, totals=(150, 0), dealer=S)
        events = [event_json(1, game.deal(hands=hands, dealer=S))]

        def act(action: int, game: Game = game, events: list[dict[str, Any]] = events) -> None:
            events.append(event_json(len(events) + 1, game.apply(action)))

        act(BLIND_NIL)  # West
        for value in (3, 4, 3):  # North, East, South bid (West's blind nil stands)
            act(BID + value)
        while game.phase_name == "exchange":  # East passes two, then West two back
            act(min(game.legal_actions()))
        assert game.phase_name == "play"
        results.append((shown(game, events), game.hands[E], game.exchanged[E]))
    (shown_a, east_a, gave_a), (shown_b, east_b, gave_b) = results
    assert east_a != east_b and gave_a != gave_b
    assert shown_a == shown_b
    passes = [e for e in shown_a["state"]["events"] if e["kind"] == "pass"]
    assert len(passes) == 4 and all(e["action"] is None for e in passes)


def test_south_sees_its_own_passes() -> None:
    game = Game(Rules.named("classic"), seed=2, totals=(0, 150), dealer=N)
    game.deal()
    events = []
    assert game.turn == S and game.phase_name == "blind"
    game.apply(BLIND_NIL)  # South
    while game.phase_name != "exchange":
        game.apply(LOOK if game.phase_name == "blind" else max(game.legal_actions()))
    while game.phase_name == "exchange":
        events.append(event_json(1, game.apply(min(game.legal_actions()))))
    assert [e["seat"] for e in events] == ["N", "N", "S", "S"]
    assert [e["action"] is None for e in events] == [True, True, False, False]


def test_tables_state_is_built_from_souths_view_only() -> None:
    journal, game = played_journal(11, 40)
    _, events = journal.replay()
    st = shown(game, events)["state"]
    assert st["view"] == game.view(S).to_json()
