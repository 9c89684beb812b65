"""RLlib's env runners beside the SB3 backend: env steps per second of ``train.py`` on this machine.

    python -m benchmarks.rllib_scaling [--timesteps 300000] [--runners 0,1,2] [--repeat 1] [--json FILE]

Each configuration is one ``python train.py`` subprocess on the same step budget and settings:
``--backend rllib --num-env-runners N`` for each N of ``--runners`` (0: the driver samples between
updates), and the default SB3 backend (MaskablePPO in one process). All play ``--num-envs`` games
(RLlib divides them among its runners), so an iteration is the same rollout in every configuration.
Intermediate evaluations are off (``--eval-every`` beyond the budget), so the training time is
training alone; the final evaluation plays ``--final-eval-games`` games against each baseline.

Reported from each run's ``summary.json``: env steps per second (learner steps over the training
seconds), the training seconds, the seconds sampling and learning per iteration, and the final
win rates; and the wall seconds of the whole process ("process s": imports, Ray's start, the
evaluations before and after training). With ``--repeat R`` every configuration runs R times,
interleaved so that a noisy moment hits all of them alike; the table shows medians, and win
rates over the evaluation games of all R runs (the runs share a seed: the interval is that of
the evaluation games, not of training from other seeds).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from aos_env.base.checks import ArgumentError, check_output_file, check_output_folder, int_arg, int_list_arg
from aos_env.base.files import write_text

from .training import TRAIN_SCRIPT, train_module

DEFAULT_TIMESTEPS = 300_000
DEFAULT_RUNNERS = "0,1,2"
DEFAULT_FINAL_EVAL_GAMES = 400
#: Games of train.py's evaluation at step 0, which it always plays: outside the training time,
#: so kept small (it only adds to the wall time).
INITIAL_EVAL_GAMES = 20
#: --eval-every for every run, a trillion steps: beyond any budget, so no evaluation falls inside
#: the training time.
NO_INTERMEDIATE_EVAL = 10**12
#: train.py options that this script sets itself (argparse dests); --train-args may not give them.
OWN_OPTIONS = {
    "backend": "--backend",
    "timesteps": "--timesteps",
    "num_envs": "--num-envs",
    "threads": "--threads",
    "num_env_runners": "--num-env-runners (see --runners)",
    "envs_per_runner": "--envs-per-runner (see --num-envs)",
    "address": "--address (this benchmark measures this machine)",
    "out": "--out",
    "name": "--name",
    "resume": "--resume",
    "eval_every": "--eval-every",
    "eval_games": "--eval-games",
    "final_eval_games": "--final-eval-games",
    "no_progress": "--no-progress",
}
#: Seconds a run has to stop (and stop its Ray) after Ctrl-C, before it is killed.
STOP_GRACE_SECONDS = 30
LOG_TAIL_LINES = 25


@dataclass(frozen=True)
class Config:
    """One configuration: its short name (run folders, JSON keys), its label (the table) and the
    options of train.py that make it."""

    name: str
    label: str
    options: tuple[str, ...]


def rllib_label(runners: int) -> str:
    if runners == 0:
        return "RLlib, 0 env runners (the driver samples)"
    return f"RLlib, {runners} env runner{'s' if runners > 1 else ''}"


def configurations(runners: list[int], sb3: bool) -> list[Config]:
    """RLlib with each number of env runners, in the order given, then SB3."""
    configs = [
        Config(f"rllib_{n}", rllib_label(n), ("--backend", "rllib", "--num-env-runners", str(n))) for n in runners
    ]
    if sb3:
        configs.append(Config("sb3", "SB3 MaskablePPO", ("--backend", "sb3")))
    return configs


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.rllib_scaling",
        description=__doc__.split("\n\n")[0],
        epilog="Example: python -m benchmarks.rllib_scaling --timesteps 300000 --repeat 3 --json rllib_scaling.json",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--timesteps",
        type=int_arg(1),
        default=DEFAULT_TIMESTEPS,
        help="learner steps each run trains for (train.py --timesteps; runs end at a whole iteration, "
        "so a run may go a little beyond)",
    )
    p.add_argument(
        "--runners",
        type=int_list_arg(0),
        default=DEFAULT_RUNNERS,
        help="RLlib configurations to measure: numbers of env runners (train.py --num-env-runners), "
        "comma separated, each at most once; each runner is a process that wants a core",
    )
    p.add_argument("--no-sb3", action="store_true", help="leave out the SB3 backend (the table's ratios need it)")
    p.add_argument(
        "--num-envs",
        type=int_arg(1),
        default=None,
        help="games played at once in every configuration (train.py --num-envs; RLlib divides them "
        "among its runners) (default: train.py's default)",
    )
    p.add_argument(
        "--final-eval-games",
        type=int_arg(1),
        default=DEFAULT_FINAL_EVAL_GAMES,
        help="games of each run's final evaluation against each baseline (the win rates)",
    )
    p.add_argument(
        "--threads",
        type=int_arg(1),
        default=1,
        help="train.py --threads: torch's and the engine's threads in each process",
    )
    p.add_argument(
        "--repeat", type=int_arg(1), default=1, help="runs of each configuration (interleaved); the table shows medians"
    )
    p.add_argument(
        "--train-args",
        default="",
        help="more train.py options for every run, as one string after an '=' (e.g. "
        '--train-args="--players 3 --net-arch 64,64"); not the options this script sets itself: '
        + ", ".join(o.split(" ")[0] for o in OWN_OPTIONS.values()),
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="keep the runs in this folder (<out>/<configuration>_r<k>/, each with train.log); "
        "default: a temporary folder, removed at the end",
    )
    p.add_argument("--json", type=Path, default=None, help="also write the results to this JSON file")
    p.add_argument(
        "--no-warm-up",
        action="store_true",
        help="skip the warm-up (one tiny run of the first configuration, --timesteps 1, that fills the "
        "compiled engine's cache and the file cache before anything is timed)",
    )
    return p


class _TrainUsageError(Exception):
    """train.py's parser refused the options (its ``parser.error``, here raised instead of exiting)."""


