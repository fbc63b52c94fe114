"""What the table tells and offers the player beyond the cards: why a card is dimmed, who led,
the hand's points line by line, the rules, the speed and the sound.

Every reason and every point shown is compared with what the server sent, never with a rule
worked out again here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from harness import SETTLED_JS, Console, Server, shot
from playwright.sync_api import (
    Browser,
    Locator,
    Page,
    Route,
    WebSocketRoute,
    expect,
)
from table_driver import (
    DIMMED,
    click_card,
    open_game,
    play_with_mouse,
    playable_cards,
    summary_open,
    tap_card,
    visible_point,
    wait_for_bid,
    wait_until_ready,
)

from conftest import open_context

pytestmark = pytest.mark.browser

MINUS = "\u2212"


def bid(page: Page, label: str = "Bid 3") -> None:
    wait_for_bid(page)
    page.get_by_role("button", name=label, exact=True).click()
    expect(page.locator("#seat-bottom .seat-bid")).not_to_have_text("—")


def my_view(server: Server, game_id: str) -> dict[str, Any]:
    view: dict[str, Any] = server.state(game_id)["view"]
    return view


#: Phones in portrait: the common size, and the smallest the table is made for.
PHONES = [(390, 844), (360, 640)]


@pytest.fixture
def phone(request: pytest.FixtureRequest, browser: Browser, console: Console) -> Iterator[Page]:
    """A phone in portrait (``request.param``: width and height), with touch, dark theme."""
    width, height = request.param
    context = open_context(
        browser, console, viewport={"width": width, "height": height}, device_scale_factor=2,
        is_mobile=True, has_touch=True, color_scheme="dark",
    )
    yield context.new_page()
    context.close()
    assert not console.unexpected(), f"console errors: {console.unexpected()}"


def tap_where_it_shows(card: Locator) -> None:
    """``locator.tap()`` at a point where the card is on top in the fan (not under its
    neighbour); Playwright's position is from the top left of the card's padding box.

    ``force``: Playwright counts an ``aria-disabled`` button as not enabled and would never
    tap a dimmed card; ``visible_point`` has already checked that the card is hit there.
    """
    x, y = visible_point(card)
    box = card.bounding_box()
    assert box is not None
    left, top = card.evaluate(
        "(b) => { const s = getComputedStyle(b);"
        " return [parseFloat(s.borderLeftWidth), parseFloat(s.borderTopWidth)]; }")
    card.tap(position={"x": x - box["x"] - left, "y": y - box["y"] - top}, force=True)


def tap_to_play(card: Locator) -> None:
    """Play a card on a phone: the first tap lifts it, the second plays it."""
    tap_card(card)
    expect(card).to_have_class(re.compile(r"\blifted\b"))
    card.page.wait_for_function(SETTLED_JS)  # tap it where it shows once it has risen
    tap_card(card)


#: Every text the card note above the hand shows, kept as it appears (the note hides again
#: after a few seconds, which a loaded machine could miss).
WATCH_NOTE_JS = """() => {
  window.__notes = [];
  const note = document.getElementById('card-note');
  new MutationObserver(() => {
    if (!note.hidden) window.__notes.push(note.textContent);
  }).observe(note, {childList: true, characterData: true, subtree: true, attributes: true});
}"""


#: The points of a card where a finger hits that card (and not another one over it).
TAP_AREA_JS = """(card) => {
  const box = card.getBoundingClientRect();
  const points = [];
  for (let y = box.top + 1; y < box.bottom - 1; y += 3) {
    for (let x = box.left + 1; x < box.right - 1; x += 2) {
      const hit = document.elementFromPoint(x, y);
      if (hit && hit.closest('button') === card) points.push([x, y]);
    }
  }
  return points;
}"""
#: Of ``points``, those where a finger no longer hits ``card``, and what it hits instead.
COVERED_JS = """(card, points) => points.map(([x, y]) => {
  const hit = document.elementFromPoint(x, y);
  const button = hit && hit.closest('button');
  return button === card ? null : [x, y, button ? button.getAttribute('aria-label') : String(hit)];
}).filter(Boolean)"""
BOX_JS = """(b) => { const r = b.getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }"""


@pytest.mark.parametrize("phone", PHONES, ids=[f"{w}x{h}" for w, h in PHONES], indirect=True)
def test_tapping_the_neighbour_of_a_lifted_card_lifts_the_neighbour(
    phone: Page, server: Server
) -> None:
    page = phone
    width = page.viewport_size["width"] if page.viewport_size else 0
    game_id = server.new_game(level="easy", rules="varaq", seed=21)
    open_game(page, server.base, game_id)
    bid(page)
    for _ in range(12):
        wait_until_ready(page)
        cards = page.locator("#hand button")
        classes = [c or "" for c in cards.evaluate_all("(bs) => bs.map((b) => b.className)")]
        pair = next((i for i in range(len(classes) - 1)
                     if "playable" in classes[i] and "playable" in classes[i + 1]), None)
        if pair is not None:
            break
        tap_to_play(playable_cards(page).first)  # and try the next trick
    else:
        pytest.fail("never two playable cards side by side")
    lifted, neighbour = cards.nth(pair), cards.nth(pair + 1)
    lifted_name = str(lifted.get_attribute("aria-label"))
    # Where a finger hits the neighbour before anything is lifted, and where it aims.
    page.wait_for_function(SETTLED_JS)
    tap_area = neighbour.evaluate(TAP_AREA_JS)
    assert tap_area, f"{neighbour.get_attribute('aria-label')} shows nowhere"
    before = lifted.evaluate(BOX_JS)
    x, y = visible_point(neighbour)
    tap_card(lifted)
    expect(lifted).to_have_class(re.compile(r"\blifted\b"))
    page.wait_for_function(SETTLED_JS)  # the lift has slid all the way up
    after = lifted.evaluate(BOX_JS)
    # The lifted card only moves up: it is no wider, and reaches no further right...
    assert after["top"] < before["top"] - 1, (before, after)
    assert after["right"] <= before["right"] + 0.5, (before, after)
    assert after["right"] - after["left"] <= before["right"] - before["left"] + 0.5
    # ... and wherever its box overlaps the neighbour, the neighbour stays on top: every point
    # a finger hit the neighbour at before still hits the neighbour.
    inside = [p for p in tap_area if after["left"] <= p[0] <= after["right"]
              and after["top"] <= p[1] <= after["bottom"]]
    covered = neighbour.evaluate(COVERED_JS, tap_area)
    assert not covered, (
        f"the lifted {lifted_name} covers {len(covered)} of {len(tap_area)} points of its "
        f"neighbour ({len(inside)} inside its box): {covered[:5]}")
    page.touchscreen.tap(x, y)
    expect(neighbour).to_have_class(re.compile(r"\blifted\b"))
    expect(lifted).not_to_have_class(re.compile(r"\blifted\b"))
    in_hand = page.locator("#hand").get_by_role("button", name=lifted_name, exact=True)
    expect(in_hand).to_have_count(1)
    shot(page, f"phone-4-neighbour-lifted-{width}")


@pytest.mark.parametrize("phone", [(360, 640)], ids=["360x640"], indirect=True)
def test_tapping_a_dimmed_card_on_a_phone_says_why_and_plays_nothing(
    phone: Page, server: Server
) -> None:
    page = phone
    game_id = server.new_game(level="easy", rules="varaq", seed=5)
    open_game(page, server.base, game_id)
    bid(page)
    for _ in range(13):
        wait_until_ready(page)
        assert not summary_open(page), "the hand ended before South had to follow suit"
        view = my_view(server, game_id)
        codes = page.locator(DIMMED).evaluate_all("(bs) => bs.map((b) => b.dataset.card)")
        follow = [c for c in codes if view["why_not"].get(c, "").startswith("You must follow")]
        if follow:
            break
        tap_to_play(playable_cards(page).first)
    else:
        pytest.fail("South never had to follow suit with a card dimmed")
    code = follow[0]
    reason = view["why_not"][code]
    assert re.fullmatch(r"You must follow (clubs|diamonds|hearts|spades)", reason), reason
    card = page.locator(f'#hand button[data-card="{code}"]')
    page.evaluate(WATCH_NOTE_JS)
    tap_where_it_shows(card)
    page.wait_for_function(f"() => window.__notes.includes({json.dumps(reason)})")
    # Nothing was played: the card is still in the hand, not lifted, and it is still South's
    # turn at the same point of the game.
    expect(card).to_have_count(1)
    expect(card).not_to_have_class(re.compile(r"\blifted\b"))
    expect(page.locator("#hand button.lifted")).to_have_count(0)
    now = my_view(server, game_id)
    assert now["turn"] == view["turn"] == "S"
    assert now["hand"] == view["hand"] and now["trick"] == view["trick"]
    assert code in now["hand"]
    shot(page, "phone-5-dimmed-card-reason")


def test_a_dimmed_card_says_why_in_the_servers_words(page: Page, server: Server) -> None:
    game_id = server.new_game(level="easy", rules="varaq", seed=5)
    open_game(page, server.base, game_id)
    wait_for_bid(page)
    note = page.locator("#card-note")
    first = page.locator("#hand button").first
    x, y = visible_point(first)
    page.mouse.click(x, y)
    expect(note).to_have_text(my_view(server, game_id)["why_not"][first.get_attribute("data-card")])
    expect(note).to_have_text("Cards are played after the bidding")
    bid(page)
    for _ in range(13):
        wait_until_ready(page)
        dimmed = page.locator(DIMMED)
        if dimmed.count():
            break
        click_card(playable_cards(page).first)
    else:
        pytest.fail("no card was ever dimmed on South's turn")
    code = dimmed.first.get_attribute("data-card")
    reason = my_view(server, game_id)["why_not"][code]
    assert re.match(r"^(You must follow \w+|Spades are not broken yet)$", reason), reason
    x, y = visible_point(dimmed.first)
    page.mouse.click(x, y)
    expect(note).to_have_text(reason)
    # Nothing was played: the dimmed card is still in the hand.
    expect(page.locator(f'#hand button[data-card="{code}"]')).to_have_count(1)
    shot(page, "desktop-11-dimmed-card-reason")


def test_the_trick_marks_who_led_it(page: Page, server: Server) -> None:
    game_id = server.new_game(level="easy", rules="varaq", seed=8)
    open_game(page, server.base, game_id)
    bid(page)
    for _ in range(13):
        wait_until_ready(page)
        state = server.state(game_id)
        if state["view"]["trick"]:
            break
        click_card(playable_cards(page).first)
    else:
        pytest.fail("South never followed to a trick")
    leader = state["view"]["leader"]
    name = state["names"][leader]
    trick = page.locator("#trick")
    expect(trick.get_by_label(f"led by {name}", exact=True)).to_be_visible()
    expect(trick.locator(".led-by")).to_have_count(1)


def test_the_hand_summary_gives_each_sides_points_line_by_line(
    page: Page, server: Server
) -> None:
    game_id = server.new_game(level="easy", rules="varaq", seed=13)
    open_game(page, server.base, game_id)
    wait_for_bid(page)
    page.get_by_role("button", name="Scores").click()
    expect(page.locator("#summary-dialog")).to_contain_text("No hands yet")
    page.locator("#summary-close").click()
    bid(page, "Nil")
    play_with_mouse(page)
    summary = page.locator("#summary-dialog")
    expect(summary).to_be_visible()
    hand = my_view(server, game_id)["history"][-1]
    body = page.locator("#summary-body")
    for side, which in (("NS", "ours"), ("EW", "theirs")):
        box = body.locator(f".side-sum.{which}")
        rows = box.locator("table.lines tr")
        # Each of the server's lines, then "Points" and "Total".
        expect(rows).to_have_count(len(hand["parts"][side]) + 2)
        for i, part in enumerate(hand["parts"][side]):
            points = part["points"]
            words = f"+{points}" if points > 0 else f"{MINUS}{-points}"
            expect(rows.nth(i).locator("td")).to_have_text(words)
    expect(body.locator(".side-sum.ours h3")).to_contain_text("You and Partner")
    expect(body).to_contain_text("Your nil")
    text = summary.inner_text()
    assert not re.search(r"-\d", text), text  # one minus sign: U+2212, never a hyphen
    assert "N " not in text and "S " not in text  # names, not seat letters
    # The headline names the line the server says decided the hand, in the table's names.
    decided = hand["headline"]
    assert decided, hand
    assert {k: v for k, v in decided.items() if k != "side"} in hand["parts"][decided["side"]]
    names = server.state(game_id)["names"]
    expect(page.locator("#summary-headline")).to_have_text(headline_words(decided, names))
    shot(page, "desktop-12-summary-lines")


def signed(points: int) -> str:
    return f"+{points}" if points > 0 else f"{MINUS}{-points}" if points < 0 else "0"


def headline_words(decided: dict[str, Any], names: dict[str, str]) -> str:
    """The summary's headline for the server's ``headline``, seen from South."""
    sides = {"NS": f"{names['S']} and {names['N']}", "EW": f"{names['E']} and {names['W']}"}
    side, kind, points = decided["side"], decided["kind"], signed(decided["points"])
    if kind in ("nil", "blind_nil"):
        seat = decided["seat"]
        whose = "Your" if seat == "S" else f"{names[seat]}'s"
        what = "nil" if kind == "nil" else "blind nil"
        return f"{whose} {what} {'made' if decided['made'] else 'failed'}: {points}"
    if kind == "contract" and decided["made"]:
        return f"{sides[side]} made {decided['number']}: {points}"
    if kind == "contract":
        return (f"{sides['EW']} set you: {points}" if side == "NS"
                else f"You set {sides['EW']}: {points}")
    if kind == "bag_penalty":
        return f"{'Your' if side == 'NS' else sides[side] + chr(39) + 's'} bags cost {points}"
    assert kind == "boston", decided
    return f"{sides[side]} took all 13 tricks: {points}"


def test_rules_dialog_shows_the_rules_in_words_or_the_badges(
    page: Page, server: Server, console: Console
) -> None:
    console.allow(r"status of 404")  # the fallback below answers 404 on purpose
    asked: list[str] = []

    def words(route: Route) -> None:
        asked.append(route.request.url)
        route.fulfill(json={
            "label": "Varaq", "badges": ["Varaq", "Target 500"],
            "sections": [{"heading": "Nil", "text": "A nil bidder takes no trick."}],
        })

    page.route("**/api/rules?*", words)
    game_id = server.new_game(level="easy", rules="varaq")
    open_game(page, server.base, game_id)
    wait_for_bid(page)
    page.get_by_role("button", name="Rules", exact=True).click()
    dialog = page.locator("#rules-dialog")
    expect(dialog.locator("h3")).to_have_text("Nil")
    expect(dialog).to_contain_text("A nil bidder takes no trick.")
    expect(dialog.get_by_role("link", name="All the rules")).to_have_attribute("href", "/rules")
    spec = parse_qs(urlparse(asked[0]).query)["spec"][0]
    assert json.loads(spec) == my_view(server, game_id)["rules"]
    dialog.get_by_role("button", name="Close").click()

    page.unroute("**/api/rules?*")
    page.route("**/api/rules?*", lambda route: route.fulfill(status=404, json={"error": "no"}))
    page.get_by_role("button", name="Rules", exact=True).click()
    expect(dialog.locator("#rules-badges li")).to_have_count(
        len(my_view(server, game_id)["badges"]))
    expect(dialog).to_contain_text("badges")
    expect(page.locator("#toast")).to_be_hidden()


def test_speed_and_sound_are_remembered_and_the_speed_is_sent(
    page: Page, server: Server
) -> None:
    sent: list[dict[str, Any]] = []

    def relay(ws: WebSocketRoute) -> None:
        upstream = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            sent.append(json.loads(message))
            upstream.send(message)

        ws.on_message(to_server)
        upstream.on_message(ws.send)

    page.route_web_socket(re.compile(r"/ws/games/"), relay)
    game_id = server.new_game(level="easy", rules="varaq")
    open_game(page, server.base, game_id)
    wait_for_bid(page)
    speed = page.get_by_label("Computer players' speed")
    sound = page.get_by_role("button", name="Sound")
    expect(speed).to_have_value("normal")
    expect(sound).to_have_attribute("aria-pressed", "false")  # off until turned on
    hello = sent_index(page, sent, {"type": "hello"})
    assert sent_index(page, sent, {"type": "pace"}, after=hello) == hello + 1
    assert sent[hello + 1]["pace"] == "normal"

    speed.select_option("fast")
    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "true")
    sent_index(page, sent, {"type": "pace", "pace": "fast"})
    before = len(sent)
    page.reload()
    wait_for_bid(page)
    expect(speed).to_have_value("fast")
    expect(sound).to_have_attribute("aria-pressed", "true")
    hello = sent_index(page, sent, {"type": "hello"}, after=before)
    assert sent_index(page, sent, {"type": "pace", "pace": "fast"}, after=hello) == hello + 1
    # Until the server knows "pace" it answers with an error, which the page keeps to itself.
    expect(page.locator("#toast")).to_be_hidden()
    # Cards are played with the sound on (and nothing is logged as an error).
    bid(page)
    assert play_with_mouse(page, max_cards=2) == 2


#: A spy on the Web Audio API (sound.js makes a card's swish with an AudioBufferSourceNode and
#: the turn's two notes with OscillatorNodes): every context made and every sound started,
#: with the length of its noise and the last sentence the page announced before it.  It also
#: counts the full states the game's socket received (the answer to its hello), after which
#: a card played comes back as an event, animated with its sound.
SOUND_SPY_JS = """(() => {
  const spy = window.__sounds = {contexts: 0, starts: []};
  window.__socketStates = 0;
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (message) => {
        try {
          if (JSON.parse(message.data).type === 'state') window.__socketStates += 1;
        } catch {}
      });
    }
  };
  const Original = window.AudioContext;
  if (Original) {
    const Spied = class extends Original {
      constructor(...args) { super(...args); spy.contexts += 1; }
    };
    window.AudioContext = Spied;
    if (window.webkitAudioContext) window.webkitAudioContext = Spied;
  }
  const said = () => {
    const last = document.querySelector('#announcer p:last-child');
    return last ? last.textContent : '';
  };
  for (const [Node, kind] of [[window.AudioBufferSourceNode, 'noise'],
                              [window.OscillatorNode, 'note']]) {
    if (!Node) continue;
    const start = Node.prototype.start;
    Node.prototype.start = function (...args) {
      spy.starts.push({kind, length: this.buffer ? this.buffer.duration : 0, after: said()});
      return start.apply(this, args);
    };
  }
})();"""
#: True once a card's swish (0.09 s of noise) started right after the page said ``arg``.
CARD_SOUND_JS = """(words) => window.__sounds.starts.some((s) => s.kind === 'noise'
  && Math.abs(s.length - 0.09) < 0.005 && s.after.startsWith(words))"""


def sounds(page: Page) -> dict[str, Any]:
    spied: dict[str, Any] = page.evaluate("() => window.__sounds")
    return spied


def play_a_card(page: Page) -> str:
    """Click South's first playable card; returns what the page says once it is played."""
    page.wait_for_function("() => window.__socketStates > 0")  # the socket hears the events
    wait_until_ready(page)
    assert not page.locator("#summary-dialog").is_visible(), "the hand ended too soon"
    card = playable_cards(page).first
    words = f"You play the {str(card.get_attribute('aria-label')).lower()}."
    click_card(card)
    page.wait_for_function(
        "(w) => [...document.querySelectorAll('#announcer p')]"
        ".some((p) => p.textContent.startsWith(w))", arg=words)
    return words


