"""The league with ``--backend rllib``: :class:`RLlibLearner` is the league's
:class:`~agents.league.trainer.Learner` for an ``RLlibTrainer``. Its pool is every env runner's:
members join as bot files sent over Ray (so a league reaches every runner of a cluster), weights
and departures are broadcast, and the runners' ended games come back to the driver
(``RLlibTrainer.take_games``) for the league's results.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from aos_env.envs.opponents import OpponentPool


class RLlibLearner:
    """The league's side of an ``RLlibTrainer`` (``trainer``); ``pool``: the opponents the runners
    started with (their names and weights); ``players``: the table size."""

    snapshot_suffix = ".npz"  # a snapshot is a bot file, as the runners play it

    def __init__(self, trainer: Any, pool: OpponentPool, players: int) -> None:
        self.trainer, self.players = trainer, players
        self._weights = dict(pool.weights())  # the runners' pools, as the driver last set them

    @property
    def timesteps(self) -> int:
        return int(self.trainer.timesteps)

    def frozen(self, seed: int) -> Any:
        return self.trainer.agent(deterministic=False, seed=seed)

    def save_snapshot(self, path: Path) -> None:
        self.trainer.save_bot(
            path, info={"trained_by": "train.py --backend rllib --league", "timesteps": self.timesteps}
        )

    def save_bot(self, path: Path) -> None:
        self.save_snapshot(path)  # a snapshot is a bot file already

    def add_snapshot(self, name: str, path: Path, weight: float, seed: int) -> None:
        self.add(name, path, weight, seed)  # the bot file just saved: the runners play bot files

    def add(self, name: str, path: Path, weight: float, seed: int, agent: Any = None) -> None:
        """``path``: a bot file (a snapshot) or a model file (an exploiter), sent as a bot file."""
        self.trainer.update_opponents(add=(name, bot_file_bytes(Path(path), self.players), weight, seed))
        self._weights[name] = weight

    def remove(self, name: str) -> None:
        self.trainer.update_opponents(remove=(name,))
        self._weights.pop(name, None)

    def set_weights(self, weights: dict[str, float]) -> None:
        self.trainer.update_opponents(weights=weights)
        self._weights.update(weights)

    def weights(self) -> dict[str, float]:
        return dict(self._weights)


def bot_file_bytes(path: Path, players: int) -> bytes:
    """The bytes of a bot file of ``path``: a bot file as it is, a model file (.zip) exported first."""
    if path.suffix == ".npz":
        return path.read_bytes()
    from agents.files.export import export

    with tempfile.TemporaryDirectory() as folder:
        return export(path, Path(folder) / "member.npz", players).read_bytes()
