"""All benchmarks in one run, both engines beside the peers measured in the same run: ``python -m benchmarks``.

Measures, each as the median of ``--repeats`` runs (the machine is noisy; compare ratios):

- the batched engine under random legal play, decisions/s at several batch sizes, on the compiled
  engine (numba, the default) and on the numpy reference, and its memory per game;
- one game at a time: the median time of ``core.step`` and ``core.observe`` (both engines);
- the PettingZoo AEC env, steps/s, wrapped (``aos_env.env()``) and raw (``aos_env.raw_env()``),
  beside PettingZoo's leduc_holdem_v4 wrapped and raw in the same loop, runs alternating;
- the training env inside MaskablePPO: env steps/s and the env's share of wall time, with train.py's
  shared trunk and with two networks (--no-shared-trunk);
- the compiled engine's compile cost: a fresh process to its first step, cold and warm;
- peers: PettingZoo's leduc_holdem_v4, texas_holdem_v4 and connect_four_v3 (AEC, same loop as
  ours) and OpenSpiel's hearts and hanabi (C++).

Prints a table with ratios to each peer and writes ``<out>/results.json``, ``<out>/table.md`` and
``<out>/throughput.png`` (``--out``, default ``benchmarks/results/``). Install the peers with
``pip install -e ".[bench]"``.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from aos_env.base.checks import ArgumentError, check_output_folder, float_arg, int_arg, int_list_arg
from aos_env.base.files import atomic_path, write_text

from . import aec, compile_time, engine_throughput, one_game, openspiel, training
from .engine_throughput import median_of

PZ_PEERS = ["leduc_holdem_v4", "texas_holdem_v4", "connect_four_v3"]
OS_PEERS = ["hearts", "hanabi"]
BACKENDS = ("numba", "numpy")


def memory_per_game(players: int = 4) -> float:
    """Bytes of engine state per game (the State's records; the same for either engine)."""
    from aos_env import core

    state = core.init(64, players, seed=0, backend="numpy")
    return state.nbytes / state.batch_size


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description=__doc__.split("\n\n")[0],
        epilog="Not in this run: python -m benchmarks.profile_engine (a step of the engine, "
        "handler by handler) and python -m benchmarks.rllib_scaling (train.py with "
        "RLlib's env runners and with SB3: it trains, for minutes).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--batches",
        type=int_list_arg(1),
        default=[1, 64, 1024, 4096, 16384],
        help="engine batch sizes, comma separated",
    )
    p.add_argument(
        "--numpy-max-batch",
        type=int_arg(1),
        default=16384,
        help="largest batch measured on the numpy engine (it is slow at large batches)",
    )
    p.add_argument("--players", type=int_arg(2, 4), default=2, help="players per game for our engine/env")
    p.add_argument("--seconds", type=float_arg(0.01), default=3.0, help="length of one timed run")
    p.add_argument("--repeats", type=int_arg(1), default=5, help="runs per figure; the median is reported")
    p.add_argument(
        "--one-game-calls", type=int_arg(100), default=20_000, help="calls timed one by one for the one-game figures"
    )
    p.add_argument(
        "--train-steps", type=int_arg(1), default=200_000, help="MaskablePPO timesteps for the env-share figure"
    )
    p.add_argument(
        "--train-envs", type=int_arg(1), default=1024, help="parallel games of the training env (train.py's default)"
    )
    p.add_argument("--skip-training", action="store_true", help="leave out the MaskablePPO measurement")
    p.add_argument("--skip-compile", action="store_true", help="leave out the compile-cost measurement")
    p.add_argument("--skip-peers", action="store_true", help="leave out PettingZoo and OpenSpiel")
    p.add_argument(
        "--quick", action="store_true", help="a smoke run: short runs, one repeat, small batches (figures are rough)"
    )
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"), help="folder for results.json and the plot")
    return p


#: The files a run writes into --out.
RESULT_FILES = ("results.json", "table.md", "throughput.png")


