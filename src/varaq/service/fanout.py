"""Fan-out: who at a table is sent what, decided when it is sent, by person.

A socket belongs to a *person* (an :class:`~.commands.Asker`), not to a seat.  Which seat it
reads for is looked up in the table's seating every time something is built for it and again
when it is sent: a person who leaves, whose seat the host hands to a computer player, or who is
replaced, becomes a watcher at once — the socket is sent a fresh watcher's state and nothing
that was made for the seat it no longer holds.  (lila-ws does the same: a socket's rights are
the game's current ones, not the ones it connected with.)

Each :class:`Listener` is one socket's outbox, drained by that socket's own writer: a slow
socket only delays itself, and when its outbox is full it is emptied and sent one fresh state
instead of the backlog.  Every queued message carries the reader it was built for; the writer
drops any whose reader is no longer the person's (:func:`drain`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .commands import Asker
from .journal import Step
from .readers import event_json

if TYPE_CHECKING:
    from .table import Table

__all__ = ["Listener", "Fanout", "drain", "PUBLIC", "SEATING_KINDS"]

#: The tag of a message with nothing private in it (a phrase, "play again", an error): any
#: reader may be sent it.
PUBLIC = -2
#: Journal lines that change who sits where (and so who reads for which seat).
SEATING_KINDS = ("sit", "leave", "start")


class Listener:
    """One socket's outbox and what it has been sent."""

    __slots__ = ("asker", "reader", "messages", "size", "ready", "resync", "version",
                 "greeted")

    def __init__(self, asker: Asker, reader: int | None, size: int) -> None:
        self.asker = asker
        #: The seat this socket was last served as (``None``: a watcher).  Only a cache of the
        #: seating: :meth:`Fanout.reader_of` is the truth.
        self.reader = reader
        #: ``(reader the message was built for, message)``, oldest first.
        self.messages: deque[tuple[int | None, dict[str, Any]]] = deque()
        self.size = size
        self.ready = asyncio.Event()
        #: Send a full state (after :attr:`version`) before anything else.
        self.resync = False
        #: The newest version this socket has been sent.
        self.version = 0
        #: Events are sent only once the client's hello has said which version it has.
        self.greeted = False

    def push(self, message: dict[str, Any], reader: int | None = PUBLIC, *,
             reply: bool = False) -> None:
        """Queue ``message``, built for ``reader`` (:data:`PUBLIC` if it holds nothing
        private).  Until the client's hello, only answers to its own messages are queued (the
        hello's state will hold everything else)."""
        if not self.greeted and not reply:
            return
        if len(self.messages) >= self.size:
            self.messages.clear()
            self.resync = True
        else:
            self.messages.append((reader, message))
        self.ready.set()

    def ask_resync(self, since: int) -> None:
        """A hello: the client has ``since``; however many hellos arrive, one state goes out."""
        self.version = since
        self.greeted = True
        # Events queued so far are in the state it will get; replies (errors, hints) stay.
        self.messages = deque(m for m in self.messages if m[1].get("type") != "event")
        self.resync = True
        self.ready.set()

    def reseat(self, reader: int | None) -> None:
        """The person's seat changed: nothing queued for the old one goes out, and the next
        thing sent is a full state for the new one."""
        self.reader = reader
        self.messages = deque(m for m in self.messages if m[0] == PUBLIC)
        if self.greeted:  # before its hello, the hello's own state will be the new seat's
            self.resync = True
            self.ready.set()


class Fanout:
    """A table's listeners, and the one way anything reaches them."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.listeners: set[Listener] = set()

    def __len__(self) -> int:
        return len(self.listeners)

    def add(self, asker: Asker, size: int) -> Listener:
        listener = Listener(asker, self.table.reader_of(asker), size)
        self.listeners.add(listener)
        return listener

    def remove(self, listener: Listener) -> bool:
        if listener in self.listeners:
            self.listeners.discard(listener)
            return True
        return False

    def people(self) -> dict[int, int]:
        """Open sockets per signed-in person (presence is counted by person, not seat)."""
        out: dict[int, int] = {}
        for listener in self.listeners:
            user = listener.asker.user
            if user is not None:
                out[user] = out.get(user, 0) + 1
        return out

    def current(self, listener: Listener) -> int | None:
        """The seat ``listener``'s person holds now; a change reseats the listener."""
        reader = self.table.reader_of(listener.asker)
        if reader != listener.reader:
            listener.reseat(reader)
        return reader

    def events(self, first: int, steps: list[Step]) -> None:
        """Send every listener the new steps (versions ``first + 1``…), each built for the
        seat its person holds after them."""
        if not self.listeners or not steps:
            return
        table = self.table
        seated = any(step.line.kind in SEATING_KINDS for step in steps)
        built: dict[int | None, tuple[dict[str, Any], dict[str, Any] | None]] = {}
        for listener in list(self.listeners):
            before = listener.reader
            reader = self.current(listener)
            if reader != before:
                continue  # its resync state holds all of this, for its new seat
            if reader not in built:
                built[reader] = (
                    table.view_json(reader),
                    table.table_json(reader) if seated or table.online is not None else None,
                )
            view, around = built[reader]
            for i, step in enumerate(steps):
                version = first + i + 1
                message: dict[str, Any] = {
                    "type": "event", "version": version,
                    "event": event_json(version, step, reader), "view": view,
                }
                if around is not None:
                    message["table"] = around
                    if seated:
                        message["seats"] = around["seats"]
                        message["status"] = table.status
                listener.push(message, reader)

    def table_changed(self) -> None:
        """Send every listener the table around the game (seats, presence, timers)."""
        table = self.table
        for listener in list(self.listeners):
            reader = self.current(listener)
            listener.push({
                "type": "table", "version": table.version, "status": table.status,
                "table": table.table_json(reader),
            }, reader)

    def to_all(self, message: dict[str, Any]) -> None:
        """A message with nothing private in it, to everyone (a phrase, "play again")."""
        for listener in list(self.listeners):
            listener.push(message)

    def resync_all(self) -> None:
        """Send every greeted listener a fresh state (the table was read again from the
        store); a socket whose hello has not come yet gets its state from that hello."""
        for listener in list(self.listeners):
            self.current(listener)
            if listener.greeted:
                listener.ask_resync(listener.version)


async def drain(
    listener: Listener, table: Table, send: Callable[[dict[str, Any]], Awaitable[None]],
) -> None:
    """Send ``listener``'s messages in order, for as long as the socket lives.

    Right before each message goes out, the person's seat is looked up again: a message built
    for a seat they no longer hold is dropped and a state for their current seat goes instead.
    """
    while True:
        await listener.ready.wait()
        listener.ready.clear()
        while True:
            reader = table.fanout.current(listener)
            if listener.resync:
                listener.resync = False
                state = table.state(reader, listener.version)
                listener.version = state["version"]
                await send({"type": "state", **state})
                continue
            if not listener.messages:
                break
            built_for, message = listener.messages.popleft()
            if built_for != PUBLIC and built_for != reader:
                listener.reseat(reader)
                continue
            if message.get("type") == "event":
                version = message.get("version")
                if version is None or version <= listener.version:
                    continue
                listener.version = version
            await send(message)

