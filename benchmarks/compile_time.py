"""What the compiled engine's compilation costs: a fresh process from ``import aos_env`` to its first
step, cold (an empty numba cache: the first use after install or upgrade) and warm (a second
fresh process, the cache filled), for the two first uses that matter:

- ``aec``: the PettingZoo env, ``aos_env.env()``, ``reset()``, ``observe``, one ``step`` (the
  one-game kernel);
- ``batch_4096``: ``core.init`` of 4,096 games, one ``core.step`` of all of them, one
  ``core.observe`` (the serial batch kernel: below ``AOS_PARALLEL_MIN_GAMES``).

Cold is measured twice: as installed (``pip install`` compiles the kernels ahead of time into
``aos_env/_prebuilt``, and an empty cache folder is filled from there) and without that prebuilt
cache (``AOS_PREBUILT=0``: everything compiles, as after an install with ``AOS_PREBUILD=0`` or on
a CPU the prebuilt code does not fit).

Each run is a subprocess with its own cache folder (``NUMBA_CACHE_DIR``, a new temporary folder
per path), so imports and the cache are measured as a user meets them: CPU seconds of the whole
process (``getrusage`` of the child: the figure to compare on a shared machine) and wall seconds.
``python -m benchmarks.compile_time`` prints them; no figure is asserted anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from aos_env.core import _numba

_PRELUDE = """
import json, time
t0 = time.perf_counter()
c0 = time.process_time()
import numpy as np
import aos_env
from aos_env import core
t1 = time.perf_counter()
"""

_STEPS = {
    "aec": """
env = aos_env.env()
env.reset(seed=0)
obs, *_ = env.last()
env.step(int(np.argmax(obs["action_mask"])))
""",
    "batch_4096": """
s = core.init(4096, 2, seed=0, backend="numba")
core.step(s, np.argmax(s.legal_action_mask, axis=1))
core.observe(s, 0)
""",
}

_REPORT = """
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_step_s": t2 - t1, "total_s": t2 - t0,
                  "cpu_s": time.process_time() - c0}))
"""

PATHS = tuple(_STEPS)


def _run(path: str, cache_dir: str, prebuilt: bool = True) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    env.pop("AOS_BACKEND", None)
    if prebuilt:
        env.pop(_numba.PREBUILT_ENV, None)  # the package's own prebuilt cache, as installed
    else:
        env[_numba.PREBUILT_ENV] = "0"
    code = _PRELUDE + _STEPS[path] + _REPORT
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    res["process_s"] = wall
    res["process_cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    res["notice"] = next((line for line in proc.stderr.splitlines() if line.startswith("aos_env:")), None)
    return res


def prebuilt_present() -> bool:
    """Whether this install has a prebuilt cache for the engine's current sources."""
    from aos_env.core.nb_engine import _jit

    root = _numba.prebuilt_root()
    return bool(root) and (root / f"numba-{_jit.TAG}").is_dir()


def compile_times(warm_runs: int = 3, paths=("aec",)) -> dict:
    """For each path, cold: a new cache folder, as installed (``cold``: the prebuilt cache, if this
    install has one) and without the prebuilt cache (``cold_without_prebuilt``); warm: the same
    folder again (the median of ``warm_runs`` by process CPU). ``cold``, ``cold_without_prebuilt``
    and ``warm`` at the top are the first path's."""
    out: dict = {"paths": {}, "prebuilt": prebuilt_present()}
    for path in paths:
        with tempfile.TemporaryDirectory(prefix="aos-numba-") as d:
            cold = _run(path, d)
            warm = sorted((_run(path, d) for _ in range(warm_runs)), key=lambda r: r["process_cpu_s"])
        with tempfile.TemporaryDirectory(prefix="aos-numba-") as d:
            bare = _run(path, d, prebuilt=False)
        out["paths"][path] = {
            "cold": cold,
            "cold_without_prebuilt": bare,
            "warm": warm[len(warm) // 2],
            "warm_runs": warm,
        }
    first = out["paths"][paths[0]]
    out["cold"], out["cold_without_prebuilt"], out["warm"] = (
        first["cold"],
        first["cold_without_prebuilt"],
        first["warm"],
    )
    return out


def table(res: dict) -> str:
    lines = [
        "| first use | cold, as installed: CPU s | wall s | cold, no prebuilt cache: CPU s | wall s | "
        "warm: CPU s | wall s |",
        "|---|---|---|---|---|---|---|",
    ]
    for path, r in res["paths"].items():
        c, b, w = r["cold"], r["cold_without_prebuilt"], r["warm"]
        lines.append(
            f"| {path} | {c['process_cpu_s']:.1f} | {c['process_s']:.1f} | {b['process_cpu_s']:.1f} | "
            f"{b['process_s']:.1f} | {w['process_cpu_s']:.2f} | {w['process_s']:.2f} |"
        )
    if not res.get("prebuilt"):
        lines.append(
            "\n(this install has no prebuilt cache: cold as installed compiles everything too; "
            "pip install -e . builds it)"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.compile_time", description=__doc__.split("\n\n")[0])
    p.add_argument("--paths", default=",".join(PATHS), help=f"comma separated, of {', '.join(PATHS)}")
    p.add_argument("--warm-runs", type=int, default=3, help="warm processes per path (the median is reported)")
    p.add_argument("--json", action="store_true", help="print everything measured as JSON")
    args = p.parse_args(argv)
    paths = tuple(x for x in args.paths.split(",") if x)
    unknown = [x for x in paths if x not in PATHS]
    if unknown or not paths or args.warm_runs < 1:
        p.error(f"--paths takes {', '.join(PATHS)}; --warm-runs at least 1")
    res = compile_times(args.warm_runs, paths)
    print(json.dumps(res, indent=2) if args.json else table(res))
    if args.json:
        return  # the notices are in the JSON ("notice"): stdout stays one JSON document
    for path, r in res["paths"].items():
        for kind in ("cold", "cold_without_prebuilt"):
            if r[kind]["notice"]:
                print(f"{path}, {kind.replace('_', ' ')}: {r[kind]['notice']}")


if __name__ == "__main__":
    main()
