"""``/metrics``: what a Prometheus scrape sees after a played hand, and who may scrape at all."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from online_helpers import sign_up, wait_until
from servers import RedisServer, have_servers, postgres_server
from varaq.service.settings import Limits, Pace
from varaq.web.app import create_app
from web_helpers import TEST_SETTINGS, make_app, play_hand, south_choice, wait_for_south

pytestmark = pytest.mark.timeout(120)

TOKEN = "scrape-token-0123456789"
BEARER = {"Authorization": f"Bearer {TOKEN}"}

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client: TestClient) -> tuple[str, Samples]:
    client.cookies.clear()
    response = client.get("/metrics", headers=BEARER)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    samples: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for s in family.samples:
            samples[s.name, frozenset(s.labels.items())] = s.value
    return response.text, samples


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(v for (n, have), v in samples.items() if n == name and wanted <= have)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path, metrics_token=TOKEN)) as c:
        yield c


def test_a_scrape_after_a_played_hand_shows_actions_latency_tables_and_sockets(
    client: TestClient,
) -> None:
    _, before = scrape(client)
    ana = sign_up(client, "Ana")
    game = ana.ok("/api/games", {"level": "easy", "dealer": "E"}, status=201)
    gid = game["id"]
    with ana.socket(gid) as ws:
        ws.send_json({"type": "hello", "version": 0})
        assert ws.receive_json()["type"] == "state"
        st = wait_for_south(client, gid)
        ws.send_json({"type": "action", "action": south_choice(st["view"]),
                      "version": st["version"]})
        stale = ana.post(f"/api/games/{gid}/actions", {"action": "bid 3", "version": 0})
        assert stale.status_code == 409
        client.cookies.clear()
        client.cookies.set("varaq_session", ana.cookie)
        final = play_hand(client, gid)
        client.cookies.clear()
        assert final["view"]["phase"] in ("deal", "over")
        text, after = scrape(client)
        assert value(after, "varaq_sockets_open") == 1
        assert value(after, "varaq_people_online") == 1
    # Commands, by kind and outcome: the bids and cards, and the stale one refused.
    accepted = ("varaq_commands_total", {"kind": "act", "outcome": "accepted", "status": "200"})
    refused = ("varaq_commands_total", {"kind": "act", "outcome": "refused", "status": "409"})
    for name, labels in (accepted, refused):
        assert value(after, name, **labels) > value(before, name, **labels)
    assert value(after, *accepted[:1], **accepted[1]) - value(before, *accepted[:1],
                                                              **accepted[1]) >= 13
    # Latency histograms by route template (no table id anywhere) and by message kind.
    route = "/api/games/{game_id}/actions"
    assert value(after, "varaq_http_request_duration_seconds_bucket", route=route,
                 method="POST", le="+Inf") >= 13
    assert value(after, "varaq_http_responses_total", route=route, status="409") >= 1
    assert value(after, "varaq_socket_message_duration_seconds_count", kind="act") >= 1
    assert value(after, "varaq_socket_message_duration_seconds_count", kind="other") >= 1
    assert gid not in text
    # The table in memory, its commits, its computer players' decisions.
    assert value(after, "varaq_tables", kind="solo", role="local") == 1
    assert value(after, "varaq_commit_duration_seconds_count") >= 13
    assert value(after, "varaq_bot_decision_duration_seconds_count", level="easy",
                 purpose="table") >= 39
    assert value(after, "varaq_bot_queue") == 0
    assert value(after, "varaq_build_info", version=__import__("varaq").__version__) == 1
    assert value(after, "process_resident_memory_bytes") > 0
    _, closed = scrape(client)
    assert value(closed, "varaq_sockets_open") == 0 and value(closed, "varaq_people_online") == 0


def test_a_scrape_without_the_right_token_is_refused_without_a_number(
    client: TestClient, tmp_path: Path,
) -> None:
    client.post("/api/games", json={"level": "easy"})
    for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"},
                    {"Authorization": f"Basic {TOKEN}"}, {"Authorization": TOKEN},
                    {"Authorization": f"Bearer {TOKEN}x"}):
        response = client.get("/metrics", headers=headers)
        assert response.status_code == 401, headers
        assert "varaq_" not in response.text and "process_" not in response.text
        assert len(response.text.splitlines()) == 1 and "Bearer" in response.json()["error"]
        assert response.headers["www-authenticate"].startswith("Bearer")
    off = tmp_path / "off"
    off.mkdir()
    with TestClient(make_app(off)) as plain:
        for headers in ({}, BEARER):
            response = plain.get("/metrics", headers=headers)
            assert response.status_code == 404 and "varaq_" not in response.text
            assert "--metrics-token" in response.json()["error"]


def test_rate_limit_refusals_are_counted_by_limit(tmp_path: Path) -> None:
    limits = Limits(create="2/minute")
    app = make_app(tmp_path, metrics_token=TOKEN, limits=limits)
    with TestClient(app) as client:
        _, before = scrape(client)
        codes = [client.post("/api/games", json={"level": "easy"}).status_code
                 for _ in range(4)]
        assert codes.count(429) == 2
        _, after = scrape(client)
    gained = (value(after, "varaq_rate_limited_total", limit="create")
              - value(before, "varaq_rate_limited_total", limit="create"))
    assert gained == 2


def test_every_response_carries_a_request_id(client: TestClient) -> None:
    first, second = client.get("/healthz"), client.get("/healthz")
    assert first.headers["x-request-id"] != second.headers["x-request-id"]
    given = client.get("/healthz", headers={"X-Request-Id": "from-the-proxy-42"})
    assert given.headers["x-request-id"] == "from-the-proxy-42"
    odd = client.get("/healthz", headers={"X-Request-Id": "bad id\twith spaces"})
    assert odd.headers["x-request-id"] != "bad id\twith spaces"


def test_every_response_says_how_long_the_app_took(client: TestClient) -> None:
    timing = client.get("/healthz").headers["server-timing"]
    name, _, duration = timing.partition(";dur=")
    assert name == "app" and float(duration) >= 0


def test_settings_default_to_no_metrics() -> None:
    assert TEST_SETTINGS.metrics_token is None


@pytest.mark.skipif(not have_servers(), reason="needs PostgreSQL and Redis (scripts/test.sh "
                    "installs them)")
def test_a_cluster_counts_redis_lag_and_forwarded_requests(tmp_path: Path) -> None:
    """Two apps on one PostgreSQL and one Redis: a person on the second joins the first's
    table, so the join is forwarded to the owner, and the owner's events cross Redis."""
    redis = RedisServer()
    redis.start()
    try:
        with postgres_server() as db:
            settings = TEST_SETTINGS.but(redis_url=redis.url, metrics_token=TOKEN, pace=Pace(0))
            with TestClient(create_app(db, settings=settings)) as first, \
                    TestClient(create_app(db, settings=settings)) as second:
                _, before = scrape(second)
                ana = sign_up(first, "Ana")
                table = ana.ok("/api/tables", {"level": "easy"}, status=201)
                bo = sign_up(second, "Bo")
                bo.ok("/api/tables/join", {"code": table["code"]})
                wait_until(lambda: len(bo.state(table["id"])["seats"]) == 4, "Bo's view")
                _, owner = scrape(first)
                _, follower = scrape(second)
    finally:
        redis.stop()
    assert value(owner, "varaq_tables", kind="private", role="owner") == 1
    assert value(follower, "varaq_tables", kind="private", role="follower") == 1
    for name, labels in (("varaq_forwarded_requests_total", {"op": "command", "outcome": "ok"}),
                         ("varaq_forwarded_request_duration_seconds_count", {"op": "command"}),
                         ("varaq_redis_lag_seconds_count", {})):
        assert value(follower, name, **labels) > value(before, name, **labels), name
