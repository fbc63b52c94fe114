"""Sessions the server can end: signing out, signing out everywhere, a new id at each sign-in,
idle and absolute expiry, and wrong passwords that cannot lock the owner out.

Each test here failed against the 0.2 server, whose cookie held the user id and could not be
taken back, and whose wrong-password limit was per name from anywhere.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import HTTPConnection
from starlette.testclient import TestClient
from starlette.types import ASGIApp, Receive, Scope, Send

from online_helpers import Person, sign_up, wait_until
from varaq.service.settings import Limits
from varaq.service.store import Store
from varaq.web.sessions import COOKIE, Sessions
from web_helpers import make_app


def account(client: TestClient, cookie: str | bytes | None, **headers: Any) -> dict[str, Any]:
    client.cookies.clear()
    if cookie is not None:
        headers["Cookie"] = (f"{COOKIE}=".encode() + cookie if isinstance(cookie, bytes)
                             else f"{COOKIE}={cookie}")
    response = client.get("/api/account", headers=headers)
    assert response.status_code == 200, response.text
    doc: dict[str, Any] = response.json()
    return doc


def sign_in(client: TestClient, name: str, password: str = "correct horse",
            cookie: str | None = None, address: str | None = None) -> Any:
    client.cookies.clear()
    headers = {}
    if cookie is not None:
        headers["Cookie"] = f"{COOKIE}={cookie}"
    if address is not None:
        headers[FROM] = address
    return client.post("/api/account/signin", json={"name": name, "password": password},
                       headers=headers)


def cookie_of(response: Any) -> str:
    assert response.status_code in (200, 201), response.text
    value: str = response.cookies[COOKIE]
    return value


def signed_in_as(client: TestClient, cookie: str) -> str | None:
    doc = account(client, cookie)
    return doc["name"] if doc["signed_in"] else None


# -- signing out ---------------------------------------------------------------------------


def test_a_cookie_saved_before_signing_out_is_signed_out(client: TestClient) -> None:
    ana = sign_up(client, "Ana")
    saved = ana.cookie
    table = ana.ok("/api/tables", {"level": "easy", "fill_bots": True}, status=201)["id"]
    assert ana.ok("/api/account/signout") == {"signed_in": False}
    # The browser forgot the cookie; someone kept a copy of it.
    copy = Person(client, "Ana", saved, ana.id)
    assert copy.get("/api/account").json() == {"signed_in": False}
    started = copy.post(f"/api/games/{table}/start")
    assert started.status_code in (401, 403), started.text
    phrase = copy.post(f"/api/games/{table}/phrase", {"phrase": "gg"})
    assert phrase.status_code in (401, 403), phrase.text
    # Signing out again with it changes nothing and is no error.
    assert copy.ok("/api/account/signout") == {"signed_in": False}
    # Ana signs in again and has her table back: the account was never the problem.
    again = Person(client, "Ana", cookie_of(sign_in(client, "Ana")), ana.id)
    assert again.cookie != saved
    assert [t["id"] for t in again.get("/api/account").json()["tables"]] == [table]


def test_a_socket_open_before_the_sign_out_stops_speaking_for_that_person(
    client: TestClient,
) -> None:
    """A socket's scope lives as long as the socket: who it speaks for is asked again each
    time, so signing out elsewhere turns it into a watcher's (one that never signed in)."""
    ana, bo = sign_up(client, "Ana"), sign_up(client, "Bo")
    app = client.app
    identity = app.state.identity  # type: ignore[attr-defined]

    def socket_of(person: Person) -> HTTPConnection:
        return HTTPConnection({
            "type": "websocket", "app": app, "path": "/ws/games/x", "query_string": b"",
            "headers": [(b"cookie", f"{COOKIE}={person.cookie}".encode())],
        })

    sockets = socket_of(ana), socket_of(bo)
    assert [identity.user_id(s) for s in sockets] == [ana.id, bo.id]
    assert ana.ok("/api/account/signout") == {"signed_in": False}
    assert [identity.user_id(s) for s in sockets] == [None, bo.id]


