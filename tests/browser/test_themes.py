"""The dark theme is one theme, whether the player chose it or the system asked for it.

Each colour is written once for the day and once for the night (``light-dark()`` in the
stylesheets), and the theme switch only sets ``color-scheme``.  Before, a page's dark colours
were written twice, once under the player's choice and once under the system's preference,
and many were written only once: a player whose phone was dark and who never touched the
switch read the warnings in the day's dark red on the night's dark panels.  Here every element
of every page is compared, colour by colour, between the three ways of asking.
"""

from __future__ import annotations

from typing import Any

import pytest
from harness import Console, Server
from playwright.sync_api import Browser, Page

from conftest import open_context

pytestmark = pytest.mark.browser

#: Every page a player can open without signing in, and the page for an unknown address.
PAGES = ("/", "/daily", "/learn", "/review", "/rules", "/help", "/about", "/players",
         "/no-such-page")

#: No transition while the test switches themes: a colour caught mid-fade would be neither.
NO_TRANSITIONS = ("*, *::before, *::after"
                  " { transition: none !important; animation: none !important; }")

#: Every element's colours with no choice, with the dark theme chosen and with the light one,
#: read in one go so that nothing on the page changes in between.
COLOURS_JS = """() => {
  const props = ['color', 'background-color', 'background-image', 'border-top-color',
    'border-right-color', 'border-bottom-color', 'border-left-color', 'outline-color',
    'box-shadow', 'text-decoration-color', 'fill', 'stroke'];
  const root = document.documentElement;
  const saved = root.dataset.theme;
  const read = () => {
    const out = [];
    for (const el of document.querySelectorAll('*')) {
      const style = getComputedStyle(el);
      const classes = typeof el.className === 'string' ? el.className.trim() : '';
      const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
        (classes ? '.' + classes.split(/\\s+/).join('.') : '');
      out.push([name, props.map((p) => `${p}: ${style.getPropertyValue(p)}`)]);
    }
    return out;
  };
  delete root.dataset.theme;
  const none = read();
  root.dataset.theme = 'dark';
  const dark = read();
  root.dataset.theme = 'light';
  const light = read();
  if (saved === undefined) delete root.dataset.theme; else root.dataset.theme = saved;
  return {none, dark, light};
}"""


def differences(a: list[Any], b: list[Any]) -> list[str]:
    """The elements whose colours differ, named, with the first colour that does."""
    assert [name for name, _ in a] == [name for name, _ in b], "the page changed between reads"
    out = []
    for (name, one), (_, other) in zip(a, b, strict=True):
        for x, y in zip(one, other, strict=True):
            if x != y:
                out.append(f"{name}: {x} against {y.split(': ', 1)[1]}")
                break
    return out


def colours(page: Page, scheme: str) -> dict[str, list[Any]]:
    page.emulate_media(color_scheme=scheme)
    result: dict[str, list[Any]] = page.evaluate(COLOURS_JS)
    return result


@pytest.mark.parametrize("address", PAGES)
def test_the_dark_theme_is_the_same_chosen_or_from_the_system(
        browser: Browser, console: Console, server: Server, address: str) -> None:
    if address == "/no-such-page":
        console.allow("status of 404")  # the page itself is the answer to a missing address
    # The page's CSP refuses inline styles; the test's one stylesheet stops transitions.
    context = open_context(browser, console, viewport={"width": 1366, "height": 657},
                           bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(server.base + address)
        page.wait_for_load_state("networkidle")
        page.add_style_tag(content=NO_TRANSITIONS)
        night = colours(page, "dark")
        day = colours(page, "light")
    finally:
        context.close()
    assert not console.unexpected(), console.unexpected()
    # The system's night, and the night chosen by a player whose system is dark or light.
    assert differences(night["none"], night["dark"]) == []
    assert differences(night["dark"], day["dark"]) == []
    # The same for the day.
    assert differences(day["none"], day["light"]) == []
    assert differences(day["light"], night["light"]) == []
    # And the two themes do differ: the page's own background, at least.
    assert night["none"][0] != day["none"][0]
