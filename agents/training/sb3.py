"""The SB3 trainer: sb3-contrib's MaskablePPO on the SB3 adapter of the batched env, in this process
(``train.py --backend sb3``, the default).

Every model (``model.zip``, ``best_model.zip``, the checkpoints) is written by
``agents.files.model_file.save_model``: atomically, with the JSON member that lets agents read it
without unpickling. ``--budget`` stops ``learn()`` from a callback after the step that spends it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from aos_env.base.extras import missing_extra

try:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor
except ImportError as e:  # the train extra is optional: say how to install it
    raise missing_extra(e, "train", "agents.training.sb3") from e

from aos_env.envs.opponents import OpponentPool

from .budget import Clock, rounding_note
from .config import OptionError, TrainConfig
from .ppo import learner_env, new_ppo
from .run_folder import CHECKPOINTS, MODEL_FILE, TENSORBOARD, Run, iteration_times
from .schedule import sb3_learning_rate
from .selfplay import SelfPlay
from .signals import Interrupted, StopSignal


def train_sb3(
    config: TrainConfig, pool: OpponentPool, stop: StopSignal | None = None, resume_from: Path | None = None
) -> dict:
    """Train ``config`` (checked: ``agents.training.prepare``) against ``pool`` and return the run's
    summary. ``resume_from``: the model ``--resume`` continues (``prepare`` finds it); ``stop``:
    the run's :class:`StopSignal`."""
    from agents import PolicyAgent
    from agents.files.model_file import save_model
    from agents.files.sb3_file import saved_timesteps

    c = config
    assert c.timesteps is not None, "a checked config (check_config fills --timesteps in)"
    stop = stop or StopSignal()
    run = Run(c, resume_from)
    model_path = run.dir / MODEL_FILE
    venv = learner_env(c, pool, c.seed)
    env = VecMonitor(venv, info_keywords=("win", "score"))
    if resume_from is None and c.resume:
        resume_from = model_path
    if resume_from is not None:
        try:  # SB3's full loader: the run's own file (see --resume); it checks that the spaces fit the env
            run.load_history(up_to=saved_timesteps(resume_from))
            # the env's spaces replace the saved ones: runs saved before the observation's bounds became
            # finite (aos-env 0.3) have inf highs, and SB3 would refuse a Box that differs only there
            # (the shape, which must match, is checked by SB3 against the saved weights)
            model = MaskablePPO.load(
                str(resume_from),
                env=env,
                device=c.device,
                tensorboard_log=str(run.dir / TENSORBOARD),
                custom_objects={"observation_space": env.observation_space, "action_space": env.action_space},
            )
        except Exception as e:
            raise OptionError(
                "--resume", f"cannot continue the run in {run.dir} from {resume_from}: {type(e).__name__}: {e}"
            ) from None
        # this run's --learning-rate and --lr-schedule, not the saved ones: a linear schedule runs down
        # over the steps (and budget) of this call, from where the saved run stopped
        model.learning_rate = sb3_learning_rate(c.lr_schedule, c.learning_rate, run.clock)
        model._setup_lr_schedule()
        print(f"resuming from {resume_from} ({model.num_timesteps:,} steps)", flush=True)
    else:
        model = new_ppo(c, env, c.seed, tensorboard_log=str(run.dir / TENSORBOARD), clock=run.clock)
        if c.init is not None:
            from agents.files.export import warm_start

            warm_start(model.policy, c.init)
    (run.dir / CHECKPOINTS).mkdir(parents=True, exist_ok=True)  # only now: the arguments are valid
    run.save_best = lambda path: save_model(model, path, c.players)
    steps_before = model.num_timesteps
    training = None
    t0 = train_end = None

    def choose() -> dict:  # the model now, on the choosing games
        return run.choose(PolicyAgent.snapshot(model, deterministic=True))

    def log(tag: str, value: float) -> None:
        if hasattr(model, "_logger"):  # the logger exists once learn() has started
            model.logger.record(tag, value)

    try:
        if not run.history:
            run.record(model.num_timesteps, choose(), log)
        training = _Callback(c, model, pool, run, choose, log, stop)
        budget = _Budget(run.clock, show=not c.no_progress) if c.budget is not None else None
        note = rounding_note(c.timesteps, c.n_steps, c.num_envs)
        if note:
            print(note, flush=True)
        t0 = time.time()
        with stop.deferring():
            model.learn(
                total_timesteps=c.timesteps,
                callback=[training, budget] if budget is not None else training,
                progress_bar=not c.no_progress and budget is None,  # with --budget, _Budget's bar of seconds
                reset_num_timesteps=resume_from is None,
                tb_log_name="ppo",
            )
        train_end = time.time()
        if budget is not None:
            budget.close()
        if stop.requested:
            raise Interrupted
        save_model(model, model_path, c.players)
        final = run.conclude(model.num_timesteps, PolicyAgent.snapshot(model, deterministic=True), log)
        if hasattr(model, "_logger"):  # learn() has ended: write the end's evaluations to TensorBoard now
            model.logger.dump(model.num_timesteps)
        return run.finish(
            model.num_timesteps,
            model.num_timesteps - steps_before,
            train_end - t0,
            final,
            model_path,
            {"iterations": training.finish(train_end, steps_before), **training.extra()},
        )
    except Interrupted:
        pass
    # stopped by a signal: save what there is (a second signal aborts, the files whole)
    train_end = train_end or time.time()
    save_model(model, model_path, c.players)
    iterations = training.finish(train_end, steps_before) if training is not None else iteration_times([], [], 0)
    run.finish(
        model.num_timesteps,
        model.num_timesteps - steps_before,
        train_end - (t0 or train_end),
        None,
        model_path,
        {"iterations": iterations, **(training.extra() if training is not None else {})},
        interrupted=stop.name,
    )
    raise SystemExit(stop.exit_status)


