"""All benchmarks in one run, beside the peers measured in the same run: ``python -m benchmarks``.

Measures, each as the median of ``--repeats`` runs (the machine is noisy):

- the batched engine under random legal play, decisions/s at several batch
  sizes, and its memory per game;
- the PettingZoo AEC env, steps/s;
- the training env inside MaskablePPO: env steps/s and the env's share of wall time;
- peers: PettingZoo's leduc_holdem_v4, texas_holdem_v4 and connect_four_v3
  (AEC, same loop as ours) and OpenSpiel's hearts and hanabi (C++).

Prints a table with ratios to each peer and writes ``results.json`` and
``throughput.png`` into ``--out``. Install the peers with
``pip install -e ".[bench]"``.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from . import aec, engine_throughput, openspiel, training
from .engine_throughput import median_of

PZ_PEERS = ["leduc_holdem_v4", "texas_holdem_v4", "connect_four_v3"]
OS_PEERS = ["hearts", "hanabi"]


def memory_per_game(batch: int = 4096, players: int = 4) -> float:
    """Bytes of engine state per game (every array of the State, P = 4)."""
    from aos_env import core

    state = core.init(batch, players, seed=0)
    total = sum(v.nbytes for v in vars(state).values() if isinstance(v, np.ndarray))
    return total / batch


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 4096, 16384],
                   help="engine batch sizes")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="players per game for our engine/env")
    p.add_argument("--seconds", type=float, default=3.0, help="length of one timed run")
    p.add_argument("--repeats", type=int, default=5, help="runs per figure; the median is reported")
    p.add_argument("--train-steps", type=int, default=200_000, help="MaskablePPO timesteps for the env-share figure")
    p.add_argument("--train-envs", type=int, default=1024, help="parallel games of the training env (train.py's default)")
    p.add_argument("--skip-training", action="store_true", help="leave out the MaskablePPO measurement")
    p.add_argument("--skip-peers", action="store_true", help="leave out PettingZoo and OpenSpiel")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: short runs, one repeat, small batches (figures are rough)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"), help="folder for results.json and the plot")
    return p


def main(argv: list[str] | None = None) -> dict:
    args = build_parser().parse_args(argv)
    if args.quick:
        args.seconds, args.repeats, args.train_steps = 0.3, 1, 4096
        args.train_envs = 64
        args.batches = [b for b in args.batches if b <= 1024] or [1]
    args.out.mkdir(parents=True, exist_ok=True)
    res: dict = {"machine": {"python": platform.python_version(), "processor": platform.processor(),
                             "machine": platform.machine()},
                 "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
                 "engine": {}, "peers": {}}
    t0 = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t0:6.0f} s] {msg}", flush=True)

    for b in args.batches:
        r = median_of(lambda s, b=b: engine_throughput.measure(b, args.players, args.seconds, seed=s), args.repeats)
        res["engine"][str(b)] = r
        log(f"engine batch {b}: {r['median']:,.0f} decisions/s")
    res["memory_bytes_per_game"] = memory_per_game()
    log(f"engine memory: {res['memory_bytes_per_game']:,.0f} bytes per 4-player game")
    res["aec"] = median_of(lambda s: aec.aec_steps_per_second(aec.ours(args.players), args.seconds, s), args.repeats)
    log(f"AEC env: {res['aec']['median']:,.0f} steps/s")
    if not args.skip_training:
        res["training"] = training.sb3_env_share(args.train_steps, num_envs=args.train_envs)
        log(f"MaskablePPO: {res['training']['steps_per_second']:,.0f} env steps/s, "
            f"env share {res['training']['env_share']:.1%}")
    if not args.skip_peers:
        for name in PZ_PEERS:
            try:
                fn = aec.pettingzoo_classic(name)
            except ImportError as e:
                log(f"{name}: not installed ({e}); pip install -e '.[bench]'")
                continue
            res["peers"][f"pettingzoo {name}"] = median_of(lambda s, fn=fn: aec.aec_steps_per_second(fn, args.seconds, s),
                                                           args.repeats)
            log(f"pettingzoo {name}: {res['peers'][f'pettingzoo {name}']['median']:,.0f} steps/s")
        for name in OS_PEERS:
            try:
                r = median_of(lambda s, n=name: openspiel.openspiel_decisions_per_second(n, args.seconds, s),
                              args.repeats)
            except ImportError as e:
                log(f"openspiel {name}: not installed ({e}); pip install -e '.[bench]'")
                continue
            res["peers"][f"openspiel {name}"] = r
            log(f"openspiel {name}: {r['median']:,.0f} decisions/s")
    res["seconds"] = time.perf_counter() - t0
    table = format_table(res)
    print("\n" + table)
    (args.out / "results.json").write_text(json.dumps(res, indent=2))
    (args.out / "table.md").write_text(table + "\n")
    plot(res, args.out / "throughput.png")
    print(f"\nwrote {args.out / 'results.json'}, {args.out / 'table.md'} and {args.out / 'throughput.png'}")
    return res


def format_table(res: dict) -> str:
    """Markdown table: each of our figures, and its ratio to each peer."""
    peers = {k: v["median"] for k, v in res["peers"].items()}
    rows = [(f"engine, batch {b}", r["median"], "decisions/s") for b, r in res["engine"].items()]
    rows.append(("AEC env (PettingZoo API)", res["aec"]["median"], "steps/s"))
    if "training" in res:
        rows.append(("training env inside MaskablePPO", res["training"]["steps_per_second"], "env steps/s"))
    head = "| ours | figure | " + " | ".join(f"÷ {k}" for k in peers) + " |"
    lines = [head, "|" + "---|" * (2 + len(peers))]
    for name, value, unit in rows:
        ratios = " | ".join(f"{value / v:.2f}x" for v in peers.values())
        lines.append(f"| {name} | {value:,.0f} {unit} | {ratios} |")
    lines.append("")
    lines.append("| peer | figure |")
    lines.append("|---|---|")
    for k, v in peers.items():
        unit = "steps/s" if k.startswith("pettingzoo") else "decisions/s"
        lines.append(f"| {k} | {v:,.0f} {unit} |")
    lines.append("")
    lines.append(f"Engine memory: {res['memory_bytes_per_game']:,.0f} bytes per game (4 players).")
    if "training" in res:
        t = res["training"]
        lines.append(f"MaskablePPO ({t['timesteps']:,} steps): the env takes {t['env_share']:.1%} of the wall time.")
    return "\n".join(lines)


def plot(res: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    sizes = [int(b) for b in res["engine"]]
    ax.loglog(sizes, [res["engine"][str(b)]["median"] for b in sizes], marker="o", lw=2, label="aos_env.core (batched)")
    ax.axhline(res["aec"]["median"], color="k", ls=":", label="aos_env AEC env")
    for i, (name, r) in enumerate(res["peers"].items()):
        ax.axhline(r["median"], color=f"C{i + 1}", ls="--", label=name)
    ax.set_xlabel("batch size (games per call)")
    ax.set_ylabel("decisions (steps) per second")
    ax.set_title("Random legal play, same machine, same run")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
