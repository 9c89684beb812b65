"""Which games each evaluation plays, and the best model.

The evaluations during training (and the first one, before training) *choose*: they all play the
same games, seeds ``EVAL_SEED + i * ANCHOR_STRIDE + g`` for game ``g`` against anchor ``i``, so two
models are compared on the same deals, and the one with the highest :func:`score` is kept as the
run's best model. The final evaluation *reports*: it plays games that no choice has seen, seeds
:func:`final_seed` ``(seed) + i * ANCHOR_STRIDE + g``, which follow ``--seed``
(``FINAL_EVAL_SEED + seed * FINAL_SEED_STRIDE``). The choosing games lie in
``[EVAL_SEED, FINAL_EVAL_SEED)`` and the final ones at ``FINAL_EVAL_SEED`` and above, so the two
never share a game, whatever the seed; a best model's final figure is therefore not inflated by
its choice (the highest of many noisy scores on the choosing games is).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

#: The first seed of the choosing games (every evaluation during training plays these).
EVAL_SEED = 10_000_000
#: Seeds between two anchors' games: an evaluation plays at most this many games per anchor.
ANCHOR_STRIDE = 1_000_000
#: Anchors an evaluation may have: the choosing games of all of them fit below FINAL_EVAL_SEED.
MAX_ANCHORS = 10
#: The first seed of the final games (``--seed 0``; the value every run used before 0.5.0).
FINAL_EVAL_SEED = EVAL_SEED + MAX_ANCHORS * ANCHOR_STRIDE
#: Seeds between the final games of two consecutive ``--seed`` values.
FINAL_SEED_STRIDE = MAX_ANCHORS * ANCHOR_STRIDE
#: An evaluation's kind in history.json: chooses the best model, or reports on the final games.
CHOOSE, FINAL = "choose", "final"


def final_seed(seed: int) -> int:
    """The base seed of the final evaluation of a run with ``--seed seed``."""
    return FINAL_EVAL_SEED + seed * FINAL_SEED_STRIDE


def anchor_seed(base: int, index: int) -> int:
    """The first game seed against the ``index``-th anchor of an evaluation with base ``base``."""
    return base + index * ANCHOR_STRIDE


def score(result: Mapping[str, Mapping]) -> float:
    """A model's score in one evaluation: its mean win rate over the anchors, each anchor weighing
    the same (a win rate per anchor is in ``result``, as ``Run.evaluate`` returns it)."""
    rates = [float(r["win_rate"]) for r in result.values()]
    return sum(rates) / len(rates) if rates else 0.0


@dataclass
class BestModel:
    """The best model so far: the training step it was saved at and its :func:`score` on the
    choosing games. :meth:`offer` takes each choosing evaluation in turn; on a tie the later model
    wins (it has trained longer at the same score)."""

    timesteps: int | None = None
    score: float = -1.0

    def offer(self, timesteps: int, result: Mapping[str, Mapping]) -> bool:
        """Whether the model evaluated at ``timesteps`` is the new best (then it is recorded)."""
        s = score(result)
        if self.timesteps is not None and s < self.score:
            return False
        self.timesteps, self.score = timesteps, s
        return True

    @classmethod
    def from_history(cls, history: list[dict], timesteps: int | None) -> BestModel:
        """The best of a resumed run: its choosing evaluations' best, if that is the model saved at
        ``timesteps`` (the best model file's steps; None: no such file, the choice starts anew)."""
        best = cls()
        if timesteps is None:
            return best
        for h in history:
            if h.get("kind") == CHOOSE:
                best.offer(h["timesteps"], h["results"])
        return best if best.timesteps == timesteps else cls()

    def info(self) -> dict | None:
        """summary.json's account of the choice (None before any choosing evaluation)."""
        if self.timesteps is None:
            return None
        return {"timesteps": self.timesteps, "score": self.score}


def best_file_steps(path: Path) -> int | None:
    """The training steps a best model file records (None: no file, or none recorded)."""
    if not path.is_file():
        return None
    if path.suffix == ".zip":
        from agents.files.sb3_file import saved_timesteps

        return saved_timesteps(path)
    from agents.files.bot_file import read_bot_file

    try:
        steps = read_bot_file(path, str(path))[0].get("info", {}).get("timesteps")
    except Exception:  # an unreadable file: the choice starts anew (and replaces it)
        return None
    return steps if isinstance(steps, int) else None
