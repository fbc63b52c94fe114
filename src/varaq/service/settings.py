"""A server's settings: one frozen value, built from the command line and the environment.

Everything an operator may tune, and every limit a client runs into, is here, so a test can
build a server with small limits to prove each one, and ``varaq serve --help`` can name them.
"""

from __future__ import annotations

import os
import random
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path

from argon2 import PasswordHasher

__all__ = ["Settings", "Limits", "Pace", "Tempo", "SPEEDS", "load_secret"]


@dataclass(frozen=True, slots=True)
class Tempo:
    """One speed's pauses, in seconds: a computer player's card comes after a pause drawn
    between ``card_low`` and ``card_high`` (so the table never ticks like a metronome), and the
    lead after a finished trick after ``after_trick`` (time to see who won it)."""

    card_low: float
    card_high: float
    after_trick: float


#: The computer players' speeds a table can choose.  Each is its own tempo, not a factor of
#: "normal": "fast" has to be quick enough that a player who knows the game never waits (a card
#: in under a quarter second, the next lead hard on the trick), while "slow" gives a newcomer a
#: full second or more to follow each card.
SPEEDS: dict[str, Tempo] = {
    "slow": Tempo(1.0, 1.4, 2.2),
    "normal": Tempo(0.5, 0.9, 1.2),
    "fast": Tempo(0.12, 0.2, 0.3),
}


@dataclass(frozen=True, slots=True)
class Pace:
    """How long computer players take, so a person can follow each card.

    A table's speed setting (:data:`SPEEDS`) gives the pauses; ``scale`` multiplies every one
    of them, and ``VARAQ_PACE=0`` (tests) turns them off.
    """

    scale: float = 1.0

    @classmethod
    def from_env(cls) -> Pace:
        text = os.environ.get("VARAQ_PACE", "1")
        try:
            scale = float(text)
        except ValueError:
            raise ValueError(f"VARAQ_PACE must be a number, not {text!r}") from None
        if not scale >= 0 or scale > 1000:
            raise ValueError("VARAQ_PACE cannot be negative" if scale < 0 else
                             "VARAQ_PACE must be a number from 0 to 1000")
        return cls(scale)

    def delay(self, rng: random.Random, after_trick: bool, speed: str = "normal") -> float:
        """Seconds a computer player waits before its move at ``speed`` (an unknown speed
        is "normal")."""
        if self.scale == 0:
            return 0.0
        tempo = SPEEDS.get(speed, SPEEDS["normal"])
        base = tempo.after_trick if after_trick else rng.uniform(tempo.card_low, tempo.card_high)
        return base * self.scale


@dataclass(frozen=True, slots=True)
class Limits:
    """Rates in the ``limits`` package's words (``"20/minute"``; ``;`` joins several).

    Per client address unless said otherwise.  Each is proved by a test with a small value.
    """

    #: New tables (single-player games, private tables).
    create: str = "20/minute;200/hour"
    #: Hint requests.
    hint: str = "30/minute"
    #: Messages on one WebSocket (per socket).
    socket: str = "30/second;600/minute"
    #: Wrong passwords for one name from one address; wrong passwords for one name from all
    #: the addresses it never signed in from (a loose cap on guessing from many places at
    #: once); any sign-in attempts from one address.  A stranger's guesses use up none of the
    #: owner's: see :mod:`varaq.service.ratelimit`.
    sign_in_name: str = "10/5minutes"
    sign_in_name_anywhere: str = "100/hour"
    sign_in_address: str = "30/5minutes"
    #: New accounts.
    sign_up: str = "10/hour"
    #: Attempts to join a table by code (so codes cannot be guessed).
    join: str = "20/minute"
    #: Any other request that changes something (actions, next hand, concede…).
    act: str = "40/second"
    #: Reads of a table's state or record over HTTP (a client polls at most a few a second;
    #: the socket is the way to follow a game).
    read: str = "40/second;1200/minute"
    #: WebSockets open at once from one client address (a person has a tab or two per table).
    sockets_per_address: int = 64
    #: Hand reviews started (each can keep the review worker busy for ``review_seconds``).
    review: str = "10/minute;60/hour"
    #: Largest request body and WebSocket message, in bytes.
    body_bytes: int = 16_384
    #: Deepest JSON nesting accepted in a body or message.
    json_depth: int = 8
    #: Messages waiting to be sent to one socket before it is resynchronised instead.
    outbox: int = 256
    #: Largest game record a client may send for a review, in bytes (a long match is ~20 KB).
    review_bytes: int = 131_072
    #: Hand reviews running at once on this server; each client runs one at a time.
    reviews_running: int = 4
    #: Seconds of solving one review may take before it stops where it has got to.
    review_seconds: float = 90.0
    #: Whether the rates above are counted at all (sizes and depths always are).
    rates: bool = True

    @classmethod
    def from_env(cls) -> Limits:
        """The default limits, with ``VARAQ_REVIEW_SECONDS`` (a smaller machine, or the browser
        tests, may want hand reviews to stop sooner)."""
        text = os.environ.get("VARAQ_REVIEW_SECONDS")
        if text is None:
            return cls()
        try:
            seconds = float(text)
        except ValueError:
            seconds = -1.0
        if not 1.0 <= seconds <= 3600.0:
            raise ValueError(
                f"VARAQ_REVIEW_SECONDS must be a number of seconds from 1 to 3600, not {text!r}"
            )
        return cls(review_seconds=seconds)

    @classmethod
    def relaxed(cls) -> Limits:
        """No rate limits and no cap on sockets per address (functional tests, load tests on
        loopback, where every client shares one address); the tests that prove a limit set
        their own."""
        return cls(rates=False, sockets_per_address=1_000_000)


