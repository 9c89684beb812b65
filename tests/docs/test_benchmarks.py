"""A small smoke run of ``python -m benchmarks`` (figures are printed, never asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.one_backend
def test_benchmarks_quick_run(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--out", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    res = json.loads((tmp_path / "results.json").read_text())
    assert set(res["engine"]) == {"numba", "numpy"}
    assert all(set(by_batch) == {"1", "64", "1024"} for by_batch in res["engine"].values())
    assert all(r["step"]["median_us"] > 0 and r["observe"]["median_us"] > 0 for r in res["one_game"].values())
    assert {"ours env", "ours raw_env", "leduc env", "leduc raw_env"} == set(res["aec"])
    assert all(r["median"] > 0 for r in res["aec"].values()) and res["memory_bytes_per_game"] > 0
    assert 0 < res["training"]["env_share"] < 1 and 0 < res["training_two_networks"]["env_share"] < 1
    assert {"pettingzoo leduc_holdem_v4", "pettingzoo connect_four_v3", "openspiel hanabi"} <= set(res["peers"])
    assert (tmp_path / "throughput.png").stat().st_size > 0
    table = (tmp_path / "table.md").read_text()
    assert "÷ openspiel hanabi" in out and "engine (numba), batch 1024" in table and "engine (numpy), batch 64" in table
    assert "| raw_env() |" in table and "core.step median" in table


@pytest.mark.one_backend
def test_engine_throughput_script_help() -> None:
    text = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "engine_throughput.py"), "--help"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert "--batches" in text and "--repeats" in text


@pytest.mark.one_backend
def test_engine_profile_accounts_for_the_handlers(monkeypatch, tmp_path: Path) -> None:
    """The profiler wraps every phase handler and restores the engine afterwards."""
    from aos_env import core
    from aos_env.core.np_engine import engine

    monkeypatch.syspath_prepend(str(ROOT))  # benchmarks/ is a folder of the checkout, not an installed package
    from benchmarks import profile_engine

    before = (engine._MASK[:], engine._APPLY[:], engine._RUN[:], engine._FORCED[:], engine.apply)
    res = profile_engine.profile(batch=64, players=3, steps=30, warmup=5)
    assert (engine._MASK, engine._APPLY, engine._RUN, engine._FORCED, engine.apply) == before
    handlers = res["handlers"]
    assert {"mask:COMMAND", "apply:COMMAND", "run:DRAW", "forced:PAY"} <= set(handlers)
    assert all(h["calls_per_step"] > 0 and h["games_per_call"] >= 1 for h in handlers.values())
    assert 0 < res["handler_share"] <= 1
    assert abs(sum(h["share"] for h in handlers.values()) - res["handler_share"]) < 1e-9
    assert res["decisions_per_second"] > 0 and sum(res["forced_per_step"].values()) > 0
    assert set(res["forced_per_step"]) <= {name.split(":")[1] for name in handlers if name.startswith("apply:")}
    text = profile_engine.report(res)
    assert "run:DRAW" in text and "single-choice decisions" in text
    # the engine still plays normally after profiling
    state = core.init(4, 2, seed=1)
    core.step(state, state.legal_action_mask.argmax(1))
    # and the command line
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.profile_engine",
            "--batch",
            "16",
            "--steps",
            "5",
            "--json",
            str(tmp_path / "profile.json"),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert "handler" in out and json.loads((tmp_path / "profile.json").read_text())["batch"] == 16


# ---- benchmarks.rllib_scaling: arguments and the table (a real measurement takes minutes) ----------


def _rllib_scaling(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import rllib_scaling

    return rllib_scaling


@pytest.mark.one_backend
def test_rllib_scaling_help_names_every_option() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "benchmarks.rllib_scaling", "--help"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    for option in (
        "--timesteps",
        "--runners",
        "--no-sb3",
        "--num-envs",
        "--final-eval-games",
        "--threads",
        "--repeat",
        "--train-args",
        "--out",
        "--json",
        "--no-warm-up",
    ):
        assert option in res.stdout, option


@pytest.mark.one_backend
def test_rllib_scaling_command_line_is_the_same_for_every_configuration(monkeypatch, tmp_path: Path) -> None:
    pytest.importorskip("ray.rllib")  # train.py checks the RLlib runs' options with Ray RLlib
    rs = _rllib_scaling(monkeypatch)
    parser = rs.build_parser()
    args = parser.parse_args(
        [
            "--timesteps",
            "5000",
            "--runners",
            "2,0",
            "--num-envs",
            "256",
            "--final-eval-games",
            "30",
            "--train-args=--players 3 --net-arch 64,64",
            "--out",
            str(tmp_path / "runs"),
        ]
    )
    configs = rs.check_args(parser, args)  # train.py's own checks of each run's command line, too
    assert [c.name for c in configs] == ["rllib_2", "rllib_0", "sb3"]
    assert configs[0].options == ("--backend", "rllib", "--num-env-runners", "2")
    common = rs.common_options(args)
    train = rs.train_module()
    for config in configs:
        targs = train.build_parser().parse_args([*config.options, *common])
        assert (targs.timesteps, targs.num_envs, targs.final_eval_games, targs.threads) == (5000, 256, 30, 1)
        assert (targs.players, targs.net_arch, targs.no_progress) == (3, (64, 64), True)
        assert targs.eval_every > 10 * targs.timesteps  # no evaluation inside the timed training
    assert rs.run_names(configs, 2) == ["rllib_2_r1", "rllib_0_r1", "sb3_r1", "rllib_2_r2", "rllib_0_r2", "sb3_r2"]
    assert not (tmp_path / "runs").exists()  # nothing written by the checks


def _usage_error(capsys, rs, argv: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as e:
        rs.main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and "usage:" in err and message in err, err


@pytest.mark.one_backend
@pytest.mark.parametrize(
    "argv,message",
    [
        (["--runners", "0,1,1"], "--runners: 1 is given twice"),
        (["--runners", "-1"], "--runners: must be comma-separated ints >= 0"),
        (["--runners", ""], "--runners"),
        (["--timesteps", "0"], "--timesteps: must be an int >= 1"),
        (["--repeat", "0"], "--repeat"),
        (["--num-envs", "abc"], "--num-envs"),
        (["--final-eval-games", "0"], "--final-eval-games"),
        (["--train-args=--timesteps 5"], "--train-args: --timesteps is set by this script"),
        (["--train-args=--time 5 --eval-g 3"], "--eval-games, --timesteps are set by this script"),
        (["--train-args=--eval-every=7"], "--eval-every is set by this script"),
        (["--train-args=--bogus 3"], "--train-args: train.py refuses them: unrecognized arguments: --bogus"),
        (["--train-args=--players 5"], "--train-args: train.py refuses them: argument --players"),
        (['--train-args="--net-arch'], "--train-args: cannot split"),
    ],
)
def test_rllib_scaling_bad_input_is_a_usage_error(capsys, monkeypatch, argv, message) -> None:
    _usage_error(capsys, _rllib_scaling(monkeypatch), argv, message)


@pytest.mark.one_backend
def test_rllib_scaling_bad_paths_and_runs_train_refuses(capsys, monkeypatch, tmp_path: Path) -> None:
    rs = _rllib_scaling(monkeypatch)
    (tmp_path / "file").write_text("")
    _usage_error(capsys, rs, ["--json", str(tmp_path / "file" / "r.json")], "--json")
    _usage_error(capsys, rs, ["--out", str(tmp_path / "file" / "runs")], "--out")
    (tmp_path / "runs" / "sb3_r1").mkdir(parents=True)
    _usage_error(capsys, rs, ["--out", str(tmp_path / "runs")], "already holds sb3_r1")
    # train.py's check: with RLlib a minibatch may not be larger than the rollout (16 x 64 steps)
    pytest.importorskip("ray.rllib")
    _usage_error(
        capsys,
        rs,
        ["--runners", "0", "--num-envs", "64", "--train-args=--batch-size 4096", "--out", str(tmp_path / "new")],
        "argument --batch-size: must be at most the rollout",
    )
    assert not (tmp_path / "new").exists()


@pytest.mark.one_backend
def test_rllib_scaling_usage_error_from_the_command_line(tmp_path: Path) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "benchmarks.rllib_scaling", "--runners", "1,1", "--json", str(tmp_path / "r.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 2 and "--runners: 1 is given twice" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "r.json").exists()


def _run(steps_per_second: float, wins: dict[str, float], games: int = 100, sample: float = 1.0) -> dict:
    return {
        "env_steps_per_second": steps_per_second,
        "timesteps": 1000,
        "train_seconds": 1000 / steps_per_second,
        "wall_seconds": 20.0,
        "process_seconds": 30.0,
        "iterations": {"count": 2, "mean_steps": 500, "mean_sample_seconds": sample, "mean_learn_seconds": 0.5},
        "final_evaluation": {s: {"win_rate": w, "ci95": [0.0, 1.0], "games": games} for s, w in wins.items()},
    }


@pytest.mark.one_backend
def test_rllib_scaling_medians_pooled_win_rates_and_the_table(monkeypatch) -> None:
    rs = _rllib_scaling(monkeypatch)
    from agents.evaluation.matches import wilson

    rllib_runs = [
        _run(1000, {"random": 0.9, "greedy": 0.5}),
        _run(3000, {"random": 0.7, "greedy": 0.6}, sample=3.0),
        _run(2000, {"random": 0.8, "greedy": 0.4}, sample=2.0),
    ]
    agg = rs.aggregate(rllib_runs)
    assert agg["median"]["env_steps_per_second"] == 2000 and agg["median"]["mean_sample_seconds"] == 2.0
    assert agg["final_evaluation"]["random"] == {"win_rate": 0.8, "ci95": list(wilson(240, 300)), "games": 300}
    results = {
        "rllib_1": {"label": "RLlib, 1 env runner", **agg},
        "sb3": {"label": "SB3 MaskablePPO", **rs.aggregate([_run(4000, {"random": 1.0, "greedy": 0.75})])},
    }
    table = rs.format_table(results).splitlines()
    assert "| configuration | env steps/s | ÷ SB3 |" in table[0] and "win vs greedy [95% CI]" in table[0]
    assert table[2].startswith("| RLlib, 1 env runner | 2,000 | 0.50x | 0.5 | 30.0 | 2.00 | 0.50 | 80.0% [")
    assert table[3].startswith("| SB3 MaskablePPO | 4,000 | 1.00x |")
    no_sb3 = rs.format_table({"rllib_1": results["rllib_1"]}).splitlines()
    assert "| RLlib, 1 env runner | 2,000 | - |" in no_sb3[2]


@pytest.mark.one_backend
def test_rllib_scaling_reads_a_real_run(monkeypatch, tmp_path: Path) -> None:
    """One tiny SB3 run through the benchmark's subprocess and summary reading (no RLlib: it would
    start Ray; tests/ecosystem/test_rllib.py checks that backend's summary)."""
    rs = _rllib_scaling(monkeypatch)
    options = [
        "--backend",
        "sb3",
        "--timesteps",
        "256",
        "--num-envs",
        "16",
        "--batch-size",
        "64",
        "--net-arch",
        "16",
        "--eval-games",
        "2",
        "--final-eval-games",
        "4",
        "--eval-every",
        str(rs.NO_INTERMEDIATE_EVAL),
        "--no-progress",
    ]
    summary, seconds = rs.run_train(options, tmp_path, "tiny")
    m = rs.measurement(summary, seconds)
    assert m["timesteps"] == 256 and m["env_steps_per_second"] > 0 and m["process_seconds"] > m["train_seconds"]
    assert m["iterations"]["count"] == 1 and set(m["final_evaluation"]) == {"random", "greedy"}
    assert m["final_evaluation"]["greedy"]["games"] == 4
    assert (tmp_path / "tiny" / "train.log").read_text().startswith(sys.executable)
    with pytest.raises(rs.RunFailed, match="exit status 2"):  # a failed run names its log and shows its end
        rs.run_train(["--timesteps", "0"], tmp_path, "bad")


