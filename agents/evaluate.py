"""Tournament between agents: ``python -m agents.evaluate --players 2 --games 1000 random greedy mc``.

Plays the games on the batched engine with seats rotated fairly (every
lineup in every seat order equally often), prints a table of win rates with
95% confidence intervals, Elo-style ratings, mean scores and seconds per
decision, and writes the same as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from aos_env import core

from .registry import make_agent
from .tournament import format_table, play_games, replays_of, summarise


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m agents.evaluate",
        description="Play a seeded tournament between agents and report win rates, confidence intervals and Elo.",
        epilog="Agent specs: random | greedy | mc | mc:rollouts=32,rollout_policy=random,max_rollout_turns=8 "
        "| path/to/model.zip (a policy saved by train.py). Give the same spec twice with a suffix such as "
        "'greedy#2' to enter two copies.",
    )
    p.add_argument("agents", nargs="+", help="two or more agent specs (see below)")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="players per game (default: 2)")
    p.add_argument("--games", type=int, default=1000, help="number of games (default: 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed for the games and the agents (default: 0)")
    p.add_argument("--batch", type=int, default=256,
                   help="games played at once on the batched engine (default: 256; lower it for mc)")
    p.add_argument("--max-turns", type=int, default=core.DEFAULT_MAX_TURNS,
                   help=f"turn limit per game, over all players (default: {core.DEFAULT_MAX_TURNS})")
    p.add_argument("--json", type=Path, default=Path("tournament.json"),
                   help="where to write the results as JSON (default: tournament.json)")
    p.add_argument("--no-progress", action="store_true", help="do not show a progress bar")
    p.add_argument("--replays", type=Path, default=None, metavar="DIR",
                   help="also write every game as a replay file, DIR/game_00000.json ... (view one with "
                   "python -m aos_env.replay FILE, or FILE --html OUT)")
    return p


def main(argv: list[str] | None = None) -> dict:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.replays is not None and args.replays.exists() and not args.replays.is_dir():
        parser.error(f"--replays: {args.replays} exists and is not a folder")
    if len(args.agents) < 2:
        sys.exit("give at least two agents")
    if args.games < 1:
        sys.exit("--games must be at least 1")
    names, agents = [], []
    for i, spec in enumerate(args.agents):
        base = spec.split("#")[0]
        name = spec if spec not in names else f"{spec}#{i}"
        names.append(name)
        agents.append(make_agent(base, seed=args.seed + 1000 * (i + 1)))
    t = time.perf_counter()
    res = play_games(agents, args.players, args.games, seed=args.seed, batch_size=args.batch,
                     max_turns=args.max_turns, progress=not args.no_progress, names=names,
                     record=args.replays is not None)
    summary = summarise(res)
    summary["seconds"] = time.perf_counter() - t
    summary["seed"] = args.seed
    summary["agent_specs"] = dict(zip(names, args.agents))
    print(format_table(summary))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(summary, indent=2))
    print(f"\nresults written to {args.json} ({summary['seconds']:.1f} s)")
    if args.replays is not None:
        for g, replay in enumerate(replays_of(res, summary["agent_specs"])):
            replay.save(args.replays / f"game_{g:05d}.json")
        print(f"{len(res.seeds)} replays written to {args.replays}/ (python -m aos_env.replay FILE shows one)")
    return summary


if __name__ == "__main__":
    main()
