"""Compile the engine's kernels ahead of time and keep their cache files, for ``pip install``.

``setup.py``'s build step runs ``python -m aos_env.core.prebuild OUT`` when the package is
installed or a wheel is built: a fresh process with an empty cache of its own compiles what a
first use needs (``warm``: one game, as the AEC and Gymnasium envs play it, and a batch, as
``core.step`` and the vector envs do), then its cache folders are copied to ``OUT``
(``aos_env/_prebuilt``). At run time an empty cache folder is filled from there
(``_numba.seed``), so the first process after install loads machine code instead of compiling for
half a minute. What is not prebuilt (the threaded kernels of batches from
``nb_engine.PARALLEL_MIN_GAMES`` games, another CPU or numba version) compiles on first use, as
before; without a prebuilt cache everything does.

    python -m aos_env.core.prebuild OUT [--also MODULE ...] [--overwrite]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from ..base import files
from ..base.checks import ArgumentError, check_output_folder
from ..base.outputs import describe, existing

#: Games of the batch that ``warm`` plays (any size from 2 up to the threads' threshold compiles
#: the same serial kernels).
WARM_BATCH = 4
#: Table sizes ``warm`` plays: the kernels take the player count as a value, so one is enough;
#: 2 and 4 play both ends of the seat loops once.
WARM_PLAYERS = (2, 4)


def _first_legal(mask: np.ndarray) -> np.ndarray:
    result: np.ndarray = np.argmax(mask, axis=-1)
    return result


def warm() -> None:
    """Compile (or load) the compiled engine's serial kernels by playing a few games through every
    public path: ``init``/``step``/``observe``/``final_scores`` for one game and for a batch,
    ``game_handle`` (the AEC env's path), ``refresh`` (edited positions) and ``truncate``."""
    from . import api

    for players in WARM_PLAYERS:
        one = api.init(1, players, seed=0, backend="numba")
        handle = api.game_handle(one, 0)
        while not one.terminated[0] and not one.truncated[0]:
            player = int(one.current_player[0])
            handle.observe(player, True)
            api.observe(one, np.array([player]))
            handle.step(int(_first_legal(one.legal_action_mask[0])))
        api.final_scores(one)

        batch = api.init(WARM_BATCH, players, seed=0, backend="numba")
        api.refresh(batch)
        while True:
            live = np.flatnonzero(~(batch.terminated | batch.truncated))
            if live.size == 0:
                break
            api.observe(batch, batch.current_player[live], live)
            api.step(batch, _first_legal(batch.legal_action_mask[live]), live)
        api.observe(batch, batch.current_player)
        api.final_scores(batch)
        api.truncate(api.init(WARM_BATCH, players, seed=1, backend="numba"), np.arange(WARM_BATCH))


def _cache_folders(home: Path) -> list[Path]:
    root = home / "aos_env"
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def build(out: Path, also: list[str], overwrite: bool = False) -> list[Path]:
    """Compile in a fresh process with an empty cache of its own (``warm``, then each of ``also``'s
    ``warm()``), and copy its cache folders into ``out``; returns them. ``out`` is replaced as a
    whole (``base.files.atomic_folder``), and only with ``overwrite`` if it exists."""
    out = check_output_folder("out", out)  # a folder that can be written, checked before compiling (minutes)
    if existing(out) and not overwrite:
        raise FileExistsError(f"{out} exists ({describe(out)}): pass --overwrite to replace it")
    with tempfile.TemporaryDirectory(prefix="aos-prebuild-") as home:
        env = dict(os.environ, XDG_CACHE_HOME=home, AOS_PREBUILT="0", AOS_QUIET="1")
        env.pop("NUMBA_CACHE_DIR", None)  # our folders go under XDG_CACHE_HOME
        code = (
            "import importlib, sys\nfrom aos_env.core import prebuild\nprebuild.warm()\n"
            "for m in sys.argv[1:]:\n    importlib.import_module(m).warm()\n"
        )
        subprocess.run([sys.executable, "-c", code, *also], env=env, check=True)
        folders = _cache_folders(Path(home))
        if not folders:
            raise RuntimeError("the prebuild compiled nothing into its cache (is caching off?)")
        with files.atomic_folder(out) as staging:
            for f in folders:
                shutil.copytree(f, staging / f.name)
    return [out / f.name for f in folders]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m aos_env.core.prebuild",
        description="Compile the engine's numba kernels ahead of time into a prebuilt cache folder "
        "(what pip install does; aos_env/_prebuilt is the package's own).",
    )
    p.add_argument("out", type=Path, help="folder to write the prebuilt cache to (e.g. aos_env/_prebuilt)")
    p.add_argument(
        "--also",
        nargs="*",
        default=[],
        metavar="MODULE",
        help="modules whose warm() compiles more kernels into the same cache (e.g. agents.players.greedy)",
    )
    p.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    args = p.parse_args(argv)
    for m in args.also:
        try:
            spec = importlib.util.find_spec(m)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            p.error(f"--also: no module named {m!r}")
    try:
        folders = build(args.out, args.also, overwrite=args.overwrite)
    except (FileExistsError, ArgumentError) as e:
        p.error(str(e))
    except subprocess.CalledProcessError as e:
        print(f"prebuild: compiling failed (exit status {e.returncode})", file=sys.stderr)
        return 1
    for f in folders:
        size = sum(x.stat().st_size for x in f.iterdir())
        print(f"{f}: {len(list(f.iterdir()))} files, {size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    from aos_env.base.cli import run_cli

    run_cli(main, "python -m aos_env.core.prebuild", expected=(RuntimeError,))
