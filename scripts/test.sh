#!/usr/bin/env bash
# The project's one test command: installs what is missing, then runs every suite.
#   bash scripts/test.sh            # everything (what CI runs)
#   bash scripts/test.sh --fast     # ruff, mypy, unit tests, the extension's unit/page tests
#                                   # and one end-to-end session per host: minutes
#   bash scripts/test.sh -k dtype   # extra arguments go to pytest (after --fast too)
# Every pytest run ends with its 15 slowest tests (addopts in pyproject.toml). TEST_WORKERS
# sets the number of pytest-xdist workers (default 2, CI's cores; 0 runs in this process).
set -euo pipefail
cd "$(dirname "$0")/.."

FAST=0
if [ "${1:-}" = "--fast" ]; then
  FAST=1
  shift
fi
WORKERS=${TEST_WORKERS:-2}
STARTED=$SECONDS
took() { echo "   ($(((SECONDS - STARTED) / 60))m$(((SECONDS - STARTED) % 60))s since the start)"; }

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[dev]'
# The checkout's bytecode, written once: where PYTHONDONTWRITEBYTECODE is set (as on this
# project's machines) no process writes it, and every debuggee, kernel and worker compiled
# the plugin's ~75 modules from source again (~0.6 CPU s each, hundreds of processes).
# Python still reads a .pyc whose source is unchanged; an edited file is compiled afresh.
.venv/bin/python -m compileall -q -j 0 src tests

# The environments that never change, each built once into a folder of its own under .venv/
# and reused by every later run. They build in the background while the checks below run;
# each build's output goes to .venv/logs/<name>.log, shown if it fails.
mkdir -p .venv/logs
BUILDS=()
build() { # build NAME COMMAND...: run COMMAND in the background, output in its log
  local name=$1
  shift
  ("$@") >".venv/logs/$name.log" 2>&1 &
  BUILDS+=("$name:$!")
}
wait_builds() { # wait for every background build; a failed one's log is printed
  local entry failed=0
  for entry in "${BUILDS[@]}"; do
    if ! wait "${entry#*:}"; then
      echo "== building ${entry%%:*} failed:"
      cat ".venv/logs/${entry%%:*}.log"
      failed=1
    fi
  done
  BUILDS=()
  return $failed
}

# PyCharm's own fork of pydevd, for tests/e2e/test_pydevd_xml.py. It has the module names of
# the standalone pydevd installed above, so it gets a folder of its own (the test puts it
# first on the program's PYTHONPATH). A source package: built once, in about 3 minutes.
PYDEVD_PYCHARM=263.7307.50
build_pydevd_pycharm() {
  rm -rf .venv/pydevd-pycharm
  .venv/bin/python -m pip install -q --target .venv/pydevd-pycharm "pydevd-pycharm==$PYDEVD_PYCHARM"
}
if [ ! -d ".venv/pydevd-pycharm/pydevd_pycharm-$PYDEVD_PYCHARM.dist-info" ]; then
  build pydevd-pycharm build_pydevd_pycharm
fi

# debugpy 1.6.7 for tests/e2e/test_wheel.py: the plugin under the debugpy that VS Code's
# Python extension shipped for a long time (pure Python: seconds).
if [ $FAST -eq 0 ] && [ ! -d .venv/debugpy-1.6.7/debugpy ]; then
  build debugpy-1.6.7 .venv/bin/python -m pip install -q --target .venv/debugpy-1.6.7 debugpy==1.6.7
