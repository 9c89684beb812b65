"""Train an Age of Summoners bot with PPO and self-play: ``python train.py`` (this module is its
code, importable: ``agents.training.main(["--timesteps", "100000"])``).

Two backends: ``--backend sb3`` (the default: sb3-contrib's MaskablePPO in this process) and
``--backend rllib`` (Ray RLlib's PPO with env runners that each step a batch of games, on a
local Ray or, with ``--address``, a Ray cluster; ``aos_env.integrations.rllib`` has the RLlib code).

The learner plays one seat in many games at once on the batched engine
(``aos_env.integrations.sb3.LearnerVecEnv``, the Gymnasium vector env as an SB3 VecEnv); the
other seats are played by opponents drawn from a pool: the random and greedy
baselines and frozen snapshots of the learner itself, added as training goes. Every ``--eval-every`` steps the current
policy plays ``--eval-games`` games against the random and the greedy agent;
the win rates (with 95% confidence intervals) go to TensorBoard, to
``summary.json`` and to ``learning_curve.png``, and a checkpoint is saved.

Output in ``runs/<name>/``: ``model.zip`` (sb3; load it with
``agents.PolicyAgent("runs/<name>/model.zip")``) or ``bot.npz`` (rllib: the policy as a
numpy bot file, ``make_agent("runs/<name>/bot.npz")``) and ``rllib/`` (the RLlib checkpoint
that ``--resume`` continues), ``checkpoints/``, ``summary.json``, ``history.json``,
``learning_curve.png``, ``tb/`` (``tensorboard --logdir runs``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from aos_env.base.checks import (
    MEMORY_FRACTION,
    ArgumentError,
    arg_type,
    check_batch_memory,
    check_output_folder,
    float_arg,
    format_bytes,
    int_arg,
    int_list_arg,
    name_list_arg,
    total_memory,
)
from aos_env.base.files import atomic_folder, atomic_path, write_text

if TYPE_CHECKING:
    from aos_env.envs.opponents import OpponentPool

#: --seed is at most this: stable-baselines3 seeds numpy's legacy generator, which takes 32-bit seeds.
MAX_TRAIN_SEED = 2**32 - 1
#: The trainers behind --backend (not to be confused with the engine backends, core.BACKENDS).
TRAINERS = ("sb3", "rllib")
DEFAULT_NUM_ENVS = 1024
_RLLIB_OPTIONS = ("--num-env-runners", "--envs-per-runner", "--address")
_OPPONENT_SEED_STEP = 11  # opponent i plays with seed + 11 * i
RLLIB_CHECKPOINT = "rllib"  # runs/<name>/rllib/: the RLlib checkpoint (--resume)
BOT_FILE = "bot.npz"  # runs/<name>/bot.npz: the rllib run's policy as a bot file
MODEL_FILE = "model.zip"  # runs/<name>/model.zip: the sb3 run's model
CHECKPOINTS = "checkpoints"  # runs/<name>/checkpoints/model_<steps>.zip (sb3), bot_<steps>.npz (rllib)
_CHECKPOINT_NAME = re.compile(r"model_([0-9]+)\.zip")
#: What a run writes in its folder: a folder holding any of them holds a run, which only --resume
#: continues and only --overwrite replaces.
RUN_FILES = (
    MODEL_FILE,
    "summary.json",
    "history.json",
    "learning_curve.png",
    BOT_FILE,
    RLLIB_CHECKPOINT,
    CHECKPOINTS,
    "tb",
)
DEFAULT_BATCH_SIZE = 2048
#: Bytes per network parameter while training: float32 weights, their gradients and Adam's two moments.
_TRAIN_BYTES_PER_PARAMETER = 4 * 4
#: Bytes per parameter of each frozen copy of the network (self-play snapshots, the evaluated copy).
_SNAPSHOT_BYTES_PER_PARAMETER = 4
#: Activations kept per hidden unit and row of a batch: float32 forward values and their gradients.
_ACTIVATION_BYTES = 2 * 4


def _rollout_bytes_per_step() -> int:
    """Rollout-buffer memory per learner step: observation, mask and a few floats, float32, and
    about as much again while the minibatches are gathered."""
    from aos_env import core

    return 2 * 4 * (core.OBS_DIM + core.NUM_ACTIONS + 8)


def _mix_item(text: str) -> tuple[str, float]:
    """'greedy@0.5' -> ('greedy', 0.5); 'random' -> ('random', 1.0)."""
    from aos_env.envs.opponents import parse_mix_item

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


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    from agents.registry import SPEC_HELP  # here, not at the top: the agents load only when needed

    p = argparse.ArgumentParser(
        prog=prog or "train.py",
        description="Train an Age of Summoners bot with PPO and self-play: MaskablePPO (sb3-contrib, the default) "
        "or Ray RLlib's PPO (--backend rllib, on a local Ray or a Ray cluster).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    g = p.add_argument_group("game and run")
    g.add_argument(
        "--backend",
        choices=TRAINERS,
        default="sb3",
        help="sb3: sb3-contrib's MaskablePPO in this process (the train extra); rllib: Ray RLlib's PPO "
        "with env runners (the rllib extra), see the RLlib options below",
    )
    g.add_argument("--players", type=int_arg(2, 4), default=2, help="players per game, 2..4")
    g.add_argument(
        "--timesteps",
        type=int_arg(1),
        default=4_000_000,
        help="learner decisions to train for, at least 1 (with --resume: this many more); "
        "to evaluate a saved model without training, use python -m agents.evaluate",
    )
    g.add_argument(
        "--num-envs",
        type=int_arg(1),
        default=None,
        help=f"games played in parallel by the batched env (more games amortise the env's per-call cost); "
        f"with --backend rllib, in all env runners together (default: {DEFAULT_NUM_ENVS})",
    )
    g.add_argument(
        "--seed",
        type=int_arg(0, MAX_TRAIN_SEED),
        default=0,
        help="seed for games, opponents, evaluation and the network, 0..2**32-1",
    )
    g.add_argument("--out", type=Path, default=Path("runs"), help="folder for runs")
    g.add_argument(
        "--name", type=arg_type(_run_name, "name"), default="default", help="run name: output goes to <out>/<name>/"
    )
    g.add_argument(
        "--resume",
        action="store_true",
        help="continue the run <out>/<name>/ from the newest of its model.zip and "
        "checkpoints/model_<steps>.zip (rllib: from its RLlib checkpoint rllib/). It is read with "
        "SB3's (or RLlib's) full loader, which unpickles the file and so can run code from it: "
        "resume only run folders you trained yourself (playing a model, as an agent or an "
        "opponent, reads it without unpickling)",
    )
    g.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the run <out>/<name>/ if it exists (its model, checkpoints, summary, history, "
        "curve and TensorBoard logs are deleted when training starts); without --overwrite or "
        "--resume an existing run is never written over",
    )
    g.add_argument(
        "--max-turns",
        type=int_arg(1),
        default=200,
        help="turn limit of a game (over all players), at least --players (every seat gets a turn)",
    )
    g.add_argument(
        "--device",
        default="cpu",
        help="torch device of the learner (cpu, cuda, cuda:1, ...; rllib: cpu or cuda, one GPU); it must "
        "exist on this machine (cuda only where torch.cuda.is_available())",
    )
    g.add_argument(
        "--threads",
        type=int_arg(1),
        default=1,
        help="threads of torch and of the compiled engine's parallel kernels (1 is fastest on 2 cores: "
        "the env and the network take turns in one process, and idle engine threads spin)",
    )
    g.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    o = p.add_argument_group("opponents and self-play")
    o.add_argument(
        "--opponents",
        nargs="+",
        type=arg_type(_mix_item, "spec@weight"),
        default=["greedy@0.5", "random@0.1", "self@0.4"],
        help="opponent mix, each 'spec@weight': spec is "
        f"{SPEC_HELP}, or 'self' (the learner's own snapshots); "
        "weights are relative, >= 0, at least one > 0",
    )
    o.add_argument(
        "--snapshot-every",
        type=int_arg(1),
        default=250_000,
        help="add a frozen copy of the learner to the self-play pool every this many steps",
    )
    o.add_argument("--max-snapshots", type=int_arg(1), default=5, help="snapshots kept in the pool (oldest dropped)")
    o.add_argument(
        "--shaping",
        type=float_arg(0),
        default=0.02,
        help="reward per point of change in the learner's score lead (0 = only the final +1/-1)",
    )
    o.add_argument(
        "--truncation-reward",
        type=arg_type(_truncation_reward, "loss, zero or a number"),
        default="loss",
        help="the learner's reward when its game reaches the turn limit: 'loss' (-1/(P-1), as a lost game: "
        "stalling never pays better than playing to win), 'zero' (the game's own 0, R7.5) or a number",
    )

    n = p.add_argument_group("network and PPO")
    n.add_argument(
        "--init",
        type=Path,
        default=None,
        metavar="BOT.npz",
        help="start the networks from a bot file's weights instead of at random (sb3 only; --net-arch "
        "must be the bot's hidden sizes); a bot of an older observation version is widened to this "
        "one, so the run starts from that bot's play (docs/bot.md)",
    )
    n.add_argument(
        "--net-arch",
        type=int_list_arg(1),
        default="256,256",
        help="hidden layer sizes of the policy and value networks, comma separated (e.g. 256,256)",
    )
    n.add_argument("--learning-rate", type=float_arg(0, low_open=True), default=3e-4, help="Adam learning rate, > 0")
    n.add_argument(
        "--n-steps",
        type=int_arg(1),
        default=16,
        help="steps per env per rollout (rollout = n_steps * num_envs, at least 2)",
    )
    n.add_argument(
        "--batch-size",
        type=int_arg(2),
        default=None,
        help=f"minibatch size, at least 2 and at most the rollout (--n-steps x --num-envs); default: "
        f"{DEFAULT_BATCH_SIZE}, or the rollout if it is smaller",
    )
    n.add_argument("--n-epochs", type=int_arg(1), default=4, help="passes over each rollout")
    n.add_argument("--gamma", type=float_arg(0, 1), default=0.995, help="discount factor, 0..1")
    n.add_argument("--gae-lambda", type=float_arg(0, 1), default=0.95, help="GAE lambda, 0..1")
    n.add_argument("--clip-range", type=float_arg(0, low_open=True), default=0.2, help="PPO clip range, > 0")
    n.add_argument("--ent-coef", type=float_arg(0), default=0.01, help="entropy bonus, >= 0")
    n.add_argument("--vf-coef", type=float_arg(0), default=0.5, help="value loss weight, >= 0")
    n.add_argument("--max-grad-norm", type=float_arg(0, low_open=True), default=0.5, help="gradient clipping, > 0")

    r = p.add_argument_group("RLlib (--backend rllib)")
    r.add_argument(
        "--num-env-runners",
        type=int_arg(0),
        default=None,
        help="Ray actors that sample games (one CPU each); 0 samples in this process between updates (default: 0)",
    )
    r.add_argument(
        "--envs-per-runner",
        type=int_arg(1),
        default=None,
        help="games each env runner plays at once on its batched engine (default: --num-envs divided "
        "among the runners); give this or --num-envs, not both",
    )
    r.add_argument(
        "--address",
        default=None,
        help="join a running Ray cluster (host:port of its head, or 'auto'; start one with ray start "
        "--head); default: a local Ray, started and stopped by this script",
    )

    e = p.add_argument_group("evaluation")
    e.add_argument(
        "--eval-every", type=int_arg(1), default=500_000, help="evaluate and checkpoint every this many steps"
    )
    e.add_argument("--eval-games", type=int_arg(1), default=200, help="games against each baseline at each evaluation")
    e.add_argument("--final-eval-games", type=int_arg(1), default=1000, help="games against each baseline at the end")
    e.add_argument(
        "--eval-baselines",
        type=name_list_arg,
        default="random,greedy",
        help="agents to evaluate against, comma separated agent specs (e.g. random,greedy,mc)",
    )
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


def iteration_times(sample: list[float], learn: list[float], steps: int) -> dict:
    """summary.json's ``iterations``, the same for both backends: how many rollout-and-update
    iterations ran, their mean learner steps (SB3: exactly ``--n-steps`` x games; RLlib's runners
    count no step for a game's restart and sample until they have that many, a few % more), and
    the seconds spent sampling (the env, the opponents and the policy's forward passes) and
    learning (the PPO epochs), in total and per iteration. Self-play snapshots, evaluations and
    checkpoints are in neither. ``steps``: the learner steps of all these iterations."""
    return {
        "count": len(learn),
        "mean_steps": steps / len(learn) if learn else 0.0,
        "sample_seconds": float(sum(sample)),
        "learn_seconds": float(sum(learn)),
        "mean_sample_seconds": float(np.mean(sample)) if sample else 0.0,
        "mean_learn_seconds": float(np.mean(learn)) if learn else 0.0,
    }


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> OpponentPool:
    """What argparse cannot check by itself, before anything is written; any problem is a usage
    error (``parser.error``: exit status 2). Sets ``args.batch_size`` (its default) and
    ``args.resume_from`` (the model --resume continues, or None). Returns the opponent pool built
    from the specs (without 'self': its snapshots join the pool during training)."""
    from agents import make_agent
    from aos_env.envs.learner import BYTES_PER_GAME
    from aos_env.envs.opponents import OpponentPool

    def usage(option: str, message: str) -> None:
        parser.error(f"argument {option}: {message}")

    # argparse passes a string default through type=, but not a list default (nargs="+")
    args.opponents = [_mix_item(o) if isinstance(o, str) else o for o in args.opponents]
    args.resume_from = None
    if args.max_turns < args.players:
        usage(
            "--max-turns",
            f"must be at least --players ({args.players}): every seat, the learner's too, needs a "
            f"turn; got {args.max_turns}",
        )
    games_option = _check_backend(parser, args)
    rollout = args.n_steps * args.num_envs
    if rollout < 2:  # PPO normalises the advantages over the rollout
        usage("--n-steps", f"the rollout (--n-steps x --num-envs = {rollout}) needs at least 2 steps")
    if args.batch_size is None:
        args.batch_size = min(DEFAULT_BATCH_SIZE, rollout)
    elif args.batch_size > rollout:  # a minibatch is a part of the rollout (RLlib refuses a larger one, SB3 clips it)
        games = "games" if args.backend == "rllib" else "--num-envs"
        usage("--batch-size", f"must be at most the rollout (--n-steps x {games} = {rollout}), got {args.batch_size}")
    try:
        check_batch_memory(
            games_option,
            args.num_envs,
            BYTES_PER_GAME + args.n_steps * _rollout_bytes_per_step(),
            unit=f"game, with its {args.n_steps} rollout steps",
        )
        check_output_folder("--out", args.out)
    except ArgumentError as e:
        parser.error(str(e))
    _check_net_arch(parser, args)
    run_dir = args.out / args.name
    if run_dir.exists() and not run_dir.is_dir():
        usage("--name", f"{str(run_dir)!r} is a file; a run needs a folder there")
    _check_writable(parser, run_dir)
    _check_run_folder(parser, args, run_dir)
    if args.init is not None:
        from agents.bot import BotNet

        if args.resume:
            usage("--init", "starts a new run; --resume continues one from its own model (give one of them)")
        if args.backend != "sb3":
            usage("--init", f"is for --backend sb3, got --backend {args.backend}")
        _check_not_in_run(parser, "--init", args.init, run_dir)
        try:
            hidden = [w.shape[1] for w in BotNet(args.init).policy.weights[:-1]]
        except Exception as e:  # ArgumentError, or whatever a broken .npz raises in numpy's reader
            usage("--init", _load_error(e))
        if hidden != list(args.net_arch):
            usage(
                "--init",
                f"the bot's hidden layers are {','.join(map(str, hidden))}; give --net-arch "
                f"{','.join(map(str, hidden))} (got {','.join(map(str, args.net_arch))})",
            )
    from .model_file import check_device

    if args.backend == "rllib" and args.device not in ("cpu", "cuda"):
        usage("--device", f"must be cpu or cuda with --backend rllib (Ray assigns the GPU), got {args.device!r}")
    try:
        check_device("--device", args.device)
    except ArgumentError as e:
        usage("--device", str(e).removeprefix("--device "))
    if sum(w for _, w in args.opponents) <= 0:
        given = " ".join(f"{s}@{w:g}" for s, w in args.opponents)
        usage("--opponents", f"at least one weight must be > 0, got {given}")
    pool = OpponentPool()
    for i, (spec, w) in enumerate(args.opponents):
        if spec in pool or (spec == "self" and [s for s, _ in args.opponents].count("self") > 1):
            usage("--opponents", f"{spec!r} is given twice")
        if spec == "self":
            continue
        _check_spec_not_in_run(parser, "--opponents", spec, run_dir)
        try:
            pool.add(spec, make_agent(spec, seed=args.seed + _OPPONENT_SEED_STEP * i), w)
        except Exception as e:  # ArgumentError, FileNotFoundError, or what a broken file raises in its reader
            usage("--opponents", _load_error(e, spec))
    for i, spec in enumerate(args.eval_baselines):
        _check_spec_not_in_run(parser, "--eval-baselines", spec, run_dir)
        try:
            make_agent(spec, seed=i)
        except Exception as e:
            usage("--eval-baselines", _load_error(e, spec))
    if not pool.weights() or sum(pool.weights().values()) <= 0:  # pure self-play: random until the first snapshot
        pool.add("random", make_agent("random", seed=args.seed), 1e-6)
    return pool


def _load_error(e: Exception, spec: str | None = None) -> str:
    """An agent's or a file's load error as a message: ours say what is wrong; another reader's
    (numpy's BadZipFile, EOFError, ...) gets its type and the spec."""
    if isinstance(e, (ArgumentError, FileNotFoundError)):
        return str(e)
    where = f"agent {spec!r}: " if spec else ""
    return f"{where}cannot be loaded ({type(e).__name__}: {e})"


def _check_net_arch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Networks that a model file can hold (``model_file.MAX_PARAMETERS``) and that fit in memory
    while training: weights, gradients, Adam's state, the frozen copies and the activations."""
    from .model_file import MAX_PARAMETERS, parameter_count

    arch = ",".join(map(str, args.net_arch))
    params = parameter_count({"pi": list(args.net_arch), "vf": list(args.net_arch)})
    if params > MAX_PARAMETERS:
        parser.error(
            f"argument --net-arch: layers {arch} make networks of {params:,} parameters, more than the "
            f"{MAX_PARAMETERS:,} a model file may hold"
        )
    copies = args.max_snapshots + 2  # the self-play snapshots, the evaluated copy, a snapshot being made
    rows = args.num_envs + args.batch_size  # a rollout step's forward pass, a minibatch's forward and backward
    need = (
        params * (_TRAIN_BYTES_PER_PARAMETER + copies * _SNAPSHOT_BYTES_PER_PARAMETER)
        + rows * 2 * sum(args.net_arch) * _ACTIVATION_BYTES
    )
    memory = total_memory()
    if memory is not None and need > memory * MEMORY_FRACTION:
        parser.error(
            f"argument --net-arch: layers {arch} ({params:,} parameters) would need about "
            f"{format_bytes(need)} of memory to train; this machine has {format_bytes(memory)} and a run "
            f"may use {MEMORY_FRACTION:.0%} of it: give smaller layers"
        )


def _check_writable(parser: argparse.ArgumentParser, run_dir: Path) -> None:
    """The run folder can be written: a tiny file is created (and removed) in it or, if it does not
    exist yet, in the nearest folder above it that does (where its folders would be created).
    Permission bits alone do not tell (root may write everywhere, but not in /proc)."""
    folder = next(p for p in (run_dir, *run_dir.parents) if p.exists())
    try:
        fd, name = tempfile.mkstemp(prefix=".aos-write-test-", dir=folder)
        os.close(fd)
        os.unlink(name)
    except OSError as e:
        parser.error(
            f"argument --out: cannot write in {str(folder)!r}: creating a file there failed "
            f"({e.strerror or e}); give a folder that can be written"
        )


def run_holds(run_dir: Path) -> list[str]:
    """What of a run the folder holds (``RUN_FILES`` present; an empty checkpoints/ or tb/ does not count)."""
    found = []
    for name in RUN_FILES:
        p = run_dir / name
        if p.is_dir() and name in (CHECKPOINTS, "tb") and not any(p.iterdir()):
            continue
        if p.exists():
            found.append(name)
    return found


def newest_model(run_dir: Path) -> Path | None:
    """The model --resume continues: the newest, by training steps, of ``model.zip`` and
    ``checkpoints/model_<steps>.zip`` (model.zip on a tie: it is saved after the checkpoint of the
    same step). model.zip's steps are read from SB3's ``data`` member as plain JSON (nothing is
    unpickled); if they cannot be read, the checkpoints come first."""
    from .model_file import saved_timesteps

    found: list[tuple[int, int, Path]] = []
    model = run_dir / MODEL_FILE
    if model.is_file():
        steps = saved_timesteps(model)
        found.append((-1 if steps is None else steps, 1, model))
    folder = run_dir / CHECKPOINTS
    if folder.is_dir():
        for p in folder.iterdir():
            m = _CHECKPOINT_NAME.fullmatch(p.name)
            if m and p.is_file():
                found.append((int(m[1]), 0, p))
    return max(found)[2] if found else None


def _check_run_folder(parser: argparse.ArgumentParser, args: argparse.Namespace, run_dir: Path) -> None:
    """A run folder holding a run is continued (--resume) or replaced (--overwrite), never written
    over by accident; --resume needs a model to continue."""
    from .model_file import check_sb3_model_file, read_meta

    def usage(option: str, message: str) -> None:
        parser.error(f"argument {option}: {message}")

    if args.resume and args.overwrite:
        usage("--overwrite", "replaces a run, --resume continues it: give one of them")
    held = run_holds(run_dir) if run_dir.is_dir() else []
    if held and not (args.resume or args.overwrite):
        usage(
            "--name",
            f"{str(run_dir)!r} holds a run already ({', '.join(held)}); use --resume to continue it, "
            "--overwrite to replace it, or another --name",
        )
    if not args.resume:
        return
    if args.backend == "rllib":
        if not (run_dir / RLLIB_CHECKPOINT / "rllib_checkpoint.json").is_file():
            usage(
                "--resume",
                f"no RLlib checkpoint to resume at {run_dir / RLLIB_CHECKPOINT} (train a run with "
                "--backend rllib first, without --resume)",
            )
        return
    model = newest_model(run_dir)
    if model is None:
        usage(
            "--resume",
            f"no model to resume at {run_dir / MODEL_FILE} or in {run_dir / CHECKPOINTS} (train a "
            "run first, without --resume)",
        )
    try:
        check_sb3_model_file(model)
    except (ArgumentError, FileNotFoundError) as e:
        usage("--resume", str(e))
    try:
        trained_for = read_meta(model)["num_players"]
    except ArgumentError:  # an older model without the JSON member: SB3's loader checks it
        trained_for = None
    if trained_for is not None and trained_for != args.players:
        usage(
            "--players", f"the run in {str(run_dir)!r} trains {trained_for}-player games, got --players {args.players}"
        )
    args.resume_from = model


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it, links resolved."""
    path, folder = Path(os.path.realpath(path)), Path(os.path.realpath(folder))
    return path == folder or folder in path.parents


def _check_not_in_run(parser: argparse.ArgumentParser, option: str, path: Path, run_dir: Path) -> None:
    """An input may not be a file of the run being written (it would be replaced, or deleted by --overwrite)."""
    if _inside(path, run_dir):
        parser.error(
            f"argument {option}: {str(path)!r} is inside the run's own folder {str(run_dir)!r}, which this "
            "run writes; copy it elsewhere first, or give another --name"
        )


def _check_spec_not_in_run(parser: argparse.ArgumentParser, option: str, spec: str, run_dir: Path) -> None:
    from agents.registry import parse_spec

    try:
        name, _ = parse_spec(spec)
    except ArgumentError:
        return  # make_agent reports it
    if name.lower().endswith((".zip", ".npz")) or "/" in name or os.sep in name:
        _check_not_in_run(parser, option, Path(name), run_dir)


def _check_backend(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """The RLlib options: only with --backend rllib, and Ray RLlib installed. Sets ``args.num_envs``
    (all games: for rllib, the runners' games together) and ``args.envs_per_runner``; returns
    the option that sets the games, for messages."""
    given = [o for o in _RLLIB_OPTIONS if getattr(args, o[2:].replace("-", "_")) is not None]
    if args.backend != "rllib":
        if given:
            parser.error(f"argument {given[0]}: only with --backend rllib")
        args.num_envs = args.num_envs or DEFAULT_NUM_ENVS
        return "--num-envs"
    try:
        import ray  # noqa: F401
        import ray.rllib  # noqa: F401
    except ImportError as e:
        parser.error(f'argument --backend: rllib needs Ray RLlib ({e}): pip install -e ".[rllib]"')
    if args.address is not None and args.address != "auto":
        host, sep, port = args.address.rpartition(":")
        if not sep or not host.strip() or not port.isdigit() or not 0 < int(port) < 65536:
            parser.error(
                f"argument --address: must be host:port of a Ray head (e.g. 10.0.0.5:6379) or 'auto', "
                f"got {args.address!r}"
            )
    args.num_env_runners = args.num_env_runners or 0
    runners = max(1, args.num_env_runners)
    if args.envs_per_runner is not None and args.num_envs is not None:
        parser.error("argument --envs-per-runner: give --envs-per-runner or --num-envs, not both")
    if args.envs_per_runner is None:
        args.envs_per_runner = -(-(args.num_envs or DEFAULT_NUM_ENVS) // runners)  # rounded up
    args.num_envs = args.envs_per_runner * runners
    return "--envs-per-runner" if "--envs-per-runner" in given else "--num-envs"


def main(argv: list[str] | None = None, prog: str | None = None) -> dict:
    """Train as ``python train.py`` with the command-line arguments ``argv`` (default: sys.argv's);
    returns the run's summary (what summary.json holds). A bad argument is a usage error (SystemExit 2)."""
    parser = build_parser(prog)
    return run(parser, parser.parse_args(argv))


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict:
    """Train with arguments that ``parser`` parsed (and that a caller such as ``agents.exploit``
    may have set further): they are checked first (a problem is ``parser.error``), then the run
    trains. Returns the run's summary.

    SIGINT or SIGTERM stops the run: its model and its summary (``"interrupted": true``) are saved
    and the process exits with status 128 + the signal's number (a second signal aborts at once). A
    file that cannot be written (a full disk) ends the run with exit status 1 and a message, the
    files written before it whole."""
    with StopSignal() as stop:
        try:
            pool = check_args(parser, args)
            set_threads(args.threads)
            if args.overwrite:
                clear_run(args.out / args.name)
            if args.backend == "rllib":
                return train_rllib(parser, args, pool, stop)
            return train_sb3(parser, args, pool, stop)
        except Interrupted:  # before anything was trained
            print(f"{stop.name}: stopped before training started; nothing was saved", file=sys.stderr, flush=True)
            raise SystemExit(stop.exit_status) from None
        except OSError as e:
            target = f" ({e.filename})" if e.filename else ""
            parser.exit(
                1,
                f"{parser.prog}: error: {e.strerror or e}{target}: the run stopped; the files it wrote "
                "before are whole (every file is written to a temporary name and renamed into place)\n",
            )


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived outside SB3's learn(): the run stops where it is (a BaseException,
    so that no ``except Exception`` on the way takes it for an error)."""


class StopSignal:
    """SIGINT and SIGTERM during a run. The first asks the run to stop: while SB3 or RLlib trains
    (inside :meth:`deferring`) it only sets :attr:`signum`, which the training loop reads after the
    current step; elsewhere it raises :class:`Interrupted` at once. Either way the run then saves
    its model and summary. A second signal aborts at once (SystemExit, 128 + its number): the files
    are as they were, every write being atomic. Outside the main thread (where Python cannot take
    signals) nothing is installed."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.signum: int | None = None
        self._deferred = False
        self._previous: dict = {}

    def __enter__(self) -> StopSignal:
        return self.install()

    def install(self) -> StopSignal:
        """Take the signals (again, after a library such as Ray has set handlers of its own)."""
        if threading.current_thread() is threading.main_thread():
            for s in self.SIGNALS:
                previous = signal.signal(s, self._handle)
                self._previous.setdefault(s, previous)
        return self

    def __exit__(self, *exc) -> None:
        for s, handler in self._previous.items():
            signal.signal(s, handler)
        self._previous.clear()

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name if self.signum is not None else "signal"

    @property
    def exit_status(self) -> int:
        return 128 + (self.signum or signal.SIGINT)

    @contextmanager
    def deferring(self) -> Iterator[None]:
        """A signal only sets the flag here (the training loop stops at its next step)."""
        self._deferred = True
        try:
            yield
        finally:
            self._deferred = False

    def _handle(self, signum: int, frame) -> None:
        name = signal.Signals(signum).name
        if self.signum is not None:
            print(
                f"\n{name} again: aborting at once, without saving (every file written so far is whole)",
                file=sys.stderr,
                flush=True,
            )
            raise SystemExit(128 + signum)
        self.signum = signum
        print(
            f"\n{name}: stopping; the model and the summary will be saved (press Ctrl-C again to abort at once)",
            file=sys.stderr,
            flush=True,
        )
        if not self._deferred:
            raise Interrupted


def clear_run(run_dir: Path) -> None:
    """--overwrite: delete what a previous run wrote in ``run_dir`` (``RUN_FILES``), and nothing else."""
    for name in RUN_FILES:
        p = run_dir / name
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif p.exists() or p.is_symlink():
            p.unlink()


class Run:
    """What both backends share: the run folder, evaluation against the baselines, the history,
    the learning curve and the summary."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.dir = args.out / args.name
        self.history_path = self.dir / "history.json"
        self.baselines = args.eval_baselines
        self.history: list[dict] = []
        self.started = time.time()

    def load_history(self, up_to: int | None = None) -> None:
        """The run's evaluations so far (--resume); ``up_to``: the steps of the model resumed, the
        evaluations after it (of a later model that was not saved) are dropped."""
        self.history = json.loads(self.history_path.read_text()) if self.history_path.exists() else []
        if up_to is not None:
            self.history = [h for h in self.history if h.get("timesteps", 0) <= up_to]

    def evaluate(self, me, games: int, seed: int) -> dict:
        """``games`` games of the agent ``me`` in one seat against a baseline in every other seat
        (with 4 players: against three greedy agents), seats rotated: ``me``'s win rates with 95%
        intervals. (Two agents at a larger table would fill the seats in turn, ``me`` taking two of
        them, and a win rate per seat could then not exceed 50%.)"""
        from agents import make_agent
        from agents.matches import play_games, summarise

        args, out = self.args, {}
        others = args.players - 1
        for i, spec in enumerate(self.baselines):
            rivals = [make_agent(spec, seed=seed + i * others + k) for k in range(others)]
            names = ["learner"] + [spec if others == 1 else f"{spec}#{k + 1}" for k in range(others)]
            res = play_games(
                [me, *rivals],
                args.players,
                games,
                seed=seed + 1000 * i,
                batch_size=min(games, 500),
                max_turns=args.max_turns,
                names=names,
            )
            summary = summarise(res)
            a = summary["agents"]["learner"]
            out[spec] = {
                "win_rate": a["win_rate"],
                "ci95": a["win_rate_ci95"],
                "games": games,
                "mean_score": a["mean_score"],
                "truncated": summary["truncated"] / games,
            }
        return out

    def record(self, t: int, result: dict, log=None) -> None:
        """Add an evaluation to the history, the curve and the console; ``log(tag, value)``: TensorBoard."""
        self.history.append({"timesteps": t, "wall_seconds": time.time() - self.started, "results": result})
        if log is not None:
            for spec, r in result.items():
                log(f"eval/win_rate_vs_{spec}", r["win_rate"])
        write_text(self.history_path, json.dumps(self.history, indent=2))
        plot_curve(self.history, self.dir / "learning_curve.png", self.baselines, self.args.backend)
        msg = ", ".join(
            f"vs {s}: {r['win_rate']:.1%} [{r['ci95'][0]:.1%}, {r['ci95'][1]:.1%}], {r['truncated']:.1%} truncated"
            for s, r in result.items()
        )
        print(f"[{t:,} steps, {time.time() - self.started:.0f} s] {msg}", flush=True)

    def finish(
        self,
        timesteps: int,
        steps: int,
        train_seconds: float,
        final: dict | None,
        model: Path,
        extra: dict | None = None,
        interrupted: str | None = None,
    ) -> dict:
        """Write summary.json and say where everything is. ``interrupted``: the signal's name if the
        run was stopped (the summary then says so, and ``final`` is None: no final evaluation ran)."""
        summary = {
            "run": str(self.dir),
            "backend": self.args.backend,
            "timesteps": timesteps,
            "train_seconds": train_seconds,
            "wall_seconds": time.time() - self.started,
            "env_steps_per_second": steps / max(train_seconds, 1e-9),
            "final_evaluation": final,
            "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(self.args).items()},
            "model": str(model),
            "interrupted": interrupted is not None,
            **({"signal": interrupted} if interrupted else {}),
            **(extra or {}),
        }
        write_text(self.dir / "summary.json", json.dumps(summary, indent=2))
        where = f"saved {model}; summary in {self.dir / 'summary.json'}; curve in {self.dir / 'learning_curve.png'}"
        if interrupted:
            print(f"{interrupted}: stopped at {timesteps:,} steps; {where}; continue with --resume", flush=True)
        else:
            print(where)
        return summary


def train_sb3(
    parser: argparse.ArgumentParser, args: argparse.Namespace, pool: OpponentPool, stop: StopSignal | None = None
) -> dict:
    """MaskablePPO on the SB3 adapter of the batched env, in this process. Every model (model.zip,
    the checkpoints) is written by ``agents.model_file.save_model``: atomically, with the JSON member
    that lets agents read it without unpickling. ``stop``: the run's :class:`StopSignal`."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor

    from agents import PolicyAgent
    from aos_env.integrations.sb3 import LearnerVecEnv

    from .model_file import save_model, saved_timesteps

    stop = stop or StopSignal()
    run = Run(args)
    run_dir = run.dir
    model_path = run_dir / MODEL_FILE

    self_weight = sum(w for s, w in args.opponents if s == "self")
    venv = LearnerVecEnv(
        num_envs=args.num_envs,
        num_players=args.players,
        opponents=pool,
        seed=args.seed,
        max_turns=args.max_turns,
        shaping=args.shaping,
        truncation_reward=args.truncation_reward,
    )
    env = VecMonitor(venv, info_keywords=("win", "score"))

    resume_from = getattr(args, "resume_from", None) or (model_path if args.resume else None)
    if resume_from is not None:
        try:  # SB3's full loader: the run's own file (see --resume); it checks that the spaces fit the env
            run.load_history(up_to=saved_timesteps(resume_from))
            # the env's spaces replace the saved ones: runs saved before the observation's bounds became
            # finite (aos-env 0.3) have inf highs, and SB3 would refuse a Box that differs only there
            # (the shape, which must match, is checked by SB3 against the saved weights)
            model = MaskablePPO.load(
                str(resume_from),
                env=env,
                device=args.device,
                tensorboard_log=str(run_dir / "tb"),
                custom_objects={"observation_space": env.observation_space, "action_space": env.action_space},
            )
        except Exception as e:
            parser.error(
                f"argument --resume: cannot continue the run in {run_dir} from {resume_from}: {type(e).__name__}: {e}"
            )
        print(f"resuming from {resume_from} ({model.num_timesteps:,} steps)", flush=True)
    else:
        model = MaskablePPO(
            "MlpPolicy",
            env,
            learning_rate=args.learning_rate,
            n_steps=args.n_steps,
            batch_size=args.batch_size,
            n_epochs=args.n_epochs,
            gamma=args.gamma,
            gae_lambda=args.gae_lambda,
            clip_range=args.clip_range,
            ent_coef=args.ent_coef,
            vf_coef=args.vf_coef,
            max_grad_norm=args.max_grad_norm,
            policy_kwargs={"net_arch": args.net_arch},
            tensorboard_log=str(run_dir / "tb"),
            seed=args.seed,
            device=args.device,
            verbose=0,
        )
        if args.init is not None:
            from agents.export import warm_start

            warm_start(model.policy, args.init)
    (run_dir / CHECKPOINTS).mkdir(parents=True, exist_ok=True)  # only now: the arguments are valid
    steps_before = model.num_timesteps
    training = None
    t0 = train_end = None

    def evaluate(games: int, seed: int) -> dict:
        return run.evaluate(PolicyAgent.snapshot(model, deterministic=True), games, seed)

    def log(tag: str, value: float) -> None:
        if hasattr(model, "_logger"):  # the logger exists once learn() has started
            model.logger.record(tag, value)

    class Training(BaseCallback):
        """Self-play snapshots, periodic evaluation, checkpoints; stops learn() on SIGINT/SIGTERM."""

        def __init__(self) -> None:
            super().__init__()
            self.next_snapshot = model.num_timesteps + args.snapshot_every
            self.next_eval = model.num_timesteps + args.eval_every
            self.snapshots: list[str] = []
            # seconds per iteration: collecting a rollout (without snapshots and evaluations) and the update after it
            self.sample_seconds: list[float] = []
            self.learn_seconds: list[float] = []
            self.rollout_started = self.rollout_ended = None
            self.eval_seconds = 0.0  # snapshots, evaluations and checkpoints during the current rollout
            if self_weight > 0 and args.resume:
                self._snapshot()

        def _on_rollout_start(self) -> None:
            self.rollout_started, self.eval_seconds = time.time(), 0.0
            if self.rollout_ended is not None:  # MaskablePPO.train() ran since the last rollout
                self.learn_seconds.append(self.rollout_started - self.rollout_ended)

        def _on_rollout_end(self) -> None:
            self.rollout_ended = time.time()
            self.sample_seconds.append(self.rollout_ended - self.rollout_started - self.eval_seconds)

        def finish(self, train_end: float) -> dict:
            """The iterations' times; the last update ends with learn()."""
            if self.rollout_ended is not None and len(self.learn_seconds) < len(self.sample_seconds):
                self.learn_seconds.append(train_end - self.rollout_ended)
            return iteration_times(self.sample_seconds, self.learn_seconds, model.num_timesteps - steps_before)

        def _snapshot(self) -> None:
            name = f"self@{model.num_timesteps}"
            pool.add(name, PolicyAgent.snapshot(model, deterministic=False, seed=args.seed + model.num_timesteps), 1.0)
            self.snapshots.append(name)
            if len(self.snapshots) > args.max_snapshots:
                pool.remove(self.snapshots.pop(0))  # games it is playing keep it until they end
            for s in self.snapshots:  # the self-play share is split evenly over the snapshots
                pool.set_weight(s, self_weight / len(self.snapshots))

        def _on_step(self) -> bool:
            t = model.num_timesteps
            started = time.time()
            if self_weight > 0 and t >= self.next_snapshot:
                self._snapshot()
                self.next_snapshot += args.snapshot_every
            if t >= self.next_eval:
                self.next_eval += args.eval_every
                run.record(t, evaluate(args.eval_games, seed=10_000_000 + t), log)
                save_model(model, run_dir / CHECKPOINTS / f"model_{t}.zip", args.players)
            self.eval_seconds += time.time() - started  # not sampling (RLlib's timer leaves these out too)
            return not stop.requested  # False stops learn() after this step

    try:
        if not run.history:
            run.record(model.num_timesteps, evaluate(args.eval_games, seed=10_000_000), log)
        training = Training()
        t0 = time.time()
        with stop.deferring():
            model.learn(
                total_timesteps=args.timesteps,
                callback=training,
                progress_bar=not args.no_progress,
                reset_num_timesteps=resume_from is None,
                tb_log_name="ppo",
            )
        train_end = time.time()
        if stop.requested:
            raise Interrupted
        save_model(model, model_path, args.players)
        final = evaluate(args.final_eval_games, seed=20_000_000)
        run.record(model.num_timesteps, final, log)
        return run.finish(
            model.num_timesteps,
            model.num_timesteps - steps_before,
            train_end - t0,
            final,
            model_path,
            {"iterations": training.finish(train_end)},
        )
    except Interrupted:
        pass
    # stopped by a signal: save what there is (a second signal aborts, the files whole)
    train_end = train_end or time.time()
    save_model(model, model_path, args.players)
    iterations = training.finish(train_end) if training is not None else iteration_times([], [], 0)
    run.finish(
        model.num_timesteps,
        model.num_timesteps - steps_before,
        train_end - (t0 or train_end),
        None,
        model_path,
        {"iterations": iterations},
        interrupted=stop.name,
    )
    raise SystemExit(stop.exit_status)


def train_rllib(
    parser: argparse.ArgumentParser, args: argparse.Namespace, pool: OpponentPool, stop: StopSignal | None = None
) -> dict:
    """Ray RLlib's PPO (aos_env.integrations.rllib): env runners step batches of games, self-play snapshots are
    broadcast to every runner's opponent pool, and the policy is saved as a numpy bot file.
    ``stop``: the run's :class:`StopSignal`."""
    stop = stop or StopSignal()
    import logging

    import ray

    from aos_env.integrations import rllib

    for name in ("ray", "ray.rllib"):  # RLlib's notes on its API stack and deprecations, not the run's
        logging.getLogger(name).setLevel(logging.ERROR)
    run = Run(args)
    run_dir = run.dir
    started_ray = not ray.is_initialized()
    if args.address is not None:
        _check_reachable(parser, args.address)
    try:
        if args.address is not None:
            ray.init(address=args.address, logging_level="ERROR")
        elif started_ray:  # a local Ray for this run: one CPU per env runner (it may share the cores)
            ray.init(
                num_cpus=max(os.cpu_count() or 1, args.num_env_runners), include_dashboard=False, logging_level="ERROR"
            )
    except Exception as e:  # ray raises ConnectionError, RuntimeError or ValueError for a bad address
        parser.error(f"argument --address: cannot join a Ray cluster at {args.address!r}: {type(e).__name__}: {e}")
    stop.install()  # SIGINT and SIGTERM stop the run and save it, whatever handlers Ray has set
    trainer = None
    try:
        cpus = ray.cluster_resources().get("CPU", 0)
        if args.num_env_runners > cpus:
            parser.error(
                f"argument --num-env-runners: the Ray cluster has {cpus:g} CPUs, one per env runner is "
                f"needed; got {args.num_env_runners}"
            )
        config = rllib.ppo_config(
            num_players=args.players,
            opponents=pool.weights(),
            num_env_runners=args.num_env_runners,
            envs_per_runner=args.envs_per_runner,
            n_steps=args.n_steps,
            batch_size=args.batch_size,
            n_epochs=args.n_epochs,
            learning_rate=args.learning_rate,
            gamma=args.gamma,
            gae_lambda=args.gae_lambda,
            clip_range=args.clip_range,
            ent_coef=args.ent_coef,
            vf_coef=args.vf_coef,
            max_grad_norm=args.max_grad_norm,
            net_arch=args.net_arch,
            seed=args.seed,
            threads=args.threads,
            max_turns=args.max_turns,
            shaping=args.shaping,
            truncation_reward=args.truncation_reward,
            device=args.device,
        )
        checkpoint = run_dir / RLLIB_CHECKPOINT
        if args.resume:
            try:
                run.load_history()
                trainer = rllib.RLlibTrainer(config, args.players, checkpoint=checkpoint)
            except Exception as e:
                parser.error(f"argument --resume: cannot continue the run in {run_dir}: {type(e).__name__}: {e}")
        else:
            trainer = rllib.RLlibTrainer(config, args.players)
        return _rllib_loop(args, run, trainer, checkpoint, ray.__version__, stop)
    finally:
        if trainer is not None:
            trainer.stop()
        if started_ray:
            ray.shutdown()  # with --address: only this driver leaves, the cluster stays


def _check_reachable(parser: argparse.ArgumentParser, address: str, timeout: float = 10.0) -> None:
    """A host:port that nothing listens on is a usage error at once (ray.init would wait for minutes)."""
    import socket

    if address == "auto":  # Ray finds the cluster this machine belongs to (or says that there is none)
        return
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        parser.error(
            f"argument --address: cannot join a Ray cluster at {address!r}: nothing answers there ({e}); "
            "start one with ray start --head"
        )


def _save_folder(save, path: Path) -> None:
    """``save(folder)`` writes a checkpoint folder; it replaces ``path`` only once it is whole."""
    with atomic_folder(path) as tmp:
        save(tmp)


def _rllib_loop(
    args: argparse.Namespace, run: Run, trainer, checkpoint: Path, ray_version: str, stop: StopSignal
) -> dict:
    from torch.utils.tensorboard import SummaryWriter
    from tqdm.auto import tqdm

    run_dir = run.dir
    (run_dir / CHECKPOINTS).mkdir(parents=True, exist_ok=True)  # only now: the arguments are valid
    writer = SummaryWriter(str(run_dir / "tb" / f"rllib_{len(list((run_dir / 'tb').glob('rllib_*'))) + 1}"))
    self_weight = sum(w for s, w in args.opponents if s == "self")
    snapshots: list[str] = []

    def log(tag: str, value: float) -> None:
        writer.add_scalar(tag, value, trainer.timesteps)

    def snapshot() -> None:
        """A frozen copy of the policy joins every runner's pool; the self-play share is split evenly."""
        name = f"self@{trainer.timesteps}"
        snapshots.append(name)
        removed = (snapshots.pop(0),) if len(snapshots) > args.max_snapshots else ()
        weights = {s: self_weight / len(snapshots) for s in snapshots}
        trainer.update_opponents(
            add=(name, weights[name], args.seed + trainer.timesteps), remove=removed, weights=weights
        )

    def evaluate(games: int, seed: int) -> dict:
        return run.evaluate(trainer.agent(deterministic=True), games, seed)

    steps_before = trainer.timesteps
    seconds = {"time/sample_seconds": [], "time/learn_seconds": []}  # per iteration (RLlib's timers)
    t0 = time.time()

    def iterations() -> dict:
        return iteration_times(
            seconds["time/sample_seconds"], seconds["time/learn_seconds"], trainer.timesteps - steps_before
        )

    def rllib_info() -> dict:
        return {
            "ray": ray_version,
            "checkpoint": str(checkpoint),
            "num_env_runners": args.num_env_runners,
            "envs_per_runner": args.envs_per_runner,
        }

    def save() -> Path:
        bot = trainer.save_bot(
            run_dir / BOT_FILE,
            info={"trained_by": "train.py --backend rllib", "timesteps": trainer.timesteps, "ray": ray_version},
        )
        _save_folder(trainer.save, checkpoint)
        return bot

    try:
        if self_weight > 0 and args.resume:
            snapshot()
        if not run.history:
            run.record(trainer.timesteps, evaluate(args.eval_games, seed=10_000_000), log)
        t0 = time.time()
        train_seconds = _rllib_train(
            args, run, trainer, stop, log, evaluate, snapshot, seconds, checkpoint, self_weight, tqdm
        )
        if stop.requested:
            raise Interrupted
        bot = save()
        final = evaluate(args.final_eval_games, seed=20_000_000)
        run.record(trainer.timesteps, final, log)
        writer.close()
        return run.finish(
            trainer.timesteps,
            trainer.timesteps - steps_before,
            train_seconds,
            final,
            bot,
            {"iterations": iterations(), "rllib": rllib_info()},
        )
    except Interrupted:
        pass
    bot = save()  # stopped by a signal: save what there is (a second signal aborts, the files whole)
    writer.close()
    run.finish(
        trainer.timesteps,
        trainer.timesteps - steps_before,
        time.time() - t0,
        None,
        bot,
        {"iterations": iterations(), "rllib": rllib_info()},
        interrupted=stop.name,
    )
    raise SystemExit(stop.exit_status)


def _rllib_train(
    args,
    run: Run,
    trainer,
    stop: StopSignal,
    log,
    evaluate,
    snapshot,
    seconds: dict,
    checkpoint: Path,
    self_weight: float,
    tqdm,
) -> float:
    """RLlib's training iterations until ``--timesteps`` more steps or a stop signal; returns their seconds."""
    run_dir = run.dir
    next_snapshot = trainer.timesteps + args.snapshot_every
    next_eval = trainer.timesteps + args.eval_every
    target = trainer.timesteps + args.timesteps
    bar = tqdm(total=args.timesteps, unit="step", desc="rllib", disable=args.no_progress)
    t0 = time.time()
    while trainer.timesteps < target and not stop.requested:
        it = time.time()
        with stop.deferring():
            metrics = trainer.train()
        bar.update(int(metrics["env_steps"]))
        for key, values in seconds.items():
            if key in metrics:
                values.append(metrics[key])
        for tag, value in metrics.items():
            log(tag, value)
        log("time/iteration_steps_per_second", metrics["env_steps"] / max(time.time() - it, 1e-9))
        t = trainer.timesteps
        if self_weight > 0 and t >= next_snapshot:
            snapshot()
            next_snapshot += args.snapshot_every
        if t >= next_eval:
            next_eval += args.eval_every
            with stop.deferring():  # an evaluation and a checkpoint are finished before the run stops
                run.record(t, evaluate(args.eval_games, seed=10_000_000 + t), log)
                trainer.save_bot(run_dir / CHECKPOINTS / f"bot_{t}.npz")  # atomic (aos_env.base.files)
                _save_folder(trainer.save, checkpoint)
    bar.close()
    return time.time() - t0


def plot_curve(history: list[dict], path: Path, baselines: list[str], backend: str = "sb3") -> None:
    """Win rate against each baseline vs timesteps, with 95% confidence bands."""
    # A bare Figure draws with Agg by itself: no pyplot, so the caller's backend (a notebook's
    # inline plots, a GUI) is left as it was; matplotlib.use("Agg") here turned a notebook's plots off
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
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
    ax.set_title(("RLlib PPO" if backend == "rllib" else "MaskablePPO") + " on Age of Summoners")
    fig.tight_layout()
    with atomic_path(path) as tmp:  # a full disk leaves the previous curve whole
        fig.savefig(tmp, dpi=120, format=Path(path).suffix.lstrip(".") or "png")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main(sys.argv[1:])


def __getattr__(name: str):
    """``BACKENDS``, the old name of ``TRAINERS`` (until 0.4.0), with a DeprecationWarning."""
    if name == "BACKENDS":
        import warnings

        warnings.warn(
            "agents.training.BACKENDS is now TRAINERS (core.BACKENDS names the engines)",
            DeprecationWarning,
            stacklevel=2,
        )
        return TRAINERS
    raise AttributeError(f"module 'agents.training' has no attribute {name!r}")
