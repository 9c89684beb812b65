"""Play Age of Summoners against the bots, in the terminal or in the browser.

    python -m aos_env.apps.play --players 3 --opponents greedy,mc
    python -m aos_env.apps.play --web --port 8000 --opponents mc

Each time you must choose, the table is shown from your seat with your
legal actions numbered; type a number (or ``q`` to quit). The bots' moves are
printed as they happen. Input is read from standard input, so a game can
also be scripted. ``--web`` serves the same game as a page on localhost
(see ``aos_env.apps.web``). Every game is saved as a replay in ``--replays DIR``
(default ``replays/``): ``python -m aos_env.view.replay FILE`` shows it.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from pathlib import Path
from typing import TextIO

import numpy as np

from .. import core
from ..base import registry
from ..base.checks import MAX_SEED, ArgumentError, float_arg, int_arg, seed_arg
from ..envs.aec import raw_env
from ..view.render import (
    agent_name,
    consequences,
    describe_action,
    describe_seen,
    legal_actions_text,
    neighbours,
    render_text,
    safe_terminal,
)
from ..view.replay import check_replay_folder, new_replay_path
from ..view.table import END_RULE, action_notes

DEFAULT_REPLAYS = Path("replays")
BOT_SEED_STEP = 17  # the bot in seat p plays with seed + 17 * (p + 1)
INTERRUPTED = 130  # exit status after Ctrl-C (the shell's 128 + SIGINT)
MAX_CHOICE_DIGITS = 3  # a choice is a number 1..44 at most
#: The bots the browser page offers for a new game, besides those given with --opponents.
WEB_OPPONENTS = ("random", "greedy", "mc", "bot")


def build_parser() -> argparse.ArgumentParser:
    SPEC_HELP = registry.spec_help()  # the agents package loads only when needed

    p = argparse.ArgumentParser(
        prog="python -m aos_env.apps.play",
        description="Play Age of Summoners against bots, in the terminal or (--web) in the browser.",
    )
    p.add_argument("--players", type=int_arg(2, 4), default=2, help="number of players, 2..4 (default: 2)")
    p.add_argument(
        "--opponents",
        default="greedy",
        help="comma-separated bot specs for the other seats, cycled if fewer than needed: "
        f"{SPEC_HELP} (default: greedy)",
    )
    p.add_argument("--seat", type=int_arg(0), default=0, help="your seat, 0..players-1 (default: 0)")
    p.add_argument(
        "--seed",
        type=seed_arg,
        default=None,
        help="game seed, 0..2**63-1 (default: random; with --web, the seed of the first game)",
    )
    p.add_argument(
        "--max-turns",
        type=int_arg(1),
        default=core.DEFAULT_MAX_TURNS,
        help=f"turn limit over all players (default: {core.DEFAULT_MAX_TURNS})",
    )
    p.add_argument(
        "--replays",
        type=Path,
        default=DEFAULT_REPLAYS,
        metavar="DIR",
        help=f"folder where each game is saved as a replay file (default: {DEFAULT_REPLAYS}/)",
    )
    p.add_argument("--no-replays", action="store_true", help="do not save replays")
    web = p.add_argument_group("browser play")
    web.add_argument(
        "--web", action="store_true", help="serve the game as a page on localhost instead of playing in the terminal"
    )
    web.add_argument(
        "--port",
        type=int_arg(0, 65535),
        default=8000,
        help="port of the page, 0..65535 (default: 8000; 0: any free port)",
    )
    web.add_argument(
        "--delay",
        type=float_arg(0.0),
        default=0.6,
        help="seconds the page pauses before each bot move, so you can follow them (default: 0.6)",
    )
    web.add_argument("--open", action="store_true", help="open the page in your web browser")
    return p


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """Check the options (parser.error on a bad one); returns the bot specs."""
    from ..base.registry import make_agent

    P = args.players
    if not 0 <= args.seat < P:
        parser.error(f"argument --seat: must be an int 0..{P - 1} with --players {P}, got {args.seat}")
    specs = [s.strip() for s in args.opponents.split(",") if s.strip()]
    if not specs:
        parser.error(
            f"argument --opponents: needs at least one bot spec (e.g. greedy or random,mc), got {args.opponents!r}"
        )
    for spec in dict.fromkeys(specs):
        try:
            make_agent(spec, seed=0)
        except (ValueError, TypeError, FileNotFoundError) as e:
            parser.error(f"argument --opponents: {e}")
    if args.seed is not None and args.seed > max_game_seed(P):
        parser.error(
            f"argument --seed: must be at most {max_game_seed(P)} (the bots use seeds up to "
            f"seed+{BOT_SEED_STEP * P}), got {args.seed}"
        )
    if not args.no_replays:
        try:  # before the game: a replay that cannot be saved is found now, not at the end of the game
            check_replay_folder("--replays", args.replays)
        except ArgumentError as e:
            parser.error(f"argument --replays: {str(e).removeprefix('--replays ')}")
    return specs


def max_game_seed(players: int) -> int:
    """The largest seed of a game with ``players`` players: its bots play with seeds up to 17 * players above it."""
    return MAX_SEED - BOT_SEED_STEP * players


def bots_for(specs: list[str], players: int, seat: int):
    """seed -> {seat: (spec, agent)} for the seats other than ``seat``, the specs cycled."""
    from ..base.registry import make_agent

    def make(seed: int) -> dict:
        others = [p for p in range(players) if p != seat]
        return {
            p: (specs[i % len(specs)], make_agent(specs[i % len(specs)], seed=seed + BOT_SEED_STEP * (p + 1)))
            for i, p in enumerate(others)
        }

    return make


def with_notes(state, seat: int) -> list[tuple[int, str]]:
    """The legal actions in words, each with what a newcomer should know (cost, what an action does,
    a warning before declaring while behind), as the browser page shows them."""
    out = []
    for a, text in legal_actions_text(state, 0):
        notes = action_notes(state, a, seat)
        extra = "; ".join(n for n in (notes.get("detail"), notes.get("warn") and "WARNING: " + notes["warn"]) if n)
        out.append((a, f"{text} ({extra})" if extra else text))
    return out


def ask(options: list[tuple[int, str]], inp: TextIO, out: TextIO) -> int | None:
    """Show numbered options, read a choice; repeat on bad input. None means quit."""
    for i, (_, words) in enumerate(options, 1):
        print(f"  {i:>2}. {words}", file=out)
    while True:
        print(f"Your choice (1-{len(options)}, q to quit): ", end="", file=out, flush=True)
        line = inp.readline()
        if not line:
            return None  # end of input
        text = line.strip().lower()
        if text in ("q", "quit", "exit"):
            return None
        # ascii: not "²" (isdigit() takes it); short: int() refuses a line of thousands of digits
        if text.isascii() and text.isdigit() and len(text) <= MAX_CHOICE_DIGITS and 1 <= int(text) <= len(options):
            return options[int(text) - 1][0]
        shown = line.strip()
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        print(f"  '{shown}' is not one of the choices: type a number from 1 to {len(options)}.", file=out)


def main(argv: list[str] | None = None, inp: TextIO | None = None, out: TextIO | None = None) -> int:
    from ..base.registry import act_on_env  # the bots live in the agents package

    parser = build_parser()
    args = parser.parse_args(argv)
    inp, out = inp or sys.stdin, safe_terminal(out or sys.stdout)  # no escape sequences from card or bot names
    specs = check_args(parser, args)
    P = args.players
    replays = None if args.no_replays else args.replays
    if args.web:
        from .web import Session, make_server, serve

        session = Session(
            P,
            args.seat,
            bots_for(specs, P, args.seat),
            args.max_turns,
            replays,
            seed=args.seed,
            delay=args.delay,
            max_seed=max_game_seed(P),
            configure=lambda players, seat, chosen: bots_for(chosen, players, seat),
            opponent_choices=WEB_OPPONENTS,
            opponents=specs,
        )
        try:
            server = make_server(session, port=args.port)
        except OSError as e:
            parser.error(
                f"--port {args.port}: cannot listen there ({e.strerror or e}); "
                "choose another port, or 0 for any free one"
            )
        return serve(session, open_browser=args.open, out=out, server=server)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    bots = bots_for(specs, P, args.seat)(seed)
    env = raw_env(num_players=P, max_turns=args.max_turns, record_replay=replays is not None)
    env.reset(seed=seed)
    players = ["human" if p == args.seat else bots[p][0] for p in range(P)]
    me = agent_name(args.seat)
    left, right = neighbours(args.seat, P)
    print(
        f"Age of Summoners, seed {seed}. You are {me}; "
        + ", ".join(f"{agent_name(p)} is {spec}" for p, (spec, _) in bots.items())
        + f". Play passes to your left neighbour, {agent_name(left)}; the card you do not keep goes to your "
        f"right neighbour, {agent_name(right)}. {END_RULE}",
        file=out,
    )
    try:
        for agent in env.agent_iter():
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            state = env.engine_state
            before = state.copy()  # the env plays on in place: the position before, to say what changed
            p = env.agent_name_mapping[agent]
            if agent == me:
                print("\n" + render_text(state, 0, args.seat), file=out)
                choice = ask(with_notes(state, args.seat), inp, out)
                if choice is None:
                    _save_replay(env, replays, seed, players, out)
                    print("Goodbye.", file=out)
                    return 1
                print(f"You: {describe_action(state, 0, choice)}", file=out)
                env.step(choice)
            else:
                spec, bot = bots[p]
                action = act_on_env(bot, env)
                print(f"{agent} ({spec}): {describe_seen(state, 0, action, args.seat)}", file=out)
                env.step(action)
            for line in consequences(before, env.engine_state, 0, args.seat):
                print(f"    then {line}", file=out)
    except KeyboardInterrupt:  # Ctrl-C: the game so far is kept, as when quitting with q
        print("\nStopped.", file=out)
        _save_replay(env, replays, seed, players, out)
        return INTERRUPTED
    state = env.engine_state
    print("\n" + render_text(state, 0, args.seat), file=out)
    if state.truncated[0]:
        print("The game reached the turn limit: nobody wins.", file=out)
    else:
        winner = int(np.argmax(state.rewards[0]))  # the winner alone gets +1 (R7.4 tie-break included)
        print("You win!" if winner == args.seat else f"{agent_name(winner)} wins.", file=out)
    return 0 if _save_replay(env, replays, seed, players, out) else 1


def _save_replay(env: raw_env, folder: Path | None, seed: int, players: list[str], out: TextIO) -> bool:
    """Save the game's replay in ``folder`` (if any); False if it could not be written (said on ``out``)."""
    if folder is None or not env.replay().actions:
        return True
    path = new_replay_path(folder, seed)
    try:
        env.save_replay(path, players=players)
    except (OSError, ArgumentError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        print(f"The replay could not be saved to {path} ({reason}).", file=out)
        return False
    print(f"Replay saved to {path} (python -m aos_env.view.replay {path} --html game.html)", file=out)
    return True


if __name__ == "__main__":
    sys.exit(main())