fi
# Keras 2 (issue 15), two ways, each cached under .venv/ like pydevd-pycharm (full run only):
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
build_tf_keras() {
  rm -rf .venv/tf-keras
  .venv/bin/python -m pip install -q --no-deps --target .venv/tf-keras "tf_keras==$TF_MINOR.*"
}
KERAS2=.venv/keras2-tf215
build_keras2() {
  rm -rf "$KERAS2"
  if "$PY" -m venv "$KERAS2" \
    && "$KERAS2/bin/python" -m pip install -q 'tensorflow-cpu==2.15.*' 'debugpy>=1.8' pytest; then
    touch "$KERAS2/.ready"
  fi # else its run is skipped, and says so (below)
}
# Python 3.9 + TF 2.9 and its Keras 2.9 + Notebook 6's classic Variable Inspector, as in TF's
# own 2.9.0-jupyter image (issue 29): a venv of its own (about 3 minutes once, ~1.3 GB), with
# the checkout's src/ on its path like Keras 2's; skipped, and said, where no Python 3.9 is.
PY39=${PYTHON39:-}
if [ -z "$PY39" ]; then
  for candidate in $(command -v python3.9 || true) /root/.pyenv/versions/3.9.*/bin/python3.9; do
    if [ -x "$candidate" ] && "$candidate" -c pass 2>/dev/null; then # a pyenv shim must run
      PY39=$candidate
      break
    fi
  done
fi
PY39_ENV=.venv/py39-tf29
build_py39() {
  rm -rf "$PY39_ENV"
  # Pinned (scripts/py39-tf29-constraints.txt, a freeze of an environment that passed): left
  # to itself, pip's resolver backtracked for 20+ minutes over Notebook 6's dependencies here.
  # A stalled install is cut at 15 minutes, and the run is then skipped, and said.
  if "$PY39" -m venv "$PY39_ENV" && timeout 900 "$PY39_ENV/bin/python" -m pip install -q \
    -c scripts/py39-tf29-constraints.txt 'tensorflow-cpu==2.9.*' 'numpy<2' debugpy ipykernel \
    jupyter_client 'notebook<7' 'jupyter_contrib_nbextensions==0.7.*' pytest; then
    touch "$PY39_ENV/.ready"
  fi
}
if [ $FAST -eq 0 ]; then
  if [ -n "$PY39" ] && [ ! -f "$PY39_ENV/.ready" ]; then
    build py39-tf29 build_py39
  fi
  if ! compgen -G ".venv/tf-keras/tf_keras-$TF_MINOR.*.dist-info" >/dev/null; then
    build tf-keras build_tf_keras
  fi
  if [ ! -f "$KERAS2/.ready" ]; then
    build keras2-tf215 build_keras2
  fi
fi

echo "== ruff"
.venv/bin/ruff check src tests benchmarks scripts
.venv/bin/ruff format --check src tests benchmarks scripts

echo "== mypy (the package; settings in pyproject.toml)"
.venv/bin/mypy
took

if [ -f vscode-ext/package.json ]; then
  # The tensor viewer page is tested in a real headless Chromium (Debian's; puppeteer-core
  # downloads no browser).
  if [ ! -x /usr/bin/chromium ]; then
    SUDO=; if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
    $SUDO apt-get update -q && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
  fi
  # npm ci and the extension's checks run in the background, beside the Python tests (their
  # output, in .venv/logs/vscode-ext.log, is shown at the end): node's and Chromium's work
  # fills the time the debug sessions spend waiting on their debuggees. A full run starts
  # them after the unit tests (some of which bound their time), beside the end-to-end tests.
  vscode_ext() {
    cd vscode-ext
    npm ci --no-audit --no-fund
    echo "== vscode-ext type check"
    npm run typecheck
    if [ $FAST -eq 1 ]; then
      # npm test less the .vsix packaging and its test, with one end-to-end session (a launch)
      npm run lint && npm run bundle-python && npm run test:unit && npm run test:browser \
        && node --test --test-name-pattern='template "currentFile"' test/e2e/launch.test.js
    else
      npm test
    fi
  }
  start_ext() {
    echo "== vscode-ext: npm ci, type check, npm test, in the background (.venv/logs/vscode-ext.log)"
    (set -e; vscode_ext) >.venv/logs/vscode-ext.log 2>&1 &
    EXT_PID=$!
  }
else
  start_ext() { :; }
fi
ext_done() { # wait for the extension's checks; print their output; 1 if they failed
  [ -n "${EXT_PID:-}" ] || return 0
  local status=0
  wait "$EXT_PID" || status=1
  EXT_PID=
  if [ $status -eq 0 ]; then echo "== vscode-ext: passed"; else echo "== vscode-ext: FAILED"; fi
  cat .venv/logs/vscode-ext.log
  took
  return $status
}

