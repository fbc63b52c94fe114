"""``varaq serve`` and ``varaq db`` as an operator runs them: a real process on a free port.

What only a real server shows: a port already taken, connections that are slow or silent, a
chunked body that never ends, a socket message far over the limit, and the database commands.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx2
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from servers import free_port
from varaq.cli import main
from varaq.service.migrations import HEAD
from varaq.service.settings import Settings, load_secret
from varaq.service.store import Store
from varaq.web.serve import config

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """A server with short timeouts (1 s for headers, 1 s idle)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "varaq.cli", "serve", "--port", str(port), "--db",
         f"sqlite:///{tmp_path / 'g.db'}", "--header-timeout", "1", "--keep-alive", "1"],
        env=dict(os.environ, VARAQ_PACE="0"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None and time.monotonic() < deadline
        try:
            if httpx2.get(f"{base}/healthz", timeout=2).status_code == 200:
                break
        except httpx2.HTTPError:
            time.sleep(0.1)
    yield base, port
    proc.terminate()
    proc.wait(timeout=20)


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock`` within ``seconds`` (reading whatever it sends)."""
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def test_a_port_in_use_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"varaq serve: port {port} on 127.0.0.1 is already in use; choose another " \
                  "with --port\n"


@pytest.mark.parametrize(("option", "value", "line"), [
    ("--drop-seconds", "0", "varaq serve: --drop-seconds must be between 1 and 3600\n"),
    ("--drop-seconds", "3601", "varaq serve: --drop-seconds must be between 1 and 3600\n"),
    ("--port", "70000", "varaq serve: port 70000 is out of range\n"),
])
def test_serve_options_out_of_range_are_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, line: str,
) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    code = main(["serve", "--port", str(free_port()), "--db", db, option, value])
    assert code == 2
    assert capsys.readouterr().err == line


def test_a_silent_connection_is_closed(served: tuple[str, int]) -> None:
    _, port = served
    with socket.create_connection(("127.0.0.1", port)) as sock:
        assert closed_within(sock, 10)


def test_headers_sent_slowly_are_cut_off(served: tuple[str, int]) -> None:
    _, port = served
    lines = 50  # one header line every 0.2 s: 10 s of headers, against a 1 s deadline
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        sent = 0
        cut_off = False
        while sent < lines and not cut_off:
            try:
                sock.sendall(b"X-Slow: 1\r\n")
            except (BrokenPipeError, ConnectionResetError):
                cut_off = True  # the server had closed: the kernel refused the line
                break
            sent += 1
            cut_off = closed_within(sock, 0.2)  # an end of file (or a reset) from the server
        assert cut_off, f"the server was still reading after {sent} slow header lines"
        assert sent < lines


def test_an_idle_keep_alive_connection_is_closed(served: tuple[str, int]) -> None:
    _, port = served
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        sock.settimeout(5)
        assert b"200 OK" in sock.recv(4096)
        assert closed_within(sock, 10)


def test_a_chunked_body_is_refused_at_the_limit_not_read_to_the_end(
    served: tuple[str, int],
) -> None:
    _, port = served
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"2000\r\n" + b" " * 0x2000 + b"\r\n"
        sent = 0
        sock.settimeout(0.05)
        answer = b""
        while sent < 50_000_000 and not answer:
            try:
                sock.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += 0x2000
            with contextlib.suppress(TimeoutError):
                answer = sock.recv(4096)
        assert sent < 5_000_000
        if answer:
            assert b"413" in answer.split(b"\r\n", 1)[0]


def test_a_huge_socket_message_closes_the_socket(served: tuple[str, int]) -> None:
    base, _ = served
    gid = httpx2.post(f"{base}/api/games", json={"level": "easy"}).json()["id"]
    url = base.replace("http", "ws") + f"/ws/games/{gid}"
    with connect(url, max_size=None) as ws:
        ws.send('{"type": "hello", "version": 0}')
        assert '"state"' in str(ws.recv(timeout=10))
        with pytest.raises(ConnectionClosed) as info:
            ws.send("x" * 1_000_000)
            while True:
                ws.recv(timeout=10)
        assert info.value.rcvd is not None and info.value.rcvd.code == 1009


def test_uvicorn_is_configured_with_timeouts_pings_and_sizes(tmp_path: Path) -> None:
    from web_helpers import make_app

    cfg = config(make_app(tmp_path), header_timeout=3, keep_alive=4)
    assert cfg.timeout_keep_alive == 4 and cfg.http.header_timeout == 3
    assert cfg.ws_ping_interval and cfg.ws_ping_timeout
    assert cfg.ws_max_size == 4 * 16_384 and cfg.h11_max_incomplete_event_size == 16 * 1024


def test_the_secret_is_made_once_kept_private_and_used_again_after_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from starlette.testclient import TestClient

    from online_helpers import sign_up
    from varaq.web.app import create_app

    home = tmp_path / "home"
    monkeypatch.setenv("VARAQ_HOME", str(home))
    monkeypatch.delenv("VARAQ_SECRET", raising=False)
    first = Settings.from_env()
    kept = home / "secret.key"
    assert kept.read_bytes() == first.secret and len(first.secret) >= 32
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600  # the owner's only
    assert load_secret() == first.secret  # the next start reads it back
    # So a session made before a restart still signs its person in after it.
    url = f"sqlite:///{tmp_path / 'g.db'}"
    with TestClient(create_app(url, settings=first.but(cheap_hashes=True))) as client:
        ana = sign_up(client, "Ana")
    again = Settings.from_env().but(cheap_hashes=True)
    with TestClient(create_app(url, settings=again)) as client:
        client.cookies.clear()
        assert client.get("/api/account", headers=ana.headers).json()["name"] == "Ana"
    with TestClient(create_app(url, settings=again.but(secret=b"n" * 32))) as client:
        client.cookies.clear()  # another secret: the old cookie means nothing
        assert client.get("/api/account", headers=ana.headers).json() == {"signed_in": False}


def test_varaq_secret_and_the_secret_option_win_over_the_kept_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import varaq.web.serve as serving

    home = tmp_path / "home"
    monkeypatch.setenv("VARAQ_HOME", str(home))
    monkeypatch.delenv("VARAQ_SECRET", raising=False)
    kept = load_secret()
    monkeypatch.setenv("VARAQ_SECRET", "from the environment, long enough to sign")
    assert Settings.from_env().secret == b"from the environment, long enough to sign"
    started: list[object] = []

    def not_serving(app: object, sock: socket.socket, *args: object) -> None:
        started.append(app)
        sock.close()

    monkeypatch.setattr(serving, "serve", not_serving)
    db = f"sqlite:///{tmp_path / 'g.db'}"
    assert main(["serve", "--port", str(free_port()), "--db", db,
                 "--secret", "from the command line, which wins"]) == 0
    app = started[0]
    assert app.state.settings.secret == b"from the command line, which wins"  # type: ignore
    assert (home / "secret.key").read_bytes() == kept  # the kept key is left as it was


def test_db_prune_removes_abandoned_games_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"sqlite:///{tmp_path / 'g.db'}"
    store = Store(url)
    for table_id, status in (("abandoned-1", "playing"), ("finished-1", "over"),
                             ("recent-001", "playing")):
        store.create_table(
            table_id=table_id, kind="solo", level="easy", rules="varaq", seed="1", start={},
            options={}, status=status, entries=["deal"],
        )
    store.close()
    old = (datetime.now(UTC) - timedelta(days=10)).strftime("%Y-%m-%d %H:%M:%S.%f")
    with sqlite3.connect(tmp_path / "g.db") as db:
        db.execute("update tables set updated = ? where id != 'recent-001'", (old,))
    assert main(["db", "prune", "--older-than", "7", "--db", url]) == 0
    assert capsys.readouterr().out == "removed 1 unfinished table untouched for 7 days\n"
    assert main(["db", "status", "--db", url]) == 0
    assert "2 tables" in capsys.readouterr().out
    assert main(["db", "prune", "--older-than", "-3", "--db", url]) == 2
    assert "--older-than" in capsys.readouterr().err


def test_db_upgrade_migrates_a_new_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    assert main(["db", "upgrade", "--db", url]) == 0
    assert f"revision {HEAD} (was empty)" in capsys.readouterr().out
    assert main(["db", "status", "--db", "postgresql+psycopg://nobody@127.0.0.1:1/none"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("varaq db status: OperationalError") and err.count("\n") == 1


def test_every_connection_sends_its_writes_at_once() -> None:
    """TCP_NODELAY on every accepted connection: without it a response written as headers then
    body waited for the client's delayed acknowledgement (40 ms a request on a kept-alive
    connection).  The listening socket says it is TCP, so asyncio sets it; the protocol sets
    it again in case a socket comes from elsewhere."""
    import asyncio

    from varaq.web.http import _no_delay
    from varaq.web.serve import bind

    listener = bind("127.0.0.1", 0)
    assert listener.proto == socket.IPPROTO_TCP
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0  # the kernel's default

    class Transport(asyncio.Transport):
        def get_extra_info(self, name: str, default: object = None) -> object:
            return accepted if name == "socket" else default

    _no_delay(Transport())
    assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    for s in (client, accepted, listener):
        s.close()
