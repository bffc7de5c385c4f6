#!/usr/bin/env bash
# The project's one test command: installs what is missing, then runs every suite.
#   bash scripts/test.sh            # everything
#   bash scripts/test.sh -k dtype   # extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[dev]'

echo "== ruff"
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check src tests benchmarks

if [ -f vscode-ext/package.json ]; then
  echo "== vscode-ext"
  (cd vscode-ext && npm ci --no-audit --no-fund && npm test)
fi

echo "== pytest"
PATH="$PWD/.venv/bin:$PATH" .venv/bin/python -m pytest "$@"
