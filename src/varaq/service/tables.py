"""Game tables: one actor per game, the lichess way, in asyncio.

A :class:`Table` owns one :class:`~varaq.engine.Game`.  Every change — South's card, a
computer player's bid, the next deal, a concession — goes through :meth:`Table._commit`, under
the table's lock, in this order:

1. apply the action to a *copy* of the game (a refusal raises and nothing has changed);
2. append it to the journal and store journal, record and version (a storage failure also
   leaves the table as it was);
3. only then swap the copy in and broadcast the event to the table's listeners.

So whatever a browser has been shown is on disk, and a restarted server rebuilds the same game
by replaying the journal.  Computer players (North, East, West) are driven by one background
task per table that asks the :class:`~varaq.service.botpool.BotPool` with the seat's view only,
waits a human pace, and commits through the same path; if anything else changed the game in
the meantime (a concession) its answer is dropped.

Everything sent to a browser is built from ``game.view(S)`` and :func:`.journal.event_json`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import random
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..actions import ActionError, action_text, parse_action
from ..bots import LEVELS
from ..engine import DEAL, OVER, Game, IllegalAction
from ..events import Event
from ..rules import Rules, RulesError
from ..seats import NS, SEAT_LETTERS, S
from .botpool import HINT_BUDGET, BotPool
from .journal import Journal, JournalError, event_json, record_of
from .store import StaleWrite, Store

__all__ = ["Table", "Tables", "Refusal", "Pace", "NAMES", "new_game_id"]

log = logging.getLogger("varaq.service")

NAMES = {"N": "Partner", "E": "East", "S": "You", "W": "West"}
#: Events in a full state (a client that gives no version still sees the last moves).
RECENT_EVENTS = 8
#: Tables kept in memory; beyond this, idle ones (nobody listening, no computer player
#: thinking) are dropped and rebuilt from the store when next asked for.
MAX_TABLES = 500


class Refusal(Exception):
    """A request the table refuses; ``status`` is the HTTP status, ``str()`` the one-line reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


def new_game_id() -> str:
    """An unguessable id: knowing it is what lets a browser play South."""
    return secrets.token_urlsafe(16)


@dataclass(frozen=True, slots=True)
class Pace:
    """How long computer players take, in seconds, so a person can follow each card.

    ``scale`` multiplies every pause; ``VARAQ_PACE=0`` (tests) turns them off.
    """

    scale: float = 1.0
    card_low: float = 0.5
    card_high: float = 0.9
    after_trick: float = 1.2

    @classmethod
    def from_env(cls) -> Pace:
        text = os.environ.get("VARAQ_PACE", "1")
        try:
            scale = float(text)
        except ValueError:
            raise ValueError(f"VARAQ_PACE must be a number, not {text!r}") from None
        if scale < 0:
            raise ValueError("VARAQ_PACE cannot be negative")
        return cls(scale)

    def delay(self, rng: random.Random, after_trick: bool) -> float:
        if self.scale == 0:
            return 0.0
        base = self.after_trick if after_trick else rng.uniform(self.card_low, self.card_high)
        return base * self.scale


