"""Train an Age of Summoners bot with MaskablePPO and self-play: ``python train.py``.

The learner plays one seat in many games at once on the batched engine
(``aos_env.learner_env``); the other seats are played by opponents drawn from
a pool: the random and greedy baselines and frozen snapshots of the learner
itself, added as training goes. Every ``--eval-every`` steps the current
policy plays ``--eval-games`` games against the random and the greedy agent;
the win rates (with 95% confidence intervals) go to TensorBoard, to
``summary.json`` and to ``learning_curve.png``, and a checkpoint is saved.

Output in ``runs/<name>/``: ``model.zip`` (load it with
``agents.PolicyAgent("runs/<name>/model.zip")``), ``checkpoints/``,
``summary.json``, ``history.json``, ``learning_curve.png``, ``tb/``
(``tensorboard --logdir runs``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Train an Age of Summoners bot with MaskablePPO (sb3-contrib) and self-play.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    g = p.add_argument_group("game and run")
    g.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="players per game")
    g.add_argument("--timesteps", type=int, default=4_000_000,
                   help="learner decisions to train for (with --resume: this many more)")
    g.add_argument("--num-envs", type=int, default=1024,
                   help="games played in parallel by the batched env (more games amortise the env's per-call cost)")
    g.add_argument("--seed", type=int, default=0, help="seed for games, opponents, evaluation and the network")
    g.add_argument("--out", type=Path, default=Path("runs"), help="folder for runs")
    g.add_argument("--name", default="default", help="run name: output goes to <out>/<name>/")
    g.add_argument("--resume", action="store_true", help="continue the run <out>/<name>/ from its model.zip")
    g.add_argument("--max-turns", type=int, default=200, help="turn limit of a game (over all players)")
    g.add_argument("--device", default="cpu", help="torch device")
    g.add_argument("--threads", type=int, default=1,
                   help="torch threads (1 is fastest on 2 cores: the env runs in the same process)")
    g.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    o = p.add_argument_group("opponents and self-play")
    o.add_argument("--opponents", nargs="+", default=["greedy@0.5", "random@0.1", "self@0.4"],
                   help="opponent mix, each 'spec@weight': spec is random, greedy, mc, mc:rollouts=4, a model "
                        ".zip, or 'self' (the learner's own snapshots); weights are relative")
    o.add_argument("--snapshot-every", type=int, default=250_000,
                   help="add a frozen copy of the learner to the self-play pool every this many steps")
    o.add_argument("--max-snapshots", type=int, default=5, help="snapshots kept in the pool (oldest dropped)")
    o.add_argument("--shaping", type=float, default=0.02,
                   help="reward per point of change in the learner's score lead (0 = only the final +1/-1)")

    n = p.add_argument_group("network and PPO")
    n.add_argument("--net-arch", default="256,256", help="hidden layer sizes of the policy and value networks")
    n.add_argument("--learning-rate", type=float, default=3e-4, help="Adam learning rate")
    n.add_argument("--n-steps", type=int, default=16, help="steps per env per rollout (rollout = n_steps * num_envs)")
    n.add_argument("--batch-size", type=int, default=2048, help="minibatch size")
    n.add_argument("--n-epochs", type=int, default=4, help="passes over each rollout")
    n.add_argument("--gamma", type=float, default=0.995, help="discount factor")
    n.add_argument("--gae-lambda", type=float, default=0.95, help="GAE lambda")
    n.add_argument("--clip-range", type=float, default=0.2, help="PPO clip range")
    n.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus")
    n.add_argument("--vf-coef", type=float, default=0.5, help="value loss weight")
    n.add_argument("--max-grad-norm", type=float, default=0.5, help="gradient clipping")

    e = p.add_argument_group("evaluation")
    e.add_argument("--eval-every", type=int, default=500_000, help="evaluate and checkpoint every this many steps")
    e.add_argument("--eval-games", type=int, default=200, help="games against each baseline at each evaluation")
    e.add_argument("--final-eval-games", type=int, default=1000, help="games against each baseline at the end")
    e.add_argument("--eval-baselines", default="random,greedy", help="agents to evaluate against")
    return p


def parse_mix(items: list[str]) -> list[tuple[str, float]]:
    """['greedy@0.5', 'self@0.4', 'random'] -> [('greedy', 0.5), ('self', 0.4), ('random', 1.0)]."""
    out = []
    for item in items:
        spec, sep, weight = item.rpartition("@")
        if not sep:
            spec, weight = item, "1"
        try:
            out.append((spec.strip(), float(weight)))
        except ValueError:
            raise SystemExit(f"--opponents: bad weight in {item!r} (use spec@weight, e.g. greedy@0.5)") from None
    if not out or sum(w for _, w in out) <= 0 or any(w < 0 for _, w in out):
        raise SystemExit("--opponents needs at least one opponent and weights >= 0")
    return out


def main(argv: list[str] | None = None) -> dict:
    args = build_parser().parse_args(argv)
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor

    from agents import PolicyAgent, make_agent
    from agents.tournament import play_games, summarise
    from aos_env.learner_env import LearnerEnv
    from aos_env.sb3 import LearnerVecEnv

    torch.set_num_threads(args.threads)
    run_dir = args.out / args.name
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    model_path = run_dir / "model.zip"
    history_path = run_dir / "history.json"
    if args.resume and not model_path.exists():
        raise SystemExit(f"--resume: no model at {model_path}")

    mix = parse_mix(args.opponents)
    self_weight = sum(w for s, w in mix if s == "self")
    opponents = {spec: (make_agent(spec, seed=args.seed + 11 * i), w) for i, (spec, w) in enumerate(mix) if spec != "self"}
    if not opponents:  # pure self-play starts against random until the first snapshot
        opponents = {"random": (make_agent("random", seed=args.seed), 1e-6)}
    learner_env = LearnerEnv(args.num_envs, args.players, opponents, seed=args.seed, max_turns=args.max_turns,
                             shaping=args.shaping)
    env = VecMonitor(LearnerVecEnv(learner_env), info_keywords=("win", "score"))

    history = json.loads(history_path.read_text()) if args.resume and history_path.exists() else []
    if args.resume:
        model = MaskablePPO.load(str(model_path), env=env, device=args.device,
                                 tensorboard_log=str(run_dir / "tb"))
    else:
        model = MaskablePPO(
            "MlpPolicy", env,
            learning_rate=args.learning_rate, n_steps=args.n_steps, batch_size=args.batch_size,
            n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_range,
            ent_coef=args.ent_coef, vf_coef=args.vf_coef, max_grad_norm=args.max_grad_norm,
            policy_kwargs={"net_arch": [int(x) for x in args.net_arch.split(",") if x]},
            tensorboard_log=str(run_dir / "tb"), seed=args.seed, device=args.device, verbose=0,
        )
    baselines = [s.strip() for s in args.eval_baselines.split(",") if s.strip()]
    started = time.time()

    def evaluate(games: int, seed: int) -> dict:
        me = PolicyAgent.snapshot(model, deterministic=True)
        out = {}
        for i, spec in enumerate(baselines):
            res = play_games([me, make_agent(spec, seed=seed + i)], args.players, games, seed=seed + 1000 * i,
                             batch_size=min(games, 500), max_turns=args.max_turns, names=["learner", spec])
            a = summarise(res)["agents"]["learner"]
            out[spec] = {"win_rate": a["win_rate"], "ci95": a["win_rate_ci95"], "games": games,
                         "mean_score": a["mean_score"]}
        return out

    class Training(BaseCallback):
        """Self-play snapshots, periodic evaluation, checkpoints, summary and curve."""

        def __init__(self) -> None:
            super().__init__()
            self.next_snapshot = model.num_timesteps + args.snapshot_every
            self.next_eval = model.num_timesteps + args.eval_every
            self.snapshots: list[str] = []
            if self_weight > 0 and args.resume:
                self._snapshot()

        def _snapshot(self) -> None:
            name = f"self@{model.num_timesteps}"
            learner_env.add_opponent(name, PolicyAgent.snapshot(model, deterministic=False,
                                                                seed=args.seed + model.num_timesteps), 1.0)
            self.snapshots.append(name)
            if len(self.snapshots) > args.max_snapshots:
                learner_env.remove_opponent(self.snapshots.pop(0))
            for s in self.snapshots:  # the self-play share is split evenly over the snapshots
                learner_env.weights[learner_env.names.index(s)] = self_weight / len(self.snapshots)

        def _on_step(self) -> bool:
            t = model.num_timesteps
            if self_weight > 0 and t >= self.next_snapshot:
                self._snapshot()
                self.next_snapshot += args.snapshot_every
            if t >= self.next_eval:
                self.next_eval += args.eval_every
                record(t, evaluate(args.eval_games, seed=10_000_000 + t))
                model.save(run_dir / "checkpoints" / f"model_{t}.zip")
            return True

    def record(t: int, result: dict) -> None:
        history.append({"timesteps": t, "wall_seconds": time.time() - started, "results": result})
        if hasattr(model, "_logger"):  # the logger exists once learn() has started
            for spec, r in result.items():
                model.logger.record(f"eval/win_rate_vs_{spec}", r["win_rate"])
        history_path.write_text(json.dumps(history, indent=2))
        plot_curve(history, run_dir / "learning_curve.png", baselines)
        msg = ", ".join(f"vs {s}: {r['win_rate']:.1%} [{r['ci95'][0]:.1%}, {r['ci95'][1]:.1%}]" for s, r in result.items())
        print(f"[{t:,} steps, {time.time() - started:.0f} s] {msg}", flush=True)

    if not history:
        record(model.num_timesteps, evaluate(args.eval_games, seed=10_000_000))
    steps_before = model.num_timesteps
    t0 = time.time()
    model.learn(total_timesteps=args.timesteps, callback=Training(), progress_bar=not args.no_progress,
                reset_num_timesteps=not args.resume, tb_log_name="ppo")
    train_seconds = time.time() - t0
    model.save(model_path)
    final = evaluate(args.final_eval_games, seed=20_000_000)
    record(model.num_timesteps, final)
    summary = {
        "run": str(run_dir),
        "timesteps": model.num_timesteps,
        "train_seconds": train_seconds,
        "wall_seconds": time.time() - started,
        "env_steps_per_second": (model.num_timesteps - steps_before) / max(train_seconds, 1e-9),
        "final_evaluation": final,
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "model": str(model_path),
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    print(f"saved {model_path}; summary in {run_dir / 'summary.json'}; curve in {run_dir / 'learning_curve.png'}")
    return summary


def plot_curve(history: list[dict], path: Path, baselines: list[str]) -> None:
    """Win rate against each baseline vs timesteps, with 95% confidence bands."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for spec in baselines:
        pts = [(h["timesteps"], h["results"][spec]) for h in history if spec in h["results"]]
        if not pts:
            continue
        t = np.array([p[0] for p in pts])
        w = np.array([p[1]["win_rate"] for p in pts])
        lo = np.array([p[1]["ci95"][0] for p in pts])
        hi = np.array([p[1]["ci95"][1] for p in pts])
        ax.plot(t, w, marker="o", label=f"vs {spec}")
        ax.fill_between(t, lo, hi, alpha=0.2)
    ax.set_xlabel("learner decisions (timesteps)")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title("MaskablePPO on Age of Summoners")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main(sys.argv[1:])
