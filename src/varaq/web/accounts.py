"""Account routes: create an account, sign in, sign out (here or everywhere), and the profile.

| route | body | answer |
|---|---|---|
| ``POST /api/account/signup`` | ``{"name", "password"}`` | ``201 ACCOUNT``, signed in |
| ``POST /api/account/signin`` | ``{"name", "password"}`` | ``ACCOUNT``, signed in |
| ``POST /api/account/signout`` | none | ``{"signed_in": false}`` |
| ``POST /api/account/signout-everywhere`` | none | ``{"signed_in": false, "ended": n}`` |
| ``POST /api/account/reset`` | ``{"name", "code", "password"}`` | ``{"reset": true}`` |
| ``GET /api/account`` | | ``ACCOUNT`` or ``{"signed_in": false}`` |

``ACCOUNT`` is ``{"signed_in": true, "id", "name", "played", "won", "tables": [...]}``: the
profile, with the tables the person sits at (so a closed tab finds its table again).

Signing in or up starts a new server-side session (:mod:`.sessions`); signing out ends it,
and signing out everywhere ends every session of that person, on every device.  Sign-in
attempts are limited per name and address, per address, and loosely per name
(:meth:`~varaq.service.ratelimit.RateLimits.sign_in`: a stranger's wrong guesses cannot keep
the owner out); new accounts per address (429 with a sentence).

A suspended account (``varaq admin ban``) is refused at sign-in with the administrator's
reason (403).  ``POST /api/account/reset`` spends a one-time code from ``varaq admin
reset-password``: the password changes and every session of that person ends (they sign in
again with the new one).  Its attempts count against the sign-in limits, so codes cannot be
guessed faster than passwords.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..service.accounts import Account, check_active, clean_name
from ..service.errors import Refusal
from .games import body_of, tables_of
from .requests import Json, client_address

__all__ = ["routes", "profile", "signed_in"]

T = TypeVar("T")


def signed_in(request: Request) -> int:
    """The signed-in person's id, or a 401 saying that this needs an account."""
    user_id: int | None = request.app.state.identity.user_id(request)
    if user_id is None:
        raise Refusal(401, "sign in first: this needs an account")
    return user_id


async def profile(request: Request, user_id: int) -> dict[str, Any]:
    store = tables_of(request).store
    user = await asyncio.to_thread(store.user, user_id)
    if user is None:
        return {"signed_in": False}
    rows = await asyncio.to_thread(store.tables_of, user_id)
    return {
        "signed_in": True, "id": user.id, "name": user.name, "played": user.played,
        "won": user.won,
        "tables": [
            {"id": table_id, "kind": kind, "status": status, "seat": "NESW"[seat]}
            for table_id, kind, status, seat in rows
        ],
    }


async def _answer(request: Request, account: Account, status: int = 200) -> Response:
    response = Json(await profile(request, account.id), status_code=status)
    identity = request.app.state.identity
    await identity.sign_in(request, response, account.id)
    try:
        # A suspension that landed while the password was being checked ended every session
        # but this new one: look once more now that the session exists.
        await check_active(tables_of(request).store, account.id)
    except Refusal:
        store = tables_of(request).store
        await asyncio.to_thread(store.end_sessions_of, account.id, datetime.now(UTC))
        raise
    tables_of(request).user_names[account.id] = account.name
    return response


async def sign_up(request: Request) -> Response:
    body = await body_of(request)
    await tables_of(request).limits.hit("sign_up", client_address(request))
    account = await request.app.state.accounts.sign_up(body.get("name"), body.get("password"))
    return await _answer(request, account, 201)


async def _counted(request: Request, body: dict[str, Any],
                   check: Callable[[], Awaitable[T]]) -> T:
    """``check`` (a password or a reset code being checked) as a sign-in attempt for the
    body's name from this address: a refusal counts against the sign-in limits."""
    try:
        _, key = clean_name(body.get("name"))
    except Refusal:
        key = ""
    attempt = await tables_of(request).limits.sign_in(key, client_address(request))
    try:
        result = await check()
    except Refusal:
        await attempt.failed()
        raise
    finally:
        attempt.release()
    await attempt.succeeded()
    return result


async def sign_in(request: Request) -> Response:
    body = await body_of(request)
    accounts = request.app.state.accounts
    account = await _counted(request, body, lambda: accounts.sign_in(body.get("name"),
                                                                     body.get("password")))
    return await _answer(request, account)


async def sign_out(request: Request) -> Response:
    await body_of(request, optional=True)
    response = Json({"signed_in": False})
    await request.app.state.identity.sign_out(request, response)
    return response


async def sign_out_everywhere(request: Request) -> Response:
    """End every session of the person asking (this one too): a lost phone, a shared computer
    someone forgot to sign out of."""
    await body_of(request, optional=True)
    identity = request.app.state.identity
    ended = await identity.sign_out_everywhere(request)
    response = Json({"signed_in": False, "ended": ended})
    identity.forget_cookie(response)
    return response


async def reset(request: Request) -> Response:
    """A new password with a one-time code from an operator; every session of the person
    ends (this browser signs in afresh with the new password)."""
    body = await body_of(request)
    accounts = request.app.state.accounts
    await _counted(request, body, lambda: accounts.reset_password(
        body.get("name"), body.get("code"), body.get("password")))
    return Json({"reset": True})


async def me(request: Request) -> Response:
    user_id = request.app.state.identity.user_id(request)
    if user_id is None:
        return Json({"signed_in": False})
    return Json(await profile(request, user_id))


routes: list[BaseRoute] = [
    Route("/api/account", me),
    Route("/api/account/signup", sign_up, methods=["POST"]),
    Route("/api/account/signin", sign_in, methods=["POST"]),
    Route("/api/account/signout", sign_out, methods=["POST"]),
    Route("/api/account/signout-everywhere", sign_out_everywhere, methods=["POST"]),
    Route("/api/account/reset", reset, methods=["POST"]),
]