def _raise_usage(message: str):
    raise _TrainUsageError(message)


def _train_parser() -> argparse.ArgumentParser:
    parser = train_module().build_parser()
    parser.error = _raise_usage  # type: ignore[method-assign]
    return parser


def _given_options(tokens: list[str]) -> set[str]:
    """The dests of train.py's options that ``tokens`` give (abbreviations and ``--x=1`` included)."""
    parser = _train_parser()
    for action in parser._actions:  # argparse has no public way to ask which options were given
        action.default = argparse.SUPPRESS
    return set(vars(parser.parse_args(tokens)))


def common_options(args: argparse.Namespace) -> list[str]:
    """train.py's options shared by every run (after the configuration's own)."""
    opts = [
        "--timesteps",
        str(args.timesteps),
        "--final-eval-games",
        str(args.final_eval_games),
        "--eval-every",
        str(NO_INTERMEDIATE_EVAL),
        "--eval-games",
        str(min(INITIAL_EVAL_GAMES, args.final_eval_games)),
        "--threads",
        str(args.threads),
        "--no-progress",
    ]
    if args.num_envs is not None:
        opts += ["--num-envs", str(args.num_envs)]
    return opts + args.train_tokens


def run_names(configs: list[Config], repeat: int) -> list[str]:
    return [f"{c.name}_r{k + 1}" for k in range(repeat) for c in configs]


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[Config]:
    """Everything, before any run starts: a problem is a usage error (exit status 2), train.py's
    own checks of each configuration's command line included."""
    if len(set(args.runners)) != len(args.runners):
        twice = next(n for n in args.runners if args.runners.count(n) > 1)
        parser.error(f"argument --runners: {twice} is given twice")
    try:
        args.train_tokens = shlex.split(args.train_args)
    except ValueError as e:
        parser.error(f"argument --train-args: cannot split {args.train_args!r} into options: {e}")
    try:
        own = sorted(_given_options(args.train_tokens) & set(OWN_OPTIONS))
    except _TrainUsageError as e:
        parser.error(f"argument --train-args: train.py refuses them: {e}")
    if own:
        parser.error(
            f"argument --train-args: {', '.join(OWN_OPTIONS[d] for d in own)} "
            f"{'is' if len(own) == 1 else 'are'} set by this script"
        )
    try:
        if args.out is not None:
            check_output_folder("--out", args.out)
        if args.json is not None:
            check_output_file("--json", args.json)
    except ArgumentError as e:
        parser.error(str(e))
    configs = configurations(args.runners, not args.no_sb3)
    if args.out is not None:
        taken = [n for n in run_names(configs, args.repeat) + ["warm_up"] if (args.out / n).exists()]
        if taken:
            parser.error(
                f"argument --out: {str(args.out)!r} already holds {', '.join(taken)}; give a new or empty folder"
            )
    train = train_module()
    out = args.out if args.out is not None else Path(tempfile.gettempdir())
    for config in configs:
        argv = [*config.options, *common_options(args), "--out", str(out), "--name", f"{config.name}_r1"]
        try:
            train_parser = _train_parser()
            train.check_args(train_parser, train_parser.parse_args(argv))
        except _TrainUsageError as e:
            parser.error(f"train.py refuses the {config.label} run ({shlex.join(['train.py', *argv])}): {e}")
    return configs


