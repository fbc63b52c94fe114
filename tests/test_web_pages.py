"""The rules pages' routes (web/pages.py): the pages, one table's rules in words, the examples."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from varaq.rules import PRESET_LABELS, PRESETS, Rules
from varaq.worked_examples import EXAMPLES, worked_examples

HEADINGS = ["Winning", "Cards", "Bidding", "Nil", "Blind nil", "Play", "Scoring", "Bags"]


def rules_for(client: TestClient, spec: str) -> dict[str, Any]:
    response = client.get(f"/api/rules?spec={quote(spec)}")
    assert response.status_code == 200, response.text
    doc: dict[str, Any] = response.json()
    return doc


def text_of(doc: dict[str, Any], heading: str) -> str:
    return next(str(s["text"]) for s in doc["sections"] if s["heading"] == heading)


@pytest.mark.parametrize("path", ["/rules", "/help", "/rules?spec=classic", "/about"])
def test_rules_and_help_pages_are_served(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert "<html" in response.text.lower() and 'href="/"' in response.text


def test_the_about_page_tells_the_story_and_credits_its_sources(client: TestClient) -> None:
    text = client.get("/about").text
    for words in ("Whist", "Cincinnati", "George Coffin", "1937 and 1939", "Second World War",
                  "trash talk", "written down", "African American", "John McLeod", "pagat.com",
                  "Dennis J. Barmore", "Simon Wintle", "The World of Playing Cards",
                  "Amina S. McIntyre", "American Journal of Play"):
        assert words in text, words
    # The rules and help pages lead to it.
    for page in ("/rules", "/help"):
        assert 'href="/about"' in client.get(page).text, page


def test_the_glossary_explains_sandbagging(client: TestClient) -> None:
    text = client.get("/rules").text
    assert "<dt>Sandbagging</dt>" in text
    assert "What is sandbagging?" in client.get("/help").text


def test_the_help_page_explains_every_level_new_game_offers(client: TestClient) -> None:
    level = r'name="level" value="[a-z]+"(?: checked)?> (\w+)</label>'
    offered = re.findall(level, client.get("/").text)
    assert offered == ["Easy", "Normal", "Hard", "Expert"]
    question = re.search(r"<summary>What is the difference between ([^<]+)\?</summary>"
                         r"\s*<p>(.*?)</p>", client.get("/help").text, re.S)
    assert question is not None
    for level in offered:
        assert level in question.group(1) and f"<em>{level}</em>" in question.group(2), level


@pytest.mark.parametrize("path", ["/no-such-page", "/play/x/y/z", "/rules/extra", "/%E2%99%A0"])
def test_an_unknown_address_is_a_page_with_a_way_home(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "Page not found" in response.text and 'href="/"' in response.text
    assert "/static/" in response.text  # the page's style and script, at the hashed folder


@pytest.mark.parametrize("path", ["/api/nothing-here", "/api", "/ws/nothing", "/static/nope.js"])
def test_an_unknown_api_address_keeps_the_one_line_json_error(
    client: TestClient, path: str
) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.json() == {"error": f"no such page: {path}"}


def test_examples_api_answers_what_the_engine_computes(client: TestClient) -> None:
    doc = client.get("/api/rules/examples").json()
    assert doc == {"examples": worked_examples()}
    assert [e["key"] for e in doc["examples"]] == [e.key for e in EXAMPLES]
    first = doc["examples"][0]["hands"][0]["sides"]["NS"]
    assert first["score"] == 71 and first["lines"][0] == {"words": "contract 7 made",
                                                          "points": 70}


@pytest.mark.parametrize("name", list(PRESETS))
def test_each_preset_is_described_in_words(client: TestClient, name: str) -> None:
    doc = rules_for(client, name)
    rules = Rules.named(name)
    assert doc["label"] == PRESET_LABELS[name] and doc["badges"] == rules.badges()
    assert doc["badges"][0] == PRESET_LABELS[name]
    assert (doc["badges"] == [PRESET_LABELS[name]]) == (name == "varaq")
    assert ("Blind nil" in doc["badges"]) == rules.blind_nil
    assert doc["spec"] == name
    assert [s["heading"] for s in doc["sections"]] == HEADINGS
    assert f"reach {rules.target} points" in text_of(doc, "Winning")
    blind = text_of(doc, "Blind nil")
    if rules.blind_nil:
        assert "at least 100 points behind" in blind and "passes 2 cards across" in blind
    else:
        assert blind == "Blind nil is not played at this table."
    nil = text_of(doc, "Nil")
    assert ("also score a point each" in nil) == rules.nil_bags_score


def test_a_custom_table_is_described_with_its_own_values(client: TestClient) -> None:
    spec = {"preset": "classic", "target": 300, "two_clubs_leads": True, "min_team_bid": 4,
            "mercy": -250, "bag_limit": 5, "bag_penalty": 50, "boston_bonus": 200,
            "exchange": 0}
    doc = rules_for(client, json.dumps(spec))
    assert doc["label"] == "Custom" and doc["spec"] == spec
    # Classic's blind nil without its exchange: measured against Varaq, blind nil is the news.
    assert doc["badges"][:4] == ["Custom", "Target 300", "Blind nil", "Nil tricks do not score"]
    assert "No exchange" not in doc["badges"]
    assert "reach 300 points" in text_of(doc, "Winning")
    assert "below −250 loses" in text_of(doc, "Winning")
    assert "holder of the 2♣ leads it" in text_of(doc, "Play")
    assert "at least 4 together" in text_of(doc, "Bidding")
    assert "reach 5 it loses 50 points" in text_of(doc, "Bags")
    assert "earns 200 points more" in text_of(doc, "Scoring")
    assert "No cards are exchanged." in text_of(doc, "Blind nil")


def test_jokers_and_no_nil_tables(client: TestClient) -> None:
    doc = rules_for(client, '{"preset": "varaq", "jokers": true, "nil": false}')
    assert "Big Joker, then Little Joker, then 2♠" in text_of(doc, "Cards")
    assert "from 1 to 13" in text_of(doc, "Bidding")
    assert text_of(doc, "Nil").startswith("Nil is not played")


def test_without_a_spec_the_default_table_is_described(client: TestClient) -> None:
    assert client.get("/api/rules").json()["label"] == "Varaq"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("poker", "unknown preset 'poker'"),
        ('{"preset": "classic", "target": 100000}', "Target must be between 50 and 5000"),
        ('{"preset": "classic", "nil": false}', "Blind nil needs nil"),
        ('{"preset": "classic", "colour": "red"}', "unknown rule 'colour'"),
        ('{"preset": 5}', "preset must be a name"),
        ("{nope", "not valid JSON"),
        ("[1, 2]", "preset name or an object"),
        ("", "spec is empty"),
        ("x" * 3000, "too long"),
    ],
)
def test_a_bad_spec_is_refused_in_one_line(client: TestClient, spec: str, words: str) -> None:
    response = client.get(f"/api/rules?spec={quote(spec)}")
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"error"} and "\n" not in body["error"]
    assert words in body["error"], body["error"]
