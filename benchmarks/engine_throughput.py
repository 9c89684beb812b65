"""Decisions per second of the batched engine under random legal play.

    python benchmarks/engine_throughput.py [--batches 1 64 1024 4096] [--players 2] [--repeats 5] [--backend numba]

Each run plays for ``--seconds`` at one batch size: actions are drawn
uniformly among the legal ones (outside the timer), finished games are
restarted (outside the timer), and only ``core.step`` is timed. A decision is
one action of one unfinished game. The figure printed is the median of
``--repeats`` runs, with the spread (min..max), since this machine is noisy.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from aos_env import core
from aos_env.base.checks import output_file_arg
from aos_env.base.files import write_text


def random_actions(state: core.State, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per game (0 for finished games)."""
    return (rng.random(state.legal_action_mask.shape) * state.legal_action_mask).argmax(1)


def restart_finished(state: core.State, seed: int) -> bool:
    """Restart the finished games with seeds from ``seed`` on; True if any was."""
    done = np.nonzero(state.terminated | state.truncated)[0]
    if done.size:
        core.reset(state, done, seed=seed)
    return bool(done.size)


def median_of(fn, repeats: int) -> dict:
    """Run ``fn(seed)`` for seeds 0..repeats-1: the median, min, max and all the runs."""
    runs = [fn(seed) for seed in range(repeats)]
    return {"median": statistics.median(runs), "min": min(runs), "max": max(runs), "runs": runs}


def measure(batch: int, players: int, seconds: float, seed: int = 0, backend: str | None = None) -> float:
    """One run: decisions per second of ``core.step`` at this batch size, on ``backend``."""
    rng = np.random.default_rng(seed)
    state = core.init(batch, players, seed=seed, backend=backend)
    for _ in range(20):  # warm up: get the games past their first turns
        core.step(state, random_actions(state, rng))
    decisions, stepping, restarts = 0, 0.0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = random_actions(state, rng)
        live = int((~(state.terminated | state.truncated)).sum())
        t = time.perf_counter()
        core.step(state, actions)
        stepping += time.perf_counter() - t
        decisions += live
        restarts += restart_finished(state, seed + 1_000_003 * (restarts + 1))
    return decisions / stepping


def run(batches: list[int], players: int, seconds: float, repeats: int, backend: str | None = None) -> dict:
    results = {}
    for b in batches:
        results[b] = median_of(lambda s, b=b: measure(b, players, seconds, seed=s, backend=backend), repeats)
        print(
            f"batch {b:>6}: {results[b]['median']:>12,.0f} decisions/s  "
            f"(min {results[b]['min']:,.0f}, max {results[b]['max']:,.0f}, {repeats} runs)",
            flush=True,
        )
    return results


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description="Decisions per second of aos_env.core under random legal play.")
    p.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 4096], help="batch sizes to measure")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="players per game (default 2)")
    p.add_argument("--seconds", type=float, default=3.0, help="length of one run (default 3 s)")
    p.add_argument("--repeats", type=int, default=5, help="runs per batch size; the median is reported")
    p.add_argument(
        "--backend", choices=core.BACKENDS, default=None, help="engine to measure (default: $AOS_BACKEND, else numba)"
    )
    p.add_argument("--json", type=output_file_arg, default=None, help="also write the figures to this JSON file")
    args = p.parse_args(argv)
    res = run(args.batches, args.players, args.seconds, args.repeats, args.backend)
    if args.json:
        write_text(args.json, json.dumps({"players": args.players, "results": res}, indent=2))  # atomic
    return res


if __name__ == "__main__":
    main()
