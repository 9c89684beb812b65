"""Tournament between agents: ``python -m agents.evaluation.evaluate --players 2 --games 1000 random greedy mc``.

Plays the games on the batched engine with seats rotated fairly (every
lineup in every seat order equally often), prints a table of win rates with
95% confidence intervals, Elo-style ratings, mean scores and seconds per
decision, and writes the same as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path

from aos_env import core
from aos_env.base.checks import (
    MAX_SEED,
    ArgumentError,
    check_batch_memory,
    check_output_file,
    check_output_folder,
    int_arg,
    seed_arg,
)
from aos_env.base.cli import printable
from aos_env.base.files import same_file
from aos_env.base.outputs import OVERWRITE_FLAG, check_output, existing, write_output
from aos_env.core import PEAK_BYTES_PER_GAME as BYTES_PER_GAME
from aos_env.core.api import MAX_MAX_TURNS

from ..players.bot import SHIPPED, SHIPPED_V2
from ..registry import NAMES, SPEC_HELP, make_agent, parse_spec
from .matches import MAX_GAMES, RESULT_BYTES_PER_GAME, format_table, play_games, replays_of, summarise

#: Where the results go without --json (or the first of NAME-2.json, NAME-3.json, ... that is free).
DEFAULT_JSON = Path("tournament.json")
#: How the replays of --replays are named: game i is REPLAY_NAME.format(i).
REPLAY_NAME = "game_{:05d}.json"
_REPLAY_FILE = re.compile(r"game_([0-9]{5,})\.json")


def build_parser(prog: str = "python -m agents.evaluation.evaluate") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Play a seeded tournament between agents and report win rates, confidence intervals and Elo.",
        epilog=f"Agent specs: {SPEC_HELP}. Give the same spec twice with a suffix such as 'greedy#2' to enter "
        "two copies.",
    )
    p.add_argument("agents", nargs="+", help="two or more agent specs (see below)")
    p.add_argument("--players", type=int_arg(2, 4), default=2, help="players per game, 2..4 (default: 2)")
    p.add_argument(
        "--games", type=int_arg(1, MAX_GAMES), default=1000, help=f"number of games, 1..{MAX_GAMES:,} (default: 1000)"
    )
    p.add_argument(
        "--seed",
        type=seed_arg,
        default=0,
        help="seed for the games and the agents, 0..2**63-1 (default: 0); games play seeds seed..seed+games-1",
    )
    p.add_argument(
        "--batch",
        type=int_arg(1),
        default=256,
        help="games played at once on the batched engine (default: 256; lower it for mc)",
    )
    p.add_argument(
        "--max-turns",
        type=int_arg(1, MAX_MAX_TURNS),
        default=core.DEFAULT_MAX_TURNS,
        help=f"turn limit per game, over all players (default: {core.DEFAULT_MAX_TURNS})",
    )
    p.add_argument(
        "--json",
        type=Path,
        default=None,
        help=f"where to write the results as JSON (default: {DEFAULT_JSON} in the current folder, or "
        f"{DEFAULT_JSON.stem}-2.json, ... if that exists: an earlier run's results are never replaced)",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace existing output files: --json, the replays in --replays, and a file beside the "
        "leaderboard at its table's path that is not its table",
    )
    p.add_argument(
        "--replays",
        type=Path,
        default=None,
        metavar="DIR",
        help="also write every game as a replay file, DIR/game_00000.json ... (view one with "
        "python -m aos_env.view.replay FILE, or FILE --html OUT)",
    )
    p.add_argument(
        "--leaderboard",
        type=Path,
        default=None,
        metavar="FILE",
        help="also add the pairwise results to this leaderboard (JSON, pooled over runs) and write its "
        "table of Elo ratings with 95%% intervals beside it (FILE with .md)",
    )
    p.add_argument("--no-progress", action="store_true", help="do not show a progress bar")
    return p


AGENT_SEED_STEP = 1000  # agent i plays with seed + 1000 * (i + 1)


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[list[str], list]:
    """Everything argparse cannot check alone, before any game is played or file written;
    a problem is a usage error (``parser.error``). Returns the agents' names and the agents."""
    if len(args.agents) < 2:
        parser.error(f"give at least two agents, got {len(args.agents)}: {' '.join(args.agents)}")
    try:
        check_batch_memory("--games", args.games, RESULT_BYTES_PER_GAME)
        check_batch_memory("--batch", min(args.batch, args.games), BYTES_PER_GAME)
    except ArgumentError as e:
        parser.error(str(e))
    last_seed = args.seed + max(args.games - 1, AGENT_SEED_STEP * len(args.agents))
    if last_seed > MAX_SEED:
        parser.error(
            f"argument --seed: must be at most {MAX_SEED - (last_seed - args.seed)} here (the games "
            f"and agents use seeds up to seed+{last_seed - args.seed}, each at most 2**63-1), "
            f"got {args.seed}"
        )
    try:
        if args.json is None:
            args.json = free_path(DEFAULT_JSON)
    except ArgumentError as e:
        parser.error(str(e))
    check_outputs(parser, args)  # an output that is an input first: the more telling message
    try:
        check_output("--json", args.json, args.overwrite)
        if args.replays is not None:
            check_output_folder("--replays", args.replays)
            check_replays_free(args.replays, args.games, args.overwrite)
        if args.leaderboard is not None:
            from .leaderboard import PAIR_SEPARATOR, check_table_path, load

            check_output_file("--leaderboard", args.leaderboard)
            load(args.leaderboard)
            check_table_path(args.leaderboard, args.overwrite)
            for spec in args.agents:
                if PAIR_SEPARATOR in spec:  # the leaderboard keys its pairs "a vs b"
                    raise ArgumentError(
                        f"--leaderboard: agent spec {spec!r} contains {PAIR_SEPARATOR!r}, which "
                        "the leaderboard uses between the two agents of a pair"
                    )
    except ArgumentError as e:
        parser.error(str(e))
    names, agents = [], []
    for i, spec in enumerate(args.agents):
        base = spec.split("#")[0]
        name = spec if spec not in names else f"{spec}#{i}"
        names.append(name)
        try:
            agents.append(make_agent(base, seed=args.seed + AGENT_SEED_STEP * (i + 1)))
        except (ValueError, FileNotFoundError) as e:
            parser.error(str(e))
    return names, agents


