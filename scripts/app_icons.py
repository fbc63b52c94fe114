"""Draw the installed app's PNG icons (192 and 512 pixels) from ``static/icon.svg``.

Phones want PNG icons for the home screen; the SVG stays the one drawing.  Run after changing
``icon.svg`` and commit the PNGs (the service worker and the manifest serve them as files)::

    .venv/bin/python scripts/app_icons.py

Uses Debian's Chromium through Playwright (as the browser tests do), so the PNGs match how a
browser draws the SVG.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

STATIC = Path(__file__).resolve().parents[1] / "src" / "varaq" / "web" / "static"
CHROMIUM = "/usr/bin/chromium"
SIZES = (192, 512)


def main() -> int:
    svg = (STATIC / "icon.svg").read_text(encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])
        for size in SIZES:
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(
                "<html><body style='margin:0;background:transparent'>"
                f"<div style='width:{size}px;height:{size}px'>{svg}</div></body></html>")
            page.locator("svg").evaluate(
                f"(s) => {{ s.setAttribute('width', {size}); s.setAttribute('height', {size}); }}")
            target = STATIC / f"icon-{size}.png"
            page.locator("svg").screenshot(path=str(target), omit_background=True)
            print(f"wrote {target.relative_to(STATIC.parents[3])}")
            page.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
