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

# debugpy 1.6.7 for tests/e2e/test_wheel.py: the plugin under the debugpy that VS Code's
# Python extension shipped for a long time (pure Python: seconds).
if [ ! -d .venv/debugpy-1.6.7/debugpy ]; then
  .venv/bin/python -m pip install -q --target .venv/debugpy-1.6.7 debugpy==1.6.7
fi
# Keras 2 (issue 15), two ways, each cached under .venv/ like pydevd-pycharm:
# - tf_keras matching this venv's TF, in a folder of its own: put on PYTHONPATH with
#   TF_USE_LEGACY_KERAS=1 it is what tf.keras means on TF 2.16+ (pure Python: seconds);
# - TF 2.15 and its own Keras 2 in a venv of their own (about 2.5 minutes once), with the
#   checkout's src/ on its path. It needs a Python TF 2.15 has wheels for (3.9-3.11):
#   where it cannot be installed, its run is skipped, and says so.
TF_MINOR=$(.venv/bin/python -c 'from importlib.metadata import version, PackageNotFoundError
for name in ("tensorflow-cpu", "tensorflow"):
    try:
        print(".".join(version(name).split(".")[:2])); break
    except PackageNotFoundError:
        pass')
if ! compgen -G ".venv/tf-keras/tf_keras-$TF_MINOR.*.dist-info" >/dev/null; then
  rm -rf .venv/tf-keras
  .venv/bin/python -m pip install -q --no-deps --target .venv/tf-keras "tf_keras==$TF_MINOR.*"
fi
KERAS2=.venv/keras2-tf215
if [ ! -f "$KERAS2/.ready" ]; then
  rm -rf "$KERAS2"
  if "$PY" -m venv "$KERAS2" \
    && "$KERAS2/bin/python" -m pip install -q 'tensorflow-cpu==2.15.*' 'debugpy>=1.8' pytest; then
    touch "$KERAS2/.ready"
  else
    echo "== Keras 2 (TF 2.15): its environment could not be installed with $PY; its run is skipped"
  fi
fi
if [ -f "$KERAS2/.ready" ]; then
  # the checkout itself, as an editable install would put it (no build backend needed)
  echo "$PWD/src" >"$("$KERAS2/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/zz_tf_debug_repr_checkout.pth"
fi

echo "== ruff"
.venv/bin/ruff check src tests benchmarks scripts
.venv/bin/ruff format --check src tests benchmarks scripts

echo "== mypy (the package; settings in pyproject.toml)"
.venv/bin/mypy

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

# Keras 2 (issue 15): the core, gradient and Keras tests again, on each Keras 2. Only in a
# full run (no pytest arguments). About 3.5 minutes for both, and about 4.5 minutes each
# for issue 15's walk of keras-io's programs (test_keras_io_walk.py).
if [ $# -eq 0 ]; then
  KERAS2_TESTS=(tests/e2e/test_keras_parity.py tests/e2e/test_tensors.py
    tests/e2e/test_gradients_loop.py tests/e2e/test_gradients_reasons.py
    tests/e2e/test_keras_io_walk.py)
  if [ -f "$KERAS2/.ready" ]; then
    echo "== pytest: Keras 2 (TF 2.15)"
    PATH="$PWD/$KERAS2/bin:$PATH" "$KERAS2/bin/python" -m pytest -p no:cacheprovider "${KERAS2_TESTS[@]}"
  fi
  echo "== pytest: tf_keras $TF_MINOR (TF_USE_LEGACY_KERAS=1)"
  TF_USE_LEGACY_KERAS=1 PYTHONPATH="$PWD/.venv/tf-keras" PATH="$PWD/.venv/bin:$PATH" \
    .venv/bin/python -m pytest -p no:cacheprovider "${KERAS2_TESTS[@]}"
fi
