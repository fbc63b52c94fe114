"""Settings shared by the engine's tests.

Hypothesis runs with a ``ci`` profile: no deadline (a shared two-core machine makes timings
meaningless) and derandomised, so a failure seen once is seen again.  Helpers live in
``deal_helpers.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from starlette.testclient import TestClient

from web_helpers import make_app

settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """A web app on a fresh SQLite file whose computer players move at once."""
    with TestClient(make_app(tmp_path)) as c:
        yield c


@pytest.fixture
def frozen(tmp_path: Path) -> Iterator[TestClient]:
    """Computer players so slow they never move during a test: positions stay put."""
    with TestClient(make_app(tmp_path, pace=1000.0)) as c:
        yield c
