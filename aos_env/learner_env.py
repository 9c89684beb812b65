"""A batched single-agent view of the game for training: one learner seat per game.

``LearnerEnv`` runs ``num_envs`` games on the batched engine. In each game the
learner holds one seat (chosen at random for every new game); the other seats
are played inside the env, batch-wise, by opponents drawn from a pool (any
agents of ``agents/``, including frozen copies of the learner). ``step``
applies the learner's actions, lets the opponents play until every game
waits for the learner again, and restarts finished games by itself.

It needs only numpy, so it works without stable-baselines3::

    env = LearnerEnv(num_envs=64, num_players=2, opponents={"greedy": (GreedyAgent(), 1.0)}, seed=0)
    obs = env.reset()                               # (64, OBS_DIM)
    while training:
        actions = my_policy(obs, env.action_masks())   # (64,) legal action ids
        obs, rewards, dones, infos = env.step(actions)
        # dones[i]: game i ended (its new game's first observation is in obs[i]);
        # infos[i] then has "episode", "win", "score", "terminal_observation"

``aos_env.sb3.LearnerVecEnv`` wraps it as a stable-baselines3 ``VecEnv``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import core
from .checks import check_int


def act_on_state(agent, state, games):
    from agents import act_on_state as act  # the agents package depends on aos_env, not the reverse

    return act(agent, state, games)


class LearnerEnv:
    """Many games, one learner seat each, opponents from a weighted pool.

    opponents: {name: (agent, weight)}; each new game draws, for every other
    seat, an opponent with probability proportional to its weight.
    shaping: if > 0, each step also rewards ``shaping`` times the change of the
    learner's score lead (its score minus the best other score), a dense signal
    on top of the final +1 / -1/(P-1) that sums to ``shaping`` times the final lead.
    """

    def __init__(
        self,
        num_envs: int = 64,
        num_players: int = 2,
        opponents: dict[str, tuple[Any, float]] | None = None,
        seed: int = 0,
        max_turns: int = core.DEFAULT_MAX_TURNS,
        card_file=None,
        shaping: float = 0.0,
    ) -> None:
        self.num_envs = check_int("num_envs", num_envs, 1)
        self.num_players = check_int("num_players", num_players, 2, 4)
        self.max_turns = max_turns
        self.card_file = card_file
        self.seed(seed)
        self.names: list[str] = []
        self.agents: list[Any] = []
        self.weights = np.zeros(0)
        if opponents is None:
            from agents import RandomAgent

            opponents = {"random": (RandomAgent(seed=seed), 1.0)}
        for name, (agent, weight) in opponents.items():
            self.add_opponent(name, agent, weight)
        self.state: core.State | None = None
        self.seat = np.zeros(num_envs, dtype=np.int64)
        self.lineup = np.zeros((num_envs, num_players), dtype=np.int64)  # opponent index per seat (-1: learner)
        self.lengths = np.zeros(num_envs, dtype=np.int64)
        self.shaping = float(shaping)
        self.margin = np.zeros(num_envs)  # learner's current score lead, for reward shaping
        self._reserve: core.State | None = None  # new games started ahead (see _restart)
        self._reserve_used = 0

    def seed(self, seed: int) -> None:
        """Seed the env's own draws: game seeds, learner seats and opponent line-ups."""
        self.rng = np.random.default_rng(seed)
        self._next_seed = int(self.rng.integers(2**31))

    # -- the opponent pool ----------------------------------------------------------

    def add_opponent(self, name: str, agent: Any, weight: float = 1.0) -> None:
        """Add (or replace) an opponent; new games draw it with probability ~ weight."""
        if name in self.names:
            i = self.names.index(name)
            self.agents[i], self.weights[i] = agent, weight
            return
        self.names.append(name)
        self.agents.append(agent)
        self.weights = np.append(self.weights, float(weight))

    def remove_opponent(self, name: str) -> None:
        """Stop drawing this opponent for new games (running games keep it)."""
        i = self.names.index(name)
        self.weights[i] = 0.0

    # -- gym-like API ----------------------------------------------------------------

    def _seeds(self, n: int) -> np.ndarray:
        out = self._next_seed + np.arange(n)
        self._next_seed += n
        return out

    def _new_lineups(self, games: np.ndarray) -> None:
        n, P = games.size, self.num_players
        p = self.weights / self.weights.sum()
        self.seat[games] = self.rng.integers(0, P, size=n)
        self.lineup[games] = self.rng.choice(len(self.agents), size=(n, P), p=p)
        self.lineup[games, self.seat[games]] = -1
        self.lengths[games] = 0

    def reset(self) -> np.ndarray:
        """Start all games; returns the learner's first observations (N, OBS_DIM)."""
        if self.weights.sum() <= 0:
            raise ValueError("the opponent pool is empty: add_opponent(...) first")
        N = self.num_envs
        self._reserve = None
        self.state = core.init(N, self.num_players, seed=self._seeds(N), max_turns=self.max_turns,
                               card_file=self.card_file)
        self._new_lineups(np.arange(N))
        self._play_opponents(np.arange(N))
        self.margin[:] = self._margin(np.arange(N))
        return self.observe()

    def _margin(self, games: np.ndarray) -> np.ndarray:
        """Learner's score minus the best other score, in games ``games``."""
        return core.score_lead(self.state, games, self.seat[games])

    def observe(self) -> np.ndarray:
        return core.observe(self.state, self.seat)

    def action_masks(self) -> np.ndarray:
        """(N, 44) bool: the learner's legal actions in each game."""
        return self.state.legal_action_mask.copy()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        """Apply the learner's actions, play the opponents, restart finished games.

        Returns (obs, rewards, dones, infos) in the VecEnv convention.
        """
        state = self.state
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        core.step(state, actions)
        self.lengths += 1
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        self._play_opponents(np.arange(self.num_envs), rewards, dones, infos)
        if self.shaping:
            going = np.nonzero(~dones)[0]  # finished games got their last shaping term in _finish
            margin = self._margin(going)
            rewards[going] += self.shaping * (margin - self.margin[going])
            self.margin[going] = margin
        return self.observe(), rewards, dones, infos

    def _finish(self, done: np.ndarray, rewards: np.ndarray, infos: list[dict]) -> None:
        """Final rewards and infos of the games ``done`` that just ended; then restart them."""
        state = self.state
        seat = self.seat[done]
        rows = np.arange(done.size)
        rewards[done] += state.rewards[done, seat]
        margin = self._margin(done)
        if self.shaping:
            rewards[done] += self.shaping * (margin - self.margin[done])
        last_obs = core.observe(state, seat, games=done)
        mine = core.final_scores(state, done)[rows, seat]
        win = state.rewards[done, seat] == 1.0  # end_games gave the winner +1 (a truncated game: 0)
        for j, i in enumerate(done):
            opp = sorted({self.names[a] for a in self.lineup[i] if a >= 0})
            infos[i] = {
                "terminal_observation": last_obs[j],
                "episode": {"r": float(state.rewards[i, seat[j]]), "l": int(self.lengths[i])},
                "win": bool(win[j]),
                "is_success": bool(win[j]),
                "score": int(mine[j]),
                "margin": int(margin[j]),
                "truncated": bool(state.truncated[i]),
                "TimeLimit.truncated": bool(state.truncated[i]),
                "opponents": ",".join(opp),
                "seat": int(seat[j]),
            }
        self._restart(done)
        self._new_lineups(done)
        if self.shaping:
            self.margin[done] = self._margin(done)

    #: Games started ahead in one batch. A few games end at a time, and starting them
    #: with ``core.reset`` costs a whole ``init`` (some hundred numpy calls) each time.
    RESERVE = 256

    def _restart(self, games: np.ndarray) -> None:
        """Put new games (the next seeds, started ahead in batches) in positions ``games``."""
        done = 0
        while done < games.size:
            if self._reserve is None or self._reserve_used == self._reserve.batch_size:
                self._reserve = core.init(self.RESERVE, self.num_players, seed=self._seeds(self.RESERVE),
                                          max_turns=self.max_turns, cards=self.state.cards)
                self._reserve_used = 0
            n = min(games.size - done, self._reserve.batch_size - self._reserve_used)
            fresh = self._reserve.take(np.arange(self._reserve_used, self._reserve_used + n))
            self.state.put(games[done : done + n], fresh)
            self._reserve_used += n
            done += n

    def _play_opponents(
        self, games: np.ndarray, rewards: np.ndarray | None = None, dones: np.ndarray | None = None,
        infos: list[dict] | None = None,
    ) -> None:
        """Let opponents act in ``games`` until each waits for the learner.

        With ``dones``: a game that ends (by the learner's action or an
        opponent's) is finished (``_finish``) and restarted at once, and its new
        game's opponents play in the same loop, so the restarted games cost no
        engine calls of their own. A game is restarted once per step at most
        (a new game that ends again at once stays over until the next step).
        """
        state = self.state
        while True:
            over = state.terminated[games] | state.truncated[games]
            if dones is not None:
                ended = games[over & ~dones[games]]
                if ended.size:
                    dones[ended] = True
                    self._finish(ended, rewards, infos)
                    over = state.terminated[games] | state.truncated[games]
            live = games[~over]
            who = self.lineup[live, state.current_player[live]]
            theirs = live[who >= 0]
            if not theirs.size:
                return
            who = who[who >= 0]
            actions = np.zeros(state.batch_size, dtype=np.int64)
            for a in np.unique(who):
                g = theirs[who == a]
                actions[g] = act_on_state(self.agents[a], state, g)
            # step only the games where an opponent acts: the others keep waiting for the learner
            core.step(state, actions[theirs], games=theirs)
