#!/usr/bin/env bash
# Install everything the tests need (Python packages; Debian's Chromium, Node.js, PostgreSQL and
# Redis) and run them all: lint, types, and the pytest suite (engine, bots, server, browser,
# several server processes).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
# npm installs TypeScript, which type-checks the browser client (package.json, tsconfig.json).
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
# The multi-process tests start throwaway PostgreSQL and Redis servers (tests/servers.py).
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_apt+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
# Varaq and the test tools go into a virtual environment (.venv): see scripts/venv.sh.  It is
# made first, since making it may itself need apt (python3-venv).
source scripts/venv.sh
# Debian's packages and the Python packages come from different registries into different
# places: they download and unpack side by side (on a fresh machine that saves most of the
# shorter of the two), and the tests start only when both are in.
apt_pid=""
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "installing Debian packages: ${need_apt[*]}"
    (
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
    ) &
    apt_pid=$!
fi
"$PY" -m pip install -q --disable-pip-version-check -e '.[test,plot]'
if [ -n "$apt_pid" ]; then
    wait "$apt_pid" || { echo "installing Debian packages failed: ${need_apt[*]}" >&2; exit 1; }
fi
export PATH="$PWD/$VENV/bin:$PATH"

echo "== ruff"
"$PY" -m ruff check src tests benchmarks
echo "== mypy (engine)"
"$PY" -m mypy
echo "== tsc"
npm ci --no-audit --no-fund --loglevel=error
npx --no-install tsc -p tsconfig.json
echo "== pytest"
# loadgroup: the tests marked xdist_group("cluster") share one worker (and its servers).
"$PY" -m pytest -n 2 --dist loadgroup -q "$@"