def main(argv: list[str] | None = None) -> dict:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:  # before measuring: a run takes minutes
        check_output_folder("--out", args.out)
    except ArgumentError as e:
        parser.error(str(e))
    if args.quick:
        args.seconds, args.repeats, args.train_steps, args.one_game_calls = 0.3, 1, 4096, 500
        args.train_envs = 64
        args.batches = [b for b in args.batches if b <= 1024] or [1]
        args.skip_compile = True
    res: dict = {
        "machine": {
            "python": platform.python_version(),
            "processor": platform.processor(),
            "machine": platform.machine(),
        },
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "engine": {b: {} for b in BACKENDS},
        "one_game": {},
        "aec": {},
        "peers": {},
    }
    t0 = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t0:6.0f} s] {msg}", flush=True)

    for backend in BACKENDS:
        for b in args.batches:
            if backend == "numpy" and b > args.numpy_max_batch:
                continue
            r = median_of(
                lambda s, b=b, be=backend: engine_throughput.measure(b, args.players, args.seconds, seed=s, backend=be),
                args.repeats,
            )
            res["engine"][backend][str(b)] = r
            log(f"engine ({backend}) batch {b}: {r['median']:,.0f} decisions/s")
        res["one_game"][backend] = one_game.one_game_times(args.players, args.one_game_calls, backend=backend)
        og = res["one_game"][backend]
        log(
            f"one game ({backend}): core.step {og['step']['median_us']:.2f} us, "
            f"core.observe {og['observe']['median_us']:.2f} us (medians)"
        )
    res["memory_bytes_per_game"] = memory_per_game()
    log(f"engine memory: {res['memory_bytes_per_game']:,.0f} bytes per game")
    aec_runs = {"ours env": aec.ours(args.players), "ours raw_env": aec.ours(args.players, raw=True)}
    if not args.skip_peers:
        try:
            aec_runs["leduc env"] = aec.pettingzoo_classic("leduc_holdem_v4")
            aec_runs["leduc raw_env"] = aec.pettingzoo_classic("leduc_holdem_v4", raw=True)
        except ImportError as e:
            log(f"leduc_holdem_v4: not installed ({e}); pip install -e '.[bench]'")
    runs: dict[str, list[float]] = {name: [] for name in aec_runs}
    for s in range(args.repeats):  # alternate, so that a noisy moment hits every env alike
        for name, fn in aec_runs.items():
            runs[name].append(aec.aec_steps_per_second(fn, args.seconds, s))
    for name, values in runs.items():
        res["aec"][name] = {"median": float(np.median(values)), "runs": values}
        log(f"AEC {name}: {res['aec'][name]['median']:,.0f} steps/s")
    if not args.skip_training:
        res["training"] = training.sb3_env_share(args.train_steps, num_envs=args.train_envs)
        # the same run with --no-shared-trunk: the two networks of before, for the ratio
        res["training_two_networks"] = training.sb3_env_share(
            args.train_steps, num_envs=args.train_envs, shared_trunk=False
        )
        for key, what in (("training", "shared trunk"), ("training_two_networks", "two networks")):
            log(
                f"MaskablePPO ({what}): {res[key]['steps_per_second']:,.0f} env steps/s, "
                f"env share {res[key]['env_share']:.1%}"
            )
    if not args.skip_compile:
        res["compile"] = compile_time.compile_times()
        log(
            f"compile: cold {res['compile']['cold']['total_s']:.1f} s (as installed), "
            f"{res['compile']['cold_without_prebuilt']['total_s']:.1f} s (no prebuilt cache), "
            f"warm {res['compile']['warm']['total_s']:.2f} s (fresh process to its first step)"
        )
    if not args.skip_peers:
        for name in PZ_PEERS:
            try:
                fn = aec.pettingzoo_classic(name)
            except ImportError as e:
                log(f"{name}: not installed ({e}); pip install -e '.[bench]'")
                continue
            res["peers"][f"pettingzoo {name}"] = median_of(
                lambda s, fn=fn: aec.aec_steps_per_second(fn, args.seconds, s), args.repeats
            )
            log(f"pettingzoo {name}: {res['peers'][f'pettingzoo {name}']['median']:,.0f} steps/s")
        for name in OS_PEERS:
            try:
                r = median_of(
                    lambda s, n=name: openspiel.openspiel_decisions_per_second(n, args.seconds, s), args.repeats
                )
            except ImportError as e:
                log(f"openspiel {name}: not installed ({e}); pip install -e '.[bench]'")
                continue
            res["peers"][f"openspiel {name}"] = r
            log(f"openspiel {name}: {r['median']:,.0f} decisions/s")
    res["seconds"] = time.perf_counter() - t0
    table = format_table(res)
    print("\n" + table)
    results, table_md, picture = (args.out / name for name in RESULT_FILES)
    write_text(results, json.dumps(res, indent=2))  # each atomic: a crash leaves a previous result whole
    write_text(table_md, table + "\n")
    plot(res, picture)
    print(f"\nwrote {results}, {table_md} and {picture}")
    return res


