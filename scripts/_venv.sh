# Shared by the scripts: create (or reuse) the virtual environment and install
# the suite into it. Usage: source scripts/_venv.sh EXTRAS [PIP ARGS...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
fi
extras="$1"; shift
target="."
[ -n "$extras" ] && target=".[${extras}]"
"$VENV/bin/python" -m pip install --quiet --editable "$target" "$@"