# ---- the runs ----------------------------------------------------------------------------------


class RunFailed(Exception):
    """A train.py run exited with an error, or the results could not be written (exit status 1)."""


def run_train(options: list[str], out: Path, name: str) -> tuple[dict, float]:
    """One ``python train.py`` run into ``out/name/``: its summary.json and the process's wall seconds.
    Its output goes to ``out/name/train.log``. On Ctrl-C the run gets the interrupt too and
    ``STOP_GRACE_SECONDS`` to stop its Ray."""
    run_dir = out / name
    run_dir.mkdir(parents=True)
    log_path = run_dir / "train.log"
    # this checkout first: the run, and the Ray workers it starts, import its aos_env and agents
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(TRAIN_SCRIPT.parent), os.environ.get("PYTHONPATH")]))
    )
    command = [sys.executable, str(TRAIN_SCRIPT), *options, "--out", str(out), "--name", name]
    start = time.perf_counter()
    with open(log_path, "w") as log:
        log.write(shlex.join(command) + "\n\n")
        log.flush()
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        try:
            code = proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(STOP_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            raise
    seconds = time.perf_counter() - start
    if code != 0:
        tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-LOG_TAIL_LINES:])
        raise RunFailed(f"the run {name} failed (exit status {code}); the end of {log_path}:\n{tail}")
    return json.loads((run_dir / "summary.json").read_text()), seconds


def measurement(summary: dict, process_seconds: float) -> dict:
    """What the table and the JSON keep of one run."""
    final = {
        spec: {"win_rate": r["win_rate"], "ci95": r["ci95"], "games": r["games"]}
        for spec, r in summary["final_evaluation"].items()
    }
    return {
        "env_steps_per_second": summary["env_steps_per_second"],
        "timesteps": summary["timesteps"],
        "train_seconds": summary["train_seconds"],
        "wall_seconds": summary["wall_seconds"],
        "process_seconds": process_seconds,
        "iterations": summary.get("iterations"),
        "final_evaluation": final,
    }


def aggregate(runs: list[dict]) -> dict:
    """Medians over a configuration's runs, and win rates over all their evaluation games."""
    from agents.evaluation.matches import wilson

    def median(key: str, within: str | None = None) -> float | None:
        values = [(r[within] or {}).get(key) if within else r[key] for r in runs]
        values = [v for v in values if v is not None]
        return statistics.median(values) if values else None

    med = {
        k: median(k) for k in ("env_steps_per_second", "timesteps", "train_seconds", "wall_seconds", "process_seconds")
    }
    med.update({k: median(k, "iterations") for k in ("mean_sample_seconds", "mean_learn_seconds")})
    final = {}
    for spec in runs[0]["final_evaluation"]:
        games = sum(r["final_evaluation"][spec]["games"] for r in runs)
        wins = sum(round(r["final_evaluation"][spec]["win_rate"] * r["final_evaluation"][spec]["games"]) for r in runs)
        final[spec] = {"win_rate": wins / games, "ci95": list(wilson(wins, games)), "games": games}
    return {"median": med, "final_evaluation": final}


