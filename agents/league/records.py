"""The league's files in the run folder: ``league.json`` (the state that ``--resume`` continues),
``league.png`` (the learner's win rate against each member and its Elo over the training steps)
and ``league/`` (the learned members' weights, one model or bot file each). Every file is written to a
temporary name and renamed into place."""

from __future__ import annotations

import json
from pathlib import Path

from aos_env.base.files import atomic_path, write_text

from .state import League

LEAGUE_FILE = "league.json"
LEAGUE_PLOT = "league.png"
#: The learned members' files: league/self-<steps>.zip (.npz with RLlib), league/exploiter-<steps>.zip.
MEMBERS_FOLDER = "league"
#: What the league adds to a run folder (``--overwrite`` deletes them with the rest).
LEAGUE_FILES = (LEAGUE_FILE, LEAGUE_PLOT, MEMBERS_FOLDER)


def member_file(kind: str, t: int, suffix: str = ".zip") -> str:
    """A learned member's file, relative to the run folder (no '@': a path with '@' would read as a
    spec@weight in ``--opponents``); ``suffix``: .zip (a model file) or .npz (a bot file)."""
    return f"{MEMBERS_FOLDER}/{'self' if kind == 'snapshot' else kind}-{t}{suffix}"


def save_league(league: League, run_dir: Path) -> Path:
    """Write league.json (atomically) and league.png."""
    path = write_text(Path(run_dir) / LEAGUE_FILE, json.dumps(league.to_dict(), indent=1))
    plot_league(league, Path(run_dir) / LEAGUE_PLOT)
    return path


def read_league(run_dir: Path) -> dict | None:
    """The saved state of the run's league (None if it has none: a run without --league)."""
    path = Path(run_dir) / LEAGUE_FILE
    if not path.is_file():
        return None
    return json.loads(path.read_text())


def plot_league(league: League, path: Path) -> None:
    """Above: the learner's recent win rate against each member over the steps (dashed: chance);
    below: its Elo against the anchor member with the 95% interval."""
    from matplotlib.figure import Figure  # a bare Figure draws with Agg: the caller's backend is left alone

    fig = Figure(figsize=(8, 6))
    top, bottom = fig.subplots(2, 1, sharex=True)
    names: list[str] = []
    for h in league.history:
        names += [n for n in h["win_rates"] if n not in names]
    for name in names:
        pts = [(h["t"], h["win_rates"][name]) for h in league.history if h["win_rates"].get(name) is not None]
        if pts:
            top.plot([p[0] for p in pts], [p[1] for p in pts], label=name, lw=1.2)
    top.axhline(1 / league.players, color="grey", ls="--", lw=0.8)
    top.set_ylim(0, 1)
    top.set_ylabel("learner's win rate")
    top.grid(alpha=0.3)
    if top.get_legend_handles_labels()[0]:
        top.legend(fontsize=7, ncol=2)
    marks = [h for h in league.history if h.get("elo") is not None]
    if marks:
        t = [h["t"] for h in marks]
        bottom.plot(t, [h["elo"] for h in marks], color="C0")
        bottom.fill_between(t, [h["elo_ci95"][0] for h in marks], [h["elo_ci95"][1] for h in marks], alpha=0.2)
    bottom.axhline(0, color="grey", ls="--", lw=0.8)
    bottom.set_ylabel(f"Elo vs {league.anchor or '-'}")
    bottom.set_xlabel("learner decisions (timesteps)")
    bottom.grid(alpha=0.3)
    fig.suptitle("the league: PFSP " + league.mode)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
