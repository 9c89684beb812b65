"""The league inside a trainer: the trainer calls :class:`LeagueRun`, which keeps the
:class:`~agents.league.state.League` and applies it to the opponents of the learner's games through a
:class:`Learner`: :class:`SB3Learner` (the env's ``OpponentPool`` in this process) or the RLlib
trainer's (``agents.training.rllib``: every env runner's pool, sent over Ray).

- the games that ended count for the members they were played against (:meth:`LeagueRun.record`,
  from the infos, or :meth:`LeagueRun.record_games`, from the names);
- at each rollout's end the PFSP weights go to the pool and the figures to TensorBoard
  (``league/winrate/<name>``, ``league/elo``, ``league/pool_size``);
- every ``--snapshot-every`` steps a snapshot joins (saved to ``league/self-<steps>.zip``, or
  ``.npz`` with RLlib), every ``--exploiter-every`` steps an exploiter is trained and may join
  (``agents.league.exploiters``);
- ``save`` writes ``league.json`` and ``league.png`` (at each evaluation and at the end), and a
  run resumed with ``--resume`` takes its league back (:meth:`LeagueRun.resume`).
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from agents.registry import spec_file
from aos_env.base.checks import ArgumentError
from aos_env.envs.opponents import OpponentPool

from .exploiters import EXPLOITER_EVAL_SEED, MakeExploiter, exploiter_seed, joins, play_exploiter, train_ppo_exploiter
from .records import member_file, read_league, save_league
from .state import LEARNED, League

#: The separator of the opponents' names in an ended game's info (aos_env.envs.learner.Ended).
_NAMES_SEP = ", "


class Learner(Protocol):
    """What the league needs of a trainer: the learner's steps, a frozen copy of it, its weights as a
    file, and the opponent pool of its games (wherever that pool lives)."""

    #: The file suffix of a snapshot (``save_snapshot``'s format).
    snapshot_suffix: str

    @property
    def timesteps(self) -> int: ...

    def frozen(self, seed: int) -> Any:
        """The learner now, as a sampling agent (an exploiter's target)."""

    def save_snapshot(self, path: Path) -> None:
        """Write the learner's weights to ``path``."""

    def save_bot(self, path: Path) -> None:
        """Write the learner's weights to ``path`` as a bot file (what an exploiter starts from)."""

    def add_snapshot(self, name: str, path: Path, weight: float, seed: int) -> None:
        """The learner as it is now joins the pool (its weights were just saved to ``path``)."""

    def add(self, name: str, path: Path, weight: float, seed: int, agent: Any = None) -> None:
        """A member joins the pool: its weights are the file ``path`` (``agent``: it, already built)."""

    def remove(self, name: str) -> None:
        """Stop drawing ``name`` (the games it plays keep it until they end)."""

    def set_weights(self, weights: dict[str, float]) -> None: ...

    def weights(self) -> dict[str, float]:
        """The pool's draw weights by name."""


class SB3Learner:
    """The SB3 trainer's :class:`Learner`: ``model`` (the MaskablePPO being trained) and ``pool``
    (its env's opponents, in this process)."""

    snapshot_suffix = ".zip"

    def __init__(self, model: Any, pool: OpponentPool, players: int) -> None:
        self.model, self.pool, self.players = model, pool, players

    @property
    def timesteps(self) -> int:
        return int(self.model.num_timesteps)

    def frozen(self, seed: int) -> Any:
        from agents import PolicyAgent

        return PolicyAgent.snapshot(self.model, deterministic=False, seed=seed)

    def save_snapshot(self, path: Path) -> None:
        from agents.files.model_file import save_model

        save_model(self.model, path, self.players)

    def save_bot(self, path: Path) -> None:
        from agents.files.export import export

        export(self.model, path, self.players)

    def add_snapshot(self, name: str, path: Path, weight: float, seed: int) -> None:
        self.pool.add(name, self.frozen(seed), weight)  # a copy in memory, on the learner's device

    def add(self, name: str, path: Path, weight: float, seed: int, agent: Any = None) -> None:
        from agents import PolicyAgent

        self.pool.add(name, PolicyAgent(path, seed=seed, deterministic=False) if agent is None else agent, weight)

    def remove(self, name: str) -> None:
        self.pool.remove(name)

    def set_weights(self, weights: dict[str, float]) -> None:
        self.pool.set_weights(weights)

    def weights(self) -> dict[str, float]:
        return self.pool.weights()


def league_of(config: Any, start: int) -> League:
    """An empty league with the settings of a checked ``TrainConfig``."""
    return League(
        config.players,
        mode=config.pfsp,
        power=config.pfsp_power,
        floor=config.pfsp_floor,
        window=config.league_window,
        max_snapshots=config.max_snapshots,
        max_exploiters=config.max_exploiters,
        self_share=config.self_weight,
        snapshot_every=config.snapshot_every,
        exploiter_every=config.exploiter_every,
        start=start,
    )


class LeagueRun:
    """The league of one run. ``learner``: the trainer's :class:`Learner`; ``log(tag, value)``:
    TensorBoard; ``make_exploiter``: how exploiters are trained."""

    def __init__(
        self,
        config: Any,
        learner: Learner,
        run_dir: Path,
        log: Callable[[str, float], None],
        make_exploiter: MakeExploiter = train_ppo_exploiter,
    ) -> None:
        self.config, self.learner, self.dir, self.log = config, learner, Path(run_dir), log
        self.make_exploiter = make_exploiter
        t = learner.timesteps
        self.league = league_of(config, t)
        for name, weight in learner.weights().items():  # the agents of --opponents (and prepare's placeholder)
            self.league.add(name, "file" if spec_file(name) is not None else "baseline", t, weight)
        self.seconds = 0.0  # exploiters' training and games

    # -- resume -----------------------------------------------------------------------------------------

    def resume(self) -> bool:
        """Take back the league of a resumed run (league.json, the learned members from their files);
        returns False if the run has none (it trained without --league: the league starts here).
        Given agents no longer in --opponents leave; new ones join."""
        data = read_league(self.dir)
        if data is None:
            return False
        given = {n: m for n, m in self.league.members.items()}
        try:
            self.league.restore(data, up_to=self.learner.timesteps)
        except ArgumentError as e:
            raise ArgumentError(f"--resume: {self.dir / 'league.json'}: {e}") from None
        for name, m in list(self.league.members.items()):
            if m.kind in LEARNED:
                path = self.dir / (m.file or "")
                if m.file is None or not path.is_file():
                    print(f"league: {name}'s file {path} is missing; it leaves the league", file=sys.stderr)
                    del self.league.members[name]
                    continue
                self.learner.add(name, path, 0.0, self.config.seed + m.added)
            elif name not in given:
                del self.league.members[name]
        for name, m in given.items():
            if name not in self.league.members:
                self.league.members[name] = m
            else:
                self.league.members[name].mix = m.mix  # this run's --opponents weight
        self.league.self_share = self.config.self_weight
        self.league.split_share()
        self.apply()
        return True

    # -- during training ---------------------------------------------------------------------------------

    def record(self, dones: np.ndarray, infos: list[dict]) -> None:
        """The games that ended in this step count for their opponents (SB3's step infos)."""
        self.record_games((infos[i].get("opponents"), bool(infos[i].get("win"))) for i in np.flatnonzero(dones))

    def record_games(self, games: Iterable[tuple[str | None, bool]]) -> None:
        """Ended games as ``(opponents' names, comma separated; whether the learner won)``."""
        for names, win in games:
            if names:
                self.league.record_game(names.split(_NAMES_SEP), 1.0 if win else 0.0)

    def apply(self) -> None:
        """The league's weights go to the pool (members that weigh 0 keep a tiny weight of the
        pool's own: only the league decides)."""
        weights = self.league.weights()
        if sum(weights.values()) > 0:
            self.learner.set_weights(weights)

    def rollout_end(self, t: int) -> None:
        """Weights to the pool, a point of the history, the figures to TensorBoard."""
        self.apply()
        self.league.mark(t)
        for name, p in self.league.win_rates().items():
            if p is not None:
                self.log(f"league/winrate/{name}", p)
        elo = self.league.learner_elo()["elo"]
        if elo is not None:
            self.log("league/elo", elo)
        self.log("league/pool_size", len(self.league.members))

    def step(self, t: int) -> None:
        """Snapshots and exploiters that are due at ``t`` steps."""
        if self.league.snapshot_due(t):
            self.snapshot(t)
        if self.league.exploiter_due(t):
            self.exploiter(t)

    def _join(
        self, name: str, kind: str, t: int, save: Callable[[Path], Any], add: Callable[[str, Path, float, int], None]
    ) -> None:
        """``save(path)`` writes the member's file, ``add(name, path, weight, seed)`` puts it in the pool."""
        suffix = self.learner.snapshot_suffix if kind == "snapshot" else ".zip"
        file = member_file(kind, t, suffix)
        (self.dir / file).parent.mkdir(parents=True, exist_ok=True)
        save(self.dir / file)
        gone = self.league.add_learned(name, kind, t, file)
        weights = self.league.weights()
        add(name, self.dir / file, weights[name], self.config.seed + t)
        self.learner.set_weights(weights)
        for m in gone:
            self.learner.remove(m.name)  # the games it is playing keep it until they end
            if m.file is not None:
                (self.dir / m.file).unlink(missing_ok=True)
        self.save()

    def snapshot(self, t: int) -> None:
        """A frozen copy of the learner joins (``self@<t>``)."""
        self._join(f"self@{t}", "snapshot", t, self.learner.save_snapshot, self.learner.add_snapshot)

    def exploiter(self, t: int) -> dict:
        """Train an exploiter against a frozen learner; it joins if it beats it (``joins``)."""
        c, started = self.config, time.time()
        target = self.learner.frozen(c.seed + t)
        seed = exploiter_seed(c.seed, t)
        start = "from the learner" if c.exploiter_start == "learner" else "from scratch"
        print(
            f"league: training an exploiter ({c.exploiter_steps:,} steps, {start}) against the learner at {t:,}",
            flush=True,
        )
        with tempfile.TemporaryDirectory() as tmp:
            init = None
            if c.exploiter_start == "learner":  # it starts even with the learner and learns its weaknesses
                init = Path(tmp) / "learner.npz"
                self.learner.save_bot(init)
            trained = self.make_exploiter(target, c.exploiter_steps, seed, c, init)
        result = play_exploiter(trained.agent, target, c.players, c.eval_games, EXPLOITER_EVAL_SEED + t, c.max_turns)
        name = f"exploiter@{t}"
        joined = joins(result["wins"], result["games"], c.players)
        entry = {"t": t, "name": name, "start": c.exploiter_start, **result, "joined": joined}
        entry["seconds"] = time.time() - started
        self.league.exploiters.append(entry)
        lo, hi = result["ci95"]
        verdict = "joins the league" if joined else "does not join"
        print(f"league: {name} won {result['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] against the learner; {verdict}")
        if joined:
            self._join(name, "exploiter", t, trained.save, partial(self.learner.add, agent=trained.agent))
        self.seconds += time.time() - started
        return entry

    # -- records -----------------------------------------------------------------------------------------

    def save(self) -> None:
        save_league(self.league, self.dir)

    def summary(self) -> dict:
        """summary.json's ``league`` section (the files written too)."""
        self.save()
        return {**self.league.summary(), "exploiter_seconds": self.seconds}
