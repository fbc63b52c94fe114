"""Online play the way a person does it on the home page: by labels, buttons and links.

Each browser context is one person (its own cookie jar).  The helpers type into the account
box, the "Open a table" dialog, the "Table code" field and the quick-match controls exactly as
a player would, and wait for what the page shows next; nothing here calls the API for them
except :func:`state_as`, which reads a table with the person's own session to check a result.
"""

from __future__ import annotations

import itertools
import re
import secrets
from typing import Any

from playwright.sync_api import Locator, Page, expect

PASSWORD = "correct horse battery"
#: The table page's address, with the table's id as the group.
PLAY_URL = re.compile(r"/play/([A-Za-z0-9_-]+)(\?.*)?$")

_names = itertools.count(1)


def fresh_name(prefix: str = "Player") -> str:
    """A name nobody on the test server has (2 to 24 characters)."""
    return f"{prefix[:12]}{next(_names)}{secrets.token_hex(2)}"


def open_home(page: Page, base: str, path: str = "/") -> None:
    """Open the home page (short animations) and wait until the account box knows who is here."""
    page.goto(f"{base}{path}{'&' if '?' in path else '?'}fast")
    page.wait_for_selector("body[data-signed-in]", state="attached")


def account_form(page: Page, name: str) -> Locator:
    """The "Sign in" or the "New account" form of the account box."""
    return page.get_by_role("form", name=name)


def sign_up(page: Page, base: str | None, name: str, password: str = PASSWORD) -> None:
    """Create an account in the home page's form (``base``: open the home page first)."""
    if base is not None:
        open_home(page, base)
    form = account_form(page, "New account")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Password").fill(password)
    form.get_by_role("button", name="Create account").click()
    expect_signed_in(page, name)


def expect_signed_in(page: Page, name: str) -> None:
    """The account box shows ``name`` signed in."""
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    expect(page.locator("#profile-name")).to_have_text(name)


def sign_in(page: Page, name: str, password: str = PASSWORD) -> None:
    """Fill the "Sign in" form and send it (a refusal shows beside the form)."""
    form = account_form(page, "Sign in")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Password").fill(password)
    form.get_by_role("button", name="Sign in").click()


def sign_out(page: Page) -> None:
    page.get_by_role("button", name="Sign out").click()
    expect(account_form(page, "Sign in")).to_be_visible()


def table_id(page: Page) -> str:
    """The id of the table whose page is open (waits for the address to change)."""
    page.wait_for_url(PLAY_URL)
    match = PLAY_URL.search(page.url)
    assert match, page.url
    return match.group(1)


def open_table(
    page: Page, *, level: str = "Normal", preset: str | None = None,
    options: dict[str, Any] | None = None, fill_bots: bool = True, timer: str = "Off",
) -> str:
    """Home page → "Open a table" → the dialog's choices → open it; the new table's id.

    ``options``: custom rules by their labels, a bool for a switch (``{"Nil": False}``) and a
    number for a field (``{"Target": 300}``).
    """
    page.get_by_role("button", name="Open a table").click()
    dialog = page.get_by_role("dialog", name="Open a table")
    expect(dialog).to_be_visible()
    dialog.get_by_label(level, exact=True).check()
    if preset:
        dialog.get_by_label("Preset").select_option(label=preset)
    if options:
        dialog.get_by_label("Custom table").check()
        for label, value in options.items():
            field = dialog.get_by_label(label, exact=True)
            if isinstance(value, bool):
                field.set_checked(value)
            else:
                field.fill(str(value))
    dialog.get_by_label("Fill empty seats with bots").set_checked(fill_bots)
    dialog.get_by_label("Turn timer").select_option(label=timer)
    dialog.get_by_role("button", name="Open the table").click()
    return table_id(page)


def join_by_code(page: Page, code: str) -> str:
    """Type a table's code on the home page and join; the table's id."""
    page.get_by_label("Table code").fill(code)
    page.get_by_role("button", name="Join table").click()
    return table_id(page)


def quick_match(page: Page, who: str = "People only") -> None:
    """Choose who may sit and press "Quick match"; the waiting panel shows."""
    page.get_by_label("Who may sit").select_option(label=who)
    page.get_by_role("button", name="Quick match").click()
    expect(page.get_by_role("button", name="Leave queue")).to_be_visible()


def state_as(page: Page, base: str, game_id: str) -> dict[str, Any]:
    """``GET /api/games/{id}`` with this person's session (their seat's view)."""
    answer = page.request.get(f"{base}/api/games/{game_id}")
    assert answer.ok, answer.text()
    state: dict[str, Any] = answer.json()
    return state
