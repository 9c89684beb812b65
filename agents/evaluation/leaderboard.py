"""A leaderboard across tournaments: pairwise results pooled over runs, Elo ratings with 95% CIs.

    python -m agents.evaluation.evaluate --players 2 --games 1000 bot greedy mc --leaderboard runs/leaderboard.json

Each run of ``agents.evaluation.evaluate`` with ``--leaderboard FILE`` adds its pairwise wins (per agent spec,
per table size) to ``FILE`` (JSON) and rewrites ``FILE`` with ``.md`` for ``.json``: one table per
player count, agents ranked by Elo. Ratings are Bradley-Terry strengths on every pair's wins (a
truncated game counts for neither), shown on the Elo scale with the mean at 1500; the 95% interval
comes from a parametric bootstrap: each pair's wins redrawn from a binomial with the observed win
rate, the ratings refitted, the 2.5th and 97.5th percentiles kept. Ratings of different table
sizes are not comparable, so each size has its own table.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import numpy as np

from aos_env.base.checks import ArgumentError
from aos_env.base.files import atomic_path, same_file

from .matches import elo_ratings

FORMAT, VERSION = "aos-leaderboard", 1
BOOTSTRAP = 200  # refits for the confidence intervals
PAIR_SEPARATOR = _SEP = " vs "  # between the two agents of a pair's key
PLAYER_COUNTS = ("2", "3", "4")  # the tables' keys


def empty() -> dict:
    return {"format": FORMAT, "version": VERSION, "tables": {}, "runs": []}


def load(path: Path) -> dict:
    """The leaderboard in ``path``, or an empty one if the file does not exist."""
    path = Path(path)
    if not path.exists():
        return empty()
    try:
        board = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ArgumentError(
            f"leaderboard {str(path)!r} is not a leaderboard file: {type(e).__name__}: {str(e)[:80]}"
        ) from None
    if not isinstance(board, dict) or board.get("format") != FORMAT or board.get("version") != VERSION:
        raise ArgumentError(f"leaderboard {str(path)!r} is not a {FORMAT} file of version {VERSION}")
    problem = _board_problem(board)
    if problem:
        raise ArgumentError(f"leaderboard {str(path)!r}: {problem}")
    return board


def _board_problem(board: dict) -> str:
    """What is wrong with a leaderboard's tables and runs ("" if nothing): each table a player count
    2..4 with pairs "a vs b" (names in order) of two win counts >= 0; runs a list of objects."""
    tables, runs = board.get("tables"), board.get("runs")
    if not isinstance(tables, dict) or not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
        return "'tables' must be an object and 'runs' a list of objects"
    for size, table in tables.items():
        if size not in PLAYER_COUNTS or not isinstance(table, dict) or not isinstance(table.get("pairs"), dict):
            return f"table {size[:20]!r} must be a player count ({', '.join(PLAYER_COUNTS)}) holding 'pairs'"
        for key, wins in table["pairs"].items():
            names = key.split(_SEP)
            if len(names) != 2 or not all(names) or names[0] >= names[1]:
                return f"pair {key[:60]!r} must be two agents 'a{_SEP}b', a before b"
            if not (
                isinstance(wins, list)
                and len(wins) == 2
                and all(isinstance(w, int) and not isinstance(w, bool) and w >= 0 for w in wins)
            ):
                return f"pair {key[:60]!r} must hold two win counts >= 0, got {wins!r:.60}"
    return ""


def add_run(board: dict, summary: dict, specs: dict[str, str]) -> dict:
    """Add a tournament's pairwise wins (``summary["pair_wins"]`` by agent name) under their specs
    (a copy's suffix, as in ``greedy#2``, is dropped: copies are the same agent)."""
    P = str(summary["players"])
    table = board["tables"].setdefault(P, {"pairs": {}})
    names = list(summary["agents"])
    wins = summary["pair_wins"]
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            sa, sb = specs.get(a, a).split("#")[0], specs.get(b, b).split("#")[0]
            if sa == sb:
                continue  # two copies of one agent say nothing about its rating
            key, flip = (sa + _SEP + sb, False) if sa < sb else (sb + _SEP + sa, True)
            w_ab, w_ba = wins[a][b], wins[b][a]
            have = table["pairs"].setdefault(key, [0, 0])
            have[0] += w_ba if flip else w_ab
            have[1] += w_ab if flip else w_ba
    board["runs"].append(
        {
            "date": _dt.date.today().isoformat(),
            "players": int(P),
            "games": summary["games"],
            "agents": [specs.get(n, n).split("#")[0] for n in names],
            "seed": summary.get("seed"),
        }
    )
    return board


def ratings(table: dict, bootstrap: int = BOOTSTRAP, seed: int = 0) -> list[dict]:
    """Agents of one table ranked by Elo: name, elo, ci95, games (won or lost), wins."""
    agents = sorted({n for key in table["pairs"] for n in key.split(_SEP)})
    index = {a: i for i, a in enumerate(agents)}
    A = len(agents)
    w = np.zeros((A, A))
    for key, (ab, ba) in table["pairs"].items():
        a, b = key.split(_SEP)
        w[index[a], index[b]] += ab
        w[index[b], index[a]] += ba
    elo = elo_ratings(w)
    rng = np.random.default_rng(seed)
    n = w + w.T
    p = np.divide(w, n, out=np.zeros_like(w), where=n > 0)
    draws = np.empty((bootstrap, A))
    for i in range(bootstrap):
        upper = np.triu(rng.binomial(n.astype(np.int64), p), 1)  # resample each pair once (i < j)
        resampled = upper + np.triu(n, 1).T - upper.T  # j's wins over i are the rest of their games
        np.fill_diagonal(resampled, 0)
        draws[i] = elo_ratings(resampled)
    lo, hi = np.percentile(draws, [2.5, 97.5], axis=0)
    rows = [
        {
            "agent": a,
            "elo": float(elo[i]),
            "ci95": [float(lo[i]), float(hi[i])],
            "games": int(n[i].sum()),
            "wins": int(w[i].sum()),
        }
        for i, a in enumerate(agents)
    ]
    return sorted(rows, key=lambda r: -r["elo"])


def markdown(board: dict) -> str:
    """The leaderboard as Markdown: one ranked table per player count."""
    lines = [
        "# Leaderboard",
        "",
        "Elo ratings (Bradley-Terry on pairwise wins, mean 1500) with 95% bootstrap intervals, pooled over "
        f"{len(board['runs'])} tournament runs of `python -m agents.evaluation.evaluate --leaderboard`. Games counts "
        "the decided games between rated agents (a truncated game counts for neither).",
    ]
    for P in sorted(board["tables"], key=int):
        rows = ratings(board["tables"][P])
        lines += [
            "",
            f"## {P} players",
            "",
            "| rank | agent | Elo | 95% CI | decided games | wins |",
            "|---|---|---|---|---|---|",
        ]
        for r, row in enumerate(rows, 1):
            lo, hi = row["ci95"]
            lines.append(
                f"| {r} | `{row['agent']}` | {row['elo']:.0f} | [{lo:.0f}, {hi:.0f}] | {row['games']:,} "
                f"| {row['wins']:,} |"
            )
    return "\n".join(lines) + "\n"


def update(path: Path, summary: dict, specs: dict[str, str]) -> Path:
    """Add a run to the leaderboard file ``path`` and rewrite its Markdown beside it; returns that path."""
    path = Path(path)
    md = path.with_suffix(".md")
    if same_file(md, path):
        raise ArgumentError(f"leaderboard {str(path)!r}: its table is written beside it with .md; give a .json path")
    board = add_run(load(path), summary, specs)
    board_text, table_text = json.dumps(board, indent=1), markdown(board)  # both made before either is written
    # each written to a temporary file and renamed into place: a crash or a full disk leaves the previous ones whole
    with atomic_path(path) as board_tmp, atomic_path(md) as table_tmp:
        board_tmp.write_text(board_text, encoding="utf-8")
        table_tmp.write_text(table_text, encoding="utf-8")
    return md