def free_path(path: Path, most: int = 10_000) -> Path:
    """``path`` if nothing is there, else the first free of ``stem-2.suffix``, ``stem-3.suffix``, ..."""
    for i in range(1, most + 1):
        candidate = path if i == 1 else path.with_name(f"{path.stem}-{i}{path.suffix}")
        if not existing(candidate):
            return candidate
    raise ArgumentError(f"--json: {path} and {most - 1} numbered files beside it exist; give --json PATH")


def check_replays_free(folder: Path, games: int, overwrite: bool) -> None:
    """The replays a run of ``games`` games would write into ``folder`` must not be there yet (an
    earlier run's), unless ``overwrite``."""
    if overwrite or not folder.is_dir():
        return
    taken = sorted(n for n in os.listdir(folder) if (m := _REPLAY_FILE.fullmatch(n)) and int(m[1]) < games)
    if taken:
        raise ArgumentError(
            f"--replays: {str(folder)!r} already holds {len(taken):,} of the replays this run would write "
            f"({', '.join(taken[:3])}{', ...' if len(taken) > 3 else ''}), an earlier run's; give "
            f"{OVERWRITE_FLAG} to replace them, or another folder"
        )


def agent_files(specs: list[str]) -> list[Path]:
    """The files the agents are read from: those the specs name (models, bot files) and the shipped
    bot files (``bot``, ``bot-v2``, ``search`` and the bot-guided searches read them)."""
    files = [*SHIPPED.values(), *SHIPPED_V2.values()]
    for spec in specs:
        try:
            name, _ = parse_spec(spec)
        except ArgumentError:
            continue  # make_agent reports it
        if name not in NAMES:
            files.append(Path(name))
    return files


def check_outputs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """No output is an input or another output: --json, the leaderboard and its table, the replays
    (REPLAY_NAME in --replays) and the agent files must all be different files."""
    outputs: list[tuple[str, Path]] = [("--json", args.json)]
    if args.leaderboard is not None:
        table = args.leaderboard.with_suffix(".md")
        if same_file(table, args.leaderboard):
            parser.error(
                f"argument --leaderboard: its table is written beside it, as the same path with .md: give "
                f"a .json path, got {str(args.leaderboard)!r}"
            )
        outputs += [("--leaderboard", args.leaderboard), ("--leaderboard's table", table)]
    for i, (what, path) in enumerate(outputs):
        for other, earlier in outputs[:i]:
            if same_file(path, earlier):
                parser.error(f"argument {what}: {str(path)!r} is also {other}; give another path")
        for model in agent_files(args.agents):
            if same_file(path, model):
                parser.error(f"argument {what}: {str(path)!r} is an agent file of this tournament; give another path")
        replay = _REPLAY_FILE.fullmatch(path.name)
        if args.replays is not None and replay and int(replay[1]) < args.games and same_file(path.parent, args.replays):
            parser.error(
                f"argument {what}: {str(path)!r} is the replay of game {int(replay[1])} (--replays); give another path"
            )


def main(argv: list[str] | None = None, prog: str = "python -m agents.evaluation.evaluate") -> dict:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    names, agents = check_args(parser, args)
    rated = {}
    if args.leaderboard is not None:  # the files' hashes taken before the games: two files at one path differ
        from .leaderboard import rated_name

        rated = {name: rated_name(spec) for name, spec in zip(names, args.agents, strict=True)}
    t = time.perf_counter()
    res = play_games(
        agents,
        args.players,
        args.games,
        seed=args.seed,
        batch_size=args.batch,
        max_turns=args.max_turns,
        progress=not args.no_progress,
        names=names,
        record=args.replays is not None,
    )
    summary = summarise(res)
    summary["seconds"] = time.perf_counter() - t
    summary["seed"] = args.seed
    summary["agent_specs"] = dict(zip(names, args.agents, strict=True))
    print(printable(format_table(summary)))  # names are specs, which may name files: no escape sequences
    # atomic, and without --overwrite never over a file that appeared while the games were played
    write_output(args.json, json.dumps(summary, indent=2), args.overwrite, "--json")
    print(f"\nresults written to {args.json} ({summary['seconds']:.1f} s)")
    if args.leaderboard is not None:
        from .leaderboard import update

        md = update(args.leaderboard, summary, rated, overwrite=args.overwrite)
        print(f"leaderboard updated: {args.leaderboard} (table: {md})")
    if args.replays is not None:
        from aos_env.view.explain import weigh_replay  # each policy's probabilities and value, per decision

        for g, replay in enumerate(replays_of(res, summary["agent_specs"])):
            weigh_replay(replay, [agents[a] for a in res.lineups[g]])
            text = json.dumps(replay.to_dict(), separators=(",", ":")) + "\n"  # as Replay.save writes it
            write_output(args.replays / REPLAY_NAME.format(g), text, args.overwrite, "--replays")
        print(f"{len(res.seeds)} replays written to {args.replays}/ (python -m aos_env.view.replay FILE shows one)")
    return summary


if __name__ == "__main__":
    from aos_env.base.cli import run_cli

    run_cli(main, "python -m agents.evaluation.evaluate")
