"""Bad input (issue 14): the command lines ``train.py``, ``python -m agents.evaluation.evaluate`` and
``python -m aos_env.apps.play``.

Every bad argument is a usage error: exit status 2, a usage line and a message naming the
option on stderr, no traceback, and nothing written (no run folder, no JSON). Most cases
run in-process (argparse's ``parser.error`` raises SystemExit); a few run the real
commands in a subprocess.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from agents.evaluation import evaluate
from aos_env.apps import play
from aos_env.base import checks
from aos_env.base.checks import MAX_SEED

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("train_script", ROOT / "train.py")
train = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train)


def usage_error(capsys, run, option: str) -> str:
    """``run()`` exits with status 2 and a usage message naming ``option``; returns stderr."""
    with pytest.raises(SystemExit) as e:
        run()
    err = capsys.readouterr().err
    assert e.value.code == 2, err
    assert "usage:" in err and "error:" in err, err
    assert option in err, (option, err)
    return err


# ---- train.py --------------------------------------------------------------------------------

TRAIN_CASES = [
    (["--num-envs", "0"], "--num-envs"),
    (["--num-envs", "abc"], "--num-envs"),
    (["--num-envs", "2.5"], "--num-envs"),
    (["--num-envs", "1000000000"], "--num-envs"),
    (["--num-envs", "１"], "--num-envs"),
    (["--opponents", "bogus@1"], "unknown agent 'bogus'"),
    (["--opponents", "greedy@x"], "--opponents"),
    (["--opponents", "greedy@-1"], "--opponents"),
    (["--opponents", "greedy@0"], "at least one weight must be > 0"),
    (["--opponents", "greedy@nan"], "--opponents"),
    (["--opponents", "mc:rollouts=2.5@1"], "rollouts must be an int"),
    (["--opponents", "@1"], "--opponents"),
    (["--opponents", "self@1", "self@1"], "'self' is given twice"),
    (["--opponents", "greedy@1", "greedy@2"], "'greedy' is given twice"),
    (["--net-arch", "abc"], "--net-arch"),
    (["--net-arch", ""], "--net-arch"),
    (["--net-arch", "64,0"], "--net-arch"),
    (["--max-turns", "0"], "--max-turns"),
    (["--n-steps", "0"], "--n-steps"),
    (["--threads", "0"], "--threads"),
    (["--anchors", "bogus"], "--anchors"),
    (["--eval-baselines", "bogus"], "--anchors"),  # the older name of --anchors
    (["--anchors", ""], "--anchors"),
    (["--anchors", "random,random"], "--anchors"),
    (["--anchors", ",".join(f"mc:rollouts={n}" for n in range(1, 12))], "at most 10 agents"),
    (["--budget", "15"], "--budget"),
    (["--budget", "0s"], "--budget"),
    (["--budget", "1d"], "90s, 15m, 2h or 1h30m"),
    (["--exploit-steps", "-1"], "--exploit-steps"),
    (["--max-snapshots", "1000000000000"], "give --max-snapshots at most"),
    (["--eval-games", "1000001"], "--eval-games"),
    (["--timesteps", "-1"], "--timesteps"),
    (["--timesteps", "0"], "--timesteps"),
    (["--resume"], "--resume: no model to resume"),
    (["--players", "5"], "--players"),
    (["--players", "²"], "--players"),
    (["--seed", "-1"], "--seed"),
    (["--seed", "4294967296"], "--seed"),
    (["--learning-rate", "0"], "--learning-rate"),
    (["--learning-rate", "inf"], "--learning-rate"),
    (["--gamma", "1.5"], "--gamma"),
    (["--gae-lambda", "-0.1"], "--gae-lambda"),
    (["--clip-range", "0"], "--clip-range"),
    (["--ent-coef", "-1"], "--ent-coef"),
    (["--vf-coef", "nan"], "--vf-coef"),
    (["--max-grad-norm", "0"], "--max-grad-norm"),
    (["--batch-size", "1"], "--batch-size"),
    (["--n-epochs", "0"], "--n-epochs"),
    (["--eval-every", "0"], "--eval-every"),
    (["--eval-games", "0"], "--eval-games"),
    (["--final-eval-games", "-5"], "--final-eval-games"),
    (["--snapshot-every", "0"], "--snapshot-every"),
    (["--max-snapshots", "0"], "--max-snapshots"),
    (["--shaping", "-0.1"], "--shaping"),
    (["--device", "bogus"], "--device"),
    (["--name", ""], "--name"),
    (["--name", "../x"], "--name"),
    (["--num-envs", "1", "--n-steps", "1"], "needs at least 2 steps"),
    (["--bogus-option"], "unrecognized arguments"),
]


@pytest.mark.parametrize("argv,option", TRAIN_CASES)
def test_train_arguments(capsys, tmp_path: Path, argv, option) -> None:
    parser = train.build_parser()
    out = tmp_path / "runs"
    usage_error(capsys, lambda: train.check_args(parser, parser.parse_args(["--out", str(out)] + argv)), option)
    assert not out.exists()  # nothing written


def test_train_out_and_broken_resume(capsys, tmp_path: Path) -> None:
    parser = train.build_parser()
    a_file = tmp_path / "file"
    a_file.write_text("x")
    usage_error(capsys, lambda: train.check_args(parser, parser.parse_args(["--out", str(a_file)])), "--out")
    usage_error(
        capsys,
        lambda: train.check_args(parser, parser.parse_args(["--out", str(tmp_path), "--name", "file"])),
        "--name",
    )
    run = tmp_path / "runs" / "broken"
    run.mkdir(parents=True)
    with zipfile.ZipFile(run / "model.zip", "w") as z:
        z.writestr("readme.txt", "not a model")
    err = usage_error(
        capsys,
        lambda: train.check_args(
            parser, parser.parse_args(["--out", str(tmp_path / "runs"), "--name", "broken", "--resume"])
        ),
        "--resume",
    )
    assert "not a saved MaskablePPO model" in err
    assert sorted(p.name for p in run.iterdir()) == ["model.zip"]


def test_train_defaults_pass_the_checks(tmp_path: Path) -> None:
    parser = train.build_parser()
    args = parser.parse_args(["--out", str(tmp_path / "runs")])
    ready = train.check_args(parser, args)
    assert set(ready.pool) == {"greedy", "random"} and ready.config.opponents[-1] == ("self", 0.4)
    assert ready.config.net_arch == (256, 256) and ready.config.anchors == ("random", "greedy")
    assert not (tmp_path / "runs").exists()


# ---- agents.evaluation.evaluate -----------------------------------------------------------------------------

EVALUATE_CASES = [
    (["random"], "give at least two agents"),
    (["random", "bogus"], "unknown agent 'bogus'"),
    (["random", "mc:rollouts=2.5"], "rollouts must be an int"),
    (["random", "missing.zip"], "no such file: 'missing.zip'"),
    (["random", "greedy", "--batch", "0"], "--batch"),
    (["random", "greedy", "--batch", "-1"], "--batch"),
    (["random", "greedy", "--batch", "2000000", "--games", "2000000"], "--batch=2000000 would need"),
    (["random", "greedy", "--games", "100000000"], "--games=100000000 would need"),
    (["random", "greedy", "--games", "1" + "0" * 30], "--games: must be an int 1..1000000000"),
    (["random", "greedy", "--max-turns", "0"], "--max-turns"),
    (["random", "greedy", "--games", "0"], "--games"),
    (["random", "greedy", "--players", "5"], "--players"),
    (["random", "greedy", "--seed", "-1"], "--seed"),
    (["random", "greedy", "--seed", str(MAX_SEED)], "--seed: must be at most"),
    (["random", "greedy", "--games", "2.5"], "--games"),
]


@pytest.mark.parametrize("argv,option", EVALUATE_CASES)
def test_evaluate_arguments(capsys, monkeypatch, tmp_path: Path, argv, option) -> None:
    monkeypatch.setattr(checks, "total_memory", lambda: 8 * 10**9)  # the memory cases do not depend on this machine
    out = tmp_path / "t.json"
    usage_error(capsys, lambda: evaluate.main(["--no-progress", "--json", str(out)] + argv), option)
    assert not out.exists()


def test_evaluate_json_must_be_writable(capsys, tmp_path: Path) -> None:
    usage_error(capsys, lambda: evaluate.main(["random", "greedy", "--json", str(tmp_path)]), "--json")
    a_file = tmp_path / "file"
    a_file.write_text("x")
    usage_error(capsys, lambda: evaluate.main(["random", "greedy", "--json", str(a_file / "t.json")]), "--json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


# ---- aos_env.apps.play ----------------------------------------------------------------------------------

PLAY_CASES = [
    (["--opponents", "bogus"], "unknown agent 'bogus'"),
    (["--opponents", "mc:rollouts=0"], "rollouts must be an int >= 1"),
    (["--opponents", ","], "--opponents"),
    (["--max-turns", "0"], "--max-turns"),
    (["--seat", "2"], "--seat: must be an int 0..1 with --players 2"),
    (["--seat", "-1"], "--seat"),
    (["--players", "1"], "--players"),
    (["--seed", "-3"], "--seed"),
    (["--seed", "x"], "--seed"),
    (["--seed", str(MAX_SEED)], "--seed: must be at most"),
]


@pytest.mark.parametrize("argv,option", PLAY_CASES)
def test_play_arguments(capsys, argv, option) -> None:
    out = io.StringIO()
    usage_error(capsys, lambda: play.main(argv, inp=io.StringIO("q\n"), out=out), option)
    assert out.getvalue() == ""  # no game started


def test_play_accepts_only_ascii_digits() -> None:
    options = [(7, "first"), (9, "second")]
    out = io.StringIO()
    assert play.ask(options, io.StringIO("²\n٣\n１\n 2 \n"), out) == 9
    for text in ("²", "٣", "１"):
        assert f"'{text}' is not one of the choices" in out.getvalue()


# ---- real command lines -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command,option",
    [
        (["train.py", "--num-envs", "0"], "--num-envs"),
        (["train.py", "--timesteps", "0"], "--timesteps"),
        (["train.py", "--resume", "--name", "nothing"], "--resume"),
        (["-m", "agents.evaluation.evaluate", "random", "bogus"], "unknown agent"),
        (["-m", "aos_env.apps.play", "--opponents", "bogus"], "unknown agent"),
    ],
)
def test_commands_exit_with_a_usage_error(tmp_path: Path, command, option) -> None:
    if command[0] == "train.py":
        command = [str(ROOT / "train.py"), "--out", str(tmp_path / "runs")] + command[1:]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run(
        [sys.executable] + command,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert res.returncode == 2, res.stderr
    assert "usage:" in res.stderr and option in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert list(tmp_path.iterdir()) == []  # no run folder, no tournament.json


@pytest.mark.one_backend
def test_export_refuses_what_is_not_a_model_or_a_run(tmp_path: Path) -> None:
    """python -m agents.files.export: a missing model, a zip of something else, a run summary that is
    not JSON and an output without .npz are usage errors naming the file, and nothing is written."""
    (tmp_path / "notmodel.zip").write_text("hi")
    run = tmp_path / "run"
    run.mkdir()
    (run / "model.zip").write_text("hi")
    (run / "summary.json").write_text("{bad")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    before = sorted(tmp_path.rglob("*"))
    for args, message in (
        (["missing.zip", "o.npz"], "no such file: 'missing.zip'"),
        (["notmodel.zip", "o.npz"], "'notmodel.zip' is not a model saved by train.py"),
        (["run/model.zip", "o.npz"], "summary.json: the run's summary is not JSON"),
        (["notmodel.zip", "o.bin"], "out must be a path ending in .npz"),
    ):
        res = subprocess.run(
            [sys.executable, "-m", "agents.files.export", *args, "--players", "2"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
        assert res.returncode == 2 and "usage:" in res.stderr and message in res.stderr, res.stderr
        assert "Traceback" not in res.stderr, res.stderr
    assert sorted(tmp_path.rglob("*")) == before


def test_the_cleanrl_example_keeps_an_earlier_runs_bot(tmp_path: Path, capsys) -> None:
    """Run again into the same --out-dir: refused before training, unless --overwrite."""
    spec = importlib.util.spec_from_file_location("cleanrl_ppo_example", ROOT / "examples" / "cleanrl_ppo.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    (tmp_path / "bot.npz").write_bytes(b"an earlier bot")
    with pytest.raises(SystemExit) as e:
        example.parse_args(["--quick", "--out-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "bot.npz" in err and "--overwrite" in err, err
    assert example.parse_args(["--quick", "--out-dir", str(tmp_path), "--overwrite"]).overwrite
    (tmp_path / "bot.npz").unlink()
    (tmp_path / "tournament.json").write_text("{}")
    with pytest.raises(SystemExit):
        example.parse_args(["--quick", "--out-dir", str(tmp_path)])


# ---- one entry for every command: a one-line message and an exit code, never a traceback -------------


def _run_cli(capsys, exc: BaseException) -> tuple[int, str]:
    from aos_env.base.cli import run_cli

    def main(argv=None):
        raise exc

    with pytest.raises(SystemExit) as e:
        run_cli(main, "python -m x", [])
    return e.value.code, capsys.readouterr().err


def test_run_cli_turns_expected_errors_into_one_line(capsys) -> None:
    from aos_env.base.checks import ArgumentError

    for exc, code, fragment in (
        (KeyboardInterrupt(), 130, "interrupted"),
        (ArgumentError("bad\nvalue \x1b]0;title\x07"), 2, "bad value ?]0;title?"),
        (OSError(28, "No space left on device", "out.json"), 1, "No space left on device: 'out.json'"),
    ):
        got, err = _run_cli(capsys, exc)
        assert got == code and err.count("\n") == 1 and err.startswith("python -m x: error: "), err
        assert fragment in err and "\x1b" not in err, err
    with pytest.raises(ZeroDivisionError):  # a bug keeps its traceback, to be reported
        _run_cli(capsys, ZeroDivisionError())


def test_ctrl_c_during_a_tournament_is_one_line(tmp_path: Path) -> None:
    import signal

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agents.evaluation.evaluate",
            "mc",
            "mc",
            "--games",
            "100000",
            "--batch",
            "4",
            "--json",
            str(tmp_path / "t.json"),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr.read(1)  # the progress bar: the games are being played
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err and "interrupted (Ctrl-C)" in err, err
    assert not (tmp_path / "t.json").exists()


def test_the_leaderboard_command_prints_help_and_tables(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    helped = subprocess.run(
        [sys.executable, "-m", "agents.evaluation.leaderboard", "--help"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert helped.returncode == 0 and "usage: python -m agents.evaluation.leaderboard" in helped.stdout
    from agents.evaluation import leaderboard as lb

    board = tmp_path / "lb.json"
    board.write_text(json.dumps({**lb.empty(), "tables": {"2": {"pairs": {"a vs b": [3, 1]}}}}))
    shown = subprocess.run(
        [sys.executable, "-m", "agents.evaluation.leaderboard", str(board)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert shown.returncode == 0 and "## 2 players" in shown.stdout, shown.stderr
    for bad in ("1e29", str(10**29)):
        tables = f'{{"2": {{"pairs": {{"a vs b": [{bad}, 1]}}}}}}'
        board.write_text(f'{{"format": "aos-leaderboard", "version": 1, "runs": [], "tables": {tables}}}')
        with pytest.raises(ValueError, match="MAX_WINS|win counts"):
            lb.load(board)


def test_prebuild_to_a_read_only_folder_is_refused_before_compiling(capsys) -> None:
    from aos_env.core import prebuild

    with pytest.raises(SystemExit) as e:
        prebuild.main(["/proc/aos_prebuilt"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "not writable" in err, err


def test_a_notebook_cell_that_times_out_is_one_line(monkeypatch, capsys) -> None:
    pytest.importorskip("nbclient")
    from nbclient.exceptions import CellTimeoutError

    from notebooks import execute

    def slow(path, timeout):
        raise CellTimeoutError("Cell execution timed out")

    monkeypatch.setattr(execute, "execute", slow)
    assert execute.main(["--timeout", "1", "01_quickstart"]) == 1
    err = capsys.readouterr().err
    assert "ran longer than --timeout 1 s, nothing written" in err and "Traceback" not in err, err


@pytest.mark.parametrize("summary", ["[1, 2]", "[" * 100_000 + "]" * 100_000, '{"args": 3}', '"x"'])
def test_export_refuses_a_summary_that_is_not_a_run_summary(tmp_path: Path, summary: str) -> None:
    from agents.files.export import run_info
    from aos_env.base.checks import ArgumentError

    (tmp_path / "summary.json").write_text(summary)
    with pytest.raises(ArgumentError, match="summary"):
        run_info(tmp_path / "model.zip")


def test_a_leaderboards_names_reach_the_terminal_without_escape_sequences(tmp_path: Path, capsys) -> None:
    from agents.evaluation import leaderboard as lb

    board = tmp_path / "lb.json"
    evil = "a\x1b]52;c;ZXZpbA==\x07\x1b[2J"
    board.write_text(json.dumps({**lb.empty(), "tables": {"2": {"pairs": {f"{evil} vs b": [3, 1]}}}}))
    assert lb.main([str(board)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "a?]52;c;ZXZpbA==??[2J" in out, out
