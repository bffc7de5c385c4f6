"""End to end: the built wheel, installed (not editable) into a fresh venv, is a working
plugin. Every test else runs on the editable install, which puts ``src/`` on the path
whatever the packaging says; here a subpackage the wheel forgot fails, and so does the
pydevd plugin module if the namespace portion goes missing.

The fresh venv holds only the wheel. TensorFlow and debugpy come from the test's own venv,
reached by a plain path line in a ``.pth`` file: the site-packages directory is appended to
``sys.path`` after the fresh one, but its ``.pth`` files (the editable install's among them)
are never read, so the checkout's ``src/`` is not on the debuggee's path."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import venv
import zipfile
from pathlib import Path

import pytest

from tf_debug_repr.hosts.demo.dap_client import DapClient, attach_config, launch_config, line_of

from ..conftest import free_port, is_listening

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PROGRAM = """\
import tensorflow as tf

activations = tf.constant([[0.0, 2.0], [3.0, 0.0]])
weights = tf.Variable(tf.ones([3, 2]), name="weights")
stop_here = 1  # BREAKPOINT
"""


def _setuptools_backend_here() -> bool:
    """Can this venv build the wheel without fetching a build backend?"""
    if importlib.util.find_spec("setuptools") is None:
        return False
    from importlib.metadata import version

    return int(version("setuptools").split(".")[0]) >= 77


def clean_tree(work: Path) -> Path:
    """A clean copy of the checkout (an in-tree build/ may hold stale files)."""
    tree = work / "tree"
    tree.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, tree / name)
    shutil.copytree(SRC, tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return tree


def build_wheel(work: Path) -> Path:
    """The wheel of a clean copy of the checkout."""
    tree = clean_tree(work)
    out = work / "dist"
    command = [sys.executable, "-m", "pip", "wheel", str(tree), "-w", str(out), "--no-deps", "-q"]
    if _setuptools_backend_here():
        command.append("--no-build-isolation")
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("tf_debug_repr-*.whl")
    return wheel


def packages_in_source() -> set[str]:
    return {
        ".".join(init.parent.relative_to(SRC).parts)
        for init in (SRC / "tf_debug_repr").rglob("__init__.py")
    }


def bare_venv(work: Path) -> tuple[Path, Path]:
    """A venv with nothing of tf-debug-repr; TF and debugpy reachable, src/ not."""
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(env_dir)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # TF, debugpy and the rest from this venv: a path line, not a site dir (see above).
    (site / "zz_test_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return python, site


def fresh_venv(work: Path, wheel: Path) -> tuple[Path, Path]:
    """A venv with nothing but the wheel installed; TF and debugpy reachable, src/ not."""
    python, site = bare_venv(work)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(site), str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return python, site


# Built once per run and shared by the tests that read them (none writes into them): the
# wheel, a fresh venv holding it, an editable install of a clean tree, a bare venv and the
# extension's bundle.


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory, wheel) -> tuple[Path, Path]:
    """(python, site-packages) of a fresh venv with nothing but the wheel."""
    return fresh_venv(tmp_path_factory.mktemp("wheel-venv"), wheel)


@pytest.fixture(scope="module")
def bare(tmp_path_factory) -> tuple[Path, Path]:
    """(python, site-packages) of a venv with nothing of tf-debug-repr."""
    return bare_venv(tmp_path_factory.mktemp("bare-venv"))


def test_the_wheel_carries_every_package_and_the_plugin_portion(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    in_wheel = {".".join(Path(n).parent.parts) for n in names if n.endswith("/__init__.py")}
    assert packages_in_source() - in_wheel == set()
    assert "tf_debug_repr/py.typed" in names
    assert "pydevd_plugins/extensions/pydevd_plugin_tf_debug_repr.py" in names
    # a PEP 420 portion: no __init__.py that would clash with other distributions
    assert "pydevd_plugins/__init__.py" not in names
    assert "pydevd_plugins/extensions/__init__.py" not in names
    source_files = {
        str(p.relative_to(SRC)).replace(os.sep, "/")
        for p in SRC.rglob("*")
        if p.is_file() and p.suffix in (".py", ".typed", ".json") and "__pycache__" not in p.parts
    }
    assert source_files - set(names) == set()


@contextlib.contextmanager
def stopped_in(tmp_path, python, adapter_env=None, launch_env=None):
    """The test program run by ``python`` (the venv's) under a real adapter (this venv's,
    with ``adapter_env``), stopped at its breakpoint: (client, frame id, evaluate).
    ``launch_env``: the launch configuration's env (default: TF's logging quieted)."""
    program = tmp_path / "program.py"
    program.write_text(PROGRAM, encoding="utf-8")
    client = DapClient(python=sys.executable, env=adapter_env)
    try:
        stop = client.start(
            launch_config(
                str(program), python=str(python), env=launch_env or {"TF_CPP_MIN_LOG_LEVEL": "2"}
            ),
            {str(program): [line_of(str(program), "BREAKPOINT")]},
        )
        frame = client.top_frame(stop["threadId"])["id"]

        def evaluate(expression: str) -> str:
            return client.evaluate(expression, frame, "repl")["result"]

        yield client, frame, evaluate
    finally:
        client.close()


@contextlib.contextmanager
def attached_in(tmp_path, python, env):
    """The attach case: ``python -m debugpy --listen … --wait-for-client program`` run by
    ``python`` with ``env`` (PYTHONPATH picks the debugpy), attached as VS Code attaches
    ("connect"), stopped at the breakpoint: (client, frame id, evaluate)."""
    program = tmp_path / "program.py"
    program.write_text(PROGRAM, encoding="utf-8")
    port = free_port()
    command = [str(python), "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "--wait-for-client"]
    debuggee = subprocess.Popen(
        [*command, str(program)],
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = None
    try:
        deadline = time.monotonic() + 60
        while not is_listening(port):
            assert time.monotonic() < deadline and debuggee.poll() is None, "never listened"
            time.sleep(0.2)
        client = DapClient(connect=("127.0.0.1", port))
        stop = client.start(
            attach_config(port), {str(program): [line_of(str(program), "BREAKPOINT")]}
        )
        frame = client.top_frame(stop["threadId"])["id"]

        def evaluate(expression: str) -> str:
            return client.evaluate(expression, frame, "repl")["result"]

        yield client, frame, evaluate
    finally:
        if client is not None:
            client.close()
        debuggee.kill()
        debuggee.wait(timeout=30)


def test_a_debug_session_runs_the_plugin_from_the_installed_wheel(tmp_path, wheel_venv):
    python, site = wheel_venv
    with stopped_in(tmp_path, python) as (client, frame, evaluate):
        # the plugin, its package and the subpackage modules it loaded: all from the wheel
        # (counted in the debuggee: debugpy shortens long strings in what it returns)
        files = (
            "[getattr(m, '__file__', None) or '' for n, m in list(__import__('sys').modules.items())"
            " if n.startswith(('tf_debug_repr', 'pydevd_plugins.extensions.pydevd_plugin_tf'))]"
        )
        assert int(evaluate(f"len({files})")) > 10
        assert evaluate(f"[f for f in {files} if not f.startswith({str(site)!r})]") == "[]"
        assert (
            evaluate(
                "__import__('sys').modules['tf_debug_repr.hosts.pydevd.adapter'].__file__"
                f".startswith({str(site)!r})"
            )
            == "True"
        )
        assert evaluate(f"[p for p in __import__('sys').path if p.startswith({str(SRC)!r})]") == (
            "[]"
        )

        variables = {v.name: v for v in client.variables(client.locals_reference(frame))}
        activations = variables["activations"]
        assert activations.value == (
            "float32[2, 2] x∈[0, 3] μ=1.25 σ=1.299 n=4 CPU:0 [[0., 2.], [3., 0.]]"
        )
        children = [c.name for c in client.variables(activations.reference)]
        assert children[:2] == ["[0]", "[1]"], children
        assert variables["weights"].value.startswith("float32[3, 2] ")
        assert variables["weights"].value.endswith(" Variable 'weights'")
        # the viewer's payload and the module users' expressions name, both through the
        # installed copy (the flat old paths are gone: tests/unit/test_expressions.py)
        payload = evaluate("__import__('tf_debug_repr').view_payload(activations)[:1]")
        assert payload.strip("'") == "e", payload  # base64 of a JSON object
        assert (
            evaluate("__import__('tf_debug_repr._expr', fromlist=['_']).__file__")
            .strip("'")
            .startswith(str(site))
        )

    # The README's smoke test after a regular install (issue 16): the bundled demo sits in
    # site-packages, library code to justMyCode, yet it stops at its breakpoint.
    demo = subprocess.run(
        [str(python), "-m", "tf_debug_repr", "demo"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]
    assert "stopped at demo.py:" in demo.stdout
    assert "Variable 'dense/kernel'" in demo.stdout or "kernel" in demo.stdout


# debugpy 1.6.7 (scripts/test.sh installs it there; the VS Code Python extension shipped
# 1.6.x for a long time), kept apart from the venv's own debugpy 1.8.
DEBUGPY_16 = ROOT / ".venv" / "debugpy-1.6.7"


@pytest.mark.skipif(
    not (DEBUGPY_16 / "debugpy").is_dir(), reason=f"debugpy 1.6.7 not installed in {DEBUGPY_16}"
)
@pytest.mark.skipif(
    importlib.util.find_spec("pkg_resources") is None,
    reason="no pkg_resources (setuptools >= 82 or none): debugpy 1.6 then uses pkgutil",
)
def test_debugpy_1_6_with_pkg_resources_loads_the_plugin_from_the_installed_wheel(
    tmp_path, wheel, wheel_venv
):
    """debugpy 1.6.x builds ``pydevd_plugins.extensions`` with pkg_resources, which skips
    the PEP 420 portion (issue 16): the wheel's .pth path entry must make it load."""
    assert "tf_debug_repr-pydevd16.pth" in zipfile.ZipFile(wheel).namelist()
    python, site = wheel_venv
    adapter_env = {**os.environ, "PYTHONPATH": str(DEBUGPY_16)}
    with stopped_in(tmp_path, python, adapter_env) as (client, frame, evaluate):
        assert evaluate("__import__('debugpy').__version__") == "'1.6.7'"
        assert evaluate("'pkg_resources' in __import__('sys').modules") == "True"
        variables = {v.name: v for v in client.variables(client.locals_reference(frame))}
        assert variables["activations"].value.startswith("float32[2, 2] x∈[0, 3]")
        assert variables["weights"].value.startswith("float32[3, 2] ")
        assert variables["weights"].value.endswith(" Variable 'weights'")


