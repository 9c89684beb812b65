"""What the compiled engine's compilation costs: a fresh process from ``import aos_env`` to its first
step, cold (an empty numba cache: the first use after install or upgrade) and warm (a second
fresh process, the cache filled), for the two first uses that matter:

- ``aec``: the PettingZoo env, ``aos_env.env()``, ``reset()``, ``observe``, one ``step`` (the
  one-game kernel);
- ``batch_4096``: ``core.init`` of 4,096 games, one ``core.step`` of all of them, one
  ``core.observe`` (the serial batch kernel: below ``AOS_PARALLEL_MIN_GAMES``).

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


def _run(path: str, cache_dir: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    env.pop("AOS_BACKEND", None)
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


def compile_times(warm_runs: int = 3, paths=("aec",)) -> dict:
    """For each path, cold: a new cache folder; warm: the same folder again (the median of
    ``warm_runs`` by process CPU). ``cold`` and ``warm`` at the top are the first path's."""
    out: dict = {"paths": {}}
    for path in paths:
        with tempfile.TemporaryDirectory(prefix="aos-numba-") as d:
            cold = _run(path, d)
            warm = sorted((_run(path, d) for _ in range(warm_runs)), key=lambda r: r["process_cpu_s"])
        out["paths"][path] = {"cold": cold, "warm": warm[len(warm) // 2], "warm_runs": warm}
    first = out["paths"][paths[0]]
    out["cold"], out["warm"] = first["cold"], first["warm"]
    return out


def table(res: dict) -> str:
    lines = ["| first use | cold CPU s | cold wall s | warm CPU s | warm wall s |", "|---|---|---|---|---|"]
    for path, r in res["paths"].items():
        c, w = r["cold"], r["warm"]
        lines.append(f"| {path} | {c['process_cpu_s']:.1f} | {c['process_s']:.1f} | {w['process_cpu_s']:.2f} | "
                     f"{w['process_s']:.2f} |")
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
    for path, r in res["paths"].items():
        if r["cold"]["notice"]:
            print(f"{path}, cold: {r['cold']['notice']}")


if __name__ == "__main__":
    main()
