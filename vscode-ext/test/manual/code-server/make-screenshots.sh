#!/usr/bin/env bash
# Makes the README pictures (docs/images/*.png) from a real VS Code: code-server driven headless.
# Run on demand, not by CI:  bash vscode-ext/test/manual/code-server/make-screenshots.sh
#
# Everything it installs or writes, except the pictures, goes under $TFDR_SHOTS_WORK
# (default /tmp/tfdr-shots, outside the repository): code-server, the driver's playwright-core,
# the user data, the workspace, logs, and the raw screenshots before cropping.
# Needs: Node 20, npm, the repository's .venv (TensorFlow, debugpy), vscode-ext/node_modules,
# and (installed with apt-get when missing, as root) Debian's chromium, ripgrep, libkrb5-dev.
#
# Stages (default: all):  install | extensions | shots   (and, on their own: persist, viewtime,
# and the pictures of docs/compiled-code.md, docs/history.md, docs/report.md: compiled, history, inline)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../../.." && pwd)"
EXT="$REPO/vscode-ext"
WORK="${TFDR_SHOTS_WORK:-/tmp/tfdr-shots}"
CODE_SERVER_VERSION=4.100.3 # VS Code 1.100.3
PORT="${TFDR_SHOTS_PORT:-8123}"
VENV_SITE="$(echo "$REPO"/.venv/lib/python3.*/site-packages)"
STAGE="${1:-all}"

log() { printf '\n== %s\n' "$*"; }
mkdir -p "$WORK/logs"

