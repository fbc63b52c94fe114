#!/usr/bin/env bash
# Install Varaq into its own virtual environment (.venv) and start the web table with SQLite in
# the user data directory.  Any arguments go to `varaq serve` (see `varaq serve --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
"$PY" -m pip install -q --disable-pip-version-check .
exec "$VENV/bin/varaq" serve "$@"
