"""Play many games between agents on the batched engine, and summarise the results.

``play_games`` runs games in batches: at every step each agent is asked, in
one call, for the actions of all games where one of its seats must choose.
``summarise`` turns the outcomes into win rates with 95% confidence
intervals, a head-to-head table and Elo-style ratings.

The command that runs a tournament is ``python -m agents.evaluation.evaluate``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from aos_env import core
from aos_env.base.checks import check_batch_memory, check_int, check_seeds, fail
from aos_env.core import PEAK_BYTES_PER_GAME as BYTES_PER_GAME

from ..players.base import act_on_state

#: Memory of one game's entry in Results (lineup, scores, winner, turns, seed; 4 players), and
#: the lineup being built.
RESULT_BYTES_PER_GAME = 2 * 8 * (2 * 4 + 3)
#: Most games one tournament plays: a billion games is weeks of play on this engine, and their
#: results alone would take 176 GB.
MAX_GAMES = 10**9


@dataclass
class Results:
    """Outcome of every game: lineup[g, p] is the agent index in seat p."""

    names: list[str]
    lineups: np.ndarray  # (G, P)
    winner_seat: np.ndarray  # (G,) -1 if truncated
    scores: np.ndarray  # (G, P)
    turns: np.ndarray  # (G,)
    seeds: np.ndarray  # (G,)
    decisions: dict = field(default_factory=dict)  # agent name -> [decisions, seconds]
    actions: list | None = None  # with play_games(record=True): per game, [(player, action id), ...] in order
    max_turns: int = core.DEFAULT_MAX_TURNS


def lineups_for(num_agents: int, num_players: int, games: int) -> np.ndarray:
    """(games, P) seatings, fair in seat and in neighbours.

    With at least P agents: every P-subset of agents in every order around the
    table (all P! permutations: not only who starts, but also who sits to
    whose right matters, since each player assists their right neighbour),
    equally often; games are spread over them in turn. With fewer agents than
    seats, agents fill the seats cyclically, again in every distinct order.
    """
    if num_agents >= num_players:
        groups = list(itertools.combinations(range(num_agents), num_players))
    else:
        groups = [tuple(i % num_agents for i in range(num_players))]
    base = [order for grp in groups for order in sorted(set(itertools.permutations(grp)))]
    return np.array([base[i % len(base)] for i in range(games)], dtype=np.int64)


def play_games(
    agents: list,
    num_players: int,
    games: int,
    seed: int = 0,
    batch_size: int = 256,
    max_turns: int = core.DEFAULT_MAX_TURNS,
    progress: bool = False,
    names: list[str] | None = None,
    record: bool = False,
) -> Results:
    """Play ``games`` games (seats from ``lineups_for``), ``batch_size`` at a time.

    ``record=True`` also keeps every game's actions (``Results.actions``), so that each game can be
    saved as a replay (``replays_of``). Game i plays seed ``seed + i``. Raises ValueError for bad
    arguments, before any game.
    """
    import time

    if not isinstance(agents, (list, tuple)) or not agents:
        raise fail("agents", "a non-empty list of agents", agents)
    for i, a in enumerate(agents):
        if not callable(getattr(a, "act", None)):
            raise fail(f"agents[{i}]", "an agent (with an act method)", a)
    num_players = check_int("num_players", num_players, 2, 4)
    games = check_int("games", games, 1, MAX_GAMES)
    check_batch_memory("games", games, RESULT_BYTES_PER_GAME)  # the results of all games stay in memory
    seeds = check_seeds("seed", seed, games)
    batch_size = check_int("batch_size", batch_size, 1)
    check_batch_memory("batch_size", min(batch_size, games), BYTES_PER_GAME)
    check_int("max_turns", max_turns, 1)
    if names is not None and (
        not isinstance(names, (list, tuple))
        or len(names) != len(agents)
        or len(set(names)) != len(names)
        or not all(isinstance(n, str) for n in names)
    ):
        raise fail("names", f"None or {len(agents)} different strings, one per agent", names)
    names = list(names or [getattr(a, "name", type(a).__name__) for a in agents])
    lineups = lineups_for(len(agents), num_players, games)
    winner_seat = np.full(games, -1)
    scores = np.zeros((games, num_players), dtype=np.int64)
    turns = np.zeros(games, dtype=np.int64)
    decisions = {n: [0, 0.0] for n in names}
    recorded: list[list[tuple[int, int]]] | None = [[] for _ in range(games)] if record else None
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=games, desc="games", unit="game")
    for start in range(0, games, batch_size):
        idx = np.arange(start, min(start + batch_size, games))
        state = core.init(idx.size, num_players, seed=seeds[idx], max_turns=max_turns)
        seat_agent = lineups[idx]
        finished = np.zeros(idx.size, dtype=bool)
        while True:
            over = state.terminated | state.truncated
            newly = over & ~finished
            if newly.any() and bar is not None:
                bar.update(int(newly.sum()))
            finished |= over
            live = np.nonzero(~over)[0]
            if not live.size:
                break
            actions = np.zeros(idx.size, dtype=np.int64)
            who = seat_agent[live, state.current_player[live]]
            for a, agent in enumerate(agents):
                games_a = live[who == a]
                if games_a.size:
                    t = time.perf_counter()
                    actions[games_a] = act_on_state(agent, state, games_a)
                    decisions[names[a]][0] += games_a.size
                    decisions[names[a]][1] += time.perf_counter() - t
            if recorded is not None:
                for g, p, a in zip(
                    idx[live].tolist(), state.current_player[live].tolist(), actions[live].tolist(), strict=True
                ):
                    recorded[g].append((p, a))
            core.step(state, actions)
        all_games = np.arange(idx.size)
        w = core.winners(state, all_games)
        winner_seat[idx] = np.where(state.terminated, w, -1)
        scores[idx] = core.final_scores(state)
        turns[idx] = state.turn
    if bar is not None:
        bar.close()
    return Results(names, lineups, winner_seat, scores, turns, seeds, decisions, recorded, max_turns)


def replays_of(res: Results, specs: dict[str, str] | None = None) -> list:
    """One ``aos_env.view.replay.Replay`` per game of ``play_games(..., record=True)``; ``specs`` maps
    agent names to the specs recorded as the players (default: the names)."""
    from aos_env.view.replay import Replay

    if res.actions is None:
        raise ValueError("these results hold no actions: play the games with play_games(..., record=True)")
    specs = specs or {}
    out = []
    for g, actions in enumerate(res.actions):
        players = [specs.get(res.names[a], res.names[a]) for a in res.lineups[g]]
        replay = Replay.start(
            int(res.seeds[g]), res.lineups.shape[1], res.max_turns, players=players, source="agents.evaluation.evaluate"
        )
        replay.actions = list(actions)
        replay.result = {
            "finished": True,
            "terminated": bool(res.winner_seat[g] >= 0),
            "truncated": bool(res.winner_seat[g] < 0),
            "final_scores": [int(x) for x in res.scores[g]],
            "winner": int(res.winner_seat[g]) if res.winner_seat[g] >= 0 else None,
            "turns": int(res.turns[g]),
        }
        out.append(replay)
    return out


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo_ratings(pair_wins: np.ndarray, prior: float = 0.5, iters: int = 2000) -> np.ndarray:
    """Bradley-Terry strengths from pairwise wins (A x A), as Elo-style ratings (mean 1500).

    ``prior`` adds that many virtual wins each way between every pair that
    met, so that an agent that never lost still gets a finite rating.
    """
    A = pair_wins.shape[0]
    w = pair_wins.astype(float)
    met = (w + w.T) > 0
    w = w + prior * met
    n = w + w.T
    s = np.ones(A)
    for _ in range(iters):
        denom = (n / (s[:, None] + s[None, :])).sum(1)
        new = np.where(denom > 0, w.sum(1) / np.maximum(denom, 1e-12), s)
        new = np.maximum(new, 1e-12)
        new /= math.exp(np.log(new).mean())
        if np.allclose(new, s, rtol=1e-10, atol=1e-12):
            s = new
            break
        s = new
    return 1500 + 400 * np.log10(s)


def summarise(res: Results) -> dict:
    """Win rates with 95% CIs, head-to-head win rates, Elo ratings and timing, per agent."""
    A = len(res.names)
    G, P = res.lineups.shape
    seat_results = np.zeros(A)
    seat_wins = np.zeros(A)
    score_sum = np.zeros(A)
    pair_wins = np.zeros((A, A))
    pair_games = np.zeros((A, A))
    for g in range(G):
        lineup, w = res.lineups[g], res.winner_seat[g]
        for p in range(P):
            seat_results[lineup[p]] += 1
            score_sum[lineup[p]] += res.scores[g, p]
        for p, q in itertools.permutations(range(P), 2):
            if lineup[p] != lineup[q]:
                pair_games[lineup[p], lineup[q]] += 1
        if w >= 0:
            seat_wins[lineup[w]] += 1
            for q in range(P):
                if lineup[q] != lineup[w]:
                    pair_wins[lineup[w], lineup[q]] += 1
    elo = elo_ratings(pair_wins)
    agents = {}
    for a, name in enumerate(res.names):
        lo, hi = wilson(seat_wins[a], int(seat_results[a]))
        made, secs = res.decisions.get(name, [0, 0.0])
        agents[name] = {
            "seats_played": int(seat_results[a]),
            "wins": int(seat_wins[a]),
            "win_rate": seat_wins[a] / max(seat_results[a], 1),
            "win_rate_ci95": [lo, hi],
            "mean_score": score_sum[a] / max(seat_results[a], 1),
            "elo": float(elo[a]),
            "decisions": int(made),
            "seconds_per_decision": secs / made if made else None,
        }
    wins_by_name = {res.names[a]: {res.names[b]: int(pair_wins[a, b]) for b in range(A) if b != a} for a in range(A)}
    head_to_head = {
        res.names[a]: {
            res.names[b]: (pair_wins[a, b] / pair_games[a, b] if pair_games[a, b] else None) for b in range(A) if b != a
        }
        for a in range(A)
    }
    return {
        "games": G,
        "players": P,
        "truncated": int((res.winner_seat < 0).sum()),
        "mean_turns": float(res.turns.mean()) if G else 0.0,
        "chance_win_rate": 1.0 / P,
        "agents": agents,
        "pair_wins": wins_by_name,  # games a won that b played in: the leaderboard pools these
        "head_to_head": head_to_head,
    }


def format_table(summary: dict) -> str:
    """A plain-text table of ``summarise``'s result."""
    lines = [
        f"{summary['games']} games, {summary['players']} players, {summary['truncated']} truncated, "
        f"{summary['mean_turns']:.1f} turns on average (chance win rate {summary['chance_win_rate']:.0%})",
        "",
        f"{'agent':<28} {'seats':>6} {'wins':>6} {'win rate':>9} {'95% CI':>16} {'score':>7} {'Elo':>6} {'ms/dec':>8}",
    ]
    for name, a in sorted(summary["agents"].items(), key=lambda kv: -kv[1]["elo"]):
        lo, hi = a["win_rate_ci95"]
        spd = a["seconds_per_decision"]
        lines.append(
            f"{name:<28} {a['seats_played']:>6} {a['wins']:>6} {a['win_rate']:>9.1%} {f'[{lo:.1%}, {hi:.1%}]':>16} "
            f"{a['mean_score']:>7.1f} {a['elo']:>6.0f} {(f'{1000 * spd:.3f}' if spd is not None else '-'):>8}"
        )
    names = list(summary["agents"])
    if len(names) > 1:
        lines += ["", "head to head (row's wins against column, per game where both played):"]
        lines.append(" " * 28 + "".join(f"{n[:12]:>13}" for n in names))
        for a in names:
            row = summary["head_to_head"][a]
            cells = "".join(f"{'-':>13}" if b == a or row.get(b) is None else f"{row[b]:>13.1%}" for b in names)
            lines.append(f"{a:<28}{cells}")
    return "\n".join(lines)
