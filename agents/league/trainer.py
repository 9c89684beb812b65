"""The league inside the SB3 trainer: the training callback calls :class:`LeagueRun`, which keeps
the :class:`~agents.league.state.League` and applies it to the env's ``OpponentPool``.

- each step, the games that ended (``infos[i]["opponents"]``, ``infos[i]["win"]``) count for the
  members they were played against;
- at each rollout's end the PFSP weights go to the pool and the figures to TensorBoard
  (``league/winrate/<name>``, ``league/elo``, ``league/pool_size``);
- every ``--snapshot-every`` steps a snapshot joins (saved to ``league/self-<steps>.zip``), every
  ``--exploiter-every`` steps an exploiter is trained and may join (``agents.league.exploiters``);
- ``save`` writes ``league.json`` and ``league.png`` (at each evaluation and at the end), and a
  run resumed with ``--resume`` takes its league back (:meth:`LeagueRun.resume`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import spec_file
from aos_env.base.checks import ArgumentError
from aos_env.envs.opponents import OpponentPool

from .exploiters import EXPLOITER_EVAL_SEED, MakeExploiter, exploiter_seed, joins, play_exploiter, train_ppo_exploiter
from .records import member_file, read_league, save_league
from .state import LEARNED, League

#: The separator of the opponents' names in an ended game's info (aos_env.envs.learner.Ended).
_NAMES_SEP = ", "


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
    """The league of one SB3 run. ``model``: the MaskablePPO being trained; ``pool``: its env's
    opponents; ``log(tag, value)``: TensorBoard; ``make_exploiter``: how exploiters are trained."""

    def __init__(
        self,
        config: Any,
        model: Any,
        pool: OpponentPool,
        run_dir: Path,
        log: Callable[[str, float], None],
        make_exploiter: MakeExploiter = train_ppo_exploiter,
    ) -> None:
        self.config, self.model, self.pool, self.dir, self.log = config, model, pool, Path(run_dir), log
        self.make_exploiter = make_exploiter
        self.league = league_of(config, model.num_timesteps)
        for name, weight in pool.weights().items():  # the agents of --opponents (and prepare's placeholder)
            self.league.add(name, "file" if spec_file(name) is not None else "baseline", model.num_timesteps, weight)
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
            self.league.restore(data, up_to=self.model.num_timesteps)
        except ArgumentError as e:
            raise ArgumentError(f"--resume: {self.dir / 'league.json'}: {e}") from None
        from agents import PolicyAgent

        for name, m in list(self.league.members.items()):
            if m.kind in LEARNED:
                path = self.dir / (m.file or "")
                if m.file is None or not path.is_file():
                    print(f"league: {name}'s file {path} is missing; it leaves the league", file=sys.stderr)
                    del self.league.members[name]
                    continue
                self.pool.add(name, PolicyAgent(path, seed=self.config.seed + m.added, deterministic=False), 0.0)
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
        """The games that ended in this step count for their opponents."""
        for i in np.flatnonzero(dones):
            info = infos[i]
            names = info.get("opponents")
            if names:
                self.league.record_game(names.split(_NAMES_SEP), 1.0 if info.get("win") else 0.0)

    def apply(self) -> None:
        """The league's weights go to the pool (members that weigh 0 keep a tiny weight of the
        pool's own: only the league decides)."""
        weights = self.league.weights()
        if sum(weights.values()) > 0:
            self.pool.set_weights(weights)

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

    def _join(self, name: str, kind: str, t: int, agent: Any, save: Callable[[Path], Any]) -> None:
        file = member_file(kind, t)
        (self.dir / file).parent.mkdir(parents=True, exist_ok=True)
        save(self.dir / file)
        gone = self.league.add_learned(name, kind, t, file)
        weights = self.league.weights()
        self.pool.add(name, agent, weights[name])
        self.pool.set_weights(weights)
        for m in gone:
            self.pool.remove(m.name)  # the games it is playing keep it until they end
            if m.file is not None:
                (self.dir / m.file).unlink(missing_ok=True)
        self.save()

    def snapshot(self, t: int) -> None:
        """A frozen copy of the learner joins (``self@<t>``)."""
        from agents import PolicyAgent
        from agents.files.model_file import save_model

        agent = PolicyAgent.snapshot(self.model, deterministic=False, seed=self.config.seed + t)
        self._join(f"self@{t}", "snapshot", t, agent, lambda p: save_model(self.model, p, self.config.players))

    def exploiter(self, t: int) -> dict:
        """Train an exploiter against a frozen learner; it joins if it beats it (``joins``)."""
        from agents import PolicyAgent

        c, started = self.config, time.time()
        target = PolicyAgent.snapshot(self.model, deterministic=False, seed=c.seed + t)
        seed = exploiter_seed(c.seed, t)
        print(f"league: training an exploiter ({c.exploiter_steps:,} steps) against the learner at {t:,}", flush=True)
        trained = self.make_exploiter(target, c.exploiter_steps, seed, c)
        result = play_exploiter(trained.agent, target, c.players, c.eval_games, EXPLOITER_EVAL_SEED + t, c.max_turns)
        name = f"exploiter@{t}"
        joined = joins(result["wins"], result["games"], c.players)
        entry = {"t": t, "name": name, **result, "joined": joined, "seconds": time.time() - started}
        self.league.exploiters.append(entry)
        lo, hi = result["ci95"]
        verdict = "joins the league" if joined else "does not join"
        print(f"league: {name} won {result['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] against the learner; {verdict}")
        if joined:
            self._join(name, "exploiter", t, trained.agent, trained.save)
        self.seconds += time.time() - started
        return entry

    # -- records -----------------------------------------------------------------------------------------

    def save(self) -> None:
        save_league(self.league, self.dir)

    def summary(self) -> dict:
        """summary.json's ``league`` section (the files written too)."""
        self.save()
        return {**self.league.summary(), "exploiter_seconds": self.seconds}
