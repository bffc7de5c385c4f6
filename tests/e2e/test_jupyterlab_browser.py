"""The notebook user's view in a real JupyterLab in headless Chromium: a notebook that
trains a small Keras model with a GradientTape, ``%load_ext tf_debug_repr``, the Variable
Inspector (``lckr_jupyterlab_variableinspector``) listing the TF values with byte sizes and
the plugin's summaries, ``%tf_table`` and a weight's cell output rendered.

The server runs on a free port with a token and its own config, runtime and workspace
folders; tests/e2e/browser/jupyterlab.js drives Chromium (puppeteer-core from
vscode-ext/node_modules, so ``cd vscode-ext && npm ci`` first: scripts/test.sh does).
``TFDR_SHOTS=docs/images`` also writes the screenshots docs/jupyter.md shows."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).parent / "browser" / "jupyterlab.js"
CHROMIUM = os.environ.get("TFDR_CHROMIUM", "/usr/bin/chromium")
TIMEOUT = 150

CELLS = [
    "%load_ext tf_debug_repr",
    """\
import numpy as np
import tensorflow as tf
import keras

model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3)])
optimizer = keras.optimizers.Adam(0.01)
x = tf.constant(np.random.default_rng(0).normal(size=(64, 8)), tf.float32)
y = tf.constant(np.arange(64) % 3)

for step in range(5):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(
            y, model(x), from_logits=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))""",
    "w = model.layers[0].kernel\nw",
    "%tf_table",
]


def _notebook(path: Path) -> None:
    cells = [
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": source,
        }
        for source in CELLS
    ]
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook), encoding="utf-8")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} (apt-get install chromium)"
    if shutil.which("node") is None:
        return "node"
    if not (ROOT / "vscode-ext" / "node_modules" / "puppeteer-core").is_dir():
        return "vscode-ext/node_modules/puppeteer-core (cd vscode-ext && npm ci)"
    for module in ("jupyterlab", "lckr_jupyterlab_variableinspector", "tensorflow"):
        try:
            __import__(module)
        except ImportError:
            return f"the Python package {module}"
    return None


@pytest.fixture
def lab(tmp_path):
    missing = _missing()
    if missing:
        pytest.skip(f"needs {missing}")
    root = tmp_path / "notebooks"
    root.mkdir()
    _notebook(root / "train.ipynb")
    port, token = _free_port(), os.urandom(16).hex()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_DEBUG_REPR_")}
    env.update(
        JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
        JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"),
        TF_CPP_MIN_LOG_LEVEL="2",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    # no "get notified about Jupyter news?" toast over the panels
    settings = tmp_path / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 (closed below)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.expose_app_in_browser=True",
            *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2).read()
                break
            except Exception:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(
                        (tmp_path / "server.log").read_text(errors="replace")[-3000:]
                    ) from None
                time.sleep(0.5)
        yield url, token, tmp_path
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def test_the_inspector_lists_tf_values_with_bytes_and_summaries_in_a_real_jupyterlab(lab):
    url, token, tmp_path = lab
    shots = os.environ.get("TFDR_SHOTS", "")
    env = dict(os.environ, LAB_URL=url, LAB_TOKEN=token, NOTEBOOK="train.ipynb")
    if shots:
        env["SHOTS"] = str(Path(shots).resolve())
    run = subprocess.run(
        ["node", str(DRIVER)], env=env, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert run.returncode == 0, run.stderr[-3000:] + (tmp_path / "server.log").read_text()[-2000:]
    found = json.loads(run.stdout)
    rows = {r[2]: r[3:] for r in found["rows"] if len(r) >= 7}  # name -> type, size, shape, content
    assert rows["x"][0] == "EagerTensor", rows["x"]
    assert rows["x"][1] == str(64 * 8 * 4) and rows["x"][2] == "64 x 8", rows["x"]
    assert rows["x"][3].startswith("float32[64, 8]"), rows["x"]
    assert rows["w"][1] == str(8 * 16 * 4) and rows["w"][2] == "8 x 16", rows["w"]
    assert "∇" in rows["w"][3] or "x∈[" in rows["w"][3], rows["w"]
    assert rows["model"][0] == "Sequential" and "parameters" in rows["model"][2], rows["model"]
    assert rows["optimizer"][0] == "Adam" and int(rows["optimizer"][1]) > 0, rows["optimizer"]
    assert rows["grads"][2] == "4 items" and int(rows["grads"][1]) == 4 * (8 * 16 + 16 + 16 * 3 + 3)
    # the cell outputs: the weight's numbers and heatmap, the table of every TF value
    texts = [o["text"] for o in found["outputs"]]
    weight = next(o for o in found["outputs"] if "Variable" in o["text"] and "x∈[" in o["text"])
    assert weight["images"] == 1, weight
    assert any("grads[0]" in t and "bytes" in t for t in texts), texts
    assert not found["errors"], found["errors"]
