"""The RLlib trainer: Ray RLlib's PPO (``agents.training.rllib_ppo``) with env runners that each step
a batch of games, on a local Ray or, with ``--address``, a Ray cluster (``train.py --backend rllib``).

Self-play snapshots are broadcast to every runner's opponent pool (with ``--league``, the league
decides the runners' weights from their games: ``agents.training.rllib_league``); the policy is
saved as a numpy bot file (``bot.npz``) beside RLlib's checkpoint (``rllib/``, what ``--resume``
continues).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ray

from aos_env.base.files import atomic_folder
from aos_env.envs.opponents import OpponentPool

from .budget import rounding_note
from .config import OptionError, TrainConfig
from .run_folder import (
    BOT_FILE,
    CHECKPOINTS,
    RLLIB_CHECKPOINT,
    TENSORBOARD,
    Run,
    iteration_times,
)
from .schedule import rllib_learning_rate
from .selfplay import SelfPlay
from .signals import Interrupted, StopSignal

#: Seconds to wait for a Ray head's port to answer before --address is refused.
CONNECT_TIMEOUT_S = 10.0


def train_rllib(config: TrainConfig, pool: OpponentPool, stop: StopSignal | None = None) -> dict:
    """Train ``config`` (checked: ``agents.training.prepare``) with RLlib and return the run's
    summary; the runners' pools start from ``pool``'s specs and weights. ``stop``: the run's
    :class:`StopSignal`."""
    from . import rllib_ppo

    c = config
    # a checked config (prepare) has the runners' sizes filled in
    assert c.num_env_runners is not None and c.envs_per_runner is not None and c.batch_size is not None
    stop = stop or StopSignal()
    for name in ("ray", "ray.rllib"):  # RLlib's notes on its API stack and deprecations, not the run's
        logging.getLogger(name).setLevel(logging.ERROR)
    run = Run(c)
    started_ray = not ray.is_initialized()
    if c.address is not None:
        _check_reachable(c.address)
    try:
        if c.address is not None:
            ray.init(address=c.address, logging_level=logging.ERROR)
        elif started_ray:  # a local Ray for this run: one CPU per env runner (it may share the cores)
            ray.init(
                num_cpus=max(os.cpu_count() or 1, c.num_env_runners),
                include_dashboard=False,
                logging_level=logging.ERROR,
            )
    except Exception as e:  # ray raises ConnectionError, RuntimeError or ValueError for a bad address
        raise OptionError("--address", f"cannot join a Ray cluster at {c.address!r}: {type(e).__name__}: {e}") from None
    stop.install()  # SIGINT and SIGTERM stop the run and save it, whatever handlers Ray has set
    trainer = None
    try:
        cpus = ray.cluster_resources().get("CPU", 0)
        if c.num_env_runners > cpus:
            raise OptionError(
                "--num-env-runners",
                f"the Ray cluster has {cpus:g} CPUs, one per env runner is needed; got {c.num_env_runners}",
            )
        ppo = rllib_ppo.ppo_config(
            num_players=c.players,
            opponents=pool.weights(),
            num_env_runners=c.num_env_runners,
            envs_per_runner=c.envs_per_runner,
            n_steps=c.n_steps,
            batch_size=c.batch_size,
            n_epochs=c.n_epochs,
            learning_rate=rllib_learning_rate(c.lr_schedule, c.learning_rate, c.timesteps),
            gamma=c.gamma,
            gae_lambda=c.gae_lambda,
            clip_range=c.clip_range,
            ent_coef=c.ent_coef,
            vf_coef=c.vf_coef,
            max_grad_norm=c.max_grad_norm,
            net_arch=list(c.net_arch),
            seed=c.seed,
            threads=(c.threads or 1) if c.num_env_runners == 0 else 1,  # a runner has one CPU (num_cpus_per_env_runner)
            max_turns=c.max_turns,
            shaping=c.shaping,
            truncation_reward=c.truncation_reward,
            device=c.device,
        )
        checkpoint = run.dir / RLLIB_CHECKPOINT
        if c.resume:
            try:
                run.load_history()
                trainer = rllib_ppo.RLlibTrainer(ppo, c.players, checkpoint=checkpoint)
            except Exception as e:
                raise OptionError(
                    "--resume", f"cannot continue the run in {run.dir}: {type(e).__name__}: {e}"
                ) from None
        else:
            trainer = rllib_ppo.RLlibTrainer(ppo, c.players)
        return _Loop(c, run, trainer, checkpoint, stop, pool).train_and_save()
    finally:
        if trainer is not None:
            trainer.stop()
        if started_ray:
            ray.shutdown()  # with --address: only this driver leaves, the cluster stays


def _check_reachable(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """A host:port that nothing listens on is a usage error at once (ray.init would wait for minutes)."""
    if address == "auto":  # Ray finds the cluster this machine belongs to (or says that there is none)
        return
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise OptionError(
            "--address",
            f"cannot join a Ray cluster at {address!r}: nothing answers there ({e}); start one with ray start --head",
        ) from None


def _save_folder(save: Callable[[Path], Any], path: Path) -> None:
    """``save(folder)`` writes a checkpoint folder; it replaces ``path`` only once it is whole."""
    with atomic_folder(path) as tmp:
        save(tmp)


class _Loop:
    """One run's training iterations, evaluations, snapshots and saves around an ``RLlibTrainer``."""

    def __init__(
        self, config: TrainConfig, run: Run, trainer: Any, checkpoint: Path, stop: StopSignal, pool: OpponentPool
    ) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.c, self.run, self.trainer, self.checkpoint, self.stop = config, run, trainer, checkpoint, stop
        (run.dir / CHECKPOINTS).mkdir(parents=True, exist_ok=True)  # only now: the arguments are valid
        tb = run.dir / TENSORBOARD
        self.writer = SummaryWriter(str(tb / f"rllib_{len(list(tb.glob('rllib_*'))) + 1}"))
        self.selfplay = SelfPlay(config.self_weight, config.snapshot_every, config.max_snapshots, trainer.timesteps)
        self.steps_before = trainer.timesteps
        self.seconds: dict[str, list[float]] = {"time/sample_seconds": [], "time/learn_seconds": []}  # RLlib's timers
        run.save_best = lambda path: trainer.save_bot(
            path, info={"trained_by": "train.py --backend rllib", "timesteps": trainer.timesteps}
        )
        self.league = None
        if config.league:  # the league decides the runners' weights and takes the snapshots
            from agents.league.trainer import LeagueRun

            from .rllib_league import RLlibLearner

            self.league = LeagueRun(config, RLlibLearner(trainer, pool, config.players), run.dir, self.log)

    def log(self, tag: str, value: float) -> None:
        self.writer.add_scalar(tag, value, self.trainer.timesteps)

    def snapshot(self) -> None:
        """A frozen copy of the policy joins every runner's pool."""
        t = self.trainer.timesteps
        change = self.selfplay.snapshot(t)
        self.trainer.update_opponents(
            add=(change.name, self.trainer.policy_bytes(), change.weights[change.name], self.c.seed + t),
            remove=change.removed,
            weights=change.weights,
        )

    def choose(self) -> dict:
        """The policy now, on the choosing games."""
        return self.run.choose(self.trainer.agent(deterministic=True))

    def iterations(self) -> dict:
        s = self.seconds
        return iteration_times(
            s["time/sample_seconds"], s["time/learn_seconds"], self.trainer.timesteps - self.steps_before
        )

    def league_summary(self) -> dict:
        """summary.json's ``league`` section (its files written too), if there is a league."""
        return {} if self.league is None else {"league": self.league.summary()}

    def info(self) -> dict:
        return {
            "ray": ray.__version__,
            "checkpoint": str(self.checkpoint),
            "num_env_runners": self.c.num_env_runners,
            "envs_per_runner": self.c.envs_per_runner,
        }

    def save(self) -> Path:
        bot = self.trainer.save_bot(
            self.run.dir / BOT_FILE,
            info={
                "trained_by": "train.py --backend rllib",
                "timesteps": self.trainer.timesteps,
                "ray": ray.__version__,
            },
        )
        _save_folder(self.trainer.save, self.checkpoint)
        return bot

    def train_and_save(self) -> dict:
        """Train, save and evaluate; on a stop signal, save what there is and exit 128 + its number."""
        trainer, run = self.trainer, self.run
        t0 = time.time()
        try:
            if self.league is not None:
                if self.c.resume and not self.league.resume() and self.selfplay.active:
                    self.league.snapshot(trainer.timesteps)  # a run without a league before: one snapshot to start
            elif self.selfplay.active and self.c.resume:
                self.snapshot()
            if not run.history:
                run.record(trainer.timesteps, self.choose(), self.log)
            t0 = time.time()
            train_seconds = self.iterate()
            if self.stop.requested:
                raise Interrupted
            bot = self.save()
            final = run.conclude(trainer.timesteps, trainer.agent(deterministic=True), self.log)
            self.writer.close()
            steps = trainer.timesteps - self.steps_before
            extra = {"iterations": self.iterations(), "rllib": self.info(), **self.league_summary()}
            return run.finish(trainer.timesteps, steps, train_seconds, final, bot, extra)
        except Interrupted:
            pass
        bot = self.save()  # stopped by a signal: save what there is (a second signal aborts, the files whole)
        self.writer.close()
        run.finish(
            trainer.timesteps,
            trainer.timesteps - self.steps_before,
            time.time() - t0,
            None,
            bot,
            {"iterations": self.iterations(), "rllib": self.info(), **self.league_summary()},
            interrupted=self.stop.name,
        )
        raise SystemExit(self.stop.exit_status)

    def iterate(self) -> float:
        """RLlib's training iterations until ``--timesteps`` more steps, the end of ``--budget`` (checked
        after each iteration) or a stop signal; returns their seconds."""
        from tqdm.auto import tqdm

        c, trainer, stop = self.c, self.trainer, self.stop
        next_eval = trainer.timesteps + c.eval_every
        target = trainer.timesteps + c.timesteps
        note = rounding_note(c.timesteps, c.n_steps, c.num_envs)  # an iteration's batch: every runner's games
        if note:
            print(note, flush=True)
        bar = tqdm(total=c.timesteps if c.budget is None else None, unit="step", desc="rllib", disable=c.no_progress)
        t0 = time.time()
        while trainer.timesteps < target and not stop.requested:
            it = time.time()
            with stop.deferring():
                metrics = trainer.train()
            bar.update(int(metrics["env_steps"]))
            for key, values in self.seconds.items():
                if key in metrics:
                    values.append(metrics[key])
            for tag, value in metrics.items():
                self.log(tag, value)
            self.log("time/iteration_steps_per_second", metrics["env_steps"] / max(time.time() - it, 1e-9))
            t = trainer.timesteps
            if self.league is not None:  # the runners' games count, then weights, snapshots and exploiters
                self.league.record_games(trainer.take_games())
                self.league.rollout_end(t)
                with stop.deferring():
                    self.league.step(t)
            elif self.selfplay.due(t):
                self.snapshot()
            if t >= next_eval:
                next_eval += c.eval_every
                with stop.deferring():  # an evaluation and a checkpoint are finished before the run stops
                    self.run.record(t, self.choose(), self.log)
                    if self.league is not None:
                        self.league.save()
                    trainer.save_bot(self.run.dir / CHECKPOINTS / f"bot_{t}.npz")  # atomic (aos_env.base.files)
                    _save_folder(trainer.save, self.checkpoint)
            if self.run.clock.expired():  # --budget: checked after each iteration, so at least one runs
                break
        bar.close()
        return time.time() - t0
