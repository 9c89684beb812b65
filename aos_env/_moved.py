"""The module paths of aos_env before 0.4.0, kept working.

In 0.4.0 the flat modules of ``aos_env`` moved into subpackages, one per layer (see
``docs/architecture.md``). An old path still imports: this finder, which ``aos_env/__init__``
puts first on ``sys.meta_path``, answers for the old names only and hands back the module at its
new path, the same module object, with a ``DeprecationWarning`` naming the new path. A stable
public name (``PUBLIC``) is answered without a warning. ``python -m`` with an old path runs the
new module too.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings

#: old module name -> new module name (since 0.4.0)
MOVED: dict[str, str] = {
    "aos_env.checks": "aos_env.base.checks",
    "aos_env.files": "aos_env.base.files",
    "aos_env.names": "aos_env.base.names",
    "aos_env.cards": "aos_env.core.cards",
    "aos_env.render": "aos_env.view.render",
    "aos_env.svg": "aos_env.view.svg",
    "aos_env.replay": "aos_env.view.replay",
    "aos_env.positions": "aos_env.tools.positions",
    "aos_env.determinise": "aos_env.tools.determinise",
    "aos_env.docs": "aos_env.tools.docs",
    "aos_env.aec_env": "aos_env.envs.aec",
    "aos_env.gym_env": "aos_env.envs.gym",
    "aos_env.learner_env": "aos_env.envs.learner",
    "aos_env.spaces": "aos_env.envs.spaces",
    "aos_env.sb3": "aos_env.integrations.sb3",
    "aos_env.rllib": "aos_env.integrations.rllib",
    "aos_env.openspiel": "aos_env.integrations.openspiel",
    "aos_env.play": "aos_env.apps.play",
    "aos_env.web": "aos_env.apps.web",
}
#: old names that stay public, stable names (no warning): the card data and the OpenSpiel game
PUBLIC = frozenset({"aos_env.cards", "aos_env.openspiel"})


def warn_moved(old: str, new: str, stacklevel: int = 2) -> None:
    warnings.warn(
        f"{old} moved to {new} in aos_env 0.4.0; import {new} instead (the old path "
        f"will be removed in a later release)",
        DeprecationWarning,
        stacklevel=stacklevel + 1,
    )


class _AliasLoader(importlib.abc.Loader):
    """Loads an old name as the module at its new path (imported, not copied)."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def create_module(self, spec):
        if self.old not in PUBLIC:
            warn_moved(self.old, self.new)  # warnings skips importlib's own frames: this names the importer
        return importlib.import_module(self.new)

    def exec_module(self, module) -> None:
        """The module at the new path has run already."""

    def get_code(self, fullname: str):
        """``python -m <old path>`` (runpy): code that warns, then runs the new module as ``__main__``
        (run as itself, so that its relative imports resolve from its new package)."""
        warn = "" if self.old in PUBLIC else f"_moved.warn_moved({self.old!r}, {self.new!r}, stacklevel=1)\n"
        source = (
            "import runpy\nfrom aos_env import _moved\n"
            + warn
            + f"runpy.run_module({self.new!r}, run_name='__main__', alter_sys=True)\n"
        )
        return compile(source, f"<{self.old}: moved to {self.new}>", "exec")

    def is_package(self, fullname: str) -> bool:
        return False


class MovedFinder(importlib.abc.MetaPathFinder):
    """A finder for the old module paths only (``MOVED``); every other name goes to the next finder."""

    def find_spec(self, fullname: str, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(fullname, new))


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once): first, so that an editable install's own
    finder cannot answer an old name with a stale path."""
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())