class _Callback(BaseCallback):
    """Self-play snapshots (or the league: ``agents.league``), periodic evaluation, checkpoints;
    stops learn() on SIGINT/SIGTERM."""

    def __init__(
        self, config: TrainConfig, model: Any, pool: OpponentPool, run: Run, choose: Any, log: Any, stop: StopSignal
    ) -> None:
        super().__init__()
        self.config, self.ppo, self.pool, self.run, self.stop = config, model, pool, run, stop
        self.choose, self.log = choose, log
        self.next_eval = model.num_timesteps + config.eval_every
        self.selfplay = SelfPlay(config.self_weight, config.snapshot_every, config.max_snapshots, model.num_timesteps)
        # seconds per iteration: collecting a rollout (without snapshots and evaluations) and the update after it
        self.sample_seconds: list[float] = []
        self.learn_seconds: list[float] = []
        self.rollout_started = 0.0
        self.rollout_ended: float | None = None  # None until the first rollout ends
        self.eval_seconds = 0.0  # snapshots, evaluations and checkpoints during the current rollout
        self.league = None
        if config.league:  # the league decides the pool's weights and takes the snapshots
            from agents.league.trainer import LeagueRun, SB3Learner

            self.league = LeagueRun(config, SB3Learner(model, pool, config.players), run.dir, log)
            if config.resume and not self.league.resume() and self.selfplay.active:
                self.league.snapshot(model.num_timesteps)  # a run without a league before: one snapshot to start
        elif self.selfplay.active and config.resume:
            self._snapshot()

    def _on_rollout_start(self) -> None:
        self.rollout_started, self.eval_seconds = time.time(), 0.0
        if self.rollout_ended is not None:  # MaskablePPO.train() ran since the last rollout
            self.learn_seconds.append(self.rollout_started - self.rollout_ended)

    def _on_rollout_end(self) -> None:
        self.rollout_ended = time.time()
        self.sample_seconds.append(self.rollout_ended - self.rollout_started - self.eval_seconds)
        if self.league is not None:
            self.league.rollout_end(self.ppo.num_timesteps)

    def finish(self, train_end: float, steps_before: int) -> dict:
        """The iterations' times; the last update ends with learn()."""
        if self.rollout_ended is not None and len(self.learn_seconds) < len(self.sample_seconds):
            self.learn_seconds.append(train_end - self.rollout_ended)
        return iteration_times(self.sample_seconds, self.learn_seconds, self.ppo.num_timesteps - steps_before)

    def extra(self) -> dict:
        """summary.json's sections of the callback's own: ``league`` (its files written too)."""
        return {} if self.league is None else {"league": self.league.summary()}

    def _snapshot(self) -> None:
        from agents import PolicyAgent

        t = self.ppo.num_timesteps
        change = self.selfplay.snapshot(t)
        self.pool.add(change.name, PolicyAgent.snapshot(self.ppo, deterministic=False, seed=self.config.seed + t), 1.0)
        for name in change.removed:
            self.pool.remove(name)  # games it is playing keep it until they end
        self.pool.set_weights(change.weights)

    def _on_step(self) -> bool:
        from agents.files.model_file import save_model

        c, t = self.config, self.ppo.num_timesteps
        started = time.time()
        if self.league is not None:
            self.league.record(self.locals["dones"], self.locals["infos"])
            self.league.step(t)
        elif self.selfplay.due(t):
            self._snapshot()
        if t >= self.next_eval:
            self.next_eval += c.eval_every
            self.run.record(t, self.choose(), self.log)
            save_model(self.ppo, self.run.dir / CHECKPOINTS / f"model_{t}.zip", c.players)
            if self.league is not None:
                self.league.save()
        self.eval_seconds += time.time() - started  # not sampling (RLlib's timer leaves these out too)
        return not self.stop.requested  # False stops learn() after this step


class _Budget(BaseCallback):
    """--budget: stops learn() after the step that spends it; ``show``: a bar of the budget's seconds
    (SB3's bar counts steps, of which a run on the clock has no set number)."""

    def __init__(self, clock: Clock, show: bool) -> None:
        super().__init__()
        self.clock = clock
        self.bar = None
        if show and clock.budget is not None:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=round(clock.budget), unit="s", desc="budget")

    def _on_rollout_end(self) -> None:
        budget, left = self.clock.budget, self.clock.left()
        if self.bar is not None and budget is not None and left is not None:
            self.bar.n = min(self.bar.total, round(budget - left))
            self.bar.set_postfix_str(f"{self.model.num_timesteps:,} steps", refresh=True)

    def _on_step(self) -> bool:
        return not self.clock.expired()  # False stops learn() after this step

    def close(self) -> None:
        if self.bar is not None:
            self._on_rollout_end()
            self.bar.close()
