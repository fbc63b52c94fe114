"""The examples in the package's docstrings are tests too (python-chess style).

Run from here rather than with ``--doctest-modules`` so that the two ``conftest.py`` files
(engine tests and browser tests) never meet under one module name.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import varaq

#: The web app, and Alembic's entry point (which runs migrations when imported), hold no
#: docstring examples.
MODULES = sorted(
    m.name for m in pkgutil.walk_packages(varaq.__path__, "varaq.")
    if ".web" not in m.name and not m.name.endswith("migrations.env")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