def format_table(results: dict) -> str:
    """A markdown table: one line per configuration."""
    baselines = list(next(iter(results.values()))["final_evaluation"])
    sb3 = results.get("sb3", {}).get("median", {}).get("env_steps_per_second")
    head = [
        "configuration",
        "env steps/s",
        "÷ SB3",
        "train s",
        "process s",
        "sample s/iter",
        "learn s/iter",
        *(f"win vs {b} [95% CI]" for b in baselines),
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def secs(v: float | None, digits: int = 1) -> str:
        return "-" if v is None else f"{v:,.{digits}f}"

    for r in results.values():
        m = r["median"]
        cells = [
            r["label"],
            f"{m['env_steps_per_second']:,.0f}",
            f"{m['env_steps_per_second'] / sb3:.2f}x" if sb3 else "-",
            secs(m["train_seconds"]),
            secs(m["process_seconds"]),
            secs(m["mean_sample_seconds"], 2),
            secs(m["mean_learn_seconds"], 2),
        ]
        for b in baselines:
            e = r["final_evaluation"][b]
            cells.append(f"{e['win_rate']:.1%} [{e['ci95'][0]:.1%}, {e['ci95'][1]:.1%}]")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = build_parser()
    args = parser.parse_args(argv)
    configs = check_args(parser, args)
    try:
        return _measure(args, configs)
    except RunFailed as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        raise SystemExit(130) from None


def _measure(args: argparse.Namespace, configs: list[Config]) -> dict:
    t0 = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t0:6.0f} s] {msg}", flush=True)

    common = common_options(args)
    res: dict = {
        "machine": {
            "python": platform.python_version(),
            "processor": platform.processor(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
        },
        "settings": {
            "timesteps": args.timesteps,
            "runners": args.runners,
            "sb3": not args.no_sb3,
            "num_envs": args.num_envs or train_module().DEFAULT_NUM_ENVS,
            "final_eval_games": args.final_eval_games,
            "threads": args.threads,
            "repeat": args.repeat,
            "train_args": args.train_tokens,
            "train_options": common,
        },
        "configurations": {},
    }
    if any(n > (os.cpu_count() or 1) for n in args.runners):
        log(f"note: this machine has {os.cpu_count()} CPUs; more env runners than that share the cores")
    with tempfile.TemporaryDirectory(prefix="aos-rllib-scaling-") as tmp:
        out = args.out if args.out is not None else Path(tmp)
        if not args.no_warm_up:
            log(f"warm-up: {configs[0].label}, --timesteps 1 (not measured)")
            warm = [*configs[0].options, *common, "--timesteps", "1", "--final-eval-games", "1"]
            run_train(warm, out, "warm_up")
        runs: dict[str, list[dict]] = {c.name: [] for c in configs}
        total, done, spent = len(configs) * args.repeat, 0, 0.0
        for k in range(args.repeat):
            for config in configs:
                eta = "" if not done else f", about {spent / done * (total - done) / 60:.0f} min left"
                log(f"run {done + 1}/{total}: {config.label}, repeat {k + 1}/{args.repeat}{eta}")
                summary, seconds = run_train([*config.options, *common], out, f"{config.name}_r{k + 1}")
                m = measurement(summary, seconds)
                runs[config.name].append(m)
                done, spent = done + 1, spent + seconds
                wins = ", ".join(f"vs {s} {e['win_rate']:.1%}" for s, e in m["final_evaluation"].items())
                log(
                    f"  {m['env_steps_per_second']:,.0f} env steps/s ({m['timesteps']:,} steps in "
                    f"{m['train_seconds']:.1f} s), {seconds:.0f} s in all; {wins}"
                )
        for config in configs:
            res["configurations"][config.name] = {
                "label": config.label,
                "options": list(config.options),
                **aggregate(runs[config.name]),
                "runs": runs[config.name],
            }
    res["seconds"] = time.perf_counter() - t0
    table = format_table(res["configurations"])
    res["table"] = table
    print(
        f"\n{args.timesteps:,} steps per run, {args.repeat} run(s) per configuration, medians; "
        f"train.py {shlex.join(common)}\n\n{table}"
    )
    if args.out is not None:
        print(f"\nruns kept in {args.out}")
    if args.json is not None:
        try:  # checked before the runs, but a path can pass the check and still fail (e.g. under /proc as root)
            write_text(args.json, json.dumps(res, indent=2))  # atomic: a failure leaves a previous file whole
        except OSError as e:
            raise RunFailed(f"cannot write --json {str(args.json)!r} ({e}); the table above has the results") from None
        print(f"wrote {args.json}")
    return res


if __name__ == "__main__":
    main()
