"""train.py --lr-schedule: the learning rate runs down to 0 at the run's end, by steps or by the
budget's clock, in both trainers, and a resumed run takes this call's schedule."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agents.training import OptionError, TrainConfig, check_config
from agents.training.budget import UNBOUNDED_TIMESTEPS, Clock
from agents.training.schedule import LR_SCHEDULES, LinearLR, rllib_learning_rate, sb3_learning_rate


def test_linear_is_the_default_and_constant_keeps_the_rate() -> None:
    assert TrainConfig().lr_schedule == "linear" and LR_SCHEDULES == ("constant", "linear")
    assert sb3_learning_rate("constant", 3e-4) == 3e-4
    assert rllib_learning_rate("constant", 3e-4, 1000) == 3e-4


def test_linear_runs_down_with_the_steps_left() -> None:
    lr = sb3_learning_rate("linear", 1e-3)
    assert isinstance(lr, LinearLR)
    assert lr(1.0) == pytest.approx(1e-3) and lr(0.25) == pytest.approx(2.5e-4) and lr(0.0) == 0.0
    assert lr(-0.1) == 0.0 and lr(1.5) == pytest.approx(1e-3)  # SB3's last rollout may pass the end


def test_linear_with_a_budget_follows_whichever_end_comes_first() -> None:
    clock = Clock(100.0, start=time.time() - 75.0)  # a quarter of the budget left
    lr = LinearLR(1.0, clock)
    assert lr(1.0) == pytest.approx(0.25, abs=0.01)  # the clock is nearer its end than the steps
    assert lr(0.1) == pytest.approx(0.1)  # the steps are nearer
    assert LinearLR(1.0, Clock(None))(0.5) == 0.5  # no budget: steps only
    assert LinearLR(1.0, Clock(10.0, start=time.time() - 20.0))(1.0) == 0.0  # a spent budget


def test_rllib_gets_a_step_schedule_or_a_constant_without_an_end() -> None:
    assert rllib_learning_rate("linear", 2e-4, 5000) == [[0, 2e-4], [5000, 0.0]]
    assert rllib_learning_rate("linear", 2e-4, UNBOUNDED_TIMESTEPS) == 2e-4  # --budget alone
    assert rllib_learning_rate("linear", 2e-4, None) == 2e-4


def test_a_bad_schedule_is_refused_by_name() -> None:
    with pytest.raises(OptionError, match=r"--lr-schedule.*constant.*linear"):
        check_config(TrainConfig(lr_schedule="cosine"))


def test_a_linear_run_ends_at_zero_and_a_resume_takes_its_own_schedule(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    from agents.training import train

    common = dict(
        out=tmp_path, name="lr", num_envs=16, n_steps=8, eval_every=10**6, eval_games=2, final_eval_games=2,
        anchors=("random",), no_progress=True, seed=3, learning_rate=1e-3,
    )  # fmt: skip
    train(TrainConfig(timesteps=512, lr_schedule="linear", **common))
    model = MaskablePPO.load(tmp_path / "lr" / "model.zip")
    assert model.lr_schedule(1.0) == pytest.approx(1e-3) and model.lr_schedule(0.5) == pytest.approx(5e-4)
    assert model.policy.optimizer.param_groups[0]["lr"] < 1e-4  # the last updates ran near the end's 0
    train(TrainConfig(timesteps=256, lr_schedule="constant", resume=True, **common))
    resumed = MaskablePPO.load(tmp_path / "lr" / "model.zip")
    assert resumed.num_timesteps == 768 and resumed.lr_schedule(0.1) == pytest.approx(1e-3)