envs_ready() { # wait for the environments' builds (the end-to-end tests need them)
  if [ ${#BUILDS[@]} -gt 0 ]; then
    echo "== waiting for the environments being built (logs in .venv/logs/)"
    wait_builds
    took
  fi
  if [ $FAST -eq 0 ] && [ ! -f "$KERAS2/.ready" ]; then
    echo "== Keras 2 (TF 2.15): its environment could not be installed with $PY; its run is skipped"
  fi
  if [ -f "$KERAS2/.ready" ]; then
    # the checkout itself, as an editable install would put it (no build backend needed)
    echo "$PWD/src" >"$("$KERAS2/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/zz_tf_debug_repr_checkout.pth"
  fi
  if [ $FAST -eq 0 ] && [ ! -f "$PY39_ENV/.ready" ]; then
    echo "== Python 3.9 + TF 2.9: no Python 3.9 here, or its environment could not be installed; its run is skipped"
  fi
  if [ -f "$PY39_ENV/.ready" ]; then
    "$PY39_ENV/bin/python" -m compileall -q src # its own bytecode (cpython-39), as above
    echo "$PWD/src" >"$("$PY39_ENV/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/zz_tf_debug_repr_checkout.pth"
  fi
}

# pytest-xdist: -n N workers; --dist loadscope keeps each file on one worker (each class, where
# a file has classes), so the debug session (or kernel) a file's tests share with a
# module-scoped fixture starts once, and each program of the real-program suite
# (tests/e2e/test_real_programs.py: a class per program) is run once per debugger and mode.
# The work units go out longest first (tests/conftest.py: LONG_SCOPES and its scheduler).
PARALLEL=()
if [ "$WORKERS" != 0 ]; then
  PARALLEL=(-n "$WORKERS" --dist loadscope)
fi

if [ $FAST -eq 1 ]; then
  # The unit tests and one end-to-end session per host (a debugpy launch, an attach, an
  # ipykernel with JupyterLab's debugger, PyCharm's pydevd (XML protocol), a notebook's
  # display), in one pytest run: TF is imported once per worker.
  FAST_E2E=(
    "tests/e2e/test_tensors.py::test_summary_lines_are_one_plain_readable_line"
    "tests/e2e/test_activation.py::test_attach_mode_presents_tensors"
    "tests/e2e/test_jupyter.py::test_kernel_without_debugger_installs_nothing_then_captures_once_attached"
    "tests/e2e/test_pydevd_xml.py::test_children_are_the_programs_values[pydevd-pycharm]"
    "tests/e2e/test_jupyter_display.py::test_load_ext_gives_tf_values_summary_nan_warning_and_picture_then_unload_restores"
  )
  start_ext
  envs_ready
  echo "== pytest: unit tests and one end-to-end session per host"
  failed=0
  PATH="$PWD/.venv/bin:$PATH" .venv/bin/python -m pytest "${PARALLEL[@]}" tests/unit \
    "${FAST_E2E[@]}" "$@" || [ $? -eq 5 ] || failed=1 # 5: -k … chose none here
  took
  ext_done || failed=1
  exit $failed
fi

failed=0
if [ $# -gt 0 ]; then
  start_ext
  envs_ready
  echo "== pytest"
  PATH="$PWD/.venv/bin:$PATH" .venv/bin/python -m pytest "${PARALLEL[@]}" "$@" || failed=1
  took
  ext_done || failed=1
  exit $failed
fi

# The unit tests first, beside the environments' builds only (a few bound their time), then
# the end-to-end tests, which need the environments, beside the extension's checks.
echo "== pytest: unit tests"
PATH="$PWD/.venv/bin:$PATH" .venv/bin/python -m pytest "${PARALLEL[@]}" tests/unit || failed=1
took
start_ext
envs_ready # built beside the unit tests

# Keras 2 (issue 15): the core, gradient and Keras tests again, on each Keras 2 (a full run
# only: no pytest arguments). Both runs start with the end-to-end tests, in the
# background (one process each), beside them: a debug session waits on its debuggee and its
# adapter much of its time, and their walks fill the cores that the main run leaves idle.
# Not niced: tried (nice -n 10), on CI's 2 cores beside the main run their debuggees then
# took 60 s to import TF and missed the 90 s wait for a first stop. Each one's output is
# shown at the end.
RUNS=()
KERAS2_TESTS=(tests/e2e/test_keras_parity.py tests/e2e/test_tensors.py
  tests/e2e/test_gradients_loop.py tests/e2e/test_gradients_reasons.py
  tests/e2e/test_keras_io_walk.py
  tests/e2e/test_compiled_fit_distribute.py::test_layer_outputs_and_the_batch_of_distributed_fit_per_replica)
if [ -f "$KERAS2/.ready" ]; then
  echo "== pytest: Keras 2 (TF 2.15), in the background (.venv/logs/pytest-tf215.log)"
  PATH="$PWD/$KERAS2/bin:$PATH" "$KERAS2/bin/python" -m pytest \
    -p no:cacheprovider "${KERAS2_TESTS[@]}" >.venv/logs/pytest-tf215.log 2>&1 &
  RUNS+=("Keras 2 (TF 2.15):tf215:$!")
fi
if [ -f "$PY39_ENV/.ready" ]; then
  # TF's 2.9.0-jupyter image's stack: the classic Notebook's Variable Inspector in a real
  # Python 3.9 kernel, and debug sessions (values, gradients from a tape, a custom loop and
  # compiled fit, layer outputs, breakpoints in a tf.function and its helper and in a
  # Dataset.map and filter function), ~3 min
  echo "== pytest: Python 3.9 + TF 2.9, in the background (.venv/logs/pytest-py39-tf29.log)"
  PATH="$PWD/$PY39_ENV/bin:$PATH" "$PY39_ENV/bin/python" -m pytest \
    -p no:cacheprovider tests/e2e/test_jupyter_classic_inspector.py tests/e2e/test_tensors.py \
    tests/e2e/test_gradients_loop.py tests/e2e/test_gradients_reasons.py \
    tests/e2e/test_keras_parity.py::test_compiled_fit_gradients_read_alike \
    tests/e2e/test_keras_parity.py::test_compiled_fit_layer_outputs_read_alike \
    tests/e2e/test_compiled_breakpoints.py::test_breakpoint_in_tf_function_stops_with_values_on_every_call \
    tests/e2e/test_compiled_breakpoints.py::test_breakpoint_in_a_helper_stops_from_the_first_call_and_goes_when_removed \
    tests/e2e/test_compiled_datasets.py::test_breakpoints_in_map_and_filter_functions_stop_at_each_element_in_order \
    >.venv/logs/pytest-py39-tf29.log 2>&1 &
  RUNS+=("Python 3.9 + TF 2.9:py39-tf29:$!")
fi
echo "== pytest: tf_keras $TF_MINOR (TF_USE_LEGACY_KERAS=1), in the background (.venv/logs/pytest-tf-keras.log)"
TF_USE_LEGACY_KERAS=1 PYTHONPATH="$PWD/.venv/tf-keras" PATH="$PWD/.venv/bin:$PATH" \
  .venv/bin/python -m pytest -p no:cacheprovider "${KERAS2_TESTS[@]}" \
  >.venv/logs/pytest-tf-keras.log 2>&1 &
RUNS+=("tf_keras $TF_MINOR (TF_USE_LEGACY_KERAS=1):tf-keras:$!")

echo "== pytest: end-to-end tests"
PATH="$PWD/.venv/bin:$PATH" .venv/bin/python -m pytest "${PARALLEL[@]}" tests/e2e || failed=1
took

ext_done || failed=1
for run in "${RUNS[@]}"; do
  pid=${run##*:}
  rest=${run%:*}
  if wait "$pid"; then status=passed; else status=FAILED; failed=1; fi
  echo "== pytest: ${rest%:*}: $status"
  cat ".venv/logs/pytest-${rest##*:}.log"
done
if [ ${#RUNS[@]} -gt 0 ]; then
  took
fi
exit $failed
