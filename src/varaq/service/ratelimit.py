"""Rate limits: how often one client address (or name, or socket) may do a thing.

Built on the ``limits`` package (moving windows, well tested, and the same code stores its
counters in memory for one process or in Redis when several processes share the load).  A limit
that is reached is a :class:`~.errors.Refusal` with status 429 and a sentence saying what to
wait for.

Wrong passwords are limited so that they protect the person whose name is tried, not whoever
tries it.  A limit per name alone (as before 0.2) let anyone keep a player out of their own
account from anywhere, ten guesses every five minutes.  So (:meth:`RateLimits.sign_in`):

- ``sign_in_name`` counts wrong passwords per *name and address*, strictly (10 per 5
  minutes).  Only failures count, and only that address's: the owner at their own address is
  never held up by a stranger somewhere else, however hard the stranger tries.  The limit is
  checked before the password is, with the attempts still being checked counted as if they
  had failed, so that many guesses sent at once cannot all slip under it.
- ``sign_in_address`` counts every attempt from an address, whatever the name (30 per 5
  minutes), so one place cannot go through many names either.
- ``sign_in_name_anywhere`` is a loose cap (100 an hour) on wrong passwords for one name from
  every address together, against guessing from many addresses at once.  It could be used up by a
  stranger with many addresses, so it does not apply at an address where that name signed in
  with the right password within the last :data:`KNOWN_SECONDS` (30 days): whoever attacks a
  name, its owner still gets in from home.  (A new address of the owner's may wait while such
  an attack lasts; that is the price of any cap across addresses.)
"""

from __future__ import annotations

from collections import Counter

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from . import metrics
from .errors import Refusal
from .settings import Limits

__all__ = ["RateLimits", "KNOWN_SECONDS"]

#: Seconds an address stays known for a name after a right password there.
KNOWN_SECONDS = 30 * 24 * 3600

#: What each limit guards, for the refusal's sentence.
_WORDS = {
    "create": "new games",
    "hint": "hints",
    "socket": "messages",
    "sign_in_name": "sign-in attempts for this name from your address",
    "sign_in_name_anywhere": "sign-in attempts for this name",
    "sign_in_address": "sign-in attempts",
    "sign_up": "new accounts",
    "join": "attempts to join a table",
    "act": "requests",
    "read": "reads of a table",
    "review": "hand reviews",
}


class RateLimits:
    """Every limit of :class:`~.settings.Limits`, on one storage."""

    def __init__(self, limits: Limits, storage_url: str | None = None) -> None:
        # redis-py (the client the rest of Varaq uses) rather than the default coredis.
        storage = (storage_from_string(storage_url, implementation="redispy") if storage_url
                   else MemoryStorage())
        if not isinstance(storage, Storage):
            raise ValueError(f"{storage_url}: rate limits need an asyncio storage (async+…)")
        self.storage = storage
        self.strategy = MovingWindowRateLimiter(self.storage)
        self.items: dict[str, list[RateLimitItem]] = {
            name: parse_many(getattr(limits, name)) for name in _WORDS
        }
        self.enabled = limits.rates
        #: Sign-in attempts of this process whose password is being checked, per limit and key.
        self._trying: Counter[tuple[str, str]] = Counter()

    async def hit(self, name: str, key: str) -> None:
        """Count one ``name`` for ``key``; a :class:`Refusal` (429) once over the limit."""
        if not self.enabled:
            return
        for item in self.items[name]:
            if not await self.strategy.hit(item, name, key):
                raise _refusal(name, item)

    async def check(self, name: str, key: str, cost: int = 1) -> None:
        """A :class:`Refusal` (429) if ``cost`` more of ``name`` for ``key`` would be over the
        limit; counts nothing."""
        if not self.enabled:
            return
        for item in self.items[name]:
            if not await self.strategy.test(item, name, key, cost=cost):
                raise _refusal(name, item)

    async def count(self, name: str, key: str) -> None:
        """Count one ``name`` for ``key``, over the limit or not (no refusal)."""
        if self.enabled:
            for item in self.items[name]:
                await self.strategy.hit(item, name, key)

    async def sign_in(self, name_key: str, address: str) -> SignIn:
        """Check a sign-in attempt for the name ``name_key`` (folded; empty for a name that
        cannot exist) from ``address`` before its password is checked: a :class:`Refusal`
        (429) when it is over a limit.  Then :meth:`SignIn.failed` or :meth:`SignIn.succeeded`
        after the password, and :meth:`SignIn.release` in any case."""
        await self.hit("sign_in_address", address)
        attempt = SignIn(self, name_key, address)
        if not name_key or not self.enabled:
            return attempt
        known = bool(await self.storage.get(attempt.known_key))
        attempt.keys = [("sign_in_name", attempt.pair)]
        if not known:
            attempt.keys.append(("sign_in_name_anywhere", name_key))
        # Counted as trying before any wait, so that attempts sent together see each other.
        self._trying.update(attempt.keys)
        try:
            for name, key in attempt.keys:
                await self.check(name, key, cost=self._trying[name, key])
        except BaseException:
            attempt.release()
            raise
        return attempt

    async def reset(self) -> None:
        await self.storage.reset()


class SignIn:
    """One sign-in attempt being counted (see :meth:`RateLimits.sign_in`)."""

    def __init__(self, limits: RateLimits, name_key: str, address: str) -> None:
        self.limits = limits
        self.name_key = name_key
        self.address = address
        #: The per-name-and-address key; the name is at most 24 characters with no ``|``.
        self.pair = f"{name_key}|{address}"
        self.known_key = f"varaq/sign_in_known/{self.pair}"
        #: The limits this attempt is checked against, and counted against if it fails.
        self.keys: list[tuple[str, str]] = []

    async def failed(self) -> None:
        """A wrong password: count it against every limit it was checked against."""
        for name, key in self.keys:
            await self.limits.count(name, key)

    async def succeeded(self) -> None:
        """The right password: the address is known for the name from now on (the cap across
        addresses does not apply to it)."""
        if self.name_key and self.limits.enabled:
            await self.limits.storage.incr(self.known_key, KNOWN_SECONDS)

    def release(self) -> None:
        """The attempt is over, whichever way (safe to call twice)."""
        trying = self.limits._trying
        for each in self.keys:
            trying[each] -= 1
            if trying[each] <= 0:
                del trying[each]
        self.keys = []


def _refusal(name: str, item: RateLimitItem) -> Refusal:
    metrics.RATE_LIMITED.labels(name).inc()
    return Refusal(
        429,
        f"too many {_WORDS[name]}: at most {item.amount} per {_window(item)}; wait a little "
        "and try again",
    )


def _window(item: RateLimitItem) -> str:
    unit = item.GRANULARITY.name
    return unit if item.multiples == 1 else f"{item.multiples} {unit}s"
