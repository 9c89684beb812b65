"""The learning curve of a run: ``learning_curve.png``, the win rate against each anchor over
the training steps, with 95% confidence bands."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from aos_env.base.files import atomic_path


def plot_curve(history: list[dict], path: Path, anchors: list[str], backend: str = "sb3") -> None:
    """Win rate against each anchor vs timesteps, with 95% confidence bands: a line through the
    evaluations during training (the choosing games) and, at the end, a point with its interval
    for the final games (history entries of kind ``final``)."""
    # A bare Figure draws with Agg by itself: no pyplot, so the caller's backend (a notebook's
    # inline plots, a GUI) is left as it was; matplotlib.use("Agg") here turned a notebook's plots off
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    for spec in anchors:
        pts = [
            (h["timesteps"], h["results"][spec]) for h in history if spec in h["results"] and h.get("kind") != "final"
        ]
        ends = [
            (h["timesteps"], h["results"][spec]) for h in history if spec in h["results"] and h.get("kind") == "final"
        ]
        if not pts and not ends:
            continue
        color = None
        if pts:
            t = np.array([p[0] for p in pts])
            w = np.array([p[1]["win_rate"] for p in pts])
            lo = np.array([p[1]["ci95"][0] for p in pts])
            hi = np.array([p[1]["ci95"][1] for p in pts])
            (line,) = ax.plot(t, w, marker="o", label=f"vs {spec}")
            ax.fill_between(t, lo, hi, alpha=0.2, color=line.get_color())
            color = line.get_color()
        for t_end, r in ends:  # the final games: the figure to report, apart from the choosing ones
            err = [[r["win_rate"] - r["ci95"][0]], [r["ci95"][1] - r["win_rate"]]]
            ax.errorbar([t_end], [r["win_rate"]], yerr=err, fmt="s", color=color, capsize=4, markersize=7)
    if any(h.get("kind") == "final" for h in history):
        ax.plot([], [], "s", color="gray", label="final games")
    ax.set_xlabel("learner decisions (timesteps)")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(("RLlib PPO" if backend == "rllib" else "MaskablePPO") + " on Age of Summoners")
    fig.tight_layout()
    with atomic_path(path) as tmp:  # a full disk leaves the previous curve whole
        fig.savefig(tmp, dpi=120, format=Path(path).suffix.lstrip(".") or "png")
