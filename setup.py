"""Everything is in pyproject.toml but one file that setuptools cannot list there: a
``.pth`` at the top of site-packages (see ``build_py`` below)."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "tf_debug_repr-pydevd16.pth"
NAMESPACE = Path("tf_debug_repr", "_pydevd_namespace")


class BuildPy(build_py):
    """Adds ``tf_debug_repr-pydevd16.pth``: a path line, read at start-up, that puts
    ``tf_debug_repr/_pydevd_namespace`` on sys.path, where debugpy 1.6.x (pkg_resources
    namespaces) finds the plugin. It runs no code.

    A regular install gets a relative line (the package sits beside the ``.pth``). An
    editable install (``pip install -e .``) gets the absolute path of the checkout's
    ``src/tf_debug_repr/_pydevd_namespace``: its package is not in site-packages. setuptools
    builds an editable wheel from the folder its ``install`` command installs into
    (``install_lib``; where it also puts data and scripts); a file there lands at the top of
    site-packages, as this one must (tests/e2e/test_wheel.py installs both ways)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            self._write_editable_pth()
        else:
            target = Path(self.build_lib) / PTH
            target.write_text(f"{NAMESPACE.as_posix()}\n", encoding="utf-8")

    def _write_editable_pth(self) -> None:
        source = Path(self.get_package_dir("tf_debug_repr")).resolve().parent / NAMESPACE
        wheel_root = Path(self.get_finalized_command("install").install_lib or "")
        # Only where that folder is the editable wheel being assembled (it holds the
        # .dist-info): never write into a real site-packages by accident.
        if source.is_dir() and any(wheel_root.glob("*.dist-info")):
            (wheel_root / PTH).write_text(f"{source}\n", encoding="utf-8")
        else:
            self.warn(f"{PTH} not written: debugpy 1.6.x will not find the plugin")

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not getattr(self, "editable_mode", False):
            outputs.append(str(Path(self.build_lib) / PTH))
        return outputs


setup(cmdclass={"build_py": BuildPy})
