"""The table page moves between the processes of a cluster without a visible break.

When a ``varaq serve`` process of a cluster (PostgreSQL + Redis) gets SIGTERM it stops
listening, hands its tables to a peer, and sends each table socket ``{"type": "moving"}``; the
page (``connection.js``: ``GameSocket.moveOver`` and ``dial``) opens its next socket to the
same address while the old one still delivers, then closes the old one and says hello on the
new.  ``tests/test_cluster.py`` checks that with Python clients that imitate the page; this
checks the page itself, in Chromium.

Real parts only: a throwaway PostgreSQL and Redis, two ``varaq serve`` processes (the fixtures
of ``tests/test_cluster.py``, which also decide the skip: none on CI), and between them and the
browser a small TCP proxy that hands each connection to the first process that accepts it, as
nginx's ``proxy_next_upstream`` does.  The page only ever knows the proxy's address, as it
would a site's.

No timing is asserted: the waits are generous deadlines, and one that runs out says what did
not happen.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from harness import Console
from playwright.sync_api import Page, WebSocket, expect
from table_driver import (
    cards_in_hand,
    click_card,
    open_game,
    playable_cards,
    wait_for_bid,
    wait_until_ready,
)

from test_cluster import Node, backing, nodes  # noqa: F401  (fixtures, and the skip)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300),
              pytest.mark.xdist_group("cluster")]

#: Milliseconds the page may take to show what a test waits for (a loaded two-core machine).
PATIENCE_MS = 60_000
#: Seconds a stopping process may take to hand its table on, move the page and exit.
STOP_PATIENCE = 120


class NextUpstreamProxy:
    """A TCP proxy on a free port of 127.0.0.1 that pipes each connection to the first of
    ``upstreams`` accepting it: a refused connection means that process stopped listening (or
    is gone), so the next one is tried, as a load balancer in front of a cluster does.

    It reads the client's first bytes before choosing (a browser speaks first), so it can note
    which process served which request: ``served`` holds (process, first request line)."""

    def __init__(self, upstreams: list[Node]) -> None:
        self.upstreams = upstreams
        self.served: list[tuple[Node, str]] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)  # so the accepting thread sees the stop in time
        self.base = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def start(self) -> NextUpstreamProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=10)
        self._listener.close()
        with self._lock:
            left = list(self._open)
        for sock in left:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def websockets(self) -> list[Node]:
        """The process that served each table socket opened through the proxy, in order."""
        with self._lock:
            return [node for node, line in self.served if line.startswith("GET /ws/games/")]

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._pipe, args=(client,), daemon=True).start()

    def _dial(self) -> tuple[Node, socket.socket] | None:
        for node in self.upstreams:
            try:
                return node, socket.create_connection(("127.0.0.1", node.port), timeout=10)
            except OSError:  # refused: that process no longer listens
                continue
        return None

    def _pipe(self, client: socket.socket) -> None:
        client.settimeout(None)
        with client:
            try:
                first = client.recv(65536)
            except OSError:
                return
            dialled = self._dial() if first else None
            if dialled is None:
                return  # nobody listens (or the client left): the client sees a closed socket
            node, upstream = dialled
            upstream.settimeout(None)
            with self._lock:
                self.served.append((node, first.split(b"\r\n", 1)[0].decode("latin-1")))
                self._open.update((client, upstream))
            with upstream:
                try:
                    upstream.sendall(first)
                except OSError:
                    return
                back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
                back.start()
                _pump(client, upstream)
                back.join()
            with self._lock:
                self._open.difference_update((client, upstream))


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy ``source`` to ``sink`` until it ends; an end passes on as a half-close, and a reset
    ends both ways at once (so the other direction's thread returns too)."""
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        return
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


@pytest.fixture
def proxy(nodes: list[Node]) -> Iterator[NextUpstreamProxy]:  # noqa: F811
    p = NextUpstreamProxy(nodes).start()
    yield p
    p.stop()


