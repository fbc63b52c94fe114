"""Throwaway PostgreSQL and Redis servers for the multi-process tests (real servers, no mocks).

Each runs from Debian's packages (``scripts/test.sh`` installs ``postgresql`` and
``redis-server`` when missing) in a temporary directory on a free port of 127.0.0.1, and is
stopped at the end.  PostgreSQL refuses to run as root, so as root it runs as the ``postgres``
user that Debian's package creates.

Both are set up for speed and nothing else: no passwords, no fsync, commits that a crash may
lose, nothing Redis keeps on disk.  That suits a database thrown away after a few minutes and
no real site; ``docs/deploy.md`` quotes these command lines and says which setting gives up
what (keep the two in step).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "postgres_server", "RedisServer", "free_port", "pg_bin", "have_servers", "missing_servers",
    "fresh_database", "INITDB_OPTIONS", "PG_SETTINGS", "REDIS_OPTIONS",
]

#: ``initdb``'s options: the test user ``varaq`` (a superuser), no passwords, no fsync.
INITDB_OPTIONS = ("-A", "trust", "-U", "varaq", "--no-sync")
#: The server settings (``-c``) beyond the port and address: all but the last trade safety
#: after a crash for speed; the last leaves room for every process of the tests.
PG_SETTINGS = ("fsync=off", "synchronous_commit=off", "full_page_writes=off",
               "max_connections=200")
#: ``redis-server``'s options beyond the port and address: nothing on disk, no password.
REDIS_OPTIONS = ("--save", "", "--appendonly", "no", "--protected-mode", "no")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def pg_bin() -> Path | None:
    """Debian's PostgreSQL programs (the newest installed version)."""
    root = Path("/usr/lib/postgresql")
    versions = sorted(root.glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    return versions[-1].parent if versions else None


def missing_servers() -> list[str]:
    """What is missing to start the throwaway servers, in words (empty when nothing is): a
    skip or an error can then say exactly what to install."""
    missing = []
    bin_dir = pg_bin()
    if bin_dir is None:
        missing.append("PostgreSQL (Debian's postgresql: /usr/lib/postgresql/*/bin/initdb)")
    else:
        missing += [f"{bin_dir / name}" for name in ("pg_ctl", "createdb")
                    if not (bin_dir / name).exists()]
    if shutil.which("redis-server") is None:
        missing.append("redis-server (Debian's redis-server)")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        missing.append("runuser (PostgreSQL refuses to run as root)")
    return missing


def have_servers() -> bool:
    return not missing_servers()


def _as_postgres(command: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


@contextmanager
def postgres_server() -> Iterator[str]:
    """A fresh PostgreSQL on a free port; yields its SQLAlchemy URL (database ``varaq``)."""
    bin_dir = pg_bin()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="varaq-pg-"))
    data, sockets = folder / "data", folder / "sockets"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        shutil.chown(sockets, "postgres")
    port = free_port()
    subprocess.run(_as_postgres([str(bin_dir / "initdb"), "-D", str(data), *INITDB_OPTIONS]),
                   check=True, capture_output=True)
    options = " ".join([f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1",
                        *(f"-c {setting}" for setting in PG_SETTINGS)])
    subprocess.run(_as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options,
                                 "-l", str(folder / "log"), "-w", "start"]),
                   check=True, capture_output=True)
    try:
        subprocess.run(_as_postgres([str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p",
                                     str(port), "-U", "varaq", "varaq"]),
                       check=True, capture_output=True)
        yield f"postgresql+psycopg://varaq@127.0.0.1:{port}/varaq"
    finally:
        subprocess.run(_as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-m",
                                     "immediate", "stop"]), capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(url: str, name: str) -> str:
    """A new, empty database called ``name`` on the server of ``url``; its URL.  (The test
    user made by ``initdb -U varaq`` is a superuser, so it may create databases.)"""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    if not name.isidentifier():
        raise ValueError(f"{name!r} is not a plain database name")
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()
    return make_url(url).set(database=name).render_as_string(hide_password=False)


class RedisServer:
    """A Redis on a free port that keeps nothing on disk; :meth:`restart` keeps the port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", *REDIS_OPTIONS],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def restart(self, down_for: float = 1.0) -> None:
        self.stop()
        time.sleep(down_for)
        self.start()
