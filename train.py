"""Train an Age of Summoners bot with MaskablePPO and self-play: ``python train.py``.

The learner plays one seat in many games at once on the batched engine
(``aos_env.sb3.LearnerVecEnv``, the Gymnasium vector env as an SB3 VecEnv); the
other seats are played by opponents drawn from a pool: the random and greedy
baselines and frozen snapshots of the learner itself, added as training goes. Every ``--eval-every`` steps the current
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
from typing import TYPE_CHECKING

import numpy as np

from aos_env.checks import (
    ArgumentError, arg_type, check_batch_memory, check_output_folder, float_arg, int_arg, int_list_arg,
    name_list_arg,
)

if TYPE_CHECKING:
    from aos_env.learner_env import OpponentPool

#: --seed is at most this: stable-baselines3 seeds numpy's legacy generator, which takes 32-bit seeds.
MAX_TRAIN_SEED = 2**32 - 1
_OPPONENT_SEED_STEP = 11  # opponent i plays with seed + 11 * i


def _rollout_bytes_per_step() -> int:
    """Rollout-buffer memory per learner step: observation, mask and a few floats, float32, and
    about as much again while the minibatches are gathered."""
    from aos_env import core

    return 2 * 4 * (core.OBS_DIM + core.NUM_ACTIONS + 8)


def _mix_item(text: str) -> tuple[str, float]:
    """'greedy@0.5' -> ('greedy', 0.5); 'random' -> ('random', 1.0)."""
    from aos_env.learner_env import parse_mix_item

    return parse_mix_item(text)


def _truncation_reward(text: str) -> str | float | None:
    """'loss' -> 'loss'; 'zero' -> None (the env's own 0); '-0.5' -> -0.5."""
    if text in ("loss", "zero"):
        return None if text == "zero" else text
    try:
        value = float(text)
    except ValueError:
        raise ArgumentError(f"value must be loss, zero or a number, got {text!r}") from None
    if not np.isfinite(value):
        raise ArgumentError(f"value must be a finite number, got {text!r}")
    return value


def _run_name(text: str) -> str:
    if not text.strip() or text in (".", "..") or "/" in text or os.sep in text:
        raise ArgumentError(f"value must be a folder name (not empty, no '/'), got {text!r}")
    return text


def build_parser() -> argparse.ArgumentParser:
    from agents.registry import SPEC_HELP  # here, not at the top: the agents load only when needed

    p = argparse.ArgumentParser(
        description="Train an Age of Summoners bot with MaskablePPO (sb3-contrib) and self-play.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    g = p.add_argument_group("game and run")
    g.add_argument("--players", type=int_arg(2, 4), default=2, help="players per game, 2..4")
    g.add_argument("--timesteps", type=int_arg(1), default=4_000_000,
                   help="learner decisions to train for, at least 1 (with --resume: this many more); "
                        "to evaluate a saved model without training, use python -m agents.evaluate")
    g.add_argument("--num-envs", type=int_arg(1), default=1024,
                   help="games played in parallel by the batched env (more games amortise the env's per-call cost)")
    g.add_argument("--seed", type=int_arg(0, MAX_TRAIN_SEED), default=0,
                   help="seed for games, opponents, evaluation and the network, 0..2**32-1")
    g.add_argument("--out", type=Path, default=Path("runs"), help="folder for runs")
    g.add_argument("--name", type=arg_type(_run_name, "name"), default="default",
                   help="run name: output goes to <out>/<name>/")
    g.add_argument("--resume", action="store_true", help="continue the run <out>/<name>/ from its model.zip")
    g.add_argument("--max-turns", type=int_arg(1), default=200,
                   help="turn limit of a game (over all players), at least --players (every seat gets a turn)")
    g.add_argument("--device", default="cpu", help="torch device (cpu, cuda, cuda:1, ...)")
    g.add_argument("--threads", type=int_arg(1), default=1,
                   help="threads of torch and of the compiled engine's parallel kernels (1 is fastest on 2 cores: "
                        "the env and the network take turns in one process, and idle engine threads spin)")
    g.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    o = p.add_argument_group("opponents and self-play")
    o.add_argument("--opponents", nargs="+", type=arg_type(_mix_item, "spec@weight"),
                   default=["greedy@0.5", "random@0.1", "self@0.4"],
                   help="opponent mix, each 'spec@weight': spec is "
                        f"{SPEC_HELP}, or 'self' (the learner's own snapshots); "
                        "weights are relative, >= 0, at least one > 0")
    o.add_argument("--snapshot-every", type=int_arg(1), default=250_000,
                   help="add a frozen copy of the learner to the self-play pool every this many steps")
    o.add_argument("--max-snapshots", type=int_arg(1), default=5, help="snapshots kept in the pool (oldest dropped)")
    o.add_argument("--shaping", type=float_arg(0), default=0.02,
                   help="reward per point of change in the learner's score lead (0 = only the final +1/-1)")
    o.add_argument("--truncation-reward", type=arg_type(_truncation_reward, "loss, zero or a number"), default="loss",
                   help="the learner's reward when its game reaches the turn limit: 'loss' (-1/(P-1), as a lost game: "
                        "stalling never pays better than playing to win), 'zero' (the game's own 0, R7.5) or a number")

    n = p.add_argument_group("network and PPO")
    n.add_argument("--net-arch", type=int_list_arg(1), default="256,256",
                   help="hidden layer sizes of the policy and value networks, comma separated (e.g. 256,256)")
    n.add_argument("--learning-rate", type=float_arg(0, low_open=True), default=3e-4, help="Adam learning rate, > 0")
    n.add_argument("--n-steps", type=int_arg(1), default=16,
                   help="steps per env per rollout (rollout = n_steps * num_envs, at least 2)")
    n.add_argument("--batch-size", type=int_arg(2), default=2048, help="minibatch size, at least 2")
    n.add_argument("--n-epochs", type=int_arg(1), default=4, help="passes over each rollout")
    n.add_argument("--gamma", type=float_arg(0, 1), default=0.995, help="discount factor, 0..1")
    n.add_argument("--gae-lambda", type=float_arg(0, 1), default=0.95, help="GAE lambda, 0..1")
    n.add_argument("--clip-range", type=float_arg(0, low_open=True), default=0.2, help="PPO clip range, > 0")
    n.add_argument("--ent-coef", type=float_arg(0), default=0.01, help="entropy bonus, >= 0")
    n.add_argument("--vf-coef", type=float_arg(0), default=0.5, help="value loss weight, >= 0")
    n.add_argument("--max-grad-norm", type=float_arg(0, low_open=True), default=0.5, help="gradient clipping, > 0")

    e = p.add_argument_group("evaluation")
    e.add_argument("--eval-every", type=int_arg(1), default=500_000,
                   help="evaluate and checkpoint every this many steps")
    e.add_argument("--eval-games", type=int_arg(1), default=200, help="games against each baseline at each evaluation")
    e.add_argument("--final-eval-games", type=int_arg(1), default=1000, help="games against each baseline at the end")
    e.add_argument("--eval-baselines", type=name_list_arg, default="random,greedy",
                   help="agents to evaluate against, comma separated agent specs (e.g. random,greedy,mc)")
    return p


def set_threads(threads: int) -> None:
    """Threads for torch and for the numba engine's parallel kernels. Between two engine calls the env
    runs Python (the opponents, the bookkeeping) and the network trains; numba's OpenMP workers spin
    meanwhile, and on 2 cores that made the training env about three times slower."""
    import torch

    torch.set_num_threads(threads)
    try:
        import numba
    except ImportError:  # the numpy engine needs no threads of its own
        return
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> OpponentPool:
    """What argparse cannot check by itself, before anything is written; any problem is a usage
    error (``parser.error``: exit status 2). Returns the opponent pool built from the specs
    (without 'self': its snapshots join the pool during training)."""
    from agents import make_agent
    from agents.policy import check_model_file
    from aos_env.learner_env import BYTES_PER_GAME, OpponentPool

    def usage(option: str, message: str) -> None:
        parser.error(f"argument {option}: {message}")

    # argparse passes a string default through type=, but not a list default (nargs="+")
    args.opponents = [_mix_item(o) if isinstance(o, str) else o for o in args.opponents]
    if args.max_turns < args.players:
        usage("--max-turns", f"must be at least --players ({args.players}): every seat, the learner's too, needs a "
                             f"turn; got {args.max_turns}")
    rollout = args.n_steps * args.num_envs
    if rollout < 2:  # PPO normalises the advantages over the rollout
        usage("--n-steps", f"the rollout (--n-steps x --num-envs = {rollout}) needs at least 2 steps")
    try:
        check_batch_memory("--num-envs", args.num_envs, BYTES_PER_GAME + args.n_steps * _rollout_bytes_per_step(),
                           unit=f"game, with its {args.n_steps} rollout steps")
        check_output_folder("--out", args.out)
    except ArgumentError as e:
        parser.error(str(e))
    run_dir = args.out / args.name
    if run_dir.exists() and not run_dir.is_dir():
        usage("--name", f"{str(run_dir)!r} is a file; a run needs a folder there")
    if args.resume:
        try:
            check_model_file(run_dir / "model.zip")
        except FileNotFoundError:
            usage("--resume", f"no model to resume at {run_dir / 'model.zip'} (train a run first, without --resume)")
        except ArgumentError as e:
            usage("--resume", str(e))
    import torch

    try:
        torch.device(args.device)
    except RuntimeError:
        usage("--device", f"must be a torch device such as cpu or cuda, got {args.device!r}")
    if sum(w for _, w in args.opponents) <= 0:
        given = " ".join(f"{s}@{w:g}" for s, w in args.opponents)
        usage("--opponents", f"at least one weight must be > 0, got {given}")
    pool = OpponentPool()
    for i, (spec, w) in enumerate(args.opponents):
        if spec in pool or (spec == "self" and [s for s, _ in args.opponents].count("self") > 1):
            usage("--opponents", f"{spec!r} is given twice")
        if spec == "self":
            continue
        try:
            pool.add(spec, make_agent(spec, seed=args.seed + _OPPONENT_SEED_STEP * i), w)
        except (ValueError, FileNotFoundError) as e:
            usage("--opponents", str(e))
    for i, spec in enumerate(args.eval_baselines):
        try:
            make_agent(spec, seed=i)
        except (ValueError, FileNotFoundError) as e:
            usage("--eval-baselines", str(e))
    if not pool.weights() or sum(pool.weights().values()) <= 0:  # pure self-play: random until the first snapshot
        pool.add("random", make_agent("random", seed=args.seed), 1e-6)
    return pool


def main(argv: list[str] | None = None) -> dict:
    parser = build_parser()
    args = parser.parse_args(argv)
    pool = check_args(parser, args)
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor

    from agents import PolicyAgent, make_agent
    from agents.tournament import play_games, summarise
    from aos_env.sb3 import LearnerVecEnv

    set_threads(args.threads)
    run_dir = args.out / args.name
    model_path = run_dir / "model.zip"
    history_path = run_dir / "history.json"

    self_weight = sum(w for s, w in args.opponents if s == "self")
    venv = LearnerVecEnv(num_envs=args.num_envs, num_players=args.players, opponents=pool, seed=args.seed,
                         max_turns=args.max_turns, shaping=args.shaping, truncation_reward=args.truncation_reward)
    env = VecMonitor(venv, info_keywords=("win", "score"))

    history = []
    if args.resume:
        try:  # SB3 checks that the model's spaces fit the env; a broken file raises what its reader raises
            history = json.loads(history_path.read_text()) if history_path.exists() else []
            model = MaskablePPO.load(str(model_path), env=env, device=args.device,
                                     tensorboard_log=str(run_dir / "tb"))
        except Exception as e:
            parser.error(f"argument --resume: cannot continue the run in {run_dir}: {type(e).__name__}: {e}")
    else:
        model = MaskablePPO(
            "MlpPolicy", env,
            learning_rate=args.learning_rate, n_steps=args.n_steps, batch_size=args.batch_size,
            n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_range,
            ent_coef=args.ent_coef, vf_coef=args.vf_coef, max_grad_norm=args.max_grad_norm,
            policy_kwargs={"net_arch": args.net_arch},
            tensorboard_log=str(run_dir / "tb"), seed=args.seed, device=args.device, verbose=0,
        )
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)  # only now: the arguments are valid
    baselines = args.eval_baselines
    started = time.time()

    def evaluate(games: int, seed: int) -> dict:
        me = PolicyAgent.snapshot(model, deterministic=True)
        out = {}
        for i, spec in enumerate(baselines):
            res = play_games([me, make_agent(spec, seed=seed + i)], args.players, games, seed=seed + 1000 * i,
                             batch_size=min(games, 500), max_turns=args.max_turns, names=["learner", spec])
            summary = summarise(res)
            a = summary["agents"]["learner"]
            out[spec] = {"win_rate": a["win_rate"], "ci95": a["win_rate_ci95"], "games": games,
                         "mean_score": a["mean_score"], "truncated": summary["truncated"] / games}
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
            pool.add(name, PolicyAgent.snapshot(model, deterministic=False, seed=args.seed + model.num_timesteps),
                     1.0)
            self.snapshots.append(name)
            if len(self.snapshots) > args.max_snapshots:
                pool.remove(self.snapshots.pop(0))  # games it is playing keep it until they end
            for s in self.snapshots:  # the self-play share is split evenly over the snapshots
                pool.set_weight(s, self_weight / len(self.snapshots))

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
        msg = ", ".join(f"vs {s}: {r['win_rate']:.1%} [{r['ci95'][0]:.1%}, {r['ci95'][1]:.1%}], "
                        f"{r['truncated']:.1%} truncated" for s, r in result.items())
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