def test_sign_out_everywhere_ends_every_session_of_that_person(client: TestClient) -> None:
    bo = sign_up(client, "Bo")
    laptop = bo.cookie
    phone = cookie_of(sign_in(client, "Bo"))
    cai = sign_up(client, "Cai")
    assert laptop != phone
    assert signed_in_as(client, laptop) == signed_in_as(client, phone) == "Bo"
    client.cookies.clear()
    done = client.post("/api/account/signout-everywhere", json={},
                       headers={"Cookie": f"{COOKIE}={phone}"})
    assert done.status_code == 200, done.text
    assert done.json() == {"signed_in": False, "ended": 2}
    assert COOKIE in done.headers["set-cookie"] and "Max-Age=0" in done.headers["set-cookie"]
    assert signed_in_as(client, laptop) is None and signed_in_as(client, phone) is None
    assert signed_in_as(client, cai.cookie) == "Cai"  # nobody else's
    # With no session, there is nobody to sign out.
    client.cookies.clear()
    nobody = client.post("/api/account/signout-everywhere", json={},
                         headers={"Cookie": f"{COOKIE}={phone}"})
    assert nobody.status_code == 401
    assert signed_in_as(client, cookie_of(sign_in(client, "Bo"))) == "Bo"


def test_every_sign_in_is_a_new_session(client: TestClient) -> None:
    dee = sign_up(client, "Dee")
    first, second = (cookie_of(sign_in(client, "Dee")) for _ in range(2))
    assert len({dee.cookie, first, second}) == 3
    # Separate sign-ins are separate sessions: each lasts until its own sign-out.
    client.cookies.clear()
    client.post("/api/account/signout", json={}, headers={"Cookie": f"{COOKIE}={first}"})
    assert signed_in_as(client, first) is None
    assert signed_in_as(client, second) == signed_in_as(client, dee.cookie) == "Dee"
    # Signing in where a session is presented replaces it: the old id ends.
    third = cookie_of(sign_in(client, "Dee", cookie=second))
    assert third != second
    assert signed_in_as(client, second) is None and signed_in_as(client, third) == "Dee"


def test_a_cookie_planted_before_a_sign_in_never_signs_that_person_in(
    client: TestClient,
) -> None:
    eve = sign_up(client, "Eve")
    fay = sign_up(client, "Fay")
    # Eve leaves her own cookie in a browser Fay then signs in with.
    fays = cookie_of(sign_in(client, "Fay", cookie=eve.cookie))
    assert fays not in (eve.cookie, fay.cookie)
    assert signed_in_as(client, eve.cookie) != "Fay"
    assert signed_in_as(client, fays) == "Fay"
    # Nor does a cookie from a session that had already ended.
    client.cookies.clear()
    client.post("/api/account/signout", json={}, headers={"Cookie": f"{COOKIE}={fays}"})
    later = cookie_of(sign_in(client, "Fay", cookie=fays))
    assert signed_in_as(client, fays) is None and signed_in_as(client, later) == "Fay"


# -- expiry --------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


HOUR = 3600.0


@pytest.fixture
def timed(tmp_path: Path) -> Iterator[tuple[TestClient, Clock]]:
    """An app whose sessions end after an hour unused or four hours in all, on a clock the
    test moves."""
    app = make_app(tmp_path, session_idle_seconds=HOUR, session_max_seconds=4 * HOUR)
    clock = Clock()
    with TestClient(app) as client:
        identity = app.state.identity
        assert isinstance(identity, Sessions)
        identity.clock = clock
        yield client, clock


def last_seen(client: TestClient, cookie: str) -> datetime | None:
    """The session's ``last_seen`` in the database (read with the ids of all live rows)."""
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    session_id = cookie.rsplit(".", 2)[0]
    live = store.live_session(hashlib.sha256(session_id.encode()).hexdigest(),
                              datetime.now(UTC))
    return None if live is None else live.last_seen


