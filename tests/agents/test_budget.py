"""train.py's end (issue 31): --budget, the best model chosen on games kept apart from the final
ones, final games that follow --seed, the anchors, --exploit-steps, and a clean early error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.training import OptionError, TrainConfig, check_config
from agents.training.best import (
    ANCHOR_STRIDE,
    CHOOSE,
    EVAL_SEED,
    FINAL,
    FINAL_EVAL_SEED,
    MAX_ANCHORS,
    BestModel,
    anchor_seed,
    final_seed,
    score,
)
from agents.training.budget import UNBOUNDED_TIMESTEPS, Clock, format_duration, parse_duration
from agents.training.config import MAX_TRAIN_SEED
from aos_env.base.checks import ArgumentError

ROOT = Path(__file__).resolve().parents[2]


def result(**rates: float) -> dict:
    return {
        spec: {"win_rate": w, "ci95": [0.0, 1.0], "games": 10, "mean_score": 0.0, "truncated": 0.0}
        for spec, w in rates.items()
    }


# ---- --budget ---------------------------------------------------------------------------------------


def test_durations_are_read_in_seconds_and_bad_ones_name_the_forms() -> None:
    assert [parse_duration(t) for t in ("90s", "15m", "2h", "1h30m", "1.5h", " 2H ")] == [
        90,
        900,
        7200,
        5400,
        5400,
        7200,
    ]
    for bad in ("15", "", "m", "0s", "-1m", "1d", "15 m", "inf", "1e3s", "366d", "9000h"):
        with pytest.raises(ArgumentError, match="90s, 15m, 2h or 1h30m"):
            parse_duration(bad)
    assert [format_duration(s) for s in (5400, 90, 2.5, 7200)] == ["1h30m", "1m30s", "2.5s", "2h"]


def test_budget_alone_leaves_the_steps_unbounded() -> None:
    assert check_config(TrainConfig()).timesteps == 6_000_000  # the default
    c = check_config(TrainConfig(budget="15m"))
    assert (c.budget, c.timesteps) == (900.0, UNBOUNDED_TIMESTEPS)
    c = check_config(TrainConfig(budget=90, timesteps=5000))
    assert (c.budget, c.timesteps) == (90.0, 5000)  # whichever comes first
    with pytest.raises(OptionError) as e:
        check_config(TrainConfig(budget="2 hours"))
    assert e.value.option == "--budget" and "90s, 15m, 2h or 1h30m" in str(e.value)


def test_the_clock_says_why_training_stopped() -> None:
    assert not Clock(None).expired() and Clock(None).stopped_by(10, 100) == "timesteps"
    spent = Clock(5.0, start=0.0)  # started long ago
    assert spent.expired() and spent.fired and spent.left() == 0.0
    assert spent.stopped_by(10, 100) == "budget" and spent.stopped_by(100, 100) == "timesteps"
    assert not Clock(3600.0).expired()


def test_train_py_refuses_a_bad_budget_with_a_usage_message(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), "--budget", "15", "--out", str(tmp_path / "runs")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert r.returncode == 2 and "--budget" in r.stderr and "90s, 15m, 2h or 1h30m" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "runs").exists()


# ---- seeds: the choosing games and the final ones ----------------------------------------------------------


def test_final_games_follow_the_seed_and_never_meet_the_choosing_games() -> None:
    assert final_seed(0) == FINAL_EVAL_SEED == 20_000_000  # what every run used before
    assert final_seed(7) == final_seed(7) != final_seed(0)
    most = ANCHOR_STRIDE  # the most games per anchor that an evaluation plays
    choosing = (EVAL_SEED, anchor_seed(EVAL_SEED, MAX_ANCHORS - 1) + most)  # [first, end)
    for seed in (0, 1, 7, MAX_TRAIN_SEED):
        first, end = final_seed(seed), anchor_seed(final_seed(seed), MAX_ANCHORS - 1) + most
        assert choosing[1] <= first and end <= final_seed(seed + 1) and end <= 2**63
    # the option bounds keep every evaluation inside its block
    with pytest.raises(OptionError):
        check_config(TrainConfig(final_eval_games=ANCHOR_STRIDE + 1))
    with pytest.raises(OptionError):
        check_config(TrainConfig(anchors=tuple(f"mc:rollouts={n}" for n in range(1, MAX_ANCHORS + 2))))


def test_the_end_of_a_run_plays_the_final_games_of_its_seed(tmp_path: Path, monkeypatch) -> None:
    from agents.training.run_folder import Run

    def run_with(seed: int) -> list[tuple[str, int]]:
        run = Run(check_config(TrainConfig(seed=seed, out=tmp_path, name=f"s{seed}", eval_games=3, final_eval_games=5)))
        played: list[tuple[str, int]] = []

        def evaluate(me, games, seed):
            played.append((me, seed))
            return result(random=0.5, greedy=0.25)

        monkeypatch.setattr(run, "evaluate", evaluate)
        monkeypatch.setattr(run, "choose", lambda me: evaluate(me, 3, EVAL_SEED))
        run.conclude(100, "final-model")
        return played

    assert run_with(0) == [("final-model", EVAL_SEED), ("final-model", final_seed(0))]
    assert run_with(7) == [("final-model", EVAL_SEED), ("final-model", final_seed(7))]
    assert run_with(7) == run_with(7)


def test_the_exploiter_s_final_games_follow_its_seed() -> None:
    from agents.training.exploit import exploit_config

    configs = [
        exploit_config("greedy", players=2, timesteps=100, seed=s, games=10, out=Path("r"), name="x") for s in (0, 3)
    ]
    assert [c.seed for c in configs] == [0, 3] and configs[0].anchors == ("greedy",)
    assert final_seed(configs[0].seed) != final_seed(configs[1].seed)


# ---- the best model -------------------------------------------------------------------------------------


def test_the_best_model_is_the_highest_mean_win_rate_later_on_ties() -> None:
    assert score(result(random=1.0, greedy=0.5)) == 0.75
    best = BestModel()
    assert best.info() is None
    assert best.offer(0, result(random=0.5, greedy=0.1))
    assert best.offer(10, result(random=0.9, greedy=0.3))
    assert not best.offer(20, result(random=1.0, greedy=0.1))  # 0.55 < 0.6
    assert best.offer(30, result(random=0.8, greedy=0.4))  # a tie: the later model, trained longer
    assert best.info() == {"timesteps": 30, "score": pytest.approx(0.6)}


def test_a_resumed_run_keeps_its_best_only_if_the_file_is_that_model() -> None:
    history = [
        {"timesteps": 0, "kind": CHOOSE, "results": result(greedy=0.1)},
        {"timesteps": 10, "kind": CHOOSE, "results": result(greedy=0.7)},
        {"timesteps": 10, "kind": FINAL, "results": result(greedy=0.99)},  # final games never choose
        {"timesteps": 20, "results": result(greedy=0.9)},  # an evaluation of an older run: other games
    ]
    assert BestModel.from_history(history, 10).info() == {"timesteps": 10, "score": 0.7}
    assert BestModel.from_history(history, 20).info() is None  # the file is not the best: choose anew
    assert BestModel.from_history(history, None).info() is None


# ---- a run on the clock, end to end ------------------------------------------------------------------------


@pytest.mark.one_backend
def test_a_run_stops_on_its_budget_keeps_its_best_model_and_measures_an_exploiter(tmp_path: Path) -> None:
    from agents import make_agent
    from agents.training import train

    config = TrainConfig(
        budget="3s",
        out=tmp_path,
        name="clock",
        num_envs=16,
        n_steps=8,
        eval_every=64,
        eval_games=4,
        final_eval_games=6,
        anchors=("random", "greedy"),
        exploit_steps=64,
        no_progress=True,
        seed=5,
    )
    summary = train(config)
    run = tmp_path / "clock"
    assert summary["stopped_by"] == "budget" and summary["budget_seconds"] == 3.0
    assert summary["args"]["budget"] == 3.0 and summary["timesteps"] < UNBOUNDED_TIMESTEPS
    assert json.loads((run / "summary.json").read_text()) == json.loads(json.dumps(summary))
    assert (run / "model.zip").is_file() and (run / "best_model.zip").is_file()
    make_agent(str(run / "best_model.zip"))  # an agent plays it
    assert set(summary["final_evaluation"]) == {"random", "greedy"} and summary["final_eval_seed"] == final_seed(5)
    best = summary["best_model"]
    assert best["path"] == str(run / "best_model.zip") and 0 <= best["timesteps"] <= summary["timesteps"]
    assert set(best["final_evaluation"]) == {"random", "greedy"} and best["final_evaluation"]["greedy"]["games"] == 6
    history = json.loads((run / "history.json").read_text())
    chosen = [h for h in history if h["kind"] == "choose"]
    assert chosen[-1]["timesteps"] == summary["timesteps"]  # the final model took its turn at the choosing games
    assert best["score"] == max(score(h["results"]) for h in chosen)
    assert [h["kind"] for h in history][-1] == "final" and sum(h.get("best", False) for h in history) >= 1
    events = b"".join(p.read_bytes() for p in (run / "tb").rglob("events*"))
    assert b"eval/greedy/win_rate" in events and b"final/random/win_rate" in events
    e = summary["exploitability"]
    assert e["target"] == str(run / "model.zip") and e["timesteps"] >= 64 and e["games"] == 6 and e["chance"] == 0.5
    lo, hi = e["ci95"]
    assert 0 <= lo <= e["win_rate"] <= hi <= 1
    assert (run / "exploit" / "exploit.json").is_file() and (run / "exploit" / "exploiter.npz").is_file()


# ---- an early error, the last message ---------------------------------------------------------------------------


def test_an_error_found_by_the_trainer_removes_the_empty_run_folder_it_created(tmp_path: Path, monkeypatch) -> None:
    from agents.training import sb3, train

    def failing(config, pool, stop=None, resume_from=None):
        (config.run_dir / "checkpoints").mkdir(parents=True)  # the trainer had started
        raise OptionError("--init", "does not fit")

    monkeypatch.setattr(sb3, "train_sb3", failing)
    out = tmp_path / "new" / "runs"
    with pytest.raises(OptionError):
        train(TrainConfig(out=out, name="r", num_envs=8, timesteps=10))
    assert not (tmp_path / "new").exists()  # created by this run, and empty
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "notes.txt").write_text("mine")
    with pytest.raises(OptionError):
        train(TrainConfig(out=tmp_path / "kept", name="r", num_envs=8, timesteps=10))
    assert sorted(p.name for p in (tmp_path / "kept").iterdir()) == ["notes.txt"]


def test_the_last_message_names_the_curve_only_if_it_was_drawn(tmp_path: Path, capsys) -> None:
    from agents.training.run_folder import Run

    run = Run(check_config(TrainConfig(out=tmp_path, name="r")))
    run.dir.mkdir()
    run.finish(0, 0, 0.0, None, run.dir / "model.zip")
    assert "curve" not in capsys.readouterr().out
    (run.dir / "learning_curve.png").write_bytes(b"png")
    run.finish(0, 0, 0.0, None, run.dir / "model.zip")
    assert "curve in" in capsys.readouterr().out


def test_a_run_says_when_timesteps_are_rounded_up_to_whole_rollouts() -> None:
    """--timesteps 4096 with rollouts of 16 x 1024 trains 16,384 steps: the run says so (issue 32)."""
    from agents.training.budget import UNBOUNDED_TIMESTEPS, rounding_note

    note = rounding_note(4096, 16, 1024)
    assert note is not None and "--timesteps 4,096" in note and "trains 16,384 steps" in note
    assert rounding_note(32768, 16, 1024) is None  # two whole rollouts
    assert rounding_note(UNBOUNDED_TIMESTEPS, 16, 1024) is None  # --budget alone: the clock ends the run
    assert rounding_note(None, 16, None) is None  # an unchecked config says nothing yet
