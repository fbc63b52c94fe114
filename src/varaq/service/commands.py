"""Commands as data: everything a person may ask of a table, read once, whatever the transport.

An HTTP route, a WebSocket message and a request forwarded from another server process all
become one :class:`Command` through one parser (:func:`parse_command`) before anything acts on
it, the way lichess's socket server turns every client message into one sealed type.  So a
limit, a check or a refusal's words are written once: the HTTP body ``{"action": "QS"}`` on
``/actions`` and the socket message ``{"type": "action", "action": "QS"}`` are the same
``Command(Kind.ACT, action=QS)``, counted against the same limit (:data:`LIMIT_OF`) and
authorized in the same place (:meth:`varaq.service.table.Table.execute`).

*Who* is asking is not part of the command: it travels beside it as an :class:`Asker` (the
signed-in person, or nobody), and the seat they act for is looked up in the table's seating
when the command is handled — never remembered from the connection, never named by the client.

>>> cmd = parse_command("action", {"action": " bid 4 ", "version": 7})
>>> cmd.kind, cmd.version, cmd.to_json()
(<Kind.ACT: 'act'>, 7, {'kind': 'act', 'action': 'bid 4', 'version': 7})
>>> parse_command("act", cmd.to_json()) == cmd
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..actions import ActionError, parse_action
from ..seats import SEAT_LETTERS
from .errors import Refusal

__all__ = [
    "Kind", "Command", "Asker", "parse_command", "LIMIT_OF", "whole_number", "version_of",
    "ACTION_CHARS", "WORD_CHARS", "LISTINGS", "read_listing",
]

#: Longest action text ("bid blind nil" and the like are far shorter).
ACTION_CHARS = 32
#: Longest word a command carries (a phrase id, a pace, a seat's new occupant kind).
WORD_CHARS = 16


class Kind(Enum):
    """What a command asks for.  The value is its name on the wire and in forwarding."""

    ACT = "act"            #: play a card, bid, choose blind nil or look, pass a card
    NEXT = "next"          #: deal the next hand (at a table of people: say you are ready)
    CONCEDE = "concede"    #: give up the match (or offer to, to a person partner)
    DECLINE = "decline"    #: turn down the partner's offer to concede, or a claim put to you
    PHRASE = "phrase"      #: say one of the quick phrases
    PACE = "pace"          #: the computer players' speed
    HINT = "hint"          #: what the Hard player would do in your seat, now
    UNDO = "undo"          #: take back your last bid or card (single-player games only)
    CLAIM = "claim"        #: claim every trick left for your side (the solver checks it)
    ACCEPT = "accept"      #: accept the other side's claim put to you
    JOIN = "join"          #: take a seat at a private table (with its code)
    START = "start"        #: the host starts the match
    CONFIGURE = "configure"  #: the host changes level, rules or options before the start
    SEAT = "seat"          #: the host gives a seat to a computer player or leaves it open
    LEAVE = "leave"        #: give up your seat
    AGAIN = "again"        #: play again with the same seats
    LISTING = "listing"    #: the host lists the table under Live tables, or takes it off


#: Names the WebSocket uses for some kinds (``{"type": "action"}``), kept for old clients.
_ALIASES = {"action": Kind.ACT}

#: The rate limit (a field of :class:`~varaq.service.settings.Limits`) each kind counts
#: against, per client address, on every transport.
LIMIT_OF: dict[Kind, str] = {
    Kind.ACT: "act", Kind.NEXT: "act", Kind.CONCEDE: "act", Kind.DECLINE: "act",
    Kind.PHRASE: "act", Kind.PACE: "act", Kind.HINT: "hint", Kind.JOIN: "join",
    Kind.UNDO: "act", Kind.CLAIM: "act", Kind.ACCEPT: "act",
    Kind.START: "act", Kind.CONFIGURE: "act", Kind.SEAT: "act", Kind.LEAVE: "act",
    Kind.AGAIN: "create", Kind.LISTING: "act",
}

#: How a table of people is found: ``public`` (listed under Live tables, anyone may watch) or
#: ``private`` (only people with the code or the link know of it; the default).
LISTINGS = ("private", "public")


def read_listing(value: Any) -> bool:
    """Whether a ``listing`` word asks for a public table; anything else is a 400 saying so.

    >>> read_listing("public"), read_listing("private")
    (True, False)
    """
    if not isinstance(value, str) or value not in LISTINGS:
        shown = repr(value[:16]) if isinstance(value, str) else type(value).__name__
        raise Refusal(400, f'listing must be "public" or "private", not {shown}')
    return value == "public"


@dataclass(frozen=True, slots=True)
class Asker:
    """Who sent a command or holds a socket: a signed-in person (``user``) or nobody.

    ``address`` is where the request came from, for per-address limits only; it never
    decides what anyone may see or do.
    """

    user: int | None = None
    address: str = "unknown"

    def to_json(self) -> dict[str, Any]:
        return {"user": self.user, "address": self.address[:64]}

    @classmethod
    def from_json(cls, doc: Any) -> Asker:
        if not isinstance(doc, Mapping):
            raise Refusal(400, "a forwarded command needs its asker")
        user = doc.get("user")
        if user is not None and (not isinstance(user, int) or isinstance(user, bool)):
            raise Refusal(400, "a forwarded asker's user must be a number")
        return cls(user, str(doc.get("address", "unknown"))[:64])


@dataclass(frozen=True, slots=True)
class Command:
    """One request to a table, already checked for shape (not yet for who may do it)."""

    kind: Kind
    #: :data:`Kind.ACT`: the action's words, trimmed (``"QS"``, ``"bid 4"``) and
    #: :attr:`code`, the engine's action they read as.
    action: str = ""
    code: int = -1
    #: The version the client acted on: a move made on an old position is refused (409).
    version: int | None = None
    #: :data:`Kind.PHRASE`: the phrase id; :data:`Kind.PACE`: the pace; :data:`Kind.SEAT`:
    #: ``"bot"`` or ``"open"``; :data:`Kind.JOIN`: the table code; :data:`Kind.LISTING`:
    #: ``"public"`` or ``"private"``.
    word: str = ""
    #: :data:`Kind.SEAT`: the seat it is about.
    seat: int = -1
    #: :data:`Kind.CONFIGURE`: the new variations (checked by the table's own parser).
    options: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The command as it travels to another process (and back through the parser)."""
        doc: dict[str, Any] = {"kind": self.kind.value}
        if self.kind is Kind.ACT:
            doc["action"] = self.action
        if self.version is not None:
            doc["version"] = self.version
        if self.kind is Kind.PHRASE:
            doc["phrase"] = self.word
        elif self.kind is Kind.PACE:
            doc["pace"] = self.word
        elif self.kind is Kind.SEAT:
            doc.update({"seat": SEAT_LETTERS[self.seat], "to": self.word})
        elif self.kind is Kind.JOIN:
            doc["code"] = self.word
        elif self.kind is Kind.CONFIGURE:
            doc.update(self.options)
        elif self.kind is Kind.LISTING:
            doc["listing"] = self.word
        return doc