# Under each debugpy the tests below run: (id, the adapter's environment). "1.8" is this
# venv's own debugpy (1.8.x, pkgutil namespaces).
needs_debugpy_16 = pytest.mark.skipif(
    not (DEBUGPY_16 / "debugpy").is_dir(), reason=f"debugpy 1.6.7 not installed in {DEBUGPY_16}"
)
needs_pkg_resources = pytest.mark.skipif(
    importlib.util.find_spec("pkg_resources") is None,
    reason="no pkg_resources (setuptools >= 82 or none): debugpy 1.6 then uses pkgutil",
)
DEBUGPYS = [
    pytest.param("1.6.7", marks=[needs_debugpy_16, needs_pkg_resources], id="debugpy1.6.7"),
    pytest.param("1.8", id="debugpy1.8"),
]


def adapter_env_for(debugpy: str) -> dict[str, str] | None:
    return {**os.environ, "PYTHONPATH": str(DEBUGPY_16)} if debugpy == "1.6.7" else None


# How many times the plugin registered, as pydevd itself counts: instances of the plugin's
# resolver among its TypeResolveProvider extensions (one per plugin module that exposes it).
REGISTRATIONS = (
    "[type(h).__name__ for h in __import__('_pydevd_bundle.pydevd_extension_utils',"
    " fromlist=['_']).extensions_of_type(__import__('_pydevd_bundle.pydevd_extension_api',"
    " fromlist=['_']).TypeResolveProvider)].count('TensorResolveProvider')"
)


