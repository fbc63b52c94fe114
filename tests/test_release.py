"""A release: one version in pyproject.toml, the CHANGELOG and the package, and ``varaq --version``
naming the solver core and the git revision.  (Building and installing the wheel and the source
package, with and without a C compiler, takes minutes: ``scripts/check-release.sh``.)"""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

import varaq
from varaq import cli
from varaq.solver import backend_status

ROOT = Path(__file__).resolve().parent.parent


def pyproject_version() -> str:
    version: str = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    return version


def changelog_version() -> str:
    """The newest release the CHANGELOG describes: its first ``## X.Y.Z`` heading."""
    for line in (ROOT / "CHANGELOG.md").read_text().splitlines():
        found = re.match(r"## (\d+\.\d+\.\d+)\b", line)
        if found:
            return found.group(1)
    raise AssertionError("the CHANGELOG names no version")


def test_pyproject_changelog_and_package_agree_on_the_version() -> None:
    assert pyproject_version() == changelog_version() == varaq.__version__


def version_line(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 1
    return out.strip()


def test_version_names_the_solver_core_and_the_checkouts_revision(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = version_line(capsys)
    found = re.fullmatch(r"varaq (\S+) \(solver: ([^;]+)(?:; git ([0-9a-f]+))?\)", line)
    assert found, line
    assert found.group(1) == pyproject_version()
    chosen, why = backend_status()
    assert found.group(2) == ("compiled core" if chosen == "c" else why)
    if shutil.which("git") and (ROOT / ".git").exists():
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        assert found.group(3) == head


def test_version_says_when_the_pure_python_solver_is_in_use(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VARAQ_SOLVER", "python")
    assert "(solver: pure Python" in version_line(capsys)


def test_an_installed_package_has_no_git_revision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    installed = tmp_path / "lib" / "python3" / "site-packages" / "varaq" / "cli.py"
    monkeypatch.setattr(cli, "__file__", str(installed))
    assert cli.git_revision() is None
    assert "git" not in cli.version_text()


def test_the_solver_core_is_optional_at_install_time() -> None:
    """setup.py marks the extension optional, so a failed compile installs the pure Python
    package (checked for real, with ``CC=false``, by scripts/check-release.sh)."""
    text = (ROOT / "setup.py").read_text()
    assert "optional=True" in text
    script = ROOT / "scripts" / "check-release.sh"
    assert script.is_file() and "CC=false" in script.read_text()
