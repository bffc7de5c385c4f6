"""Everything is in pyproject.toml but one file that setuptools cannot list there: a
``.pth`` at the top of site-packages (see ``build_py`` below)."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "tf_debug_repr-pydevd16.pth"


class BuildPy(build_py):
    """Adds ``tf_debug_repr-pydevd16.pth``: a path line, read at start-up, that puts
    ``tf_debug_repr/_pydevd_namespace`` on sys.path, where debugpy 1.6.x (pkg_resources
    namespaces) finds the plugin. It runs no code. Not in editable installs, whose
    package is not in site-packages (a relative line would name nothing)."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            target = Path(self.build_lib) / PTH
            target.write_text("tf_debug_repr/_pydevd_namespace\n", encoding="utf-8")

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not getattr(self, "editable_mode", False):
            outputs.append(str(Path(self.build_lib) / PTH))
        return outputs


setup(cmdclass={"build_py": BuildPy})
