"""What each command does at a table, and who may do it.

:func:`execute` is the one place a :class:`~.commands.Command` is authorized and carried out,
whatever brought it (HTTP, the WebSocket, another process).  Authorization is read from the
table as it is at that moment: the seat a person acts for is the one the seating gives them
under the table's lock (:meth:`~.table.Table.seat_for`), the host is the table's host, and a
watcher, a person who just left, or a stranger gets a one-line refusal.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..actions import UNDO
from ..claims import why_wrong
from ..engine import BLIND, DEAL, EXCHANGE, OVER, PLAY
from ..seats import SEAT_NAMES
from .accounts import check_active
from .commands import Asker, Command, Kind
from .errors import Refusal
from .friends import blocked_by
from .journal import Line
from .newtable import parse_private_table
from .replica import publish
from .settings import SPEEDS

if TYPE_CHECKING:
    from .table import Table

__all__ = ["execute", "deal_if_due"]

Handler = Callable[["Table", Command, Asker], Awaitable[Any]]


async def execute(table: Table, command: Command, asker: Asker) -> Any:
    """Carry out ``command`` for ``asker`` at ``table`` (this process runs the table).  At a
    table an administrator closed, every command is refused with the reason."""
    table.refuse_if_closed()
    return await _HANDLERS[command.kind](table, command, asker)


def _person(asker: Asker) -> int:
    if asker.user is None:
        raise Refusal(401, "sign in first: this needs an account")
    return asker.user


def _host_only(table: Table, asker: Asker) -> int:
    user = _person(asker)
    if table.info.host != user:
        raise Refusal(403, "only the host can do that")
    return user


# -- a seat's own commands ------------------------------------------------------------------------


async def _act(table: Table, command: Command, asker: Asker) -> None:
    """A person plays a card, bids, chooses blind nil or looks, or passes a card."""
    async with table.lock:
        seat = table.seat_for(asker)
        table.check_version(command.version)
        status = 400 if table.game.turn == seat else 409
        await table.commit([Line("act", seat, command.code)], status)


async def _next(table: Table, command: Command, asker: Asker) -> None:
    """Deal the next hand, once the last one's summary has been seen.  At a table of people
    it is dealt when everyone there has asked (or after a while: see :mod:`.online`)."""
    async with table.lock:
        seat = table.seat_for(asker)
        table.check_version(command.version)
        if table.game.phase != DEAL or not table.seating.started:
            why = ("the match is over" if table.game.is_over else
                   "the match has not started" if not table.seating.started else
                   "the hand is not finished")
            raise Refusal(409, f"cannot deal the next hand: {why}")
        if table.online is not None and not table.online.ask_next(seat):
            return
        await table.commit([Line("deal")], 409)


async def deal_if_due(table: Table) -> None:
    """The next-hand timer ran out: deal, unless someone already did."""
    async with table.lock:
        if table.game.phase == DEAL and table.seating.started and not table.retired:
            with contextlib.suppress(Refusal):
                await table.commit([Line("deal")], 409)


async def _concede(table: Table, command: Command, asker: Asker) -> str:
    """The asker's side gives up: the other side wins at once — or, at a table where the
    partner is a person who is there, once the partner agrees (``"offered"``)."""
    async with table.lock:
        seat = table.seat_for(asker)
        if table.game.is_over:
            raise Refusal(409, "the match is over")
        if table.online is not None and table.online.concede_needs_partner(seat):
            table.online.offer_concession(seat)
            return "offered"
        await table.commit([Line("concede", seat & 1)], 409)
        return "conceded"


async def _decline(table: Table, command: Command, asker: Asker) -> None:
    """Turn down the partner's offer to concede, or the other side's claim put to you (play
    goes on)."""
    seat = table.seat_for(asker)
    if table.online is None:
        raise Refusal(409, "there is no offer to decline")
    if table.online.claim is not None and seat in table.online.claim_waits:
        async with table.lock:
            table.online.decline_claim(seat)
        return
    table.online.decline(seat)


async def _phrase(table: Table, command: Command, asker: Asker) -> dict[str, Any]:
    seat = table.seat_for(asker)
    if table.online is None:
        raise Refusal(409, "quick phrases are for tables of people")
    message = table.online.phrase(seat, command.word)
    await publish(table, {"push": message})
    return message


async def _pace(table: Table, command: Command, asker: Asker) -> None:
    """The computer players' pace at this table: ``slow``, ``normal`` or ``fast``."""
    table.seat_for(asker)
    pace = command.word
    if pace not in SPEEDS:
        raise Refusal(400, f"pace must be one of {', '.join(SPEEDS)}, not {pace!r}")
    if pace == table.pace:
        return
    async with table.lock:
        options = {**table.info.options, "pace": pace}
        await table.commit([], 409, values={"options": options})
        table.info.options = options


async def _hint(table: Table, command: Command, asker: Asker) -> dict[str, str]:
    """What the Hard player would do in the asker's seat — only when it is their turn."""
    return await table.hints.for_seat(table.seat_for(asker))


# -- undo and claims ------------------------------------------------------------------------------