#: Notes every change of the page's ``#connection`` line (its ``hidden`` attribute with the
#: value it had before, and any text put in it) in ``window.connectionChanges``.  The line
#: shows only while the socket is down ("reconnecting", "restarting"), so a move without a
#: break leaves it hidden and empty throughout; a status of "open" sets ``hidden`` again,
#: which is one change with ``was`` not null.
WATCH_CONNECTION_JS = """() => {
  const line = document.getElementById("connection");
  window.connectionChanges = [];
  new MutationObserver((records) => {
    for (const r of records) {
      window.connectionChanges.push(r.type === "attributes"
        ? { what: r.attributeName, was: r.oldValue }
        : r.type === "characterData"
          ? { what: "text", text: r.target.textContent }
          : { what: "text", text: [...r.addedNodes].map((n) => n.textContent).join("") });
    }
  }).observe(line, { attributes: true, attributeOldValue: true, childList: true,
                     characterData: true, subtree: true });
  return { hidden: line.hidden, text: line.textContent };
}"""

CONNECTION_NOW_JS = """() => {
  const line = document.getElementById("connection");
  return { hidden: line.hidden, text: line.textContent, changes: window.connectionChanges };
}"""


def version_of(proxy: NextUpstreamProxy, game_id: str) -> int:
    answer = httpx2.get(f"{proxy.base}/api/games/{game_id}", timeout=30)
    assert answer.status_code == 200, answer.text
    version: int = answer.json()["version"]
    return version


def shown(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The changes that showed the line or put words in it."""
    return [c for c in changes if (c["what"] == "hidden" and c["was"] is None)
            or (c["what"] == "text" and c["text"])]


def test_a_stopping_process_moves_the_page_to_another_without_a_break(
    page: Page, console: Console, nodes: list[Node], proxy: NextUpstreamProxy,  # noqa: F811
) -> None:
    # Should the next socket fail after all, the page retries and the browser logs it; the
    # assertions below would then fail with a clearer reason than the console's.
    console.allow(r"WebSocket connection to .* failed")
    a, b = nodes
    created = httpx2.post(f"{proxy.base}/api/games", json={"level": "easy", "rules": "varaq"},
                         timeout=30)
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    # The table's sockets (the page's own ``/ws/me`` is no table socket: it is not asked to
    # move), and the order in which they opened and closed.
    sockets: list[WebSocket] = []
    order: list[str] = []

    def opened(ws: WebSocket) -> None:
        if "/ws/games/" in ws.url:
            n = len(sockets)
            sockets.append(ws)
            order.append(f"open {n}")
            ws.on("close", lambda _: order.append(f"close {n}"))

    page.on("websocket", opened)

    open_game(page, proxy.base, game_id)
    wait_for_bid(page)
    page.get_by_role("button", name="Bid 3", exact=True).click()
    wait_until_ready(page)
    click_card(playable_cards(page).first)  # one card: the stop comes in the middle of a hand
    wait_until_ready(page)
    before = cards_in_hand(page)
    version = version_of(proxy, game_id)
    assert len(sockets) == 1 and proxy.websockets() == [a], (sockets, proxy.websockets())
    assert page.evaluate(WATCH_CONNECTION_JS) == {"hidden": True, "text": ""}

    # SIGTERM: a stops listening, hands the table to b and asks the page to move.  (Not
    # Node.stop, which kills a process still there after 15 s: a loaded machine may be slower,
    # and a kill would hide whether the stop was clean.)
    assert a.process is not None
    a.process.terminate()
    assert a.process.wait(timeout=STOP_PATIENCE) in (0, -signal.SIGTERM), a.log.read_text()[-3000:]
    log = a.log.read_text()
    assert "handed 1 tables to the other processes" in log, log[-3000:]
    assert "asked 1 table sockets to move; 1 moved" in log, log[-3000:]

    # The game goes on through b, with the page's own controls.
    wait_until_ready(page)
    assert cards_in_hand(page) == before
    click_card(playable_cards(page).first)
    expect(page.locator("#hand button")).to_have_count(len(before) - 1, timeout=PATIENCE_MS)
    wait_until_ready(page)
    assert version_of(proxy, game_id) > version

    # One more socket, served by b, made before the old one broke: the line never showed.
    assert len(sockets) == 2, [s.url for s in sockets]
    assert order == ["open 0", "open 1", "close 0"], order
    assert proxy.websockets() == [a, b], proxy.websockets()
    line = page.evaluate(CONNECTION_NOW_JS)
    assert line["hidden"] and not line["text"], line
    assert line["changes"] and not shown(line["changes"]), line["changes"]

    # A fresh page (served by b) holds the same hand.
    after = cards_in_hand(page)
    page.reload()
    wait_until_ready(page)
    assert cards_in_hand(page) == after
    assert proxy.websockets() == [a, b, b], proxy.websockets()