@pytest.mark.one_backend
def test_rllib_scaling_main_with_the_runs_made_up(capsys, monkeypatch, tmp_path: Path) -> None:
    """The whole flow without training: warm-up, interleaved repeats, the table and the JSON;
    and a JSON path that fails only at the end is an error (exit 1), not a traceback."""
    pytest.importorskip("ray.rllib")  # train.py checks the RLlib runs' options with Ray RLlib
    rs = _rllib_scaling(monkeypatch)
    calls = []

    def fake_run(options, out, name):
        calls.append(name)
        speed = 4000.0 if "sb3" in options else 1000.0 * (1 + int(options[options.index("--num-env-runners") + 1]))
        summary = {
            "env_steps_per_second": speed,
            "timesteps": 1024,
            "train_seconds": 1024 / speed,
            "wall_seconds": 5.0,
            "iterations": {"mean_sample_seconds": 0.1, "mean_learn_seconds": 0.2},
            "final_evaluation": {"random": {"win_rate": 0.5, "ci95": [0.2, 0.8], "games": 10}},
        }
        return summary, 6.0

    monkeypatch.setattr(rs, "run_train", fake_run)
    out = tmp_path / "r.json"
    res = rs.main(["--runners", "0,1", "--repeat", "2", "--timesteps", "1000", "--json", str(out)])
    assert calls == ["warm_up", "rllib_0_r1", "rllib_1_r1", "sb3_r1", "rllib_0_r2", "rllib_1_r2", "sb3_r2"]
    printed = capsys.readouterr().out
    assert "run 6/6: SB3 MaskablePPO, repeat 2/2" in printed and "| RLlib, 1 env runner | 2,000 | 0.50x |" in printed
    saved = json.loads(out.read_text())
    assert saved["configurations"]["rllib_1"]["final_evaluation"]["random"]["games"] == 20
    assert saved["table"] == res["table"] and len(saved["configurations"]["sb3"]["runs"]) == 2

    def run_then_block_the_json(options, o, name):  # the path passed the check, then became a folder
        out.unlink(missing_ok=True)
        out.mkdir(exist_ok=True)
        return fake_run(options, o, name)

    monkeypatch.setattr(rs, "run_train", run_then_block_the_json)
    with pytest.raises(SystemExit) as e:
        rs.main(["--runners", "0", "--no-sb3", "--no-warm-up", "--json", str(out)])
    assert e.value.code == 1 and "cannot write --json" in capsys.readouterr().err