#: Why a table of each kind takes no undo: only a single-player game counts for nothing.
_NO_UNDO = {
    "daily": "no undo at the daily: everyone plays the same deal once, unaided",
    "private": "no undo at a table of people: a card played there stands",
    "quick": "no undo at a table of people: a card played there stands",
}


def undo_count(table: Table, seat: int) -> int:
    """How many moves ``seat``'s undo takes back: its last bid or card and every computer
    player's move after it (docs/rules.md, "Undo").  Asked again, it reaches back to the bid
    or card before that, so a second press takes back the trick before.  A move by a person,
    a blind nil choice or an exchange after it, or a hand already scored, stops it."""
    game = table.game
    if game.phase in (DEAL, OVER):
        why = "the match is over" if game.phase == OVER else "the hand is over and scored"
        raise Refusal(409, f"nothing to undo: {why}")
    moves = game.hand_moves()
    for i in range(len(moves) - 1, -1, -1):
        who, _, phase = moves[i]
        if who == seat:
            break
        if not table.driver.bot_for(who):
            raise Refusal(409, f"cannot undo: {SEAT_NAMES[who]} has moved since")
        if phase in (BLIND, EXCHANGE):
            raise Refusal(409, "cannot undo: the blind nil choice and the exchange since stand")
    else:
        raise Refusal(409, "nothing to undo: you have not bid or played a card in this hand")
    if phase == BLIND:
        raise Refusal(409, "cannot undo: the choice between blind nil and looking stands")
    if phase == EXCHANGE:
        raise Refusal(409, "cannot undo: a card passed to your partner stays passed")
    return len(moves) - i


async def _undo(table: Table, command: Command, asker: Asker) -> int:
    """Take back the asker's last bid or card, with the computer players' moves after it
    (a single-player game only).  A computer player's move on its way is dropped first, so
    it never lands on the position the undo brings back.  How many moves went back."""
    async with table.lock:
        seat = table.seat_for(asker)
        why = _NO_UNDO.get(table.info.kind)
        if why is not None:
            raise Refusal(409, why)
        table.check_version(command.version)
        count = undo_count(table, seat)
        table.driver.cancel()
        await table.commit([Line("undo", seat, UNDO + count)], 409)
        return count


async def _claim(table: Table, command: Command, asker: Asker) -> str:
    """The asker claims every trick left for their side.  The solver checks the claim on the
    true cards first (off the event loop); a wrong one is refused with the trick it would lose.
    A right one ends the hand at once (``"accepted"``: the computer players accept what the
    solver proved) unless people on the other side are at the table: then it is put to them
    (``"offered"``), and ends the hand when they accept (:func:`_accept`); a decline, a move,
    or a minute without an answer, and play goes on."""
    async with table.lock:
        seat = table.seat_for(asker)
        if table.info.kind == "daily":
            raise Refusal(409, "no claims at the daily: everyone plays every card, unaided")
        table.check_version(command.version)
        game = table.game
        if game.phase != PLAY:
            raise Refusal(409, "claim refused: a claim is made during the play of the cards")
        # Only a game that counts for nothing hears which card beats the claim (it may be one
        # the claimer has not seen).
        solo = table.info.kind == "solo"
        why = await asyncio.to_thread(why_wrong, game.copy(), seat, name_card=solo)
        if why:
            raise Refusal(409, f"claim refused: {why}")
        askers = table.online.claim_askers(seat) if table.online is not None else set()
        if table.online is not None and askers:
            # People on the other side are asked; the claim stands while nothing is played.
            table.online.offer_claim(seat, askers)
            return "offered"
        table.driver.cancel()
        await table.commit([Line("claim", seat)], 409)
        return "accepted"


async def _accept(table: Table, command: Command, asker: Asker) -> str:
    """Accept the other side's claim put to the asker: once everyone asked has, the hand
    ends (``"accepted"``; else ``"waiting"`` for the others)."""
    async with table.lock:
        seat = table.seat_for(asker)
        if table.online is None:
            raise Refusal(409, "there is no claim waiting for your answer")
        claimer = table.online.accept_claim(seat)
        if claimer is None:
            return "waiting"
        table.driver.cancel()
        await table.commit([Line("claim", claimer)], 409)
        return "accepted"


# -- seats and the host ---------------------------------------------------------------------------


async def _join(table: Table, command: Command, asker: Asker) -> int:
    """Seat a person who came with the table's code; their seat (theirs already if they sit
    here).  Before the match the seats fill in order — the host's partner first — and during
    it a person may take a seat the host left open."""
    user = _person(asker)
    name = await _name(table, user)
    await check_active(table.tables.store, user)
    async with table.lock:
        seat = table.seating.seat_of(user)
        if seat is not None:
            return seat
        if table.game.is_over:
            raise Refusal(409, "this match is over")
        seated = [o.user_id for o in table.seating.seats if o.user_id is not None]
        if await asyncio.to_thread(blocked_by, table.tables.store, seated, user):
            raise Refusal(403, "you cannot sit at this table: a player here has blocked you")
        seat = (table.seating.next_free() if not table.seating.started
                else next(iter(table.seating.open_seats()), None))
        if seat is None:
            raise Refusal(409, "this table is full")
        table.tables.user_names[user] = name
        await table.commit([Line("sit", seat, who=f"u{user}")], 409)
        return seat


