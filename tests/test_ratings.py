"""Ratings: what the server stores after a match of people is what openskill gives for the
same teams worked here directly; ``varaq ratings rebuild`` gives exactly the live ratings; a
computer player counts at its level's fixed rating and is never rated; the counts a profile
sums are the engine's scored hands."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import select
from starlette.testclient import TestClient

from online_helpers import Person, sign_up, wait_until
from varaq.cli import main as varaq
from varaq.engine import Game
from varaq.rules import Rules
from varaq.service.ratings import (
    BOT_RATINGS,
    PROVISIONAL,
    PlayedRow,
    RatingRow,
    seat_counts,
)
from varaq.service.store import Store
from web_helpers import db_url, make_app

pytestmark = pytest.mark.timeout(120)

SEATS = "NESW"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = make_app(tmp_path, drop_seconds=0.3, next_hand_seconds=0.5, turn_second=0.01)
    with TestClient(app) as c:
        yield c


def seated(host: Person, *others: Person, bots: int = 0, level: str = "easy") -> tuple[
        str, dict[str, int]]:
    """A private table of ``host`` and ``others`` (computer players in ``bots`` seats),
    started; its id and who sits where (seat letter -> user id, people only)."""
    doc = host.ok("/api/tables", {"level": level, "fill_bots": bool(bots), "rules": "varaq"},
                  status=201)
    tid = doc["id"]
    for person in others:
        person.ok("/api/tables/join", {"code": doc["code"]})
    host.ok(f"/api/games/{tid}/start")
    seats: dict[str, int] = {}
    for person in (host, *others):
        seats[host.state(tid)["you"] if person is host else person.state(tid)["you"]] = person.id
    return tid, seats


def conceded(person: Person, tid: str) -> str:
    """``person`` concedes (their partner is away, so at once); the winning side."""
    doc = person.ok(f"/api/games/{tid}/concede")
    assert doc["concede"] == "conceded", doc
    return str(doc["view"]["winner"])


def stored(tmp_path: Path) -> tuple[dict[int, tuple[float, float, int]], list[tuple[Any, ...]]]:
    """The ratings and the match rows as the database holds them."""
    store = Store(db_url(tmp_path))
    try:
        with store.engine.connect() as c:
            ratings = {int(r[0]): (float(r[1]), float(r[2]), int(r[3])) for r in c.execute(
                select(RatingRow.user_id, RatingRow.mu, RatingRow.sigma, RatingRow.matches))}
            rows = [tuple(r) for r in c.execute(
                select(PlayedRow.table_id, PlayedRow.user_id, PlayedRow.kind, PlayedRow.seat,
                       PlayedRow.won, PlayedRow.mu, PlayedRow.sigma, PlayedRow.hands,
                       PlayedRow.points, PlayedRow.total_ns, PlayedRow.total_ew)
                .order_by(PlayedRow.finished, PlayedRow.user_id))]
    finally:
        store.close()
    return ratings, rows


def rated_count(tmp_path: Path, n: int) -> dict[int, tuple[float, float, int]]:
    """The ratings once ``n`` match rows are stored (the live rating runs in a thread)."""
    ratings: dict[int, tuple[float, float, int]] = wait_until(
        lambda: (r := stored(tmp_path))[1] and len(r[1]) >= n and r[0], f"{n} match rows")
    return ratings


def test_four_people_move_exactly_as_openskill_says(client: TestClient,
                                                    tmp_path: Path) -> None:
    ana, bo, cai, dee = (sign_up(client, n) for n in ("Ana", "Bo", "Cai", "Dee"))
    tid, seats = seated(ana, bo, cai, dee)
    assert len(seats) == 4
    winner = conceded(ana, tid)
    assert winner == "EW"
    ratings = rated_count(tmp_path, 4)
    # Worked here: everyone starts at openskill's default; EW beat NS.
    model = PlackettLuce()
    ns = [model.rating(), model.rating()]
    ew = [model.rating(), model.rating()]
    new_ns, new_ew = model.rate([ns, ew], ranks=[2, 1])
    for letter, uid in seats.items():
        expected = (new_ns if letter in "NS" else new_ew)[0]
        mu, sigma, matches = ratings[uid]
        assert (mu, sigma, matches) == (expected.mu, expected.sigma, 1)
    # The winners went up, the losers down, by the same amount.
    assert ratings[seats["E"]][0] > 25 > ratings[seats["S"]][0]


def test_a_computer_player_counts_at_its_levels_fixed_rating(client: TestClient,
                                                             tmp_path: Path) -> None:
    ana, bo = sign_up(client, "Ana"), sign_up(client, "Bo")
    tid, seats = seated(ana, bo, bots=2, level="hard")
    assert set(seats) == {"S", "N"}  # partners against two computer players
    conceded(ana, tid)
    ratings = rated_count(tmp_path, 2)
    assert set(ratings) == {ana.id, bo.id}  # the computer players have no rating of their own
    model = PlackettLuce()
    mu, sigma = BOT_RATINGS["hard"]
    people = [model.rating(), model.rating()]
    bots = [model.rating(mu=mu, sigma=sigma), model.rating(mu=mu, sigma=sigma)]
    new_people, _ = model.rate([people, bots], ranks=[2, 1])
    assert ratings[ana.id][:2] == (new_people[1].mu, new_people[1].sigma)
    assert ratings[bo.id][:2] == (new_people[0].mu, new_people[0].sigma)


def test_rebuild_gives_exactly_the_live_ratings(client: TestClient, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    ana, bo, cai, dee = (sign_up(client, n) for n in ("Ana", "Bo", "Cai", "Dee"))
    first, _ = seated(ana, bo, cai, dee)
    conceded(ana, first)
    rated_count(tmp_path, 4)
    # Ana and Cai again, partners this time, with two computer players; then a third match.
    second, _ = seated(cai, ana, bots=2)
    conceded(cai, second)
    rated_count(tmp_path, 6)
    third, _ = seated(dee, bo, cai, bots=1)
    conceded(bo, third)
    live = rated_count(tmp_path, 9)
    live_rows = stored(tmp_path)[1]
    assert sum(m for _, _, m in live.values()) == 9 and len(live) == 4
    assert varaq(["ratings", "rebuild", "--db", db_url(tmp_path)]) == 0
    line = capsys.readouterr().out.strip().splitlines()
    assert len(line) == 1 and line[0].startswith("rebuilt 4 ratings from 3 rated matches")
    again, rows = stored(tmp_path)
    assert again == live
    assert rows == live_rows


def test_an_unfinished_match_moves_nothing(client: TestClient, tmp_path: Path) -> None:
    ana, bo = sign_up(client, "Ana"), sign_up(client, "Bo")
    seated(ana, bo, bots=2)
    assert stored(tmp_path) == ({}, [])


def test_the_counts_are_the_engines_scored_hands() -> None:
    """Six hands played at random: every hand a seat played is a contract or a nil, a
    contract is made or set, and its side's points add up to the total."""
    rng = random.Random(7)
    game = Game(Rules.from_spec({"preset": "varaq", "blind_nil": True, "blind_nil_trail": 0}),
                seed=11)
    while len(game.log) < 6 and not game.is_over:
        if game.phase_name == "deal":
            game.deal()
            continue
        game.apply(rng.choice(game.legal_actions()))
    assert game.log
    for seat in range(4):
        counts = seat_counts(game, seat)
        assert counts["hands"] == len(game.log)
        assert counts["made"] + counts["set"] == counts["contracts"]
        assert counts["contracts"] + counts["nils"] + counts["blind_nils"] == counts["hands"]
        assert counts["nils_made"] <= counts["nils"]
        assert counts["points"] == game.totals[seat & 1]
        assert counts["bags"] == sum(h.result.new_bags[seat & 1] for h in game.log)


def test_provisional_means_fewer_than_ten_matches() -> None:
    from varaq.service.ratings import show_rating

    shown = show_rating(27.0, 5.0, PROVISIONAL - 1)
    assert shown["provisional"] and (shown["low"], shown["high"]) == (17.0, 37.0)
    assert not show_rating(27.0, 5.0, PROVISIONAL)["provisional"]


def test_the_ratings_migration_goes_up_and_down(tmp_path: Path) -> None:
    from alembic import command

    from varaq.service.migrations import HEAD, _config, current, upgrade
    from varaq.service.store import make_engine

    engine = make_engine(db_url(tmp_path))
    upgrade(engine, "0005")
    assert upgrade(engine) == "0005" and current(engine) == HEAD
    with engine.connect() as c:
        names = set(c.exec_driver_sql("select name from sqlite_master").scalars())
    assert {"ratings", "player_matches", "ix_player_matches_user_finished"} <= names
    with engine.begin() as connection:
        command.downgrade(_config(connection), "0005")  # type: ignore[arg-type]
    with engine.connect() as c:
        names = set(c.exec_driver_sql("select name from sqlite_master").scalars())
    assert not {"ratings", "player_matches"} & names
    engine.dispose()
