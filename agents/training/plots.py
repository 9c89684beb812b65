"""The learning curve of a run: ``learning_curve.png``, the win rate against each baseline over
the training steps, with 95% confidence bands."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from aos_env.base.files import atomic_path


def plot_curve(history: list[dict], path: Path, baselines: list[str], backend: str = "sb3") -> None:
    """Win rate against each baseline vs timesteps, with 95% confidence bands."""
    # A bare Figure draws with Agg by itself: no pyplot, so the caller's backend (a notebook's
    # inline plots, a GUI) is left as it was; matplotlib.use("Agg") here turned a notebook's plots off
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    for spec in baselines:
        pts = [(h["timesteps"], h["results"][spec]) for h in history if spec in h["results"]]
        if not pts:
            continue
        t = np.array([p[0] for p in pts])
        w = np.array([p[1]["win_rate"] for p in pts])
        lo = np.array([p[1]["ci95"][0] for p in pts])
        hi = np.array([p[1]["ci95"][1] for p in pts])
        ax.plot(t, w, marker="o", label=f"vs {spec}")
        ax.fill_between(t, lo, hi, alpha=0.2)
    ax.set_xlabel("learner decisions (timesteps)")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(("RLlib PPO" if backend == "rllib" else "MaskablePPO") + " on Age of Summoners")
    fig.tight_layout()
    with atomic_path(path) as tmp:  # a full disk leaves the previous curve whole
        fig.savefig(tmp, dpi=120, format=Path(path).suffix.lstrip(".") or "png")