async def _name(table: Table, user: int) -> str:
    names = table.tables.user_names
    if user in names:
        return names[user]
    row = await asyncio.to_thread(table.tables.store.user, user)
    if row is None:
        raise Refusal(401, "sign in again: this account no longer exists")
    name: str = row.name
    return name


async def _start(table: Table, command: Command, asker: Asker) -> None:
    """The host starts the match: computer players take the open seats, and the first hand
    is dealt."""
    async with table.lock:
        _host_only(table, asker)
        ok, why = table.can_start()
        if not ok:
            raise Refusal(409, f"cannot start: {why}")
        lines = [Line("sit", s, who="bot") for s in table.seating.open_seats()]
        await table.commit([*lines, Line("start"), Line("deal")], 409)


async def _configure(table: Table, command: Command, asker: Asker) -> None:
    """The host changes the computer players' strength, the rules or the options before the
    first deal; afterwards the variations are fixed."""
    async with table.lock:
        _host_only(table, asker)
        if table.seating.started or table.game.actions:
            raise Refusal(409, "the variations cannot change after the first deal")
        new = parse_private_table(command.options)
        options = {**table.info.options, **new.options}
        values = {"level": new.level, "rules": new.rules.to_spec(), "options": options}
        await table.commit([], 409, values=values)
        table.info.level, table.info.rules, table.info.options = new.level, new.rules, options
        table.game = table.info.new_game()
        table.forget_views()
        table.push_presence()


async def _listing(table: Table, command: Command, asker: Asker) -> bool:
    """The host lists the table under Live tables (``public``: anyone may find it and watch)
    or takes it off (``private``: only people with the code).  Chosen before the start, so
    nobody sits down at a table whose listing then changes under them; whether it is public
    now."""
    public = command.word == "public"
    async with table.lock:
        _host_only(table, asker)
        if table.info.kind != "private":
            raise Refusal(409, "only a table opened by a host can be listed")
        if table.seating.started:
            raise Refusal(409, "the listing cannot change once the match has started")
        if bool(table.info.options.get("public")) == public:
            return public
        options = {**table.info.options, "public": public}
        await table.commit([], 409, values={"options": options})
        table.info.options = options
        table.push_presence()
        return public


async def _seat(table: Table, command: Command, asker: Asker) -> None:
    """The host hands an open or absent seat to a computer player (``bot``), or leaves it
    open for someone new (``open``; during the match a computer player plays it until
    someone takes it)."""
    async with table.lock:
        user = _host_only(table, asker)
        seat, to = command.seat, command.word
        occupant = table.seating.seats[seat]
        if to not in ("bot", "open"):
            raise Refusal(400, 'a seat goes to "bot" or "open"')
        if occupant.is_person:
            away = table.online is not None and not table.online.is_present(seat)
            if occupant.user_id == user:
                raise Refusal(409, "that is your own seat")
            if table.seating.started and not away:
                raise Refusal(409, "that person is at the table: only an absent seat can go")
        if occupant.kind == to:
            return
        line = Line("sit", seat, who="bot") if to == "bot" else Line("leave", seat)
        await table.commit([line], 409)
        if table.online is not None:
            table.online.away_until.pop(seat, None)
            table.online.auto.discard(seat)
            table.online.look()


async def _leave(table: Table, command: Command, asker: Asker) -> None:
    """A person gives up their seat (the host cannot before the start: the table is theirs)."""
    user = _person(asker)
    async with table.lock:
        seat = table.seating.seat_of(user)
        if seat is None:
            raise Refusal(409, "you do not have a seat at this table")
        if user == table.info.host and not table.seating.started:
            raise Refusal(409, "the host cannot leave before the match starts")
        if table.game.is_over:
            return
        await table.commit([Line("leave", seat)], 409)


async def _again(table: Table, command: Command, asker: Asker) -> str:
    """Play again after a match of people; the new table's id (see Tables.again)."""
    user = _person(asker)
    if table.info.kind == "solo":
        raise Refusal(409, "a single-player game starts again with New game or Replay")
    new = await table.tables.again(table, user)
    return new.id


_HANDLERS: dict[Kind, Handler] = {
    Kind.ACT: _act, Kind.NEXT: _next, Kind.CONCEDE: _concede, Kind.DECLINE: _decline,
    Kind.PHRASE: _phrase, Kind.PACE: _pace, Kind.HINT: _hint, Kind.JOIN: _join,
    Kind.UNDO: _undo, Kind.CLAIM: _claim, Kind.ACCEPT: _accept,
    Kind.START: _start, Kind.CONFIGURE: _configure, Kind.SEAT: _seat, Kind.LEAVE: _leave,
    Kind.AGAIN: _again, Kind.LISTING: _listing,
}
assert set(_HANDLERS) == set(Kind), "every kind of command has its handler"