@dataclass(frozen=True, slots=True)
class Settings:
    #: Accept test-only requests (``seed``, ``start`` and ``dealer`` in a new game).  Off for
    #: every real server: a client that chooses the seed can rebuild every deal offline.
    test_mode: bool = False
    pace: Pace = field(default_factory=Pace)
    limits: Limits = field(default_factory=Limits)
    #: The key that signs session cookies and the daily deals.
    secret: bytes = b""
    #: Seconds a person who dropped keeps the seat before a computer player plays for them.
    drop_seconds: float = 60.0
    #: Seconds after a hand before the next is dealt at a table of several people.
    next_hand_seconds: float = 15.0
    #: Seconds of a turn timer's one "second" (1.0; tests shrink the 30 s timer to moments).
    turn_second: float = 1.0
    #: Tables kept in memory; idle ones beyond this are dropped and rebuilt on demand.
    max_tables: int = 5000
    #: Processes for the Hard computer players (None: up to 2).
    bot_processes: int | None = None
    #: Mark the session cookie ``Secure`` (when served over HTTPS).
    secure_cookies: bool = False
    #: Seconds a session may go unused before it ends (14 days), and that it lasts at most
    #: however much it is used (60 days).  Sessions are rows in the database: see
    #: :mod:`varaq.web.sessions`.
    session_idle_seconds: float = 14 * 24 * 3600.0
    session_max_seconds: float = 60 * 24 * 3600.0
    #: Seconds a process trusts a session it has read before reading it again: how late a
    #: sign-out made on another process of a cluster reaches this one (on its own process a
    #: sign-out counts from the next request).
    session_cache_seconds: float = 2.0
    #: Cheap password hashes, for tests only (a real hash takes tens of milliseconds).
    cheap_hashes: bool = False
    #: Redis, when several processes share the tables (``varaq serve --redis``).
    redis_url: str | None = None
    #: The bearer token a Prometheus scrape of ``/metrics`` must send; none: no metrics.
    metrics_token: str | None = None

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Settings from ``VARAQ_PACE``, ``VARAQ_TEST_MODE``, ``VARAQ_SECRET`` and
        ``VARAQ_REVIEW_SECONDS``; keyword arguments win."""
        values: dict[str, object] = {
            "pace": Pace.from_env(),
            "limits": Limits.from_env(),
            "test_mode": os.environ.get("VARAQ_TEST_MODE", "") not in ("", "0", "false", "no"),
            "redis_url": os.environ.get("VARAQ_REDIS") or None,
            "metrics_token": os.environ.get("VARAQ_METRICS_TOKEN") or None,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if not values.get("secret"):
            values["secret"] = load_secret()
        settings = cls(**values)  # type: ignore[arg-type]
        return settings

    def password_hasher(self) -> PasswordHasher:
        """argon2id with RFC 9106's low-memory parameters; minimal ones for tests."""
        if self.cheap_hashes:
            return PasswordHasher(time_cost=1, memory_cost=256, parallelism=1)
        return PasswordHasher()

    def but(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]


def load_secret(folder: Path | None = None) -> bytes:
    """``VARAQ_SECRET``, else a random key made once and kept in the user data directory (so
    sessions and the daily deals survive a restart)."""
    text = os.environ.get("VARAQ_SECRET")
    if text:
        return text.encode()
    if folder is None:
        from .store import data_dir

        folder = data_dir()
    path = folder / "secret.key"
    try:
        key = path.read_bytes().strip()
        if len(key) >= 32:
            return key
    except FileNotFoundError:
        pass
    key = secrets.token_hex(32).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    # Made readable by the owner only, before the key is written into it.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key)
    return key