def test_a_session_unused_for_the_idle_time_ends(
    timed: tuple[TestClient, Clock],
) -> None:
    client, clock = timed
    gus = sign_up(client, "Gus")
    hal = sign_up(client, "Hal")
    # Gus keeps using his session: each use (a few minutes apart at least) moves its end on.
    for _ in range(3):
        clock.advance(0.75 * HOUR)
        assert signed_in_as(client, gus.cookie) == "Gus"
        wait_until(lambda: last_seen(client, gus.cookie) == clock.now, "last use stored")
    # Hal, untouched for more than an hour, is signed out.
    assert signed_in_as(client, hal.cookie) is None
    clock.advance(HOUR + 1)
    assert signed_in_as(client, gus.cookie) is None


def test_no_session_outlasts_the_longest_time_however_much_it_is_used(
    timed: tuple[TestClient, Clock],
) -> None:
    client, clock = timed
    ivy = sign_up(client, "Ivy")
    for _ in range(7):
        clock.advance(0.5 * HOUR)
        assert signed_in_as(client, ivy.cookie) == "Ivy"
        wait_until(lambda: last_seen(client, ivy.cookie) == clock.now, "last use stored")
    clock.advance(0.5 * HOUR + 1)  # four hours and a second after signing in
    assert signed_in_as(client, ivy.cookie) is None


def test_a_sign_out_elsewhere_counts_here_within_the_cache_time(
    timed: tuple[TestClient, Clock],
) -> None:
    """Another process of a cluster ends the session in the shared database: this one trusts
    what it read for ``session_cache_seconds`` (2 s) at most."""
    client, clock = timed
    jo = sign_up(client, "Jo")
    assert signed_in_as(client, jo.cookie) == "Jo"
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    assert store.end_sessions_of(jo.id, clock.now) == 1
    clock.advance(2.01)
    assert signed_in_as(client, jo.cookie) is None


