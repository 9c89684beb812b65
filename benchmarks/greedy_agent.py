"""The greedy agent's speed: time per decision of ``GreedyAgent.act``, and the training env with
greedy opponents.

    python -m benchmarks.greedy_agent [--batches 1 64 1024] [--repeats 5] [--env-steps 200]

- ``act``: decisions of mixed random/greedy play (2, 3 and 4 players) are collected first; then
  ``act`` is timed on batches of ``b`` of them, one call per batch, and the figure is the time per
  decision (call time / b), the median of ``--repeats`` runs.
- the training env: ``LearnerEnv(num_envs=--env-games, num_players=2)`` with a greedy opponent in
  every other seat; ``step`` is timed with random legal learner actions (drawn outside the timer).
  The figure is learner steps per second (games x steps / seconds), the median of the runs, with the
  share of a step spent in the greedy agent's ``act`` and in ``core.observe`` (the greedy agent's
  observations and the learner's).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from agents import GreedyAgent, RandomAgent
from aos_env import core
from aos_env.base.checks import output_file_arg
from aos_env.base.files import write_text
from aos_env.envs.learner import LearnerEnv


def play_decisions(games: int, players: int, steps: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(obs, mask) of every decision of ``games`` games of mixed play (each seat greedy or random,
    drawn per game) for ``steps`` steps; finished games are restarted."""
    rng = np.random.default_rng(seed)
    greedy, rand = GreedyAgent(), RandomAgent(seed=seed)
    state = core.init(games, players, seed=seed)
    is_greedy = rng.random((games, players)) < 0.5
    rows = np.arange(games)
    obs_out, mask_out = [], []
    for i in range(steps):
        live = ~(state.terminated | state.truncated)
        obs = core.observe(state, state.current_player)
        mask = state.legal_action_mask.copy()
        obs_out.append(obs[live])
        mask_out.append(mask[live])
        acts = np.where(is_greedy[rows, state.current_player], greedy.act(obs, mask), rand.act(obs, mask))
        core.step(state, acts)
        done = np.nonzero(state.terminated | state.truncated)[0]
        if done.size:
            core.reset(state, done, seed=seed + 7919 * (i + 1))
    return np.concatenate(obs_out), np.concatenate(mask_out)


def act_seconds_per_decision(
    agent, obs: np.ndarray, mask: np.ndarray, batch: int, min_calls: int = 20, min_seconds: float = 0.5
) -> float:
    """One run: seconds per decision of ``agent.act`` on consecutive batches of ``batch`` rows."""
    starts = np.arange(0, obs.shape[0] - batch + 1, batch)
    agent.act(obs[:batch], mask[:batch])  # compile / warm up outside the timer
    calls, spent, i = 0, 0.0, 0
    while calls < min_calls or spent < min_seconds:
        s = starts[i % starts.size]
        o, m = obs[s : s + batch], mask[s : s + batch]
        t = time.perf_counter()
        agent.act(o, m)
        spent += time.perf_counter() - t
        calls += 1
        i += 1
    return spent / (calls * batch)


def env_steps_per_second(games: int, steps: int, seed: int = 0, greedy=None) -> dict:
    """One run of the training env with greedy opponents (``greedy``, default ``GreedyAgent()``):
    learner steps/s and where a step goes."""
    greedy = greedy or GreedyAgent()
    spent = {"act": 0.0, "observe": 0.0}

    class TimedGreedy:  # the same agent, its act timed
        name, needs_state, needs_obs = "greedy", False, True

        def act(self, obs, mask, state=None):
            t = time.perf_counter()
            out = greedy.act(obs, mask, state)
            spent["act"] += time.perf_counter() - t
            return out

    observe = core.observe

    def timed_observe(*args, **kwargs):
        t = time.perf_counter()
        out = observe(*args, **kwargs)
        spent["observe"] += time.perf_counter() - t
        return out

    env = LearnerEnv(num_envs=games, num_players=2, opponents={"greedy": (TimedGreedy(), 1.0)}, seed=seed)
    rng = np.random.default_rng(seed)
    env.reset()
    for _ in range(5):  # warm up
        env.step((rng.random((games, core.NUM_ACTIONS)) * env.action_masks()).argmax(1))
    spent["act"] = spent["observe"] = 0.0
    stepping = 0.0
    core.observe = timed_observe  # act_on_state looks core.observe up at each call
    try:
        for _ in range(steps):
            actions = (rng.random((games, core.NUM_ACTIONS)) * env.action_masks()).argmax(1)
            t = time.perf_counter()
            env.step(actions)
            stepping += time.perf_counter() - t
    finally:
        core.observe = observe
    return {
        "steps_per_second": games * steps / stepping,
        "act_share": spent["act"] / stepping,
        "observe_share": spent["observe"] / stepping,
    }


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.greedy_agent",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024], help="act batch sizes")
    p.add_argument("--repeats", type=int, default=5, help="runs per figure; the median is reported")
    p.add_argument("--decisions", type=int, default=4096, help="decisions collected per player count")
    p.add_argument("--env-games", type=int, default=1024, help="games of the training env")
    p.add_argument("--env-steps", type=int, default=200, help="timed learner steps per env run")
    p.add_argument("--json", type=output_file_arg, default=None, help="also write the results to this file")
    args = p.parse_args(argv)
    if min(args.batches) < 1 or args.repeats < 1 or args.decisions < max(args.batches):
        p.error("--batches and --repeats must be >= 1, and --decisions at least the largest batch")
    games = 256
    parts = [play_decisions(games, n, -(-args.decisions // games) + 8, seed=n) for n in (2, 3, 4)]
    obs = np.concatenate([o[: args.decisions] for o, _ in parts])
    mask = np.concatenate([m[: args.decisions] for _, m in parts])
    order = np.random.default_rng(0).permutation(obs.shape[0])  # mix phases and player counts
    obs, mask = obs[order], mask[order]
    res: dict = {"act_us_per_decision": {}, "env": {}}
    agent = GreedyAgent()
    for b in args.batches:
        runs = [act_seconds_per_decision(agent, obs, mask, b) * 1e6 for _ in range(args.repeats)]
        res["act_us_per_decision"][str(b)] = {"median": statistics.median(runs), "runs": runs}
        print(f"act, batch {b:5d}: {statistics.median(runs):9.2f} us per decision", flush=True)
    runs = [env_steps_per_second(args.env_games, args.env_steps, seed=s) for s in range(args.repeats)]
    med = statistics.median(r["steps_per_second"] for r in runs)
    res["env"] = {"median_steps_per_second": med, "runs": runs}
    print(
        f"LearnerEnv({args.env_games} games, greedy opponents): {med:,.0f} learner steps/s "
        f"(act {statistics.median(r['act_share'] for r in runs):.0%} of a step, "
        f"core.observe {statistics.median(r['observe_share'] for r in runs):.0%})"
    )
    if args.json:
        write_text(args.json, json.dumps(res, indent=2))  # atomic
    return res


if __name__ == "__main__":
    main()
