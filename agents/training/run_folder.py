"""A run's folder, ``<out>/<name>/``: what it holds, the checks that keep a user's run from being
written over (``--resume`` continues it, ``--overwrite`` replaces it), and :class:`Run`, which
writes its evaluations (``history.json``, ``learning_curve.png``) and its ``summary.json``.

Every file is written to a temporary name and renamed into place (``aos_env.base.files``), so a
full disk or a second Ctrl-C leaves the files written before whole.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.league.records import LEAGUE_FILES
from aos_env.base.checks import ArgumentError
from aos_env.base.files import write_text

# the evaluations' seeds live in .best (EVAL_SEED, FINAL_EVAL_SEED are imported from here too)
from .best import CHOOSE, EVAL_SEED, FINAL, FINAL_EVAL_SEED, BestModel, anchor_seed, best_file_steps, final_seed  # noqa: F401
from .budget import STOPPED_BY_SIGNAL, Clock
from .config import OptionError, TrainConfig
from .plots import plot_curve
from .rules import network_shape

RLLIB_CHECKPOINT = "rllib"  # runs/<name>/rllib/: the RLlib checkpoint (--resume)
BOT_FILE = "bot.npz"  # runs/<name>/bot.npz: the rllib run's policy as a bot file
MODEL_FILE = "model.zip"  # runs/<name>/model.zip: the sb3 run's final model (what --resume continues)
BEST_MODEL_FILE = "best_model.zip"  # runs/<name>/best_model.zip: the sb3 run's best model on the choosing games
BEST_BOT_FILE = "best_bot.npz"  # runs/<name>/best_bot.npz: the rllib run's best policy, as a bot file
EXPLOIT_DIR = "exploit"  # runs/<name>/exploit/: the exploiter's run (--exploit-steps)
CHECKPOINTS = "checkpoints"  # runs/<name>/checkpoints/model_<steps>.zip (sb3), bot_<steps>.npz (rllib)
SUMMARY_FILE = "summary.json"
HISTORY_FILE = "history.json"
CURVE_FILE = "learning_curve.png"
TENSORBOARD = "tb"
_CHECKPOINT_NAME = re.compile(r"model_([0-9]+)\.zip")
#: What a run writes in its folder: a folder holding any of them holds a run, which only --resume
#: continues and only --overwrite replaces.
RUN_FILES = (
    MODEL_FILE,
    BEST_MODEL_FILE,
    BEST_BOT_FILE,
    EXPLOIT_DIR,
    SUMMARY_FILE,
    HISTORY_FILE,
    CURVE_FILE,
    BOT_FILE,
    RLLIB_CHECKPOINT,
    CHECKPOINTS,
    TENSORBOARD,
    *LEAGUE_FILES,
)


# ---- what a folder holds ----------------------------------------------------------------------


def run_holds(run_dir: Path) -> list[str]:
    """What of a run the folder holds (``RUN_FILES`` present; an empty checkpoints/ or tb/ does not count)."""
    found = []
    for name in RUN_FILES:
        p = run_dir / name
        if p.is_dir() and name in (CHECKPOINTS, TENSORBOARD) and not any(p.iterdir()):
            continue
        if p.exists():
            found.append(name)
    return found


def newest_model(run_dir: Path) -> Path | None:
    """The model --resume continues: the newest, by training steps, of ``model.zip`` and
    ``checkpoints/model_<steps>.zip`` (model.zip on a tie: it is saved after the checkpoint of the
    same step). model.zip's steps are read from SB3's ``data`` member as plain JSON (nothing is
    unpickled); if they cannot be read, the checkpoints come first."""
    from agents.files.sb3_file import saved_timesteps

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


def clear_run(run_dir: Path) -> None:
    """--overwrite: delete what a previous run wrote in ``run_dir`` (``RUN_FILES``), and nothing else."""
    for name in RUN_FILES:
        p = run_dir / name
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif p.exists() or p.is_symlink():
            p.unlink()


# ---- checks before a run starts ---------------------------------------------------------------------


def check_writable(run_dir: Path) -> None:
    """The run folder can be written: a tiny file is created (and removed) in it or, if it does not
    exist yet, in the nearest folder above it that does (where its folders would be created).
    Permission bits alone do not tell (root may write everywhere, but not in /proc)."""
    if run_dir.exists() and not run_dir.is_dir():
        raise OptionError("--name", f"{str(run_dir)!r} is a file; a run needs a folder there")
    folder = next(p for p in (run_dir, *run_dir.parents) if p.exists())
    try:
        fd, name = tempfile.mkstemp(prefix=".aos-write-test-", dir=folder)
        os.close(fd)
        os.unlink(name)
    except OSError as e:
        raise OptionError(
            "--out",
            f"cannot write in {str(folder)!r}: creating a file there failed ({e.strerror or e}); give a "
            "folder that can be written",
        ) from None


def check_run_folder(config: TrainConfig) -> tuple[Path | None, dict[str, Any]]:
    """A run folder holding a run is continued (--resume) or replaced (--overwrite), never written
    over by accident; --resume needs a model to continue. Returns the model that an sb3 run
    resumes from (None for a new run, or rllib's, which resumes from its checkpoint folder) and the
    options of the network it holds where they differ from ``config``'s (:func:`saved_network`)."""
    from agents.files.model_file import read_meta
    from agents.files.sb3_file import check_sb3_model_file

    run_dir = config.run_dir
    if config.resume and config.overwrite:
        raise OptionError("--overwrite", "replaces a run, --resume continues it: give one of them")
    held = run_holds(run_dir) if run_dir.is_dir() else []
    if held and not (config.resume or config.overwrite):
        raise OptionError(
            "--name",
            f"{str(run_dir)!r} holds a run already ({', '.join(held)}); use --resume to continue it, "
            "--overwrite to replace it, or another --name",
        )
    if not config.resume:
        return None, {}
    if config.backend == "rllib":
        if not (run_dir / RLLIB_CHECKPOINT / "rllib_checkpoint.json").is_file():
            raise OptionError(
                "--resume",
                f"no RLlib checkpoint to resume at {run_dir / RLLIB_CHECKPOINT} (train a run with "
                "--backend rllib first, without --resume)",
            )
        return None, {}
    model = newest_model(run_dir)
    if model is None:
        raise OptionError(
            "--resume",
            f"no model to resume at {run_dir / MODEL_FILE} or in {run_dir / CHECKPOINTS} (train a "
            "run first, without --resume)",
        )
    try:
        check_sb3_model_file(model)
    except (ArgumentError, FileNotFoundError) as e:
        raise OptionError("--resume", str(e)) from None
    try:
        meta = read_meta(model)
    except ArgumentError:  # an older model without the JSON member: SB3's loader checks it
        return model, {}
    if meta["num_players"] is not None and meta["num_players"] != config.players:
        raise OptionError(
            "--players",
            f"the run in {str(run_dir)!r} trains {meta['num_players']}-player games, got --players {config.players}",
        )
    return model, saved_network(config, meta)


def saved_network(config: TrainConfig, meta: dict) -> dict[str, Any]:
    """The --net-arch and --shared-trunk of the network a resumed model holds (its checked ``meta``;
    SB3's loader goes on with that network, whatever the options say), so that the run's summary
    records it; {} where the options already match."""
    trunk, heads = meta.get("trunk", []), meta["net_arch"]
    if (heads, trunk) == network_shape(config) or (not trunk and heads["pi"] != heads["vf"]):
        return {}  # the same network, or two of other sizes, which the options cannot describe
    return {"net_arch": tuple(trunk or heads["pi"]), "shared_trunk": bool(trunk)}


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it, links resolved."""
    path, folder = Path(os.path.realpath(path)), Path(os.path.realpath(folder))
    return path == folder or folder in path.parents


def check_not_in_run(option: str, path: Path, run_dir: Path) -> None:
    """An input may not be a file of the run being written (it would be replaced, or deleted by --overwrite)."""
    if _inside(path, run_dir):
        raise OptionError(
            option,
            f"{str(path)!r} is inside the run's own folder {str(run_dir)!r}, which this run writes; copy it "
            "elsewhere first, or give another --name",
        )


def check_spec_not_in_run(option: str, spec: str, run_dir: Path) -> None:
    """An agent spec that names a file may not name one of the run being written."""
    from agents.registry import spec_file

    file = spec_file(spec)
    if file is not None:
        check_not_in_run(option, Path(file), run_dir)


# ---- the run's records ---------------------------------------------------------------------------------


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


class Run:
    """What both trainers share: the run folder, evaluation against the anchors, the history, the
    best model, the learning curve and the summary. ``resume_from``: the model an sb3 run continues
    (for summary.json's ``args``). ``save_best(path)``: the trainer's writer of its current model,
    called when a choosing evaluation finds a new best; ``clock``: the run's ``--budget``, from now."""

    def __init__(self, config: TrainConfig, resume_from: Path | None = None) -> None:
        self.config = config
        self.resume_from = resume_from
        self.dir = config.run_dir
        self.history_path = self.dir / HISTORY_FILE
        self.anchors = list(config.anchors)
        self.history: list[dict] = []
        self.started = time.time()
        self.clock = Clock(config.budget, self.started)
        self.best = BestModel()
        self.best_path = self.dir / (BEST_BOT_FILE if config.backend == "rllib" else BEST_MODEL_FILE)
        self.save_best: Callable[[Path], Any] | None = None
        self.best_final: dict | None = None  # the best model's final evaluation (conclude)

    def load_history(self, up_to: int | None = None) -> None:
        """The run's evaluations so far (--resume); ``up_to``: the steps of the model resumed, the
        evaluations after it (of a later model that was not saved) are dropped. The best model so
        far is the one its choosing evaluations found, if its file is that model."""
        self.history = json.loads(self.history_path.read_text()) if self.history_path.exists() else []
        if up_to is not None:
            self.history = [h for h in self.history if h.get("timesteps", 0) <= up_to]
        self.best = BestModel.from_history(self.history, best_file_steps(self.best_path))

    def evaluate(self, me: Any, games: int, seed: int) -> dict:
        """``games`` games of the agent ``me`` in one seat against an anchor in every other seat
        (with 4 players: against three greedy agents), seats rotated: ``me``'s win rates with 95%
        intervals. The ``i``-th anchor's games play seeds ``anchor_seed(seed, i)`` onwards
        (``agents.training.best``). (Two agents at a larger table would fill the seats in turn,
        ``me`` taking two of them, and a win rate per seat could then not exceed 50%.)"""
        from agents import make_agent
        from agents.evaluation.matches import play_games, summarise

        c, out = self.config, {}
        others = c.players - 1
        for i, spec in enumerate(self.anchors):
            rivals = [make_agent(spec, seed=seed + i * others + k) for k in range(others)]
            names = ["learner"] + [spec if others == 1 else f"{spec}#{k + 1}" for k in range(others)]
            res = play_games(
                [me, *rivals],
                c.players,
                games,
                seed=anchor_seed(seed, i),
                batch_size=min(games, 500),
                max_turns=c.max_turns,
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

    def choose(self, me: Any) -> dict:
        """An evaluation during training: ``--eval-games`` choosing games (the same at every step)."""
        return self.evaluate(me, self.config.eval_games, EVAL_SEED)

    def record(self, t: int, result: dict, log: Callable[[str, float], None] | None = None, kind: str = CHOOSE) -> bool:
        """Add an evaluation to the history, the curve and the console; ``log(tag, value)``:
        TensorBoard. A choosing evaluation (``kind`` CHOOSE) that finds a new best model has it saved
        (``save_best``); returns whether it did."""
        new_best = kind == CHOOSE and self.best.offer(t, result)
        entry = {"timesteps": t, "wall_seconds": time.time() - self.started, "kind": kind, "results": result}
        self.history.append({**entry, **({"best": True} if new_best else {})})
        if log is not None:
            for spec, r in result.items():
                log(f"{'final' if kind == FINAL else 'eval'}/{spec}/win_rate", r["win_rate"])
        if new_best and self.save_best is not None:
            self.save_best(self.best_path)  # atomic: the previous best stays whole until this one is
        write_text(self.history_path, json.dumps(self.history, indent=2))
        plot_curve(self.history, self.dir / CURVE_FILE, self.anchors, self.config.backend)
        msg = ", ".join(
            f"vs {s}: {r['win_rate']:.1%} [{r['ci95'][0]:.1%}, {r['ci95'][1]:.1%}], {r['truncated']:.1%} truncated"
            for s, r in result.items()
        )
        label = " (final games)" if kind == FINAL else " (new best)" if new_best else ""
        print(f"[{t:,} steps, {time.time() - self.started:.0f} s]{label} {msg}", flush=True)
        return new_best

    def conclude(self, t: int, me: Any, log: Callable[[str, float], None] | None = None) -> dict:
        """The end of a run whose final model ``me`` (deterministic) is at step ``t``: it takes its
        turn at the choosing games (unless it was just evaluated there), then it and the best model
        play the final games (``--final-eval-games`` per anchor, seeds from ``--seed``). Returns the
        final model's result; the best model's is kept for the summary."""
        from agents import make_agent

        chosen = [h for h in self.history if h.get("kind") == CHOOSE]
        if not chosen or chosen[-1]["timesteps"] != t:
            self.record(t, self.choose(me), log)
        games, seed = self.config.final_eval_games, final_seed(self.config.seed)
        final = self.evaluate(me, games, seed)
        self.record(t, final, log, kind=FINAL)
        if self.best.timesteps == t or not self.best_path.is_file():
            self.best_final = final
        else:  # read as an agent plays it (without unpickling), deterministic as the final model
            self.best_final = self.evaluate(make_agent(str(self.best_path)), games, seed)
        return final

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
        args = self.config.options()
        args["resume_from"] = None if self.resume_from is None else str(self.resume_from)
        best = self.best.info() if self.best_path.is_file() else None
        stopped_by = STOPPED_BY_SIGNAL if interrupted else self.clock.stopped_by(steps, self.config.timesteps or 0)
        if best is not None:
            best.update(path=str(self.best_path), final_evaluation=self.best_final)
        summary = {
            "run": str(self.dir),
            "backend": self.config.backend,
            "timesteps": timesteps,
            "train_seconds": train_seconds,
            "wall_seconds": time.time() - self.started,
            "env_steps_per_second": steps / max(train_seconds, 1e-9),
            "budget_seconds": self.config.budget,
            "stopped_by": stopped_by,
            "final_evaluation": final,
            "final_eval_seed": final_seed(self.config.seed),
            "best_model": best,
            "args": args,
            "model": str(model),
            "interrupted": interrupted is not None,
            **({"signal": interrupted} if interrupted else {}),
            **(extra or {}),
        }
        self.write_summary(summary)
        curve = self.dir / CURVE_FILE
        where = f"saved {model}" + (f" and the best model {self.best_path}" if best else "")
        where += f"; summary in {self.dir / SUMMARY_FILE}" + (f"; curve in {curve}" if curve.is_file() else "")
        if interrupted:
            print(f"{interrupted}: stopped at {timesteps:,} steps; {where}; continue with --resume", flush=True)
        else:
            print(where)
        return summary

    def write_summary(self, summary: dict) -> None:
        write_text(self.dir / SUMMARY_FILE, json.dumps(summary, indent=2))
