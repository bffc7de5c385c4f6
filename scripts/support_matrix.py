"""The support matrix: build environments and run one real debug session in each.

    .venv/bin/python scripts/support_matrix.py             # the default cells (9 here)
    .venv/bin/python scripts/support_matrix.py --full      # and every TF 2.13-2.21
    .venv/bin/python scripts/support_matrix.py --only tf2.15-keras2 --only tf2.21-tf_keras

Each cell is a venv under the cache folder (default ``.envs/matrix``, reused between runs;
``--fresh`` rebuilds), holding the cell's TensorFlow, Keras, numpy and debugpy and the
project's wheel, built from this checkout and installed as users install it (not editable).
In each cell:

- a session: ``python -m debugpy.adapter`` of the cell's debugpy, launching a small TF
  program (``PROGRAM``) to a breakpoint, read as VS Code reads it (DAP ``variables``):
  *core*: a tensor's summary and a variable's; *gradients*: a weight's ``∇`` mark with the
  label ``Adam iteration N`` after ``tape.gradient`` and ``optimizer.apply_gradients``;
  *keras*: the model, the optimizer, a metric and a loss read with the plugin's views
  (not the stock repr), and no "capture hooks failed"/"plugin disabled" line;
- *demo*: ``python -m tf_debug_repr demo`` in the cell's venv stops at its breakpoint;
- *jupyter* (cells that ask for it): ``tests/e2e/test_jupyter.py`` run by the cell's Python,
  a real ipykernel (with the cell's debugpy) attached as JupyterLab's debugger attaches;
- *classic* (cells that ask for it): ``tests/e2e/test_jupyter_classic_inspector.py``, the
  classic Notebook's Variable Inspector's own kernel code in a real ipykernel.

Cells whose Python is not on this machine are listed as such. The table (Markdown) goes
to stdout; ``--json PATH`` also writes the raw results.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tf_debug_repr.hosts.demo.dap_client import DapClient, launch_config, line_of  # noqa: E402

PROGRAM = """\
import os
import tensorflow as tf

keras = tf.keras  # Keras 3, or Keras 2 (TF <= 2.15, or tf_keras with TF_USE_LEGACY_KERAS=1)
features = tf.constant([[0.0, 2.0], [3.0, 0.0]])
scale = tf.Variable([1.0, 2.0], name="scale")
model = keras.Sequential([keras.layers.Dense(2, name="dense")])
model.build((None, 2))
optimizer = keras.optimizers.Adam(0.01)
loss_fn = keras.losses.MeanSquaredError()
metric = keras.metrics.Mean(name="loss_mean")
with tf.GradientTape() as tape:
    loss = loss_fn(tf.zeros((2, 2)), model(features) * scale)
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
metric.update_state(loss)
kernel = model.layers[0].kernel
# Keras 2's second optimizer family (Keras 3 has none)
legacy = None
if __import__(keras.__name__.split(".")[0]).__version__.startswith("2."):
    legacy = keras.optimizers.legacy.SGD(0.1)
    with tf.GradientTape() as tape:
        scaled = tf.reduce_sum(scale * scale)
    legacy.apply_gradients([(tape.gradient(scaled, scale), scale)])
