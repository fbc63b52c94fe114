"""Friends: following and blocking by name, invitations to a table, and who is online."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from online_helpers import Person, receive_within, sign_up, wait_until
from varaq.service import friends
from varaq.service.errors import Refusal
from varaq.service.friends import BlockRow, FollowRow, InviteRow
from varaq.service.store import Store
from web_helpers import db_url, make_app

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path)) as c:
        yield c


@pytest.fixture
def people(client: TestClient) -> tuple[Person, Person, Person]:
    return sign_up(client, "Ana"), sign_up(client, "Bo"), sign_up(client, "Cy")


def store_of(client: TestClient) -> Store:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    return store


def rows(client: TestClient) -> tuple[int, int, int]:
    """How many follows, blocks and invitations the database holds."""
    with store_of(client).engine.connect() as connection:
        return tuple(  # type: ignore[return-value]
            int(connection.scalar(select(func.count()).select_from(row)) or 0)
            for row in (FollowRow, BlockRow, InviteRow))


def refused(person: Person, path: str, body: Any, status: int, words: str) -> None:
    response = person.post(path, body)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert words in error and "\n" not in error


def open_table(host: Person) -> str:
    doc = host.ok("/api/tables", {"level": "easy", "fill_bots": True, "rules": "varaq"},
                  status=201)
    return str(doc["id"])


def test_following_lists_the_person_and_unfollowing_takes_them_off(
        people: tuple[Person, Person, Person]) -> None:
    ana = people[0]
    doc = ana.ok("/api/friends/follow", {"name": "bo"})
    assert [p["name"] for p in doc["following"]] == ["Bo"]
    assert doc["following"][0]["status"] == "offline"
    assert doc["following"][0]["profile"] == "/players/Bo"
    assert ana.ok("/api/friends/unfollow", {"name": "Bo"})["following"] == []


def test_bad_follows_get_one_line_and_change_nothing(
        client: TestClient, people: tuple[Person, Person, Person]) -> None:
    ana = people[0]
    ana.ok("/api/friends/follow", {"name": "Bo"})
    before = rows(client)
    refused(ana, "/api/friends/follow", {"name": "Nobody Here"}, 404, "no player is called")
    refused(ana, "/api/friends/follow", {"name": "Ana"}, 400, "your own name")
    refused(ana, "/api/friends/follow", {"name": "Bo"}, 409, "already follow Bo")
    refused(ana, "/api/friends/follow", {"name": 7}, 400, "name a player")
    refused(ana, "/api/friends/follow", {}, 400, "name a player")
    refused(ana, "/api/friends/unfollow", {"name": "Cy"}, 409, "do not follow Cy")
    refused(ana, "/api/friends/unblock", {"name": "Cy"}, 409, "have not blocked Cy")
    refused(ana, "/api/friends/befriend", {"name": "Cy"}, 404, "no such change")
    assert rows(client) == before


def test_a_suspended_account_cannot_be_followed(
        client: TestClient, people: tuple[Person, Person, Person]) -> None:
    from varaq.service.admin import Admin

    ana, _, _ = people
    Admin(store_of(client), "test").ban("Cy", "spam")
    refused(ana, "/api/friends/follow", {"name": "Cy"}, 403, "suspended")
    assert rows(client) == (0, 0, 0)


def test_friends_need_an_account_and_this_sites_pages(
        client: TestClient, people: tuple[Person, Person, Person]) -> None:
    client.cookies.clear()
    assert client.get("/api/friends").status_code == 401
    assert client.post("/api/friends/follow", json={"name": "Bo"}).status_code == 401
    ana = people[0]
    client.cookies.clear()
    response = client.post("/api/friends/follow", json={"name": "Bo"},
                           headers={**ana.headers, "Origin": "https://elsewhere.example"})
    assert response.status_code == 403
    assert rows(client) == (0, 0, 0)


def test_a_block_ends_both_follows_and_keeps_the_blocked_from_following(
        client: TestClient, people: tuple[Person, Person, Person]) -> None:
    ana, bo, _ = people
    ana.ok("/api/friends/follow", {"name": "Bo"})
    bo.ok("/api/friends/follow", {"name": "Ana"})
    doc = ana.ok("/api/friends/block", {"name": "Bo"})
    assert doc["blocked"] == ["Bo"] and doc["following"] == []
    assert bo.get("/api/friends").json()["following"] == []
    refused(bo, "/api/friends/follow", {"name": "Ana"}, 403, "cannot be followed")
    refused(ana, "/api/friends/follow", {"name": "Bo"}, 409, "unblock them first")
    refused(ana, "/api/friends/block", {"name": "Bo"}, 409, "already blocked Bo")
    assert rows(client) == (0, 1, 0)
    assert ana.ok("/api/friends/unblock", {"name": "Bo"})["blocked"] == []


def test_a_blocked_person_cannot_join_the_blockers_table(
        people: tuple[Person, Person, Person]) -> None:
    ana, bo, cy = people
    ana.ok("/api/friends/block", {"name": "Bo"})
    doc = ana.ok("/api/tables", {"level": "easy", "fill_bots": True}, status=201)
    refused(bo, "/api/tables/join", {"code": doc["code"]}, 403, "blocked you")
    seats = ana.state(doc["id"])["table"]["seats"]
    assert [s["kind"] for s in seats].count("person") == 1
    cy.ok("/api/tables/join", {"code": doc["code"]})  # anyone else still may


def test_an_invitation_reaches_the_invited_persons_socket_and_joins_them(
        client: TestClient, people: tuple[Person, Person, Person]) -> None:
    ana, bo, _ = people
    table_id = open_table(ana)
    client.cookies.clear()
    with client.websocket_connect("/ws/me", headers=bo.headers) as ws:
        assert receive_within(ws) == {"type": "hello", "invites": []}
        made = ana.ok("/api/invites", {"name": "Bo", "table": table_id}, status=201)
        assert made["invited"] == "Bo"
        message = receive_within(ws)
    assert message["type"] == "invite"
    invite = message["invite"]
    assert invite["from"] == "Ana" and invite["table"] == table_id
    assert "to" not in invite and "code" not in invite
    assert [i["id"] for i in bo.get("/api/friends").json()["invites"]] == [invite["id"]]
    joined = bo.ok(f"/api/invites/{invite['id']}/join")
    assert joined["id"] == table_id and joined["seat"] == "N"
    assert bo.get("/api/friends").json()["invites"] == []
    refused(bo, f"/api/invites/{invite['id']}/join", {}, 409, "answered already")


def test_inviting_is_for_a_seated_person_at_an_open_private_table(
        client: TestClient, people: tuple[Person, Person, Person]) -> None:
    ana, bo, cy = people
    table_id = open_table(ana)
    refused(cy, "/api/invites", {"name": "Bo", "table": table_id}, 403, "table you sit at")
    refused(ana, "/api/invites", {"name": "Ana", "table": table_id}, 400, "your own name")
    refused(ana, "/api/invites", {"name": "Zed", "table": table_id}, 404, "no player")
    refused(ana, "/api/invites", {"name": "Bo"}, 400, '"table"')
    refused(ana, "/api/invites", {"name": "Bo", "table": "no-such-table-id"}, 404, "no game")
    solo = client.post("/api/games", json={"level": "easy"}, headers=ana.headers).json()["id"]
    refused(ana, "/api/invites", {"name": "Bo", "table": solo}, 409, "private tables")
    ana.ok("/api/invites", {"name": "Bo", "table": table_id}, status=201)
    bo.ok("/api/tables/join", {"code": ana.state(table_id)["table"]["code"]})
    refused(ana, "/api/invites", {"name": "Bo", "table": table_id}, 409, "already sits")
    assert rows(client)[2] == 1


def test_a_block_drops_invitations_and_refuses_new_ones(
        client: TestClient, people: tuple[Person, Person, Person]) -> None:
    ana, bo, _ = people
    table_id = open_table(ana)
    made = ana.ok("/api/invites", {"name": "Bo", "table": table_id}, status=201)
    assert made["invited"] == "Bo"
    bo.ok("/api/friends/block", {"name": "Ana"})
    assert bo.get("/api/friends").json()["invites"] == []
    refused(ana, "/api/invites", {"name": "Bo", "table": table_id}, 403, "does not take")
    invite_id = store_invites(client)[0]
    refused(bo, f"/api/invites/{invite_id}/join", {}, 409, "answered already")


def store_invites(client: TestClient) -> list[int]:
    with store_of(client).engine.connect() as connection:
        return [int(i) for i in connection.scalars(select(InviteRow.id))]


def test_inviting_again_renews_and_dismissing_ends_it(
        client: TestClient, people: tuple[Person, Person, Person]) -> None:
    ana, bo, cy = people
    table_id = open_table(ana)
    ana.ok("/api/invites", {"name": "Bo", "table": table_id}, status=201)
    ana.ok("/api/invites", {"name": "Bo", "table": table_id}, status=201)
    invites = bo.get("/api/friends").json()["invites"]
    assert len(invites) == 1 and rows(client)[2] == 1
    refused(cy, f"/api/invites/{invites[0]['id']}/dismiss", {}, 404, "no standing invitation")
    refused(bo, "/api/invites/12x/dismiss", {}, 404, "no invitation")
    refused(bo, f"/api/invites/{invites[0]['id']}/accept", {}, 400, '"join" or "dismiss"')
    assert bo.ok(f"/api/invites/{invites[0]['id']}/dismiss") == {"dismissed": invites[0]["id"]}
    assert bo.get("/api/friends").json()["invites"] == []


def test_an_invitation_lapses(tmp_path: Path) -> None:
    store = Store(db_url(tmp_path))
    ana = store.create_user("Ana", "ana", "x")
    bo = store.create_user("Bo", "bo", "x")
    store.create_table(table_id="t" * 12, kind="private", level="easy", rules="varaq", seed="1",
                       start={}, options={}, status="seating", entries=[], code="K7WQ3M",
                       host=ana, seats={2: ana})
    then = datetime(2026, 1, 1, tzinfo=UTC)
    made = friends.invite(store, ana, "Bo", "t" * 12, now=then)
    assert friends.invites_for(store, bo, then + timedelta(minutes=29))[0]["id"] == made["id"]
    later = then + timedelta(minutes=friends.INVITE_MINUTES)
    assert friends.invites_for(store, bo, later) == []
    with pytest.raises(Refusal, match="lapsed"):
        friends.invite_to_join(store, bo, made["id"], later)
    store.close()


def test_presence_counts_fresh_rows_only(tmp_path: Path) -> None:
    store = Store(db_url(tmp_path))
    ana = store.create_user("Ana", "ana", "x")
    bo = store.create_user("Bo", "bo", "x")
    now = datetime(2026, 1, 1, tzinfo=UTC)
    friends.write_presence(store, "node-a", {ana: 2}, now)
    friends.write_presence(store, "node-b", {bo: 1}, now - timedelta(minutes=5))
    assert friends.online(store, [ana, bo], now) == {ana}
    friends.write_presence(store, "node-a", {}, now)
    assert friends.online(store, [ana, bo], now) == set()
    store.close()


def test_a_followed_person_with_a_page_open_shows_online_then_at_a_table(
        client: TestClient, people: tuple[Person, Person, Person]) -> None:
    ana, bo, _ = people
    ana.ok("/api/friends/follow", {"name": "Bo"})
    client.cookies.clear()
    with client.websocket_connect("/ws/me", headers=bo.headers) as ws:
        receive_within(ws)
        entry = ana.get("/api/friends").json()["following"][0]
        assert (entry["status"], entry["link"]) == ("online", None)
        open_table(bo)
        entry = ana.get("/api/friends").json()["following"][0]
        # A private table: where it is stays Bo's (no link), only that Bo sits at one.
        assert entry["status"] == "table" and entry["link"] is None
    # The page's row goes when the server has seen the socket close (a moment after it).
    wait_until(lambda: ana.get("/api/friends").json()["following"][0]["status"] == "offline",
               "Bo offline once the page closed")


def test_the_panel_offers_the_table_one_may_invite_to(
        people: tuple[Person, Person, Person]) -> None:
    ana, _, _ = people
    assert ana.get("/api/friends").json()["invite_table"] is None
    table_id = open_table(ana)
    assert ana.get("/api/friends").json()["invite_table"]["id"] == table_id


def test_a_signed_out_page_socket_is_told_and_closed(client: TestClient) -> None:
    client.cookies.clear()
    with client.websocket_connect("/ws/me") as ws:
        assert receive_within(ws) == {"type": "signed-out"}
