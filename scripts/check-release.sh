#!/usr/bin/env bash
# Check a release before it goes out: build the wheel and the source package (python -m build),
# then install each into a throwaway virtual environment and ask it `varaq --version`:
#
#   1. the wheel                           -> the compiled solver core
#   2. the source package, with a compiler -> the compiled solver core
#   3. the source package, CC=false        -> the install goes on; the pure Python solver
#
# and in each, that the installed `varaq` plays: `varaq replay` of a shipped example record, and
# two deals of Hard against Easy (`varaq arena`, which solves with the core).  Takes a few minutes (each environment
# installs Varaq's dependencies, from pip's cache when it has them).  Run from anywhere:
#
#   bash scripts/check-release.sh            # PYTHON=python3.12 picks another interpreter
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
py="${PYTHON:-$root/.venv/bin/python}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

say() { printf '\n== %s\n' "$*"; }

say "build (python -m build)"
"$py" -m pip install -q --disable-pip-version-check build
"$py" -m build --outdir "$work/dist" "$root" >"$work/build.log" 2>&1 || {
    tail -30 "$work/build.log"; exit 1; }
wheel="$(ls "$work"/dist/*.whl)"
sdist="$(ls "$work"/dist/*.tar.gz)"
ls -l "$work/dist" | tail -n +2
tar tzf "$sdist" >"$work/sdist.txt"
if grep '\.so$' "$work/sdist.txt"; then echo "the source package holds a compiled file"; exit 1; fi
grep -q '_fastsolver\.c$' "$work/sdist.txt" || { echo "the source package lacks the C core"; exit 1; }

# install NAME EXPECTED-SOLVER [ENV...] -- WHAT: a fresh environment, WHAT installed into it.
install() {
    local name="$1" expected="$2"; shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    say "$name"
    "$py" -m venv "$work/$name"
    local vpy="$work/$name/bin/python"
    env "${envs[@]}" "$vpy" -m pip install -v --disable-pip-version-check "$@" \
        >"$work/$name.log" 2>&1 || { tail -30 "$work/$name.log"; exit 1; }
    # What setup.py said when the core could not be compiled (nothing when it could).
    grep -o 'varaq: the compiled solver was not built.*' "$work/$name.log" | head -1 || true
    local line
    line="$(cd "$work" && "$work/$name/bin/varaq" --version)"
    echo "$line"
    case "$line" in
        *"solver: $expected"*) ;;
        *) echo "expected the solver to be: $expected"; exit 1 ;;
    esac
    case "$line" in *"; git "*) echo "an installed package named a git revision"; exit 1 ;; esac
    example="$("$vpy" -c 'import varaq, pathlib; print(next((pathlib.Path(varaq.__file__).parent / "examples").glob("*.json")))')"
    (cd "$work" && "$work/$name/bin/varaq" replay "$example" | tail -1)
    (cd "$work" && "$work/$name/bin/varaq" arena --a hard --b easy --deals 2 --samples 4 --jobs 1 | tail -1)
}

install wheel "compiled core" X=1 -- "$wheel"
install sdist-with-compiler "compiled core" X=1 -- --no-binary varaq "$sdist"
install sdist-without-compiler "pure Python" CC=false -- --no-binary varaq "$sdist"

say "release checks passed"
