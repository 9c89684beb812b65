"""Play Age of Summoners in the terminal against the bots.

    python -m aos_env.play --players 3 --opponents greedy,mc

Each time you must choose, the table is shown from your seat with your
legal actions numbered; type a number (or ``q`` to quit). The bots' moves are
printed as they happen. Input is read from standard input, so a game can
also be scripted.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

import numpy as np

from . import core
from .checks import MAX_SEED, int_arg, seed_arg
from .env import raw_env
from .render import agent_name, describe_action, legal_actions_text, render_text


BOT_SEED_STEP = 17  # the bot in seat p plays with seed + 17 * (p + 1)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m aos_env.play",
        description="Play Age of Summoners in the terminal against bots.",
    )
    p.add_argument("--players", type=int_arg(2, 4), default=2, help="number of players, 2..4 (default: 2)")
    p.add_argument("--opponents", default="greedy",
                   help="comma-separated bot specs for the other seats, cycled if fewer than needed: "
                   "random, greedy, mc, mc:rollouts=32, or a model .zip from train.py (default: greedy)")
    p.add_argument("--seat", type=int_arg(0), default=0, help="your seat, 0..players-1 (default: 0)")
    p.add_argument("--seed", type=seed_arg, default=None, help="game seed, 0..2**63-1 (default: random)")
    p.add_argument("--max-turns", type=int_arg(1), default=core.DEFAULT_MAX_TURNS,
                   help=f"turn limit over all players (default: {core.DEFAULT_MAX_TURNS})")
    return p


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
        if text.isascii() and text.isdigit() and 1 <= int(text) <= len(options):  # not "²": isdigit() takes it
            return options[int(text) - 1][0]
        print(f"  '{line.strip()}' is not one of the choices: type a number from 1 to {len(options)}.", file=out)


def main(argv: list[str] | None = None, inp: TextIO | None = None, out: TextIO | None = None) -> int:
    from agents import act_on_env, make_agent  # the bots live in the agents package

    parser = build_parser()
    args = parser.parse_args(argv)
    inp, out = inp or sys.stdin, out or sys.stdout
    P = args.players
    if not 0 <= args.seat < P:
        parser.error(f"argument --seat: must be an int 0..{P - 1} with --players {P}, got {args.seat}")
    specs = [s.strip() for s in args.opponents.split(",") if s.strip()]
    if not specs:
        parser.error(f"argument --opponents: needs at least one bot spec, got {args.opponents!r}")
    if args.seed is not None and args.seed > MAX_SEED - BOT_SEED_STEP * P:
        parser.error(f"argument --seed: must be at most {MAX_SEED - BOT_SEED_STEP * P} (the bots use seeds up to "
                     f"seed+{BOT_SEED_STEP * P}), got {args.seed}")
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
    bots = {}
    others = [p for p in range(P) if p != args.seat]
    for i, p in enumerate(others):
        spec = specs[i % len(specs)]
        try:
            bots[p] = (spec, make_agent(spec, seed=seed + BOT_SEED_STEP * (p + 1)))
        except (ValueError, FileNotFoundError) as e:
            parser.error(f"argument --opponents: {e}")
    env = raw_env(num_players=P, max_turns=args.max_turns)
    env.reset(seed=seed)
    me = agent_name(args.seat)
    print(f"Age of Summoners, seed {seed}. You are {me}; "
          + ", ".join(f"{agent_name(p)} is {spec}" for p, (spec, _) in bots.items()) + ".", file=out)
    for agent in env.agent_iter():
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        state = env.state
        p = env.agent_name_mapping[agent]
        if agent == me:
            print("\n" + render_text(state, 0, args.seat), file=out)
            choice = ask(legal_actions_text(state, 0), inp, out)
            if choice is None:
                print("Goodbye.", file=out)
                return 1
            print(f"You: {describe_action(state, 0, choice)}", file=out)
            env.step(choice)
        else:
            spec, bot = bots[p]
            action = act_on_env(bot, env)
            print(f"{agent} ({spec}): {describe_action(state, 0, action)}", file=out)
            env.step(action)
    state = env.state
    print("\n" + render_text(state, 0, args.seat), file=out)
    if state.truncated[0]:
        print("The game reached the turn limit: nobody wins.", file=out)
    else:
        winner = int(core.winners(state)[0])
        print("You win!" if winner == args.seat else f"{agent_name(winner)} wins.", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
