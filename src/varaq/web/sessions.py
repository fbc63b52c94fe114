"""Who is signed in: a signed, HttpOnly, SameSite=Lax cookie that holds the user id, no more.

The cookie is ``<user id>.<timestamp>.<signature>`` made by itsdangerous with the server's
secret, so any process that shares the secret can read it (several ``varaq serve`` processes
behind one address), and nobody can forge or alter one.  It is read only when a route asks who
is there — the game routes of a single-player table never need it — instead of by a middleware
on every request.
"""

from __future__ import annotations

from typing import Any

from itsdangerous import BadSignature, TimestampSigner
from starlette.responses import Response

__all__ = ["Sessions", "COOKIE", "MAX_AGE"]

COOKIE = "varaq_session"
#: Seconds a sign-in lasts (60 days), in the cookie and in the signature's check.
MAX_AGE = 60 * 60 * 24 * 60


class Sessions:
    def __init__(self, secret: bytes, *, secure: bool = False) -> None:
        self.signer = TimestampSigner(secret, salt="varaq.session")
        self.secure = secure

    def user_id(self, connection: Any) -> int | None:
        """The signed-in user's id, or ``None`` (no cookie, a forged one, an expired one)."""
        scope = connection.scope
        if "varaq.user" in scope:
            cached: int | None = scope["varaq.user"]
            return cached
        user: int | None = None
        raw = connection.cookies.get(COOKIE)
        if raw and len(raw) < 200:
            try:
                value = self.signer.unsign(raw, max_age=MAX_AGE).decode()
            except (BadSignature, UnicodeDecodeError):
                value = ""
            if value.isascii() and value.isdigit() and len(value) < 12:
                user = int(value)
        scope["varaq.user"] = user
        return user

    def sign_in(self, response: Response, user_id: int) -> None:
        token = self.signer.sign(str(user_id).encode()).decode()
        response.set_cookie(
            COOKIE, token, max_age=MAX_AGE, httponly=True, samesite="lax", secure=self.secure,
            path="/",
        )

    def sign_out(self, response: Response) -> None:
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                               secure=self.secure)
