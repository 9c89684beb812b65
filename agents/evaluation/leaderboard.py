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

import argparse
import datetime as _dt
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from aos_env.base.checks import ArgumentError
from aos_env.base.cli import printable
from aos_env.base.files import atomic_path, same_file
from aos_env.base.outputs import OVERWRITE_FLAG, check_output, describe, existing, write_output

from .matches import elo_ratings

FORMAT, VERSION = "aos-leaderboard", 1
BOOTSTRAP = 200  # refits for the confidence intervals
PAIR_SEPARATOR = _SEP = " vs "  # between the two agents of a pair's key
PLAYER_COUNTS = ("2", "3", "4")  # the tables' keys
#: The most wins one pair may record: far above any tournament (evaluate plays at most MAX_GAMES a
#: run), and small enough that the bootstrap's int64 counts cannot overflow.
MAX_WINS = 10**12
#: The first line of every table this module writes: a file beside the leaderboard that does not
#: start so (a user's own notes) is not replaced without --overwrite.
TABLE_TITLE = "# Leaderboard"
_TABLE_INTRO = "Elo ratings (Bradley-Terry"
#: The length of the content hash a file agent is rated under (hex digits of its SHA-256).
HASH_DIGITS = 12


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
                and all(isinstance(w, int) and not isinstance(w, bool) and 0 <= w <= MAX_WINS for w in wins)
            ):
                return f"pair {key[:60]!r} must hold two win counts 0..{MAX_WINS:,} (MAX_WINS), got {wins!r:.60}"
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
        TABLE_TITLE,
        "",
        f"{_TABLE_INTRO} on pairwise wins, mean 1500) with 95% bootstrap intervals, pooled over "
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


def rated_name(spec: str) -> str:
    """The name an agent spec is rated under: the spec, and for an agent read from a file (a model or
    a bot file) the start of the file's SHA-256, so that two different files at one path (a bot
    trained again into the same folder) are rated apart and one file under two paths together."""
    from ..registry import NAMES, parse_spec

    base = spec.split("#")[0]
    try:
        name, _ = parse_spec(base)
    except ArgumentError:
        return base
    if name in NAMES or not Path(name).is_file():
        return base
    digest = hashlib.sha256()
    with open(name, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return f"{base} (sha256:{digest.hexdigest()[:HASH_DIGITS]})"


def is_table(path: Path) -> bool:
    """True if ``path`` is a table this module wrote (a file whose first lines are its title)."""
    try:
        with open(path, encoding="utf-8") as f:
            head = f.read(len(TABLE_TITLE) + 2 + len(_TABLE_INTRO))
    except (OSError, UnicodeDecodeError):
        return False
    return head == f"{TABLE_TITLE}\n\n{_TABLE_INTRO}"


def table_path(path: Path) -> Path:
    """Where the Markdown table of the leaderboard ``path`` is written: beside it, with ``.md``."""
    path = Path(path)
    md = path.with_suffix(".md")
    if same_file(md, path):
        raise ArgumentError(f"leaderboard {str(path)!r}: its table is written beside it with .md; give a .json path")
    return md


def check_table_path(path: Path, overwrite: bool = False) -> Path:
    """The table's path, checked: anything there that is not a table of a leaderboard (a user's
    notes, a link) is replaced only with ``overwrite``."""
    md = table_path(path)
    if existing(md) and not overwrite and (md.is_symlink() or not is_table(md)):
        raise ArgumentError(
            f"--leaderboard: its table is written beside it, at {str(md)!r}, which exists ({describe(md)}) and "
            f"is not a leaderboard table; give {OVERWRITE_FLAG} to replace it, or another leaderboard path"
        )
    return md


def update(path: Path, summary: dict, specs: dict[str, str], overwrite: bool = False) -> Path:
    """Add a run to the leaderboard file ``path`` and rewrite its Markdown beside it; returns that path.
    A file at the table's path that is not a table is replaced only with ``overwrite``."""
    path = Path(path)
    md = check_table_path(path, overwrite)
    board = add_run(load(path), summary, specs)
    board_text, table_text = json.dumps(board, indent=1), markdown(board)  # both made before either is written
    # each written to a temporary file and renamed into place: a crash or a full disk leaves the previous ones whole
    with atomic_path(path) as board_tmp, atomic_path(md) as table_tmp:
        board_tmp.write_text(board_text, encoding="utf-8")
        table_tmp.write_text(table_text, encoding="utf-8")
    return md


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.evaluation.leaderboard FILE``: print a leaderboard's tables (ratings with
    95% intervals); ``--markdown OUT`` also writes them."""
    p = argparse.ArgumentParser(
        prog="python -m agents.evaluation.leaderboard",
        description="Show a leaderboard that python -m agents.evaluation.evaluate --leaderboard FILE "
        "pools runs into: Elo ratings with 95%% intervals, one table per player count.",
    )
    p.add_argument("leaderboard", type=Path, help="the leaderboard file (JSON) to show")
    p.add_argument("--markdown", type=Path, default=None, metavar="OUT", help="also write the tables to OUT")
    p.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    args = p.parse_args(argv)
    if not Path(args.leaderboard).is_file():
        p.error(f"argument leaderboard: no such file: {str(args.leaderboard)!r}")
    try:
        board = load(args.leaderboard)
        if args.markdown is not None:
            check_output("--markdown", args.markdown, args.overwrite)
    except ArgumentError as e:
        p.error(str(e))
    text = markdown(board)
    print(printable(text), end="")  # agent names come from the file: no escape sequences reach the terminal
    if args.markdown is not None:
        write_output(args.markdown, text, args.overwrite, "--markdown")
        print(f"written to {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    from aos_env.base.cli import run_cli

    run_cli(main, "python -m agents.evaluation.leaderboard")
