"""The browser client's store, tested under Node's own test runner (tests/js/).

``src/varaq/web/static/store.js`` is the one function that changes the table page's state; its
tests are JavaScript and run with ``node --test``. This runs them inside the suite so a failure
there fails it. Without Node (scripts/test.sh installs it) they are skipped, except under CI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_store_under_node() -> None:
    node = shutil.which("node")
    if node is None:  # pragma: no cover - depends on the machine
        if os.environ.get("CI"):
            raise RuntimeError("CI needs Node.js for tests/js (scripts/test.sh installs it)")
        pytest.skip("Node.js is not installed")
    run = subprocess.run(
        [node, "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, f"node --test tests/js/ failed:\n{run.stdout}\n{run.stderr}"