class Table:
    """One game and everything that may change it."""

    def __init__(
        self, game_id: str, level: str, journal: Journal, game: Game,
        events: list[dict[str, Any]], tables: Tables,
    ) -> None:
        self.id = game_id
        self.level = level
        self.journal = journal
        self.game = game
        self.events = events
        self.tables = tables
        self.lock = asyncio.Lock()
        self.listeners: set[asyncio.Queue[dict[str, Any]]] = set()
        self._driver: asyncio.Task[None] | None = None
        #: Set when the registry dropped this table because the stored game moved on without
        #: it (another process wrote it): it must not change anything any more.
        self.retired = False
        self._rng = random.Random(f"{journal.seed}:pace")

    # -- reading -----------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return len(self.events)

    @property
    def status(self) -> str:
        return "over" if self.game.is_over else "playing"

    def view_json(self) -> dict[str, Any]:
        return self.game.view(S).to_json()

    def state(self, since: int | None = None) -> dict[str, Any]:
        """STATE of docs/protocol.md: South's view, and the events after ``since``."""
        resync = False
        if since is None:
            events = self.events[-RECENT_EVENTS:]
        elif 0 <= since <= self.version:
            events = self.events[since:]
        else:
            # A version this table never had (a client of an older database): start over.
            events, resync = self.events[-RECENT_EVENTS:], True
        return {
            "id": self.id,
            "version": self.version,
            "level": self.level,
            "status": self.status,
            "view": self.view_json(),
            "names": dict(NAMES),
            "events": list(events),
            "resync": resync,
        }

    # -- South's requests ----------------------------------------------------------------------

    def _check_version(self, version: int | None) -> None:
        if version is not None and version != self.version:
            raise Refusal(
                409, f"stale version {version}: the game is at version {self.version}"
            )

    async def act(self, text: str, version: int | None = None) -> dict[str, Any]:
        """South plays a card, bids, chooses blind nil or looks, or passes a card."""
        try:
            action = parse_action(text)
        except ActionError as e:
            raise Refusal(400, str(e)) from None
        async with self.lock:
            self._check_version(version)
            status = 400 if self.game.turn == S else 409
            await self._commit(lambda g: g.apply(action, seat=S), status)
        return self.state(version)

    async def next_hand(self, version: int | None = None) -> dict[str, Any]:
        """Deal the next hand, once South has seen the last one's summary."""
        async with self.lock:
            self._check_version(version)
            if self.game.phase != DEAL:
                why = "the match is over" if self.game.is_over else "the hand is not finished"
                raise Refusal(409, f"cannot deal the next hand: {why}")
            await self._commit(lambda g: g.deal(), 409)
        return self.state(version)

    async def concede(self) -> dict[str, Any]:
        """South's side gives up: East-West win at once."""
        async with self.lock:
            await self._commit(lambda g: g.concede(NS), 409)
        return self.state()

    async def hint(self) -> dict[str, str]:
        """What the Hard player would do in South's seat, in a sentence."""
        view = self.game.view(S)
        if not view.legal:
            raise Refusal(409, "no hint: it is not your turn")
        seed = f"{self.journal.seed}:hint:{self.version}"
        try:
            answer = await self.tables.bots.decide("hard", view, seed, HINT_BUDGET)
        except Exception:
            log.exception("game %s: the Hard player failed to give a hint", self.id)
            answer = await self.tables.bots.decide("normal", view, seed)
        if answer.action not in view.legal:
            answer = await self.tables.bots.decide("easy", view, seed)
        return {"action": action_text(answer.action), "text": answer.reason, "bot": answer.bot}

    # -- the single way anything changes -------------------------------------------------------

    async def _commit(self, change: Callable[[Game], Event], refusal_status: int) -> Event:
        """Apply ``change(game)`` to a copy, store it, then show it.  Caller holds the lock."""
        if self.retired:
            raise Refusal(409, "this game changed elsewhere; reload it")
        new = self.game.copy()
        try:
            event = change(new)
        except IllegalAction as e:
            raise Refusal(refusal_status, str(e)) from None
        journal = Journal(
            self.journal.rules, self.journal.seed, self.journal.totals, self.journal.bags,
            self.journal.dealer, list(self.journal.entries),
        )
        journal.record_entry(new, event)
        version = self.version + 1
        status = "over" if new.is_over else "playing"
        try:
            await asyncio.to_thread(
                self.tables.store.save, self.id, self.version, journal.to_json(),
                record_of(new), version, status,
            )
        except StaleWrite as e:
            self.tables.forget(self.id)
            raise Refusal(409, f"{e}; reload the game") from None
        except Exception as e:  # a storage failure must not change the table
            log.exception("storing game %s failed", self.id)
            raise Refusal(503, f"could not store the action: {type(e).__name__}") from None
        self.game, self.journal = new, journal
        shown = event_json(version, event)
        self.events.append(shown)
        message = {"type": "event", "version": version, "event": shown, "view": self.view_json()}
        for queue in self.listeners:
            queue.put_nowait(message)
        self.wake()
        return event

    # -- listeners -----------------------------------------------------------------------------

    def listen(self) -> asyncio.Queue[dict[str, Any]]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.listeners.add(queue)
        return queue

    def unlisten(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        self.listeners.discard(queue)

    # -- computer players ----------------------------------------------------------------------

    @property
    def idle(self) -> bool:
        busy = self._driver is not None and not self._driver.done()
        return not busy and not self.listeners and not self.lock.locked()

    def bots_to_move(self) -> bool:
        g = self.game
        return not self.retired and g.phase not in (DEAL, OVER) and g.turn >= 0 and g.turn != S

    def wake(self) -> None:
        """Start the computer players' task if one of them is to move."""
        if self.bots_to_move() and (self._driver is None or self._driver.done()):
            self._driver = asyncio.get_running_loop().create_task(self._drive())

    async def _drive(self) -> None:
        loop = asyncio.get_running_loop()
        while self.bots_to_move():
            version, seat = self.version, self.game.turn
            view = self.game.view(seat)
            started = loop.time()
            last = self.events[-1] if self.events else None
            after_trick = bool(last and last["trick"])
            seed = f"{self.journal.seed}:{version}:{SEAT_LETTERS[seat]}"
            try:
                answer = await self.tables.bots.decide(self.level, view, seed)
                action = answer.action
            except Exception:
                log.exception("game %s: the %s player at %s failed; playing a legal card",
                              self.id, self.level, SEAT_LETTERS[seat])
                action = view.legal[0]
            if action not in view.legal:
                log.error("the %s player chose %s, not legal; playing %s instead",
                          self.level, action_text(action), action_text(view.legal[0]))
                action = view.legal[0]
            wait = self.tables.pace.delay(self._rng, after_trick) - (loop.time() - started)
            if wait > 0:
                await asyncio.sleep(wait)
            refused: Exception | None = None
            async with self.lock:
                if self.version != version or self.game.turn != seat:
                    continue  # the game moved on (a concession): this answer is stale
                try:
                    await self._commit(functools.partial(Game.apply, action=action, seat=seat), 409)
                except Exception as e:  # storage down, a retired table: never kill the driver
                    refused = e
            if refused is not None:
                if self.retired:
                    return
                log.error("game %s: %s's move not stored: %s", self.id, SEAT_LETTERS[seat], refused)
                await asyncio.sleep(1.0)  # then try again (outside the lock: South may act)

    async def close(self) -> None:
        if self._driver is not None and not self._driver.done():
            self._driver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._driver


class Tables:
    """All tables of this server process: created here, loaded from the store on first use."""

    def __init__(self, store: Store, bots: BotPool, pace: Pace) -> None:
        self.store = store
        self.bots = bots
        self.pace = pace
        self._tables: dict[str, Table] = {}
        self._loading = asyncio.Lock()

    async def create(self, body: Mapping[str, Any]) -> Table:
        """A new single-player table from a ``POST /api/games`` body, dealt and stored."""
        level, journal = parse_new_game(body)
        game_id = new_game_id()
        game = journal.new_game()
        event = game.deal()
        journal.record_entry(game, event)
        events = [event_json(1, event)]
        await asyncio.to_thread(
            self.store.insert, game_id, level, journal.to_json(), record_of(game), 1,
            "over" if game.is_over else "playing",
        )
        table = Table(game_id, level, journal, game, events, self)
        self._keep(table)
        table.wake()
        return table

    async def get(self, game_id: str) -> Table:
        """The table for ``game_id``, rebuilt from the store if this process has not seen it."""
        table = self._tables.get(game_id)
        if table is not None:
            table.wake()  # revives the computer players should their task have ended early
            return table
        if not _plausible_id(game_id):
            raise Refusal(404, "no game with that id")
        async with self._loading:
            table = self._tables.get(game_id)
            if table is not None:
                return table
            stored = await asyncio.to_thread(self.store.load, game_id)
            if stored is None:
                raise Refusal(404, "no game with that id")
            try:
                journal = Journal.from_json(stored.journal)
                game, events = journal.replay()
            except (JournalError, KeyError, ValueError) as e:
                log.error("game %s cannot be rebuilt: %s", game_id, e)
                raise Refusal(500, f"game {game_id} cannot be rebuilt: {e}") from None
            table = Table(game_id, stored.level, journal, game, events, self)
            self._keep(table)
        table.wake()  # the computer players resume if it is their turn
        return table

    def _keep(self, table: Table) -> None:
        if len(self._tables) >= MAX_TABLES:
            for game_id, old in list(self._tables.items()):
                if old.idle:
                    del self._tables[game_id]
                    old.retired = True  # a request still holding it must not write
                if len(self._tables) < MAX_TABLES // 2:
                    break
        self._tables[table.id] = table

    def __len__(self) -> int:
        return len(self._tables)

    def forget(self, game_id: str) -> None:
        table = self._tables.pop(game_id, None)
        if table is not None:
            table.retired = True

    async def close(self) -> None:
        for table in list(self._tables.values()):
            await table.close()
        self._tables.clear()


def _plausible_id(game_id: str) -> bool:
    return 8 <= len(game_id) <= 64 and all(c.isalnum() or c in "-_" for c in game_id)


def parse_new_game(body: Mapping[str, Any]) -> tuple[str, Journal]:
    """Check a new-game body; every problem is a :class:`Refusal` with one line."""
    known = {"level", "rules", "seed", "start", "dealer"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise Refusal(400, f"unknown field {unknown[0]!r} (known: {', '.join(sorted(known))})")
    level = body.get("level", "normal")
    if level not in LEVELS:
        raise Refusal(400, f"unknown level {level!r} (choose from {', '.join(LEVELS)})")
    spec = body.get("rules", "varaq")
    try:
        rules = Rules.from_spec(spec)
    except RulesError as e:
        raise Refusal(422, str(e)) from None
    except (TypeError, ValueError, AttributeError) as e:
        raise Refusal(422, f"bad rules: {e}") from None
    seed = body.get("seed")
    if seed is None:
        seed = secrets.randbits(48)
    elif not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise Refusal(400, "seed must be a whole number from 0 to 2**63-1")
    totals, bags = _parse_start(body.get("start"))
    dealer = body.get("dealer")
    if dealer is not None:
        if not isinstance(dealer, str) or dealer.upper() not in ("N", "E", "S", "W"):
            raise Refusal(400, "dealer must be one of N, E, S, W")
        dealer = SEAT_LETTERS.index(dealer.upper())
    return level, Journal.new(rules, seed, totals, bags, dealer)


def _parse_start(start: Any) -> tuple[tuple[int, int], tuple[int, int]]:
    if start is None:
        return (0, 0), (0, 0)
    if not isinstance(start, dict) or set(start) - {"total", "bags"}:
        raise Refusal(400, 'start must be {"total": {"NS": n, "EW": n}, "bags": {...}}')
    out = []
    for key in ("total", "bags"):
        part = start.get(key) or {}
        if not isinstance(part, dict) or set(part) - {"NS", "EW"}:
            raise Refusal(400, f'start.{key} must be {{"NS": n, "EW": n}}')
        pair = []
        for side in ("NS", "EW"):
            value = part.get(side, 0)
            if not isinstance(value, int) or isinstance(value, bool) or abs(value) > 100000:
                raise Refusal(400, f"start.{key}.{side} must be a whole number")
            if key == "bags" and value < 0:
                raise Refusal(400, f"start.bags.{side} cannot be negative")
            pair.append(value)
        out.append((pair[0], pair[1]))
    return out[0], out[1]

