"""Rate limits: how often one client address (or name, or socket) may do a thing.

Built on the ``limits`` package (moving windows, well tested, and the same code stores its
counters in memory for one process or in Redis when several processes share the load).  A limit
that is reached is a :class:`~.errors.Refusal` with status 429 and a sentence saying what to
wait for.
"""

from __future__ import annotations

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from .errors import Refusal
from .settings import Limits

__all__ = ["RateLimits"]

#: What each limit guards, for the refusal's sentence.
_WORDS = {
    "create": "new games",
    "hint": "hints",
    "socket": "messages",
    "sign_in_name": "sign-in attempts for this name",
    "sign_in_address": "sign-in attempts",
    "sign_up": "new accounts",
    "join": "attempts to join a table",
    "act": "requests",
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

    async def hit(self, name: str, key: str) -> None:
        """Count one ``name`` for ``key``; a :class:`Refusal` (429) once over the limit."""
        if not self.enabled:
            return
        for item in self.items[name]:
            if not await self.strategy.hit(item, name, key):
                raise Refusal(
                    429,
                    f"too many {_WORDS[name]}: at most {item.amount} per "
                    f"{_window(item)}; wait a little and try again",
                )

    async def reset(self) -> None:
        await self.storage.reset()


def _window(item: RateLimitItem) -> str:
    unit = item.GRANULARITY.name
    return unit if item.multiples == 1 else f"{item.multiples} {unit}s"