def check_the_plugin_runs(client, frame, evaluate, debugpy: str) -> None:
    """The debuggee runs under ``debugpy``, the plugin registered exactly once, a tensor
    and a variable read as the plugin's summaries, and nothing said the plugin failed."""
    version = evaluate("__import__('debugpy').__version__")
    if debugpy == "1.6.7":
        assert version == "'1.6.7'"
        # the case of issue 16: pkg_resources builds the namespace (PEP 420 portions skipped)
        assert evaluate("'pkg_resources' in __import__('sys').modules") == "True"
    else:
        assert version.startswith("'1.8."), version
    assert evaluate(REGISTRATIONS) == "1"
    variables = {v.name: v for v in client.variables(client.locals_reference(frame))}
    assert variables["activations"].value == (
        "float32[2, 2] x∈[0, 3] μ=1.25 σ=1.299 n=4 CPU:0 [[0., 2.], [3., 0.]]"
    )
    assert variables["weights"].value.startswith("float32[3, 2] ")
    assert variables["weights"].value.endswith(" Variable 'weights'")
    assert "plugin disabled" not in "".join(client.output)


@pytest.fixture(scope="module")
def editable(tmp_path_factory) -> tuple[Path, Path, Path]:
    """(tree, python, site-packages): ``pip install -e`` of a clean tree into a bare venv."""
    work = tmp_path_factory.mktemp("editable")
    tree = clean_tree(work)
    python, site = bare_venv(work)
    command = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps"]
    command += ["-q", "-e", str(tree)]
    if _setuptools_backend_here():
        command.append("--no-build-isolation")
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return tree, python, site


