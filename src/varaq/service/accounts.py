"""Accounts: a name and a password, hashed with argon2id, and what a profile shows.

Single-player needs no account; online tables, quick match and counted dailies do.  A password
is hashed with argon2id (argon2-cffi, RFC 9106's recommended parameters) in a worker thread, at
most two at a time: a hash takes tens of milliseconds and 64 MiB, so a burst of sign-ins can
neither stall the event loop nor exhaust memory.  Passwords are never logged, stored or sent.

A sign-in for a name that does not exist still verifies a hash, so how long the answer takes
does not tell whether the name is taken; the one-line refusal is the same either way.

An account an administrator suspended (``varaq admin ban``) cannot sign in, open or join a
table, or queue: each is refused with :class:`Suspended` (403) and the administrator's reason.
The sign-in says so only *after* the password matched, so the refusal tells a stranger nothing
about someone else's account.  A person who lost their password gets a one-time code from an
operator (``varaq admin reset-password``) and sets a new password with it
(:meth:`Accounts.reset_password`); the code is kept only as a hash, works once, and expires.

>>> clean_name("  Ana   María ")
('Ana María', 'ana maría')
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from .errors import Refusal
from .store import StaleWrite, Store

__all__ = [
    "Accounts", "Account", "Suspended", "clean_name", "check_password", "check_active",
    "new_reset_code", "reset_code_hash", "NAME_WORDS",
]

NAME_MIN, NAME_MAX = 2, 24
PASSWORD_MIN, PASSWORD_MAX = 8, 128
#: Names a table already uses for seats and players: a person called "Partner" or "You"
#: would make the table's words lie.
NAME_WORDS = frozenset({
    "you", "partner", "north", "east", "south", "west", "bot", "computer", "varaq", "nobody",
})
_EXTRA = frozenset(" -_.'")


#: The letters of a reset code: no 0/O, 1/I/L, so that one read aloud is typed right.
CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: Letters in a reset code, in groups of four: 16 of 31 letters are 79 bits.
CODE_LENGTH = 16


class Suspended(Refusal):
    """The person's account is suspended; ``user_ids`` says whose (a group may hold several)."""

    def __init__(self, reason: str, user_ids: tuple[int, ...] = ()) -> None:
        super().__init__(403, f"this account is suspended: {reason}")
        self.user_ids = user_ids


async def check_active(store: Store, user_id: int) -> None:
    """A :class:`Suspended` refusal if an administrator suspended the account."""
    reason = await asyncio.to_thread(store.suspension, user_id)
    if reason is not None:
        raise Suspended(reason, (user_id,))


def new_reset_code() -> str:
    """A one-time password-reset code, easy to read out: ``ABCD-EFGH-JKMN-PQRS``."""
    letters = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
    return "-".join(letters[i:i + 4] for i in range(0, CODE_LENGTH, 4))


def reset_code_hash(text: str) -> str:
    """What the database keeps of a reset code (read in any case, dashes and spaces ignored)."""
    code = "".join(ch for ch in text.upper() if ch.isalnum())
    return hashlib.sha256(f"varaq-reset:{code}".encode()).hexdigest()


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
        if user.banned is not None:
            raise Suspended(user.ban_reason or "no reason was given", (user.id,))
        if self.hasher.check_needs_rehash(stored):
            rehashed = str(await self._work(self.hasher.hash, password))
            await asyncio.to_thread(self.store.set_password, user.id, rehashed)
        return Account(user.id, user.name)

    async def account(self, user_id: int) -> Account | None:
        """The account of a person about to play (open a table, queue): ``None`` if it no
        longer exists, a :class:`Suspended` refusal if it is suspended."""
        user = await asyncio.to_thread(self.store.user, user_id)
        if user is not None and user.banned is not None:
            raise Suspended(user.ban_reason or "no reason was given", (user.id,))
        return None if user is None else Account(user.id, user.name)

    async def reset_password(self, name_text: object, code_text: object,
                             password_text: object) -> Account:
        """Set a new password with a one-time code from an operator; every session of the
        person ends.  A wrong name, code, used or expired code is one refusal (401), the same
        for each, so it tells a guesser nothing."""
        wrong = Refusal(401, "that name and reset code do not match; ask for a new code")
        password = check_password(password_text)
        try:
            _, key = clean_name(name_text)
        except Refusal:
            raise wrong from None
        if not isinstance(code_text, str) or not 1 <= len(code_text) <= 64:
            raise wrong
        # Hashed first, whoever is named: how long a wrong name takes tells nothing either.
        hashed = str(await self._work(self.hasher.hash, password))
        user = await asyncio.to_thread(self.store.user_by_key, key)
        if user is None:
            raise wrong
        if user.banned is not None:
            raise Suspended(user.ban_reason or "no reason was given", (user.id,))
        ended = await asyncio.to_thread(
            self.store.use_reset_code, user.id, reset_code_hash(code_text), hashed,
            datetime.now(UTC),
        )
        if ended is None:
            raise wrong
        return Account(user.id, user.name)
