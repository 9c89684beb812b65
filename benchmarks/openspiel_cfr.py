"""Tabular OpenSpiel algorithms on ``aos_env.integrations.openspiel.TABULAR_GAME``: NashConv curves
of CFR and external-sampling MCCFR, with their timings: ``python -m benchmarks.openspiel_cfr``.

Writes ``<out>/openspiel_cfr.json`` (NashConv after each measured iteration, seconds spent in the
algorithm and in NashConv) and ``<out>/openspiel_cfr.png`` (the curves; docs/ecosystem.md shows it).
Iterations are measured at powers of two. Seeds are fixed, so a rerun gives the same curves.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from aos_env.base.checks import ArgumentError, check_output_folder, int_arg
from aos_env.base.files import atomic_path, write_text

DEFAULT_OUT = Path("benchmarks/results")
DEFAULT_CFR_ITERATIONS = 32
DEFAULT_MCCFR_ITERATIONS = 1024
MCCFR_SEED = 0


def _checkpoints(last: int) -> list[int]:
    """1, 2, 4, ... up to ``last`` (and ``last`` itself)."""
    out, i = [], 1
    while i < last:
        out.append(i)
        i *= 2
    return out + [last]


def run(cfr_iterations: int, mccfr_iterations: int, game_string: str | None = None) -> dict:
    """NashConv curves and timings of CFR and external-sampling MCCFR on the tabular game."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import cfr, exploitability
    from open_spiel.python.algorithms import external_sampling_mccfr as es

    from aos_env.integrations import openspiel as aos_os

    game_string = game_string or aos_os.TABULAR_GAME
    game = pyspiel.load_game(game_string)
    res: dict = {"game": game_string}

    t0 = time.perf_counter()
    solver = cfr.CFRSolver(game)
    res["cfr_setup_s"] = time.perf_counter() - t0
    res["info_states"] = len(solver._info_state_nodes)
    curve, spent, nc_spent, done = [], 0.0, 0.0, 0
    for it in _checkpoints(cfr_iterations):
        t0 = time.perf_counter()
        while done < it:
            solver.evaluate_and_update_policy()
            done += 1
        spent += time.perf_counter() - t0
        t0 = time.perf_counter()
        curve.append([it, float(exploitability.nash_conv(game, solver.average_policy()))])
        nc_spent += time.perf_counter() - t0
        print(f"CFR {it:>5} iterations: NashConv {curve[-1][1]:.4f} ({spent:.1f} s)", flush=True)
    res["cfr"] = {"curve": curve, "seconds_per_iteration": spent / done, "nash_conv_seconds": nc_spent / len(curve)}

    np.random.seed(MCCFR_SEED)  # external sampling draws from numpy's global generator
    t0 = time.perf_counter()
    solver = es.ExternalSamplingSolver(game, es.AverageType.SIMPLE)
    setup = time.perf_counter() - t0
    curve, spent, done = [], setup, 0
    for it in _checkpoints(mccfr_iterations):
        t0 = time.perf_counter()
        while done < it:
            solver.iteration()
            done += 1
        spent += time.perf_counter() - t0
        curve.append([it, float(exploitability.nash_conv(game, solver.average_policy()))])
        print(f"MCCFR {it:>5} iterations: NashConv {curve[-1][1]:.4f} ({spent:.1f} s)", flush=True)
    res["mccfr_external"] = {"curve": curve, "seconds_per_iteration": (spent - setup) / done, "setup_s": setup}
    return res


def plot(res: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for key, label in (("cfr", "CFR"), ("mccfr_external", "external-sampling MCCFR")):
        its, nc = zip(*res[key]["curve"], strict=True)
        ax.loglog(its, nc, marker="o", label=label)
    ax.set_xlabel("iterations")
    ax.set_ylabel("NashConv of the average policy")
    ax.set_title("Age of Summoners, TABULAR_GAME (OpenSpiel)")
    ax.grid(alpha=0.3, which="both")
    ax.legend()
    fig.tight_layout()
    with atomic_path(path) as tmp:  # the temporary name keeps the .png that tells matplotlib the format
        fig.savefig(tmp, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.openspiel_cfr", description=__doc__.split("\n")[0])
    parser.add_argument("--cfr-iterations", type=int_arg(1, 100_000), default=DEFAULT_CFR_ITERATIONS)
    parser.add_argument("--mccfr-iterations", type=int_arg(1, 10_000_000), default=DEFAULT_MCCFR_ITERATIONS)
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="folder for the json and the png")
    args = parser.parse_args(argv)
    try:
        out = check_output_folder("--out", args.out)
    except ArgumentError as e:
        parser.error(str(e))
    res = run(args.cfr_iterations, args.mccfr_iterations)
    write_text(out / "openspiel_cfr.json", json.dumps(res, indent=1) + "\n")
    plot(res, out / "openspiel_cfr.png")
    print(f"wrote {out / 'openspiel_cfr.json'} and {out / 'openspiel_cfr.png'}", file=sys.stderr)
    return res


if __name__ == "__main__":
    main()