@pytest.mark.parametrize(
    ("debugpy", "attach"),
    [
        *[pytest.param(p.values[0], False, marks=p.marks, id=p.id) for p in DEBUGPYS],
        pytest.param(
            "1.6.7", True, marks=[needs_debugpy_16, needs_pkg_resources], id="debugpy1.6.7-attach"
        ),
    ],
)
def test_an_editable_install_loads_the_plugin(tmp_path, editable, debugpy, attach):
    """``pip install -e .`` puts src/ on the path (a PEP 420 portion there, which debugpy 1.6's
    pkg_resources skips) and, from setup.py, a .pth naming src/tf_debug_repr/_pydevd_namespace
    by its absolute path (issue 16). Under debugpy 1.8 both portions are found: one load.
    ``attach``: the program started with ``python -m debugpy --listen`` instead."""
    tree, python, site = editable
    namespace = tree / "src" / "tf_debug_repr" / "_pydevd_namespace"
    pth = (site / "tf_debug_repr-pydevd16.pth").read_text(encoding="utf-8")
    assert pth.strip() == str(namespace.resolve())
    if attach:
        session = attached_in(tmp_path, python, {"PYTHONPATH": str(DEBUGPY_16)})
    else:
        session = stopped_in(tmp_path, python, adapter_env_for(debugpy))
    with session as (client, frame, evaluate):
        check_the_plugin_runs(client, frame, evaluate, debugpy)
        # the editable tree's package, not a copy (and not this checkout's src/)
        assert (
            evaluate(f"__import__('tf_debug_repr').__file__.startswith({str(tree / 'src')!r})")
            == "True"
        )
        plugin = "__import__('sys').modules['pydevd_plugins.extensions.pydevd_plugin_tf_debug_repr'].__file__"
        where = evaluate(f"{plugin}.startswith({str(namespace)!r})")
        # pkg_resources finds only the regular packages; pkgutil both, src/'s first
        assert where == ("True" if debugpy == "1.6.7" else "False")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    """The bundle vscode-ext/scripts/bundle-python.js writes."""
    bundle = tmp_path_factory.mktemp("bundle") / "bundle"
    script = ROOT / "vscode-ext" / "scripts" / "bundle-python.js"
    done = subprocess.run(
        ["node", str(script), str(bundle)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return bundle


def node_resolved_pythonpath(bundle: Path, inherited: str | None) -> str:
    """env.PYTHONPATH of a launch configuration as the extension resolves it
    (vscode-ext/src/launch/pythonPath.js, the function its configuration provider calls)."""
    script = (
        "const p = require(process.argv[1]);"
        "const r = p.resolveConfiguration({ type: 'debugpy', request: 'launch', name: 't',"
        " program: 'p.py' }, { bundledPlugin: true, bundleDir: process.argv[2],"
        " platform: process.platform, inheritedPythonPath: process.env.PYTHONPATH });"
        "process.stdout.write(r.env.PYTHONPATH);"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if inherited is not None:
        env["PYTHONPATH"] = inherited
    done = subprocess.run(
        [
            "node",
            "-e",
            script,
            str(ROOT / "vscode-ext" / "src" / "launch" / "pythonPath.js"),
            str(bundle),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="node (the extension's scripts) not found")
@pytest.mark.parametrize(
    ("debugpy", "installed"),
    [
        *[pytest.param(p.values[0], False, marks=p.marks, id=p.id) for p in DEBUGPYS],
        pytest.param(
            "1.6.7",
            True,
            marks=[needs_debugpy_16, needs_pkg_resources],
            id="debugpy1.6.7-over-a-wheel",
        ),
    ],
)
def test_the_extension_bundle_loads_the_plugin(request, tmp_path, debugpy, installed):
    """The VS Code extension's zero-install case: a venv without tf-debug-repr, the bundle
    written by vscode-ext/scripts/bundle-python.js, its folders on the debuggee's PYTHONPATH
    as the extension's launch code puts them. debugpy 1.6.x (pkg_resources) finds the plugin
    in the bundle's pydevd16/ (issue 16); debugpy 1.8 in the bundle's PEP 420 portion.
    ``installed``: the venv has the wheel too; its copy is the one that runs, once, though
    pydevd_plugins.extensions then holds the bundle's folder and the wheel's second one."""
    bundle = request.getfixturevalue("bundle")
    python, site = request.getfixturevalue("wheel_venv" if installed else "bare")
    adapter_env = adapter_env_for(debugpy)
    inherited = (adapter_env or os.environ).get("PYTHONPATH")
    pythonpath = node_resolved_pythonpath(bundle, inherited)
    assert pythonpath.split(os.pathsep)[:2] == [str(bundle), str(bundle / "pydevd16")]
    launch_env = {"TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONPATH": pythonpath}
    with stopped_in(tmp_path, python, adapter_env, launch_env) as (client, frame, evaluate):
        check_the_plugin_runs(client, frame, evaluate, debugpy)
        # the bundled package where the venv has none, else the venv's own
        package = "__import__('sys').modules['tf_debug_repr.hosts.pydevd.adapter'].__file__"
        home = site if installed else bundle / "lib"
        assert evaluate(f"{package}.startswith({str(home)!r})") == "True"
        plugin = "__import__('sys').modules['pydevd_plugins.extensions.pydevd_plugin_tf_debug_repr'].__file__"
        where = evaluate(f"{plugin}.startswith({str(bundle / 'pydevd16')!r})")
        assert where == ("True" if debugpy == "1.6.7" else "False")
