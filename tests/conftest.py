"""Settings shared by the engine's tests.

Hypothesis runs with a ``ci`` profile: no deadline (a shared two-core machine makes timings
meaningless) and derandomised, so a failure seen once is seen again.  Helpers live in
``deal_helpers.py``.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci")
