"""Undo and Claim on the table page (issue 18), played through Chromium as a person would.

Undo takes back South's card with the computer players' answers after it (and one more press
the trick before); a wrong claim shows the solver's reason in the status line and changes
nothing; a claim that holds ends the hand at once.  The games are dealt from fixed seeds (the
test server runs in test mode), so every run meets the same cards.
"""

from __future__ import annotations

import time

import pytest
from harness import Console, Server, shot
from online_driver import (
    act_once,
    expect_waiting_room,
    fresh_name,
    join_by_code,
    open_table,
    sign_up,
)
from playwright.sync_api import Browser, BrowserContext, Page, Response, expect
from playwright.sync_api import Error as PlaywrightError
from table_driver import (
    cards_in_hand,
    click_card,
    open_game,
    playable_cards,
    summary_open,
    wait_for_bid,
    wait_until_ready,
)

from conftest import person

pytestmark = pytest.mark.browser

NOTICE = "#status .table-notice"


def bid_three(page: Page) -> None:
    wait_for_bid(page)
    page.get_by_role("button", name="Bid 3", exact=True).click()
    expect(page.locator("#seat-bottom .seat-bid")).not_to_have_text("—")


def test_undo_takes_back_a_card_and_then_the_trick_before(page: Page, server: Server) -> None:
    game = server.new_game(level="easy", rules="classic", seed=31, dealer="W")
    open_game(page, server.base, game)
    undo = page.get_by_role("button", name="Undo")
    expect(undo).to_be_visible()
    expect(undo).to_be_disabled()  # nothing bid yet
    bid_three(page)
    wait_until_ready(page)
    expect(undo).to_be_enabled()
    start = cards_in_hand(page)

    click_card(playable_cards(page).first)
    wait_until_ready(page)  # the computer players answered, and it is South's card again
    after_one = cards_in_hand(page)
    assert len(after_one) == len(start) - 1
    click_card(playable_cards(page).first)
    wait_until_ready(page)
    assert len(cards_in_hand(page)) == len(start) - 2

    undo.click()
    expect(page.locator(NOTICE)).to_contain_text("Taken back")
    expect(page.locator("#hand button")).to_have_count(len(after_one))
    assert cards_in_hand(page) == after_one
    shot(page, "undo-1-card")

    page.keyboard.press("u")  # one more: the trick before
    expect(page.locator("#hand button")).to_have_count(len(start))
    assert cards_in_hand(page) == start
    expect(playable_cards(page).first).to_be_enabled()


def test_a_wrong_claim_shows_its_reason_and_a_right_one_ends_the_hand(
    page: Page, server: Server, console: Console,
) -> None:
    console.allow(r"status of 409")  # each wrong claim is refused: the browser logs the answer
    game = server.new_game(level="easy", rules="classic", seed=40, dealer="W")
    open_game(page, server.base, game)
    claim = page.get_by_role("button", name="Claim")
    expect(claim).to_be_disabled()  # no claims in the bidding
    bid_three(page)
    wait_until_ready(page)

    # At South's first card nobody can claim every trick: the solver's reason shows.
    held = cards_in_hand(page)
    claim.click()
    notice = page.locator(f'{NOTICE}[data-kind="claim-refused"]')
    expect(notice).to_contain_text("Claim refused:")
    expect(notice).to_contain_text("can still take a trick")
    assert cards_in_hand(page) == held  # nothing changed
    shot(page, "claim-1-refused")

    # From here South claims at each turn (with the C key) until a claim holds.
    for _ in range(40):
        wait_until_ready(page)
        if summary_open(page):
            page.get_by_role("button", name="Next hand").first.click()
            bid_three(page)
            continue
        version_note = page.locator(NOTICE)
        page.keyboard.press("c")
        page.wait_for_function(
            "() => document.getElementById('summary-dialog').open"
            " || Boolean(document.querySelector('#status .table-notice'))",
            timeout=20_000,
        )
        # A claim that holds may show its notice a moment before the hand's summary opens.
        if summary_open(page) or page.locator(f'{NOTICE}[data-kind="claim"]').count():
            expect(page.locator(f'{NOTICE}[data-kind="claim"]')).to_have_text(
                "Your claim holds: your side takes every trick left."
            )
            page.wait_for_function("() => document.getElementById('summary-dialog').open")
            shot(page, "claim-2-held")
            return
        expect(version_note).to_contain_text("Claim refused:")
        click_card(playable_cards(page).first)
    raise AssertionError("no claim by South held")


CLAIM_STATE_JS = """() => {
  const notice = document.querySelector('#status .table-notice');
  const offer = document.querySelector('#status .claim-offer');
  if (offer) return 'offer';
  if (document.getElementById('summary-dialog').open) return 'summary';
  return notice ? notice.dataset.kind : '';
}"""


def press_claim(page: Page) -> None:
    """Press Claim and wait for the server's answer to it.

    Between the check that the button is enabled and the click the page may move on (a card
    arrives, another of its requests is still out): then the page sends no claim and the next
    round tries again.  Waiting for the status line's notice instead failed under the suite's
    load: a refusal's notice lasts only until the next card, which can come first."""
    def is_claim(response: Response) -> bool:
        return response.request.method == "POST" and response.url.endswith("/claim")

    try:
        with page.expect_response(is_claim, timeout=10_000):
            page.get_by_role("button", name="Claim").click(timeout=3_000)
    except PlaywrightError:
        pass


def test_a_claim_at_a_table_of_people_is_put_to_the_other_side(
    browser: Browser, server: Server, console: Console, people: list[BrowserContext],
) -> None:
    """Three people and a computer player: whoever may claim does, at every chance, until a
    claim holds; the person asked on the other side sees it and accepts, and the hand ends."""
    console.allow(r"status of 409")  # wrong claims are refused
    pages = []
    for prefix in ("Host", "Mate", "Rival"):
        page = person(browser, console, people)
        sign_up(page, server.base, fresh_name(prefix))
        pages.append(page)
    host = pages[0]
    open_table(host, level="Easy", fill_bots=True)
    expect_waiting_room(host)
    code = host.locator("#waiting-code").inner_text().strip()
    for page in pages[1:]:
        join_by_code(page, code)
    host.get_by_role("button", name="Start", exact=True).click()
    for page in pages:
        expect(page.locator("#hand button")).to_have_count(13)
    expect(host.get_by_role("button", name="Undo")).to_be_hidden()  # never at a people table

    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        for page in pages:
            if page.evaluate(CLAIM_STATE_JS) == "offer":
                answer = page.get_by_role("button", name="Accept claim")
                if answer.count():
                    expect(page.locator("#status .claim-offer")).to_contain_text(
                        "claims every trick left")
                    shot(page, "claim-3-offered")
                    answer.click()
                    # Everyone asked accepts: both opponents when they are both people.
                    for other in pages:
                        more = other.get_by_role("button", name="Accept claim")
                        if other is not page and more.count():
                            more.click()
                    for other in pages:
                        other.wait_for_function(
                            "() => document.getElementById('summary-dialog').open",
                            timeout=20_000)
                    return
        for page in pages:
            claim = page.get_by_role("button", name="Claim")
            if page.evaluate(CLAIM_STATE_JS) == "" and claim.is_enabled():
                press_claim(page)
        for page in pages:
            if page.evaluate(CLAIM_STATE_JS) != "offer":
                act_once(page)
        pages[0].wait_for_timeout(100)
    raise AssertionError("no claim was put to the other side")
