"""Accounts: names, passwords (argon2id, never sent back), sessions, limits, the profile."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from itsdangerous import TimestampSigner
from starlette.testclient import TestClient

from online_helpers import sign_up, wait_until
from varaq.service.accounts import clean_name
from varaq.service.errors import Refusal
from varaq.service.settings import Limits
from web_helpers import TEST_SETTINGS, make_app


def test_sign_up_signs_in_and_the_profile_says_who(client: TestClient) -> None:
    response = client.post("/api/account/signup",
                           json={"name": "Ana", "password": "correct horse"})
    assert response.status_code == 201
    doc = response.json()
    assert doc == {"signed_in": True, "id": doc["id"], "name": "Ana", "played": 0, "won": 0,
                   "tables": []}
    cookie = response.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie
    assert client.get("/api/account").json()["name"] == "Ana"
    out = client.post("/api/account/signout", json={})
    assert out.json() == {"signed_in": False}
    assert client.get("/api/account").json() == {"signed_in": False}


def test_the_password_is_never_sent_back_logged_or_stored_plain(
    client: TestClient, caplog: pytest.LogCaptureFixture,
) -> None:
    password = "a very particular secret"
    caplog.set_level(logging.DEBUG)  # every logger, at its most talkative
    responses = [
        client.post("/api/account/signup", json={"name": "Bo", "password": password}),
        client.post("/api/account/signin", json={"name": "Bo", "password": password}),
        client.get("/api/account"),
        client.post("/api/account/signin", json={"name": "Bo", "password": password + "!"}),
        client.post("/api/account/signin", json={"name": "Nobody", "password": password}),
        client.post("/api/account/signup", json={"name": "BO", "password": password}),
        client.post("/api/account/signup", json={"name": "B", "password": password}),
    ]
    assert [r.status_code for r in responses] == [201, 200, 200, 401, 401, 409, 400]
    for response in responses:
        assert password not in response.text
        assert all(password not in value for value in response.headers.values())
    assert caplog.records, "nothing was logged: the check below would prove nothing"
    for record in caplog.records:
        text = f"{record.getMessage()} {record.args!r} {record.exc_text or ''}"
        assert password not in text, record
    assert password not in caplog.text
    store = client.app.state.store  # type: ignore[attr-defined]
    user = store.user_by_key("bo")
    assert user.password.startswith("$argon2id$") and password not in user.password


def test_sign_in_with_a_wrong_password_or_name_says_the_same(client: TestClient) -> None:
    sign_up(client, "Cai")
    wrong = client.post("/api/account/signin", json={"name": "Cai", "password": "nope nope nope"})
    nobody = client.post("/api/account/signin",
                         json={"name": "Nobody Here", "password": "nope nope nope"})
    assert wrong.status_code == nobody.status_code == 401
    assert wrong.json() == nobody.json()
    good = client.post("/api/account/signin", json={"name": "cai", "password": "correct horse"})
    assert good.status_code == 200 and good.json()["name"] == "Cai"


@pytest.mark.parametrize(("name", "words"), [
    ("A", "2 to 24"), ("x" * 25, "2 to 24"), ("Ana<script>", "letters"), ("-Ana", "starts"),
    ("Partner", "word the table uses"), ("you", "word the table uses"), (7, "text"),
])
def test_bad_names_are_refused_in_one_line(client: TestClient, name: object, words: str) -> None:
    response = client.post("/api/account/signup", json={"name": name, "password": "long enough"})
    assert response.status_code == 400 and words in response.json()["error"]


@pytest.mark.parametrize("password", ["short", "x" * 129, 12345678, None])
def test_bad_passwords_are_refused(client: TestClient, password: object) -> None:
    response = client.post("/api/account/signup", json={"name": "Dee", "password": password})
    assert response.status_code == 400 and "password" in response.json()["error"]


def test_a_name_is_taken_whatever_its_case(client: TestClient) -> None:
    sign_up(client, "Émile")
    response = client.post("/api/account/signup",
                           json={"name": "ÉMILE", "password": "another one"})
    assert response.status_code == 409 and "taken" in response.json()["error"]


def test_names_are_cleaned_before_they_are_compared() -> None:
    assert clean_name("  Ana   María ") == ("Ana María", "ana maría")
    assert clean_name("Ｅｖａ")[0] == "Eva"  # full-width letters fold to plain ones
    with pytest.raises(Refusal):
        clean_name("Ana\u200bMaría")


def test_a_forged_or_altered_cookie_signs_nobody_in(client: TestClient) -> None:
    ana, fay = sign_up(client, "Ana"), sign_up(client, "Fay")
    session, stamp, signature = fay.cookie.split(".")
    assert len(session) == 43 and str(fay.id) not in (session, stamp)  # a random id, no user
    ana_session = ana.cookie.split(".")[0]
    signer = TimestampSigner(TEST_SETTINGS.secret, salt="varaq.session")
    other_server = TimestampSigner(b"another server's secret" * 2, salt="varaq.session")
    altered = {
        "Fay's signature on Ana's session": f"{ana_session}.{stamp}.{signature}",
        "Fay's signature on another time": f"{session}.{_changed(stamp)}.{signature}",
        "a signature made up": f"{session}.{stamp}.{'A' * len(signature)}",
        "a signature one letter off": f"{session}.{stamp}.{_changed(signature)}",
        "a session id one letter off, signed": signer.sign(_changed(session).encode()).decode(),
        "a user id, signed as 0.2 did": signer.sign(str(ana.id).encode()).decode(),
        "signed with another key": other_server.sign(ana_session.encode()).decode(),
        "no signature at all": session,
        "empty": "",
        "far too long": "x" * 500,
    }
    for what, cookie in altered.items():
        assert cookie != fay.cookie, what
        client.cookies.clear()
        got = client.get("/api/account", headers={"Cookie": f"varaq_session={cookie}"})
        assert got.json() == {"signed_in": False}, what
    assert fay.get("/api/account").json()["id"] == fay.id  # the cookie as given still works


def _changed(text: str) -> str:
    """``text`` with its first character replaced by another of the same alphabet.  (Not its
    last: in URL-safe base64 the last character's low bits may be padding that decoding drops,
    so changing it can leave the same bytes, and a signature "one letter off" would still be
    the right one.)"""
    return ("B" if text[0] == "A" else "A") + text[1:]


def test_the_winners_of_a_match_of_people_each_count_a_win(client: TestClient) -> None:
    ana, bo, cai = (sign_up(client, name) for name in ("Ana", "Bo", "Cai"))
    doc = ana.ok("/api/tables", {"level": "easy", "fill_bots": True}, status=201)
    assert [p.ok("/api/tables/join", {"code": doc["code"]})["seat"] for p in (bo, cai)] == [
        "N", "W"]
    ana.ok(f"/api/games/{doc['id']}/start")
    # Cai's partner (East) is a computer player: Cai concedes alone, and North-South win.
    assert cai.ok(f"/api/games/{doc['id']}/concede")["view"]["winner"] == "NS"

    def profiles() -> dict[str, tuple[int, int]] | None:
        counts = {p.name: (me["played"], me["won"])
                  for p in (ana, bo, cai) if (me := p.get("/api/account").json())}
        return counts if all(played for played, _ in counts.values()) else None

    assert wait_until(profiles, "the match counted") == {
        "Ana": (1, 1), "Bo": (1, 1), "Cai": (1, 0)}


def test_sign_in_attempts_are_limited_per_name_from_an_address_and_per_address(
    tmp_path: Path,
) -> None:
    """Wrong passwords for one name from one address, then any attempts from that address
    (tests/test_sessions.py shows the owner getting in from elsewhere meanwhile)."""
    with TestClient(make_app(tmp_path, limits=Limits(
            sign_in_name="3/minute", sign_in_address="5/minute"))) as client:
        sign_up(client, "Gus")
        for _ in range(3):
            client.post("/api/account/signin", json={"name": "Gus", "password": "bad password"})
        response = client.post("/api/account/signin",
                               json={"name": "GUS", "password": "correct horse"})
        assert response.status_code == 429
        assert "sign-in attempts for this name" in response.json()["error"]
        for _ in range(2):
            client.post("/api/account/signin", json={"name": "Other", "password": "whatever!"})
        response = client.post("/api/account/signin", json={"name": "Third", "password": "x" * 9})
        assert response.status_code == 429 and "sign-in attempts" in response.json()["error"]


def test_new_accounts_are_limited_per_address(tmp_path: Path) -> None:
    with TestClient(make_app(tmp_path, limits=Limits(sign_up="2/hour"))) as client:
        sign_up(client, "Hal")
        sign_up(client, "Ivy")
        response = client.post("/api/account/signup",
                               json={"name": "Jo", "password": "correct horse"})
        assert response.status_code == 429 and "new accounts" in response.json()["error"]


def test_account_routes_refuse_bad_bodies(client: TestClient) -> None:
    for body in (b"[]", b"{nope", json.dumps({"name": ["x"], "password": "p" * 8}).encode()):
        response = client.post("/api/account/signup", content=body,
                               headers={"Content-Type": "application/json"})
        assert response.status_code == 400
    assert client.post("/api/account/signin", json={"name": "Kit"},
                       headers={"Origin": "https://evil.example"}).status_code == 403
