"""Accounts: a name and a password, hashed with argon2id, and what a profile shows.

Single-player needs no account; online tables, quick match and counted dailies do.  A password
is hashed with argon2id (argon2-cffi, RFC 9106's recommended parameters) in a worker thread, at
most two at a time: a hash takes tens of milliseconds and 64 MiB, so a burst of sign-ins can
neither stall the event loop nor exhaust memory.  Passwords are never logged, stored or sent.

A sign-in for a name that does not exist still verifies a hash, so how long the answer takes
does not tell whether the name is taken; the one-line refusal is the same either way.

>>> clean_name("  Ana   María ")
('Ana María', 'ana maría')
"""

from __future__ import annotations

import asyncio
import unicodedata
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from .errors import Refusal
from .store import StaleWrite, Store

__all__ = ["Accounts", "Account", "clean_name", "check_password", "NAME_WORDS"]

NAME_MIN, NAME_MAX = 2, 24
PASSWORD_MIN, PASSWORD_MAX = 8, 128
#: Names a table already uses for seats and players: a person called "Partner" or "You"
#: would make the table's words lie.
NAME_WORDS = frozenset({
    "you", "partner", "north", "east", "south", "west", "bot", "computer", "varaq", "nobody",
})
_EXTRA = frozenset(" -_.'")


@dataclass(frozen=True, slots=True)
class Account:
    id: int
    name: str


def clean_name(text: object) -> tuple[str, str]:
    """A name as shown and its key (folded for comparison); a :class:`Refusal` says why not."""
    if not isinstance(text, str):
        raise Refusal(400, "the name must be text")
    name = " ".join(unicodedata.normalize("NFKC", text).split())
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise Refusal(400, f"a name has {NAME_MIN} to {NAME_MAX} characters")
    for ch in name:
        if not (ch.isalnum() or ch in _EXTRA):
            raise Refusal(400, "a name has letters, digits, spaces and - _ . ' only")
    if not name[0].isalnum():
        raise Refusal(400, "a name starts with a letter or a digit")
    key = name.casefold()
    if key in NAME_WORDS:
        raise Refusal(400, f"{name!r} is a word the table uses; choose another name")
    return name, key


def check_password(text: object) -> str:
    if not isinstance(text, str):
        raise Refusal(400, "the password must be text")
    if not PASSWORD_MIN <= len(text) <= PASSWORD_MAX:
        raise Refusal(400, f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")
    return text


class Accounts:
    def __init__(self, store: Store, *, hasher: PasswordHasher | None = None) -> None:
        self.store = store
        self.hasher = hasher or PasswordHasher()
        self._hashing = asyncio.Semaphore(2)
        #: Verified against when the name is unknown, so timing tells nothing.
        self._decoy = self.hasher.hash("not anyone's password")

    async def _work(self, fn: object, *args: object) -> object:
        async with self._hashing:
            return await asyncio.to_thread(fn, *args)  # type: ignore[arg-type]

    async def sign_up(self, name_text: object, password_text: object) -> Account:
        name, key = clean_name(name_text)
        password = check_password(password_text)
        if await asyncio.to_thread(self.store.user_by_key, key) is not None:
            raise Refusal(409, f"the name {name!r} is taken")
        hashed = str(await self._work(self.hasher.hash, password))
        try:
            user_id = await asyncio.to_thread(self.store.create_user, name, key, hashed)
        except StaleWrite:
            raise Refusal(409, f"the name {name!r} is taken") from None
        return Account(user_id, name)

    async def sign_in(self, name_text: object, password_text: object) -> Account:
        wrong = Refusal(401, "that name and password do not match an account")
        try:
            _, key = clean_name(name_text)
            password = check_password(password_text)
        except Refusal:
            raise wrong from None
        user = await asyncio.to_thread(self.store.user_by_key, key)
        stored = user.password if user is not None else self._decoy
        try:
            await self._work(self.hasher.verify, stored, password)
        except (VerificationError, InvalidHashError):
            raise wrong from None
        if user is None:
            raise wrong
        if self.hasher.check_needs_rehash(stored):
            rehashed = str(await self._work(self.hasher.hash, password))
            await asyncio.to_thread(self.store.set_password, user.id, rehashed)
        return Account(user.id, user.name)

    async def account(self, user_id: int) -> Account | None:
        user = await asyncio.to_thread(self.store.user, user_id)
        return None if user is None else Account(user.id, user.name)
