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
# PyCharm's own fork of pydevd, for tests/e2e/test_pydevd_xml.py. It has the module names of
# the standalone pydevd installed above, so it gets a folder of its own (the test puts it
# first on the program's PYTHONPATH). A source package: built once, in about 3 minutes.
PYDEVD_PYCHARM=263.7307.50
if [ ! -d ".venv/pydevd-pycharm/pydevd_pycharm-$PYDEVD_PYCHARM.dist-info" ]; then
  rm -rf .venv/pydevd-pycharm
  .venv/bin/python -m pip install -q --target .venv/pydevd-pycharm "pydevd-pycharm==$PYDEVD_PYCHARM"
fi

echo "== ruff"
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check src tests benchmarks

if [ -f vscode-ext/package.json ]; then
  # The tensor viewer page is tested in a real headless Chromium (Debian's; puppeteer-core
  # downloads no browser).
  if [ ! -x /usr/bin/chromium ]; then
    SUDO=; if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
    $SUDO apt-get update -q && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
  fi
  echo "== vscode-ext"
  (cd vscode-ext && npm ci --no-audit --no-fund && echo "== vscode-ext type check" \
    && npm run typecheck && npm test)
fi

echo "== pytest"
PATH="$PWD/.venv/bin:$PATH" .venv/bin/python -m pytest "$@"
