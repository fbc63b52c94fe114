"""The computer players' speeds: each a tempo of its own (service/settings.py, SPEEDS).

The browser test (tests/browser/test_speeds.py) times them on the page; these pin the server's
side: fast under a quarter second a card, normal as it always was, slow a restful second or more.
"""

from __future__ import annotations

import random

from varaq.service.settings import SPEEDS, Pace


def pauses(speed: str, n: int = 300) -> list[float]:
    rng = random.Random(speed)
    return [Pace(1.0).delay(rng, after_trick=False, speed=speed) for _ in range(n)]


def test_fast_plays_within_a_quarter_second_and_leads_soon_after_a_trick() -> None:
    assert max(pauses("fast")) <= 0.25
    assert Pace(1.0).delay(random.Random(1), after_trick=True, speed="fast") <= 0.3


def test_normal_keeps_its_old_pace_and_slow_is_restful() -> None:
    normal = pauses("normal")
    assert min(normal) >= 0.5 and max(normal) <= 0.9
    assert min(pauses("slow")) >= 1.0
    assert SPEEDS["slow"].after_trick > SPEEDS["normal"].after_trick > SPEEDS["fast"].after_trick


def test_an_unknown_speed_is_normal_and_a_zero_scale_never_waits() -> None:
    rng = random.Random(2)
    assert Pace(1.0).delay(rng, after_trick=True, speed="warp") == SPEEDS["normal"].after_trick
    assert all(Pace(0.0).delay(rng, after_trick=False, speed=s) == 0.0 for s in SPEEDS)
    assert Pace(2.0).delay(rng, after_trick=True, speed="slow") == 2 * SPEEDS["slow"].after_trick
