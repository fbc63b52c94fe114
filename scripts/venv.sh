# Sourced by serve.sh and test.sh: sets PY to the Python of Varaq's own virtual environment
# (.venv, or $VARAQ_VENV), making it first if needed.
#
# A virtual environment, not the system's Python: Debian 12's python3 is "externally managed"
# and refuses `pip install` outside one.  Where `python3 -m venv` is missing (Debian's
# python3-venv package not installed) and we are root, the package is installed first.
VENV="${VARAQ_VENV:-.venv}"
if [ ! -x "$VENV/bin/python" ]; then
    if ! python3 -m venv "$VENV" >/dev/null 2>&1; then
        rm -rf "$VENV"
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "installing Debian's python3-venv"
            DEBIAN_FRONTEND=noninteractive apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
            python3 -m venv "$VENV"
        else
            echo "python3 -m venv failed: install your system's venv package (python3-venv)" >&2
            exit 2
        fi
    fi
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
fi
PY="$VENV/bin/python"