def kind_of(name: object) -> Kind:
    """The kind a message's ``type`` (or a forwarded command's ``kind``) names."""
    if isinstance(name, str):
        if name in _ALIASES:
            return _ALIASES[name]
        try:
            return Kind(name)
        except ValueError:
            pass
        shown = name[:32]
    else:
        shown = type(name).__name__
    raise Refusal(400, f"unknown message type {shown!r}")


def parse_command(kind: Kind | str, doc: Mapping[str, Any]) -> Command:
    """The :class:`Command` of ``kind`` that ``doc`` (a body or a message) describes; a
    one-line :class:`Refusal` (400) says what is wrong with it."""
    k = kind if isinstance(kind, Kind) else kind_of(kind)
    version = version_of(doc)
    if k is Kind.ACT:
        text = doc.get("action")
        if not isinstance(text, str) or not text.strip() or len(text) > ACTION_CHARS:
            raise Refusal(400, '"action" must be a card such as "QS", "bid 4", "nil"…')
        try:
            code = parse_action(text)
        except (ActionError, ValueError) as e:
            raise Refusal(400, str(e).splitlines()[0][:200] or "unknown action") from None
        return Command(k, action=" ".join(text.split()), code=code, version=version)
    if k is Kind.PHRASE:
        return Command(k, word=_word(doc, "phrase"), version=version)
    if k is Kind.PACE:
        return Command(k, word=_word(doc, "pace"), version=version)
    if k is Kind.SEAT:
        return Command(k, seat=_seat(doc.get("seat")), word=_word(doc, "to"), version=version)
    if k is Kind.JOIN:
        table_code = doc.get("code")
        if not isinstance(table_code, str) or len(table_code) > 32:
            raise Refusal(400, 'the body needs "code": the table code, such as "K7WQ3M"')
        return Command(k, word=table_code, version=version)
    if k is Kind.CONFIGURE:
        options = {key: value for key, value in doc.items() if key not in ("kind", "type")}
        return Command(k, options=options, version=version)
    if k is Kind.LISTING:
        listing = doc.get("listing")
        read_listing(listing)
        return Command(k, word=str(listing), version=version)
    return Command(k, version=version)


def _word(doc: Mapping[str, Any], name: str) -> str:
    value = doc.get(name, "")
    return value[:WORD_CHARS] if isinstance(value, str) else ""


def _seat(value: Any) -> int:
    if not isinstance(value, str) or len(value) != 1 or value.upper() not in SEAT_LETTERS:
        raise Refusal(400, "seat must be one of N, E, S, W")
    return SEAT_LETTERS.index(value.upper())


def whole_number(value: Any, name: str, low: int = 0, high: int = 2**31 - 1) -> int:
    """A JSON whole number in ``low``..``high`` (booleans are not numbers)."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise Refusal(400, f"{name} must be a whole number from {low} to {high}")
    return value


def version_of(doc: Mapping[str, Any]) -> int | None:
    """The ``version`` a body or message names, if any."""
    version = doc.get("version")
    if version is None:
        return None
    return whole_number(version, "version")