def test_sound_is_off_until_turned_on_and_the_choice_is_remembered(
    page: Page, server: Server
) -> None:
    page.add_init_script(SOUND_SPY_JS)
    game_id = server.new_game(level="easy", rules="varaq", seed=34)
    open_game(page, server.base, game_id)
    assert page.evaluate("() => typeof AudioContext") == "function"
    sound = page.get_by_role("button", name="Sound")
    expect(sound).to_have_attribute("aria-pressed", "false")
    bid(page)
    play_a_card(page)
    play_a_card(page)
    # Sound is off by default: no audio context was even made, and nothing started.
    assert sounds(page) == {"contexts": 0, "starts": []}

    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "true")
    words = play_a_card(page)
    page.wait_for_function(CARD_SOUND_JS, arg=words)
    assert sounds(page)["contexts"] == 1

    # Remembered: after a reload the sound is on without a click, and a card makes its sound.
    page.reload()
    expect(sound).to_have_attribute("aria-pressed", "true")
    words = play_a_card(page)
    page.wait_for_function(CARD_SOUND_JS, arg=words)

    # Turned off again, a card is silent, and it stays off after a reload.
    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "false")
    heard = len(sounds(page)["starts"])
    play_a_card(page)
    assert len(sounds(page)["starts"]) == heard
    page.reload()
    expect(sound).to_have_attribute("aria-pressed", "false")
    play_a_card(page)
    assert sounds(page) == {"contexts": 0, "starts": []}


