"""What the compiled engine's compilation costs: a fresh process from ``import aos_env`` to its first
step, cold (an empty numba cache: the first use after install) and warm (the cache filled).

Each run is a subprocess, so imports and the cache are measured as a user meets them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

_SNIPPET = """
import time
t0 = time.perf_counter()
import numpy as np
import aos_env
from aos_env import core
t1 = time.perf_counter()
s = core.init(1, 2, seed=0, backend="numba")
core.step(s, np.array([int(np.argmax(s.legal_action_mask[0]))]))
core.observe(s, 0)
t2 = time.perf_counter()
print({"import_s": t1 - t0, "first_step_s": t2 - t1, "total_s": t2 - t0})
"""


def _run(cache_dir: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _SNIPPET], env=env, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t
    res = eval(out.strip().splitlines()[-1])  # the dict printed by the snippet
    res["process_s"] = wall
    return res


def compile_times(warm_runs: int = 3) -> dict:
    """Cold: a new cache folder; warm: the same folder again (median of ``warm_runs``)."""
    with tempfile.TemporaryDirectory(prefix="aos-numba-") as d:
        cold = _run(d)
        warm = [_run(d) for _ in range(warm_runs)]
    warm.sort(key=lambda r: r["total_s"])
    return {"cold": cold, "warm": warm[len(warm) // 2], "warm_runs": warm}


if __name__ == "__main__":
    print(json.dumps(compile_times(), indent=2))