stop_here = 1  # BREAKPOINT
"""

VERSIONS = (
    "(__import__('sys').version.split()[0], tf.__version__,"
    " __import__(keras.__name__.split('.')[0]).__version__,"
    " keras.__name__.split('.')[0], __import__('numpy').__version__,"
    " __import__('debugpy').__version__)"
)


@dataclasses.dataclass(frozen=True)
class Cell:
    name: str
    python: str  # "3.11"
    requirements: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    venv: str = ""  # cells with the same venv name share one (same requirements)
    jupyter: bool = False
    classic: bool = False  # the classic Notebook's Variable Inspector (needs jupyter's packages)

    @property
    def venv_name(self) -> str:
        return self.venv or self.name


JUPYTER = ("ipykernel", "jupyter_client", "pytest")
# TF's own Jupyter image (tensorflow/tensorflow:2.9.0-jupyter): the classic Notebook 6 and
# its Variable Inspector (jupyter_contrib_nbextensions 0.7)
CLASSIC = ("notebook<7", "jupyter_contrib_nbextensions==0.7.*")


def _cells(full: bool) -> list[Cell]:
    tf_latest = ("tensorflow-cpu==2.21.*", "tf_keras==2.21.*")
    cells = [
        Cell("tf2.21-keras3", "3.11", (*tf_latest, "debugpy"), venv="tf2.21"),
        Cell(
            "tf2.21-tf_keras",
            "3.11",
            (*tf_latest, "debugpy"),
            (("TF_USE_LEGACY_KERAS", "1"),),
            venv="tf2.21",
        ),
        Cell(
            "tf2.21-debugpy1.6.7",
            "3.11",
            ("tensorflow-cpu==2.21.*", "debugpy==1.6.7", *JUPYTER),
            jupyter=True,
        ),
        Cell("tf2.15-keras2", "3.11", ("tensorflow-cpu==2.15.*", "debugpy")),
        Cell("tf2.13-keras2-py3.10", "3.10", ("tensorflow-cpu==2.13.*", "debugpy")),
        # Keras 3.0-3.6 named its variables KerasVariable; numpy 1.26 under TF 2.16.
        Cell(
            "tf2.16-keras3.3-py3.12", "3.12", ("tensorflow-cpu==2.16.*", "keras==3.3.*", "debugpy")
        ),
        Cell("tf2.21-py3.13", "3.13", ("tensorflow-cpu==2.21.*", "debugpy")),
        Cell("tf2.21-numpy1.26", "3.11", ("tensorflow-cpu==2.21.*", "numpy==1.26.*", "debugpy")),
        # TF's 2.9.0-jupyter image: Python 3.9, TF 2.9 and its Keras 2.9, numpy 1.x
        Cell(
            "tf2.9-keras2-py3.9",
            "3.9",
            ("tensorflow-cpu==2.9.*", "numpy<2", "debugpy", *JUPYTER, *CLASSIC),
            classic=True,  # test_jupyter.py reads Keras 3's optimizer API: not this cell's
        ),
    ]
    if full:
        cells.append(
            Cell("tf2.15-keras2-debugpy1.6.7", "3.11", ("tensorflow-cpu==2.15.*", "debugpy==1.6.7"))
        )
        for minor in (14, 17, 18, 19, 20):
            cells.append(Cell(f"tf2.{minor}", "3.11", (f"tensorflow-cpu==2.{minor}.*", "debugpy")))
    return cells


def find_python(version: str) -> str | None:
    for candidate in (
        shutil.which(f"python{version}"),
        f"/root/.pyenv/versions/{version}/bin/python{version}",
        *sorted(Path("/root/.pyenv/versions").glob(f"{version}.*/bin/python{version}")),
    ):
        if candidate and Path(candidate).is_file():
            # pyenv's shim exists for every version it knows; it must really run
            done = subprocess.run([str(candidate), "-c", "pass"], capture_output=True)
            if done.returncode == 0:
                return str(candidate)
    return None


def build_wheel(out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("tf_debug_repr-*.whl"):
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        tree.mkdir()
        for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
            shutil.copy2(ROOT / name, tree / name)
        shutil.copytree(
            ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
        )
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", str(tree), "-w", str(out), "--no-deps", "-q"],
            check=True,
        )
    (wheel,) = out.glob("tf_debug_repr-*.whl")
    return wheel


def ensure_venv(cell: Cell, python: str, cache: Path, wheel: Path, log) -> Path:
    where = cache / cell.venv_name
    marker = where / "requirements.done"
    wanted = "\n".join(cell.requirements)
    if not (marker.is_file() and marker.read_text() == wanted):
        shutil.rmtree(where, ignore_errors=True)
        subprocess.run([python, "-m", "venv", str(where)], check=True)
        pip = [str(where / "bin/python"), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, "--upgrade", "pip"], check=True, stdout=log, stderr=log)
        subprocess.run([*pip, *cell.requirements], check=True, stdout=log, stderr=log)
        marker.write_text(wanted)
    subprocess.run(
        [
            str(where / "bin/python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--force-reinstall",
            str(wheel),
        ],
        check=True,
        stdout=log,
        stderr=log,
    )
    return where / "bin/python"


def session(python: Path, cell: Cell, work: Path) -> dict:
    program = work / "support_program.py"
    program.write_text(PROGRAM, encoding="utf-8")
    env = {"TF_CPP_MIN_LOG_LEVEL": "2", **dict(cell.env)}
    client = DapClient(python=str(python))
    result: dict = {}
    try:
        stop = client.start(
            launch_config(str(program), python=str(python), env=env),
            {str(program): [line_of(str(program), "BREAKPOINT")]},
        )
        frame = client.top_frame(stop["threadId"])["id"]
        versions = client.evaluate(VERSIONS, frame, "repl")["result"]
        result["versions"] = versions
        values = {v.name: v.value for v in client.variables(client.locals_reference(frame))}
        result["values"] = values
        # Keras 2's legacy SGD step (see PROGRAM) moves scale: [1, 2] - 0.1 * 2 * [1, 2]
        scale_range = "x∈[1, 2]" if values.get("legacy", "None") == "None" else "x∈[0.8, 1.6]"
        checks = {
            "core": values.get("features", "").startswith("float32[2, 2] x∈[0, 3]")
            and values.get("scale", "").startswith(f"float32[2] {scale_range}")
            and "Variable 'scale'" in values.get("scale", ""),
            "gradients": "∇‖g‖=" in values.get("kernel", "")
            and "Adam iteration" in values.get("kernel", ""),
            # the Keras views, not tf.Module's ("2 variables") nor the stock repr
            "keras": values.get("model", "").startswith("6 params")
            and ", 1 layer, " in values.get("model", "")
            and values.get("model", "").endswith(", Sequential 'sequential'")
            and values.get("optimizer", "").startswith("Adam '")
            and " lr=" in values.get("optimizer", "")
            and values.get("metric", "").startswith("Mean 'loss_mean' result=")
            and values.get("loss_fn", "").startswith("MeanSquaredError '")
            and (
                values.get("legacy") == "None"
                or (
                    values.get("legacy", "").startswith("SGD 'SGD' lr=0.1")
                    and "@SGD iteration 0" in values.get("scale", "")
                )
            ),
        }
        output = "".join(client.output)
        for bad in ("capture hooks failed", "plugin disabled", "views disabled"):
            if bad in output:
                checks["keras"] = False
                result["output"] = output[-2000:]
        result["checks"] = checks
    except Exception as exc:
        result["error"] = f"{type(exc).__name__}: {exc}"[:2000]
        result["checks"] = {"core": False, "gradients": False, "keras": False}
    finally:
        client.close()
    return result


def demo(python: Path, cell: Cell, work: Path) -> bool:
    env = {**os.environ, **dict(cell.env)}
    env.pop("PYTHONPATH", None)
    try:
        done = subprocess.run(
            [str(python), "-m", "tf_debug_repr", "demo"],
            capture_output=True,
            text=True,
            timeout=400,
            cwd=work,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0 and "stopped at demo.py:" in done.stdout


def jupyter(python: Path, test: str = "tests/e2e/test_jupyter.py") -> bool:
    try:
        done = subprocess.run(
            [
                str(python),
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                test,
            ],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=ROOT,
            env={**os.environ, "PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}"},
        )
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=ROOT / ".envs" / "matrix")
    parser.add_argument("--full", action="store_true", help="every TF 2.13-2.21 as well")
    parser.add_argument("--only", action="append", default=None, help="a cell's name")
    parser.add_argument("--fresh", action="store_true", help="rebuild the venvs")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)

    cells = [c for c in _cells(args.full) if args.only is None or c.name in args.only]
    if args.fresh:
        shutil.rmtree(args.cache, ignore_errors=True)
    args.cache.mkdir(parents=True, exist_ok=True)
    wheel = build_wheel(args.cache / "wheel")
    rows = []
    started = time.time()
    with open(args.cache / "install.log", "a") as log:
        for cell in cells:
            begun = time.time()
            row: dict = {"cell": cell.name, "python": cell.python, "env": dict(cell.env)}
            python = find_python(cell.python)
            if python is None:
                row["status"] = f"Python {cell.python} not on this machine"
                rows.append(row)
                print(f"{cell.name}: {row['status']}", file=sys.stderr)
                continue
            try:
                venv_python = ensure_venv(cell, python, args.cache, wheel, log)
            except subprocess.CalledProcessError as exc:
                row["status"] = f"install failed: {exc}"
                rows.append(row)
                print(f"{cell.name}: {row['status']}", file=sys.stderr)
                continue
            with tempfile.TemporaryDirectory() as tmp:
                row.update(session(venv_python, cell, Path(tmp)))
                row["checks"]["demo"] = demo(venv_python, cell, Path(tmp))
                if cell.jupyter:
                    row["checks"]["jupyter"] = jupyter(venv_python)
                if cell.classic:
                    row["checks"]["classic"] = jupyter(
                        venv_python, "tests/e2e/test_jupyter_classic_inspector.py"
                    )
            row["seconds"] = round(time.time() - begun)
            rows.append(row)
            print(f"{cell.name}: {row.get('checks')} {row.get('error', '')}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    print(table(rows, time.time() - started))
    return 0 if all(all(r.get("checks", {}).values()) for r in rows if "checks" in r) else 1


def _versions(text: str | None) -> list[str]:
    try:
        import ast

        return [str(v) for v in ast.literal_eval(text or "")]
    except Exception:
        return ["?"] * 6


def table(rows: list[dict], seconds: float) -> str:
    lines = [
        "| cell | Python | TF | Keras | numpy | debugpy | core | gradients | keras views | demo"
        " | jupyter | classic Inspector |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if "checks" not in row:
            lines.append(f"| {row['cell']} | {row['python']} | {row['status']} ||||||||||")
            continue
        py, tf, keras, flavour, np_version, debugpy = _versions(row.get("versions"))
        keras_text = f"{keras} ({flavour})" if flavour == "tf_keras" else keras
        checks = row["checks"]
        marks = [
            "–" if k not in checks else "✓" if checks[k] else "✗"
            for k in ("core", "gradients", "keras", "demo", "jupyter", "classic")
        ]
        lines.append(
            f"| {row['cell']} | {py} | {tf} | {keras_text} | {np_version} | {debugpy} | "
            + " | ".join(marks)
            + " |"
        )
    lines.append("")
    lines.append(f"{len(rows)} cells in {seconds / 60:.0f} min")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
