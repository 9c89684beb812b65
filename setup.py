"""The build step that compiles the engine ahead of time (everything else is in pyproject.toml).

``build_kernels`` runs with every ``pip install`` (editable or not) and every wheel build: it
compiles the numba kernels once (``python -m aos_env.core.prebuild``) and puts their cache files
in the package as ``aos_env/_prebuilt/``, so the first use after install does not spend half a
minute compiling. If it fails, or ``AOS_PREBUILD=0`` is set, the package installs without them
and compiles on first use, as it always could.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from setuptools import Command, setup
from setuptools.command.build import build

ROOT = Path(__file__).resolve().parent
#: Where the prebuilt cache goes inside the package (``aos_env.core._numba.prebuilt_root``).
PREBUILT = Path("aos_env") / "_prebuilt"
#: More kernels compiled into the same cache (modules with a ``warm()``).
ALSO = ["agents.players.greedy"]


class build_kernels(Command):
    """Compile the compiled engine's kernels into aos_env/_prebuilt (AOS_PREBUILD=0 skips it)."""

    description = "compile the numba kernels ahead of time into aos_env/_prebuilt"
    user_options: list = []

    def initialize_options(self) -> None:
        self.build_lib = None
        self.editable_mode = False

    def finalize_options(self) -> None:
        self.set_undefined_options("build_py", ("build_lib", "build_lib"))

    def _target(self) -> Path:
        # editable: the package is the source folder itself; else what goes into the wheel
        return ROOT / PREBUILT if self.editable_mode else Path(self.build_lib) / PREBUILT

    def run(self) -> None:
        if os.environ.get("AOS_PREBUILD", "") == "0":
            print("build_kernels: skipped (AOS_PREBUILD=0): the kernels compile on first use")
            return
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        cmd = [sys.executable, "-m", "aos_env.core.prebuild", str(self._target()), "--overwrite", "--also", *ALSO]
        print("build_kernels: compiling the numba kernels ahead of time (about a minute)")
        try:
            subprocess.run(cmd, cwd=ROOT, env=env, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            # nothing breaks without it: the kernels compile on first use instead
            print(f"build_kernels: not prebuilt ({e}); the kernels will compile on first use", file=sys.stderr)

    def get_outputs(self) -> list[str]:
        target = self._target()
        if self.editable_mode or not target.is_dir():
            return []
        return [str(f) for f in target.rglob("*") if f.is_file()]

    def get_output_mapping(self) -> dict[str, str]:
        return {}

    def get_source_files(self) -> list[str]:
        return []


build.sub_commands.append(("build_kernels", None))
setup(cmdclass={"build_kernels": build_kernels})