def format_table(res: dict) -> str:
    """Markdown tables: each of our figures and its ratio to each peer; one game; the AEC goals."""
    peers = {k: v["median"] for k, v in res["peers"].items()}
    rows = []
    for backend, by_batch in res["engine"].items():
        rows += [(f"engine ({backend}), batch {b}", r["median"], "decisions/s") for b, r in by_batch.items()]
    for name, r in res["aec"].items():
        if name.startswith("ours"):
            rows.append((f"AEC {name.removeprefix('ours ')}", r["median"], "steps/s"))
    if "training" in res:
        rows.append(("training env inside MaskablePPO", res["training"]["steps_per_second"], "env steps/s"))
    if "training_two_networks" in res:
        two = res["training_two_networks"]["steps_per_second"]
        rows.append(("the same, two networks (--no-shared-trunk)", two, "env steps/s"))
    head = "| ours | figure | " + " | ".join(f"÷ {k}" for k in peers) + " |"
    lines = [head, "|" + "---|" * (2 + len(peers))]
    for name, value, unit in rows:
        ratios = " | ".join(f"{value / v:.2f}x" for v in peers.values())
        lines.append(f"| {name} | {value:,.0f} {unit} | {ratios} |")
    lines += [
        "",
        "| one game (batch of 1) | core.step median | p90 | core.observe median | p90 |",
        "|---|---|---|---|---|",
    ]
    for backend, og in res["one_game"].items():
        lines.append(
            f"| {backend} | {og['step']['median_us']:.2f} us | {og['step']['p90_us']:.2f} us "
            f"| {og['observe']['median_us']:.2f} us | {og['observe']['p90_us']:.2f} us |"
        )
    aec_ = res["aec"]
    if "leduc env" in aec_:
        lines += ["", "| AEC, same loop, alternating runs | ours | leduc_holdem_v4 | ratio |", "|---|---|---|---|"]
        for kind in ("env", "raw_env"):
            ours, leduc = aec_[f"ours {kind}"]["median"], aec_[f"leduc {kind}"]["median"]
            lines.append(f"| {kind}() | {ours:,.0f} steps/s | {leduc:,.0f} steps/s | {ours / leduc:.2f}x |")
    lines += ["", "| peer | figure |", "|---|---|"]
    for k, v in peers.items():
        unit = "steps/s" if k.startswith("pettingzoo") else "decisions/s"
        lines.append(f"| {k} | {v:,.0f} {unit} |")
    lines.append("")
    lines.append(f"Engine memory: {res['memory_bytes_per_game']:,.0f} bytes per game.")
    if "training" in res:
        t = res["training"]
        lines.append(f"MaskablePPO ({t['timesteps']:,} steps): the env takes {t['env_share']:.1%} of the wall time.")
    if "training_two_networks" in res:
        two = res["training_two_networks"]
        lines.append(
            f"With two networks (--no-shared-trunk) the env takes {two['env_share']:.1%}; the shared trunk "
            f"trains {res['training']['steps_per_second'] / two['steps_per_second']:.2f}x as many steps per second."
        )
    if "compile" in res:
        c = res["compile"]
        lines.append(
            f"Compiled engine, a fresh process to its first step: cold (an empty cache, filled from "
            f"{'the prebuilt cache' if c.get('prebuilt') else 'nothing: this install has no prebuilt cache'}) "
            f"{c['cold']['total_s']:.1f} s, cold without the prebuilt cache "
            f"{c['cold_without_prebuilt']['total_s']:.1f} s, warm {c['warm']['total_s']:.2f} s "
            f"(of which importing aos_env {c['warm']['import_s']:.2f} s)."
        )
    return "\n".join(lines)


def plot(res: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, (backend, by_batch) in enumerate(res["engine"].items()):
        sizes = [int(b) for b in by_batch]
        ax.loglog(
            sizes,
            [by_batch[str(b)]["median"] for b in sizes],
            marker="o",
            lw=2,
            label=f"aos_env.core ({backend})",
            color=f"C{i}",
        )
    ax.axhline(res["aec"]["ours env"]["median"], color="k", ls=":", label="aos_env AEC env()")
    for i, (name, r) in enumerate(res["peers"].items()):
        ax.axhline(r["median"], color=f"C{i + 2}", ls="--", label=name)
    ax.set_xlabel("batch size (games per call)")
    ax.set_ylabel("decisions (steps) per second")
    ax.set_title("Random legal play, same machine, same run")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.tight_layout()
    with atomic_path(path) as tmp:  # the temporary name keeps the .png that tells matplotlib the format
        fig.savefig(tmp, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
