"""Accounts: names, passwords (argon2id, never sent back), sessions, limits, the profile."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from online_helpers import sign_up
from varaq.service.accounts import clean_name
from varaq.service.errors import Refusal
from varaq.service.settings import Limits
from web_helpers import make_app


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


def test_the_password_is_never_sent_back_or_stored_plain(client: TestClient) -> None:
    password = "a very particular secret"
    texts = [client.post("/api/account/signup", json={"name": "Bo", "password": password}).text,
             client.post("/api/account/signin", json={"name": "Bo", "password": password}).text,
             client.get("/api/account").text]
    assert all(password not in text for text in texts)
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
    person = sign_up(client, "Fay")
    value, _, signature = person.cookie.rpartition(".")
    forged = f"{value}.{'A' * len(signature)}"
    for cookie in (forged, "1", "", "x" * 500, person.cookie.replace(str(person.id), "1", 1)):
        client.cookies.clear()
        got = client.get("/api/account", headers={"Cookie": f"varaq_session={cookie}"})
        assert got.json() in ({"signed_in": False}, {**got.json(), "id": person.id})
        if cookie != person.cookie:
            assert got.json().get("id") in (None, person.id)


def test_sign_in_attempts_are_limited_per_name_and_per_address(tmp_path: Path) -> None:
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