def test_with_sound_on_a_load_logs_no_audio_warning_and_the_first_gesture_starts_it(
    page: Page, server: Server
) -> None:
    logged: list[str] = []
    page.on("console", lambda m: logged.append(f"{m.type}: {m.text}")
            if m.type in ("warning", "error") else None)
    page.add_init_script(SOUND_SPY_JS)
    game_id = server.new_game(level="easy", rules="varaq", seed=34)
    open_game(page, server.base, game_id)
    sound = page.get_by_role("button", name="Sound")
    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "true")
    logged.clear()
    # A load with sound on: no audio context is made before the player does something, so
    # the browser has nothing to warn about ("AudioContext was not allowed to start").
    page.reload()
    expect(sound).to_have_attribute("aria-pressed", "true")
    wait_for_bid(page)
    page.wait_for_timeout(500)  # the turn's two notes would be asked for by now
    assert sounds(page)["contexts"] == 0
    assert not [line for line in logged if "AudioContext" in line], logged
    # The first gesture starts the audio, and the card it plays is heard.
    bid(page)
    words = play_a_card(page)
    page.wait_for_function(CARD_SOUND_JS, arg=words)
    assert sounds(page)["contexts"] == 1
    assert page.evaluate("() => window.__sounds.starts.length") > 0
    assert not [line for line in logged if "AudioContext" in line], logged


