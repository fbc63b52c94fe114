"""The client's card names agree with the engine's, card for card.

A card button's accessible name ("Queen of hearts") is built in ``static/cards.js``; the
engine names cards in ``varaq.cards.card_name``.  Both must say the same thing, or a screen
reader and a hint would disagree.  Runs the real module under Node (no browser needed).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from varaq.cards import card_name, card_text
from varaq.web.app import STATIC_DIR

NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_client_card_names_match_the_engine(tmp_path: Path) -> None:
    # Node reads ES modules from .mjs files; copy rather than depend on a package.json.
    module = tmp_path / "cards.mjs"
    module.write_text((STATIC_DIR / "cards.js").read_text())
    codes = [card_text(c) for c in range(54)]
    script = (
        f"import {{ cardName, cardPhrase }} from {json.dumps(module.as_uri())};"
        f"const codes = {json.dumps(codes)};"
        "console.log(JSON.stringify(codes.map((c) => [cardName(c), cardPhrase(c)])));"
    )
    assert NODE
    out = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout
    names = json.loads(out)
    for card, (name, phrase) in zip(range(54), names, strict=True):
        assert name == card_name(card)
        assert phrase == f"the {card_name(card).lower()}"