def test_sessions_in_use_are_read_again_together_not_by_each_request(
    timed: tuple[TestClient, Clock], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sessions in use are re-read in one query in the background, so a request finds its
    session in memory (no read on the event loop), and one ended by another process is still
    forgotten here within about a second."""
    client, clock = timed
    kim = sign_up(client, "Kim")
    assert signed_in_as(client, kim.cookie) == "Kim"
    identity: Sessions = client.app.state.identity  # type: ignore[attr-defined]
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    id_hash = hashlib.sha256(kim.cookie.rsplit(".", 2)[0].encode()).hexdigest()
    read_one_by_one: list[str] = []
    one = store.live_session
    monkeypatch.setattr(store, "live_session",
                        lambda h, now: read_one_by_one.append(h) or one(h, now))
    for _ in range(3):
        clock.advance(1.5)  # each time past half the 2 s a session is trusted
        wait_until(lambda: identity._seen[id_hash].read == clock.now, "read again")
        assert signed_in_as(client, kim.cookie) == "Kim"
    assert read_one_by_one == []
    assert store.end_sessions_of(kim.id, clock.now) == 1  # as another process would
    clock.advance(1.5)
    wait_until(lambda: id_hash not in identity._seen, "forgotten")
    assert signed_in_as(client, kim.cookie) is None


# -- what a cookie may hold -------------------------------------------------------------------


@pytest.mark.parametrize("junk", [
    "", "x" * 5000, "garbage", "...", "a.b.c", "%00%ff", "\"quoted\"", "1", "0.0.0",
    b"\xe9t\xe9.\xff\xfe", "ÿ" * 60,
])
def test_a_broken_cookie_reads_as_signed_out_never_an_error(
    client: TestClient, junk: str | bytes,
) -> None:
    value = junk if isinstance(junk, bytes) else junk.encode("latin-1")
    assert account(client, value) == {"signed_in": False}
    client.cookies.clear()
    headers = {"Cookie": f"{COOKIE}=".encode() + value}
    made = client.post("/api/tables", json={"level": "easy"}, headers=headers)
    assert made.status_code == 401, made.text
    out = client.post("/api/account/signout", json={}, headers=headers)
    assert out.status_code == 200 and out.json() == {"signed_in": False}


# -- wrong passwords --------------------------------------------------------------------------

#: The header the test app below takes the client's address from (the real server takes it
#: from the connection, or from a trusted proxy's ``X-Forwarded-For``).
FROM = "x-test-address"


def addressed(app: ASGIApp) -> ASGIApp:
    """``app`` seeing each request as coming from the address in its :data:`FROM` header."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            for key, value in scope["headers"]:
                if key == FROM.encode():
                    scope = dict(scope, client=(value.decode(), 40000))
        await app(scope, receive, send)

    return wrapped


def limited(tmp_path: Path, **limits: Any) -> TestClient:
    app = make_app(tmp_path, limits=Limits(**limits))
    client = TestClient(addressed(app))
    return client


def test_wrong_passwords_from_one_address_do_not_lock_the_owner_out(tmp_path: Path) -> None:
    with limited(tmp_path, sign_in_name="3/minute", sign_in_name_anywhere="50/minute",
                 sign_in_address="20/minute") as client:
        sign_up(client, "Kim")
        home, stranger = "10.0.0.1", "10.9.9.9"
        for attempt in range(3):
            wrong = sign_in(client, "Kim", f"guess number {attempt}", address=stranger)
            assert wrong.status_code == 401, wrong.text
        refused = sign_in(client, "kim", "guess again", address=stranger)
        assert refused.status_code == 429, refused.text
        assert "for this name from your address" in refused.json()["error"]
        # Even the right password waits there: a guess that happens to be right learns nothing.
        assert sign_in(client, "Kim", address=stranger).status_code == 429
        # From home, Kim signs in, more than the limit's number of times.
        for _ in range(5):
            assert signed_in_as(client, cookie_of(sign_in(client, "KIM", address=home))) == "Kim"
        # Her own typing mistakes at home are counted apart from the stranger's.
        assert sign_in(client, "Kim", "not it at all", address=home).status_code == 401
        assert sign_in(client, "Kim", address=home).status_code == 200


def test_only_wrong_passwords_count_against_a_name_at_an_address(tmp_path: Path) -> None:
    with limited(tmp_path, sign_in_name="3/minute", sign_in_name_anywhere="50/minute",
                 sign_in_address="50/minute") as client:
        sign_up(client, "Lee")
        for _ in range(6):  # twice the limit of right passwords
            assert sign_in(client, "Lee", address="10.0.0.2").status_code == 200
        for _ in range(2):
            assert sign_in(client, "Lee", "a typo typo", address="10.0.0.2").status_code == 401
        assert sign_in(client, "Lee", address="10.0.0.2").status_code == 200
        assert sign_in(client, "Lee", "a typo again", address="10.0.0.2").status_code == 401
        assert sign_in(client, "Lee", address="10.0.0.2").status_code == 429  # three wrong


def test_guesses_from_many_addresses_meet_a_cap_that_the_owners_address_does_not(
    tmp_path: Path,
) -> None:
    with limited(tmp_path, sign_in_name="3/minute", sign_in_name_anywhere="5/minute",
                 sign_in_address="50/minute") as client:
        sign_up(client, "Max")
        home = "10.0.0.3"
        assert sign_in(client, "Max", address=home).status_code == 200  # home is known now
        answers = [sign_in(client, "Max", "a wrong guess", address=f"10.7.0.{i}").status_code
                   for i in range(3) for _ in range(2)]
        assert answers == [401] * 5 + [429]
        capped = sign_in(client, "Max", address="10.8.0.1")  # somewhere new: capped too
        assert capped.status_code == 429
        assert capped.json()["error"].startswith("too many sign-in attempts for this name:")
        assert sign_in(client, "Max", address=home).status_code == 200