def sent_index(page: Page, sent: list[dict[str, Any]], wanted: dict[str, Any],
               after: int = 0) -> int:
    """The index of the first message from ``after`` on with ``wanted``'s fields, once sent."""
    for _ in range(200):
        for i in range(after, len(sent)):
            if all(sent[i].get(k) == v for k, v in wanted.items()):
                return i
        page.wait_for_timeout(50)
    raise AssertionError(f"the page sent {sent[after:]}, nothing like {wanted}")


def test_resume_only_a_game_that_is_not_over(page: Page, server: Server) -> None:
    game_id = server.new_game(level="easy", rules="varaq")
    open_game(page, server.base, game_id)
    wait_for_bid(page)
    page.goto(f"{server.base}/")
    expect(page.get_by_role("link", name="Resume game")).to_be_visible()
    open_game(page, server.base, game_id)
    page.get_by_role("button", name="Concede").click()
    page.locator("#concede-confirm").click()
    expect(page.locator("#over-dialog")).to_be_visible()
    page.goto(f"{server.base}/")
    expect(page.get_by_role("button", name="New game")).to_be_visible()
    expect(page.get_by_role("link", name="Resume game")).to_be_hidden()


def test_the_end_screen_says_the_higher_score_wins_when_both_pass_the_target(
    page: Page, server: Server
) -> None:
    game_id = server.new_game(level="easy", rules="varaq")
    state = server.state(game_id)
    view = state["view"]
    view.update(phase="over", turn=None, winner="NS", totals={"NS": 512, "EW": 505}, legal=[])
    state.update(version=999, status="over")
    page.route(f"**/api/games/{game_id}", lambda route: route.fulfill(json=state))
    page.route_web_socket(re.compile(r"/ws/games/"), lambda ws: None)  # the socket stays quiet
    open_game(page, server.base, game_id)
    over = page.locator("#over-dialog")
    expect(over).to_be_visible()
    expect(over).to_contain_text("Both sides passed the target of 500: the higher score wins.")
    expect(over).to_contain_text("You and Partner win")
    shot(page, "desktop-13-both-passed")
