"""Where a step of the numpy engine spends its time, phase handler by phase handler.

    python -m benchmarks.profile_engine [--batch 4096] [--players 2] [--steps 100]

Plays random legal games (as ``engine_throughput`` does) on the numpy reference
engine with every phase handler of ``aos_env.core.np_engine.engine`` wrapped by
a timer, and prints:

- per handler (``mask:`` legal actions of a decision, ``apply:`` a chosen
  action, ``forced:`` the forced part of a repeated choice, taken when games
  arrive at it, ``run:`` an internal phase): milliseconds per step, calls per step,
  mean group size (games per call) and share of the step;
- the decisions with a single legal action that the engine took by itself,
  per step and by phase (``apply:`` handlers also run for those).

The timers add a few microseconds per call, so shares are more telling than
absolute figures; ``engine_throughput`` gives the unwrapped speed. (The compiled
engine runs a game's whole step in one kernel call, which these timers cannot
look into; ``engine_throughput --backend numba`` measures it.)
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable

import numpy as np

from aos_env import core
from aos_env.base.checks import output_file_arg
from aos_env.base.files import write_text
from aos_env.core import Phase
from aos_env.core.np_engine import engine as E

from .engine_throughput import random_actions, restart_finished


class _Timers:
    """Wraps the engine's handler tables and its apply pass for one profiling run."""

    def __init__(self) -> None:
        self.seconds: Counter = Counter()
        self.calls: Counter = Counter()
        self.games: Counter = Counter()
        self.forced: Counter = Counter()  # games per decision phase whose single legal action the engine took
        self.in_step_apply = False  # inside engine.apply: the players' own actions

    def wrap(self, name: str, fn: Callable) -> Callable:
        def timed(state, g, *rest):
            t = time.perf_counter()
            out = fn(state, g, *rest)
            self.seconds[name] += time.perf_counter() - t
            self.calls[name] += 1
            self.games[name] += g.size
            if name.startswith("apply:") and not self.in_step_apply:
                self.forced[name.split(":", 1)[1]] += g.size
            return out

        return timed

    def wrap_apply(self, fn: Callable) -> Callable:
        def apply(state, g, action):
            self.in_step_apply = True
            try:
                return fn(state, g, action)
            finally:
                self.in_step_apply = False

        return apply


def profile(batch: int = 4096, players: int = 2, steps: int = 100, seed: int = 0, warmup: int = 60) -> dict:
    """Profile ``steps`` engine steps of random legal play at this batch size; returns the figures."""
    rng = np.random.default_rng(seed)
    state = core.init(batch, players, seed=seed, backend="numpy")
    for i in range(warmup):  # get the games past their first turns
        core.step(state, random_actions(state, rng))
        restart_finished(state, seed + 1_000_003 * (i + 1))
    timers = _Timers()
    saved = (E._MASK[:], E._APPLY[:], E._RUN[:], E._FORCED[:], E.apply)
    try:
        for table, kind in ((E._MASK, "mask"), (E._APPLY, "apply"), (E._RUN, "run"), (E._FORCED, "forced")):
            for p, fn in enumerate(table):
                if fn is not None:
                    table[p] = timers.wrap(f"{kind}:{Phase(p).name}", fn)
        E.apply = timers.wrap_apply(saved[4])  # looked up as a global by step
        decisions, total = 0, 0.0
        for i in range(steps):
            a = random_actions(state, rng)
            decisions += int((~(state.terminated | state.truncated)).sum())
            t = time.perf_counter()
            core.step(state, a)
            total += time.perf_counter() - t
            restart_finished(state, seed + 1_000_003 * (warmup + i + 1))
    finally:
        E._MASK[:], E._APPLY[:], E._RUN[:], E._FORCED[:] = saved[:4]
        E.apply = saved[4]
    handlers = {
        name: {
            "ms_per_step": 1e3 * s / steps,
            "calls_per_step": timers.calls[name] / steps,
            "games_per_call": timers.games[name] / timers.calls[name],
            "share": s / total,
        }
        for name, s in timers.seconds.most_common()
    }
    forced = {phase: n / steps for phase, n in timers.forced.most_common()}
    return {
        "batch": batch,
        "players": players,
        "steps": steps,
        "ms_per_step": 1e3 * total / steps,
        "decisions_per_second": decisions / total,
        "handler_share": sum(timers.seconds.values()) / total,
        "handlers": handlers,
        "forced_per_step": forced,
    }


def report(res: dict, top: int = 25) -> str:
    lines = [
        f"batch {res['batch']}, {res['players']} players, {res['steps']} steps: {res['ms_per_step']:.2f} ms per step, "
        f"{res['decisions_per_second']:,.0f} decisions/s (timers included); "
        f"{100 * res['handler_share']:.0f}% of the step inside phase handlers",
        "",
        f"{'handler':32s} {'ms/step':>8s} {'calls/step':>10s} {'games/call':>10s} {'share':>6s}",
    ]
    for name, h in list(res["handlers"].items())[:top]:
        lines.append(
            f"{name:32s} {h['ms_per_step']:8.3f} {h['calls_per_step']:10.2f} "
            f"{h['games_per_call']:10.1f} {100 * h['share']:5.1f}%"
        )
    forced = res["forced_per_step"]
    lines += [
        "",
        f"single-choice decisions taken by the engine: {sum(forced.values()):.1f} per step "
        f"(for {res['decisions_per_second'] * res['ms_per_step'] / 1e3:.0f} player decisions)",
    ]
    lines += [f"  {phase:30s} {n:8.1f}" for phase, n in forced.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.profile_engine",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--batch", type=int, default=4096, help="games stepped together")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="players per game")
    p.add_argument("--steps", type=int, default=100, help="engine steps profiled (after 60 warm-up steps)")
    p.add_argument("--seed", type=int, default=0, help="seed of the games and of the random actions")
    p.add_argument("--top", type=int, default=25, help="handlers listed, the costliest first")
    p.add_argument("--json", type=output_file_arg, default=None, help="also write the figures to this JSON file")
    args = p.parse_args(argv)
    res = profile(args.batch, args.players, args.steps, args.seed)
    print(report(res, args.top))
    if args.json:
        write_text(args.json, json.dumps(res, indent=2))  # atomic
    return res


if __name__ == "__main__":
    main()