install_tools() {
  local missing=()
  command -v chromium >/dev/null || missing+=(chromium)
  command -v rg >/dev/null || missing+=(ripgrep)
  command -v pngquant >/dev/null || missing+=(pngquant)
  [ -e /usr/include/krb5.h ] || [ -e /usr/include/krb5/krb5.h ] || missing+=(libkrb5-dev)
  if [ ${#missing[@]} -gt 0 ]; then
    log "apt-get install ${missing[*]}"
    apt-get install -y "${missing[@]}"
  fi

  if [ ! -e "$WORK/.code-server-$CODE_SERVER_VERSION" ]; then
    log "code-server $CODE_SERVER_VERSION into $WORK"
    cd "$WORK"
    # Its install scripts fetch ripgrep from GitHub and build kerberos: skip them, rebuild what
    # is needed, and put Debian's rg where VS Code looks for it.
    npm install --no-save --ignore-scripts --prefix "$WORK" "code-server@$CODE_SERVER_VERSION"
    npm rebuild --prefix "$WORK" argon2
    cd "$WORK/node_modules/code-server/lib/vscode"
    npm install --omit=dev --ignore-scripts
    mkdir -p node_modules/@vscode/ripgrep/bin && cp /usr/bin/rg node_modules/@vscode/ripgrep/bin/rg
    # node-pty's post-install runs `npx node-gyp configure`: let npx fetch node-gyp from npm
    npm_config_yes=true npm rebuild kerberos node-pty @vscode/spdlog native-watchdog @vscode/deviceid @parcel/watcher
    ln -sfn node_modules node_modules.asar
    (cd bin/remote-cli && ln -sfn code-linux.sh code-server)
    (cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
    (cd extensions && npm install --omit=dev --ignore-scripts && node postinstall.mjs)
    touch "$WORK/.code-server-$CODE_SERVER_VERSION"
  fi

  if [ ! -d "$WORK/driver/node_modules/playwright-core" ]; then
    log "playwright-core for the driver (drives Debian's chromium; no browser download)"
    mkdir -p "$WORK/driver"
    cp "$HERE/driver/package.json" "$WORK/driver/"
    (cd "$WORK/driver" && npm install --no-save --no-package-lock)
  fi

  # A Python that sees TensorFlow and debugpy from the repository's .venv but not tf-debug-repr:
  # the .pth adds that site-packages to sys.path without running its .pth files, so the
  # editable install (a .pth pointing at src/) is not seen. Stock debugpy there, unless the
  # extension puts its bundled copy on PYTHONPATH.
  if [ ! -x "$WORK/py-noplugin/bin/python" ]; then
    log "python without tf-debug-repr: $WORK/py-noplugin"
    "$(readlink -f "$REPO/.venv/bin/python")" -m venv --without-pip "$WORK/py-noplugin"
  fi
  # Every time: a work folder made from another checkout (a worktree since removed) would
  # otherwise point at a site-packages that is gone, and no session would start.
  echo "$VENV_SITE" > "$(echo "$WORK"/py-noplugin/lib/python3.*/site-packages)/link-repo-venv.pth"
  if "$WORK/py-noplugin/bin/python" -c 'import tf_debug_repr' 2>/dev/null; then
    echo "py-noplugin imports tf_debug_repr: the stock picture would not be stock" >&2
    exit 1
  fi
}

build_extensions() {
  log "the extension's .vsix (npm run package) and the debugpy stand-in's"
  (cd "$EXT" && npm run --silent package)
  rm -rf "$WORK/standin" && cp -r "$HERE/standin" "$WORK/standin"
  (cd "$WORK/standin" && "$EXT/node_modules/.bin/vsce" package --out "$WORK/ms-python.debugpy-standin.vsix")
  local cs="$WORK/node_modules/.bin/code-server"
  local dirs=(--user-data-dir "$WORK/data" --extensions-dir "$WORK/exts")
  rm -rf "$WORK/exts"
  "$cs" --config "$HERE/cs.yaml" "${dirs[@]}" --install-extension "$WORK/ms-python.debugpy-standin.vsix"
  "$cs" --config "$HERE/cs.yaml" "${dirs[@]}" --install-extension "$EXT/tf-debug-repr.vsix"
}

stop_code_server() {
  if [ -f "$WORK/code-server.pid" ]; then
    local pid
    pid="$(cat "$WORK/code-server.pid")"
    # code-server, its extension host, the adapter and the debuggee share its process group
    kill -- "-$pid" 2>/dev/null || true
    rm -f "$WORK/code-server.pid"
  fi
}

# code-server on $PORT with the stand-in's Python, opening the folder $1; waits until it answers.
start_code_server() {
  stop_code_server
  STANDIN_PYTHON="$WORK/py-noplugin/bin/python" STANDIN_LOG_DIR="${STANDIN_LOG_DIR:-$WORK/logs/debugpy}" \
    STANDIN_DAP_TIMES="${STANDIN_DAP_TIMES:-}" \
    setsid "$WORK/node_modules/.bin/code-server" --config "$HERE/cs.yaml" --bind-addr "127.0.0.1:$PORT" \
    --user-data-dir "$WORK/data" --extensions-dir "$WORK/exts" \
    --disable-telemetry --disable-update-check --disable-workspace-trust --disable-getting-started-override \
    "$1" >"$WORK/logs/code-server.out" 2>&1 &
  echo $! >"$WORK/code-server.pid"
  trap stop_code_server EXIT
  for _ in $(seq 60); do
    curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
    sleep 1
  done
}

# A fresh workspace/ and user data, code-server on it, then driver/$1.js; the pictures it took
# ($WORK/shots) are quantized into docs/images.
shoot_with() {
  local driver="$1"
  log "workspace and user settings"
  rm -rf "$WORK/ws" "$WORK/data" "$WORK/raw"
  mkdir -p "$WORK/ws/.vscode" "$WORK/data/User" "$WORK/raw"
  cp "$HERE/workspace/"*.py "$WORK/ws/"
  cp "$HERE/workspace/launch.json" "$WORK/ws/.vscode/launch.json"
  cp "$HERE/workspace/user-settings.json" "$WORK/data/User/settings.json"

  log "code-server on 127.0.0.1:$PORT"
  start_code_server "$WORK/ws"

  log "driving it with driver/$driver.js (raw screenshots in $WORK/raw, cropped ones in $WORK/shots, then docs/images)"
  rm -rf "$WORK/shots"
  # a driver that fails part way keeps the pictures it took before: they are quantized below
  set +e
  NODE_PATH="$WORK/driver/node_modules" node "$HERE/driver/$driver.js" \
    --url "http://127.0.0.1:$PORT/?folder=$WORK/ws" --ws "$WORK/ws" --raw "$WORK/raw" --out "$WORK/shots" \
    --logs "$WORK/logs" 2>&1 | tee "$WORK/logs/$driver.out"
  local status="${PIPESTATUS[0]}"
  set -e
  stop_code_server
  # palette PNGs: the same picture to the eye at about half the bytes (467 KB -> 214 KB measured);
  # only the pictures this run took (docs/images holds others: the Jupyter ones, the Watch pane's)
  local shot
  for shot in "$WORK"/shots/*.png; do
    [ -e "$shot" ] || continue
    pngquant --quality 80-100 --speed 1 --strip --force --output "$REPO/docs/images/$(basename "$shot")" "$shot"
  done
  ls -l "$REPO/docs/images"
  return "$status"
}

take_shots() { shoot_with screens; }

# Not a picture: views that outlive their debug session and a window reload (driver/persist.js).
check_persist() {
  log "workspace-persist and code-server on 127.0.0.1:$PORT"
  rm -rf "$WORK/ws-persist" "$WORK/data" "$WORK/raw"
  mkdir -p "$WORK/data/User" "$WORK/raw"
  cp -r "$HERE/workspace-persist" "$WORK/ws-persist"
  cp "$HERE/workspace/user-settings.json" "$WORK/data/User/settings.json"
  start_code_server "$WORK/ws-persist"
  NODE_PATH="$WORK/driver/node_modules" node "$HERE/driver/persist.js" \
    --url "http://127.0.0.1:$PORT/?folder=$WORK/ws-persist" --ws "$WORK/ws-persist" --raw "$WORK/raw" --out "$WORK/raw" \
    --logs "$WORK/logs"
  stop_code_server
}

# Not a picture: how long "View Tensor" takes to open, click to heatmap painted (driver/viewtime.js).
time_views() {
  log "workspace and code-server on 127.0.0.1:$PORT"
  rm -rf "$WORK/ws" "$WORK/data" "$WORK/raw" "$WORK/logs/dap-times.jsonl"
  mkdir -p "$WORK/ws/.vscode" "$WORK/data/User" "$WORK/raw"
  cp "$HERE/workspace/"*.py "$WORK/ws/"
  cp "$HERE/workspace/launch.json" "$WORK/ws/.vscode/launch.json"
  cp "$HERE/workspace/user-settings.json" "$WORK/data/User/settings.json"
  # no debugpy logs (they would time their own writing of each payload); the stand-in notes the
  # time of each evaluate request and response instead
  STANDIN_LOG_DIR=none STANDIN_DAP_TIMES="$WORK/logs/dap-times.jsonl" start_code_server "$WORK/ws"
  NODE_PATH="$WORK/driver/node_modules" node "$HERE/driver/viewtime.js" \
    --url "http://127.0.0.1:$PORT/?folder=$WORK/ws" --ws "$WORK/ws" --raw "$WORK/raw" --out "$WORK/raw" \
    --dap "$WORK/logs/dap-times.jsonl" --n "${TFDR_VIEWTIME_N:-10}" --json "$WORK/viewtime.json"
  stop_code_server
}

case "$STAGE" in
  install) install_tools ;;
  extensions) build_extensions ;;
  shots) take_shots ;;
  persist) check_persist ;;
  viewtime) time_views ;;
  # the pictures of compiled code (#32), a training run's history (#28), inline values (#29)
  compiled | history | inline) shoot_with "$STAGE" ;;
  all) install_tools && build_extensions && take_shots ;;
  *) echo "usage: $0 [install|extensions|shots|persist|viewtime|compiled|history|inline|all]" >&2; exit 2 ;;
esac
