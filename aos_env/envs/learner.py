"""The learner loop on the batched engine: one learner seat per game, opponents played inside.

``LearnerEnv`` is the one implementation of that loop. The Gymnasium envs
(``aos_env.envs.gym``: ``AgeOfSummonersEnv`` and ``AgeOfSummonersVectorEnv``) and
the stable-baselines3 adapter (``aos_env.integrations.sb3.LearnerVecEnv``) are thin views of it;
use those. It runs ``num_envs`` games on one ``core.State``. In each game the
learner holds one seat (drawn at random for every new game); the other seats are
played, batch-wise per opponent agent, by opponents drawn from an
:class:`OpponentPool`. ``step`` applies the learner's actions to all games, lets
the opponents play until every game waits for the learner again, and handles
finished games as the autoreset mode says:

- ``AutoresetMode.SAME_STEP``: a finished game is reported (``Ended``) and a new
  game dealt in its place within the same step; the observation returned is the
  new game's first one (SB3's ``VecEnv`` convention).
- ``AutoresetMode.NEXT_STEP``: the step returns the finished game's final
  observation; the next step ignores that game's action and deals the new game
  (Gymnasium's default, what RLlib's env runners expect).
- ``AutoresetMode.DISABLED``: a finished game stays over until
  ``reset(games=...)`` deals it again; stepping it is an error (the single-game
  Gymnasium env works this way).

Every entry point checks its arguments (``aos_env.base.checks``) before it changes
anything, and a step is atomic: if an opponent returns an illegal action (or
raises), the env is put back exactly as it was before the step and an
:class:`OpponentError` names the opponent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium.error import ResetNeeded
from gymnasium.vector import AutoresetMode

from .. import core
from ..base.checks import (
    ArgumentError,
    check_batch_memory,
    check_choice,
    check_float,
    check_int,
    check_optional_seed,
    check_seeds,
    fail,
)
from ..core.cards import CardSet, load_cards
from ..core.rng import splitmix64
from ..core.state import GAME_DTYPE
from .opponents import OpponentError, OpponentPool

#: What ``step`` does with a learner action that is in the action space but not legal now.
ILLEGAL_ACTIONS = ("terminate", "raise")
#: Memory per game of a LearnerEnv: the engine's peak, the rollback copy of the game's record,
#: and the observations (current, final, the agents' inputs) as float32.
BYTES_PER_GAME = core.PEAK_BYTES_PER_GAME + GAME_DTYPE.itemsize + 3 * 4 * core.OBS_DIM
#: Deals in a row that may end before the learner's first decision before ``step`` gives up.
_MAX_REDEALS = 1000
_FLOAT_BITS = 53  # a float64 in [0, 1) from the top 53 bits of a 64-bit hash


def act_on_state(agent: Any, state: core.State, games: np.ndarray) -> Any:
    """What ``agent.act`` returns for the current players of ``games``, as it returned it.

    The inputs are those of ``agents.act_on_state``: only agents with ``needs_state`` get a copy
    of the games, agents with ``needs_obs = False`` an empty (n, 0) observation. The output is
    not converted (``agents.act_on_state`` casts it to int64, which would hide a float action).
    """
    if getattr(agent, "needs_obs", True):
        obs = core.observe(state, state.current_player[games], games=games)
    else:
        obs = np.zeros((games.size, 0), dtype=np.float32)
    sub = state.take(games) if getattr(agent, "needs_state", False) else None
    return agent.act(obs, state.legal_action_mask[games], sub)


def game_uniforms(seeds: np.ndarray, k: int) -> np.ndarray:
    """(n, k) floats in [0, 1) that depend on each game's seed alone: what the learner env draws per
    game (the learner's seat, then an opponent per seat), so that the game of seed ``s`` has the same
    seat and line-up in a single env and in any batch."""
    base = splitmix64(np.asarray(seeds, dtype=np.int64).astype(np.uint64))
    with np.errstate(over="ignore"):
        draws = splitmix64(base[:, None] + np.arange(1, k + 1, dtype=np.uint64)[None, :])
    return (draws >> np.uint64(64 - _FLOAT_BITS)).astype(np.float64) * 2.0**-_FLOAT_BITS


def _autoreset_mode(value: Any) -> AutoresetMode:
    """``value`` as an AutoresetMode (a member or its value, e.g. "NextStep")."""
    if isinstance(value, AutoresetMode):
        return value
    values = [m.value for m in AutoresetMode]
    if isinstance(value, str) and value in values:
        return AutoresetMode(value)
    raise fail("autoreset_mode", "a gymnasium.vector.AutoresetMode or one of " + ", ".join(map(repr, values)), value)


# ---- the games that ended in a step ----------------------------------------------------------------


@dataclass
class Ended:
    """The games that ended in one step (or reset), one entry per game, in game order."""

    games: np.ndarray  # (n,) game index in the batch
    final_obs: np.ndarray | None  # (n, OBS_DIM) the learner's last observation of the game
    outcome: np.ndarray  # (n,) float32 the terminal reward: +1 win, -1/(P-1) loss, 0 truncated, illegal_reward
    length: np.ndarray  # (n,) int64 the learner's decisions in the game
    win: np.ndarray  # (n,) bool
    score: np.ndarray  # (n,) int64 the learner's final score (R7.3)
    margin: np.ndarray  # (n,) int64 its score minus the best other score
    seat: np.ndarray  # (n,) int64 the learner's seat
    terminated: np.ndarray  # (n,) bool: by the rules (or the learner's illegal action)
    truncated: np.ndarray  # (n,) bool: by the turn limit (R7.5)
    illegal: np.ndarray  # (n,) bool: ended by the learner's illegal action (illegal_action="terminate")
    opponents: list[str]  # (n,) the opponents' names, comma separated

    @classmethod
    def none(cls) -> Ended:
        i, f, b = np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, bool)
        return cls(i, np.zeros((0, core.OBS_DIM), np.float32), f, i, b, i, i, i, b, b, b, [])

    @classmethod
    def join(cls, parts: list[Ended]) -> Ended:
        if not parts:
            return cls.none()
        if len(parts) == 1:
            return parts[0]
        order = np.argsort(np.concatenate([p.games for p in parts]), kind="stable")
        out: dict[str, Any] = {}
        for name in cls.__dataclass_fields__:
            if name == "opponents":
                every = [o for p in parts for o in p.opponents]
                out[name] = [every[i] for i in order]
            elif name == "final_obs" and any(p.final_obs is None for p in parts):
                out[name] = None  # filled in by step from its observations
            else:
                out[name] = np.concatenate([getattr(p, name) for p in parts])[order]
        return cls(**out)


def _score_and_lead(scores: np.ndarray, seat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """From (n, P) final scores: the learner's score and its lead over the best other score (as
    core.score_lead, without its argument checks: this runs every step)."""
    rows = np.arange(seat.size)
    mine = scores[rows, seat]
    others = scores.copy()
    others[rows, seat] = np.iinfo(others.dtype).min
    return mine, mine - others.max(1)


# ---- the loop -----------------------------------------------------------------------------------------


class LearnerEnv:
    """``num_envs`` games, one learner seat each, opponents from an :class:`OpponentPool`.

    opponents: an ``OpponentPool`` or anything ``OpponentPool.from_specs`` takes ("greedy",
    "greedy@0.5 random@0.5", a list or dict); default "random". seed: the first ``reset``'s
    seed when it is given none (None: fresh entropy). max_turns: the turn limit (R7.5), at
    least ``num_players`` so that every seat gets a turn. shaping: if > 0, each step also
    rewards ``shaping`` times the change of the learner's score lead (its score minus the best
    other score), a dense signal on top of the final +1 / -1/(P-1); over a game it sums to
    ``shaping`` times (final lead - lead at the learner's first decision). autoreset_mode: see
    the module docstring. illegal_action: what a learner action that is in the action space
    but not legal does: "raise" (ArgumentError, nothing changes) or "terminate" (the game ends
    for the learner with reward ``illegal_reward``, as PettingZoo's TerminateIllegalWrapper).
    truncation_reward: the learner's reward for a game that reaches the turn limit: None (the
    game's own reward, 0 for all: R7.5) or a number; "loss" stands for a loss's -1/(P-1), which
    train.py uses so that stalling to the limit never pays better than playing to win.
    backend: the engine ("numba", "numpy" or None: ``core.resolve_backend``, ``$AOS_BACKEND`` else numba).
    """

    #: Games dealt ahead in one batch. A few games end at a time, and dealing them one by one
    #: with ``core.reset`` costs a whole ``init`` each time.
    RESERVE = 256

    def __init__(
        self,
        num_envs: int = 64,
        num_players: int = 2,
        opponents: Any = None,
        seed: int | None = None,
        max_turns: int = core.DEFAULT_MAX_TURNS,
        card_file=None,
        shaping: float = 0.0,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        backend: str | None = None,
        cards: CardSet | None = None,
        truncation_reward: float | str | None = None,
    ) -> None:
        N = check_int("num_envs", num_envs, 1)
        P = check_int("num_players", num_players, core.constants.MIN_PLAYERS, core.constants.MAX_PLAYERS)
        if truncation_reward == "loss":
            truncation_reward = -1.0 / (P - 1)
        elif truncation_reward is not None:
            truncation_reward = check_float("truncation_reward", truncation_reward)
        self.truncation_reward = truncation_reward
        check_batch_memory("num_envs", N, BYTES_PER_GAME)
        self.max_turns = check_int("max_turns", max_turns, 1)
        if self.max_turns < P:
            raise ArgumentError(
                f"max_turns must be an int >= {P} (num_players: every seat, the learner's too, "
                f"needs a turn), got {max_turns!r}"
            )
        self.shaping = check_float("shaping", shaping, 0)
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        self.illegal_reward = check_float("illegal_reward", illegal_reward)
        self.backend = core.resolve_backend(backend)
        self._first_seed = check_optional_seed("seed", seed)
        if cards is not None and not isinstance(cards, CardSet):
            raise fail("cards", "a CardSet (aos_env.cards.load_cards) or None", cards)
        self.cards = cards if cards is not None else load_cards(card_file)
        self.opponents = OpponentPool.from_specs("random" if opponents is None else opponents, seed=self._first_seed)
        self.num_envs, self.num_players = N, P
        self.state: core.State | None = None
        self.rng: np.random.Generator | None = None
        self.seat = np.zeros(N, dtype=np.int64)
        self.lineup = np.zeros((N, P), dtype=np.int64)  # opponent slot per seat (-1: the learner)
        self.lengths = np.zeros(N, dtype=np.int64)  # learner decisions in the current game
        self.margin = np.zeros(N)  # learner's score lead at its last decision, for shaping
        self.reported = np.zeros(N, dtype=bool)  # game over and reported (NEXT_STEP / DISABLED: awaits its deal)
        self.illegal = np.zeros(N, dtype=bool)  # game ended by the learner's illegal action
        self.game_seed = np.zeros(N, dtype=np.int64)  # the engine seed of each game being played
        self._next_seed = 0
        self._reserve: core.State | None = None  # games dealt ahead (see _deal)
        self._reserve_seeds = np.zeros(0, dtype=np.int64)
        self._reserve_used = 0

    # -- seeds and dealing ------------------------------------------------------------------------

    def _seed(self, seed: int | None) -> None:
        """Seed the env's own stream (the seeds of the games after the first batch) and the opponents'."""
        self.rng = np.random.default_rng(seed)
        self._next_seed = int(self.rng.integers(2**62))  # game seeds count up from here, far below 2**63
        self._reserve = None
        self.opponents.reseed(self.rng)

    def _seeds(self, n: int) -> np.ndarray:
        out = self._next_seed + np.arange(n, dtype=np.int64)
        self._next_seed += n
        return out

    def _deal(self, games: np.ndarray) -> None:
        """New games (the next seeds, dealt ahead in batches) in positions ``games``, new seats and line-ups."""
        done = 0
        while done < games.size:
            if self._reserve is None or self._reserve_used == self._reserve.batch_size:
                self._reserve_seeds = self._seeds(self.RESERVE)
                self._reserve = core.init(
                    self.RESERVE,
                    self.num_players,
                    seed=self._reserve_seeds,
                    max_turns=self.max_turns,
                    cards=self.cards,
                    backend=self._state.backend,
                )
                self._reserve_used = 0
            n = min(games.size - done, self._reserve.batch_size - self._reserve_used)
            taken = np.arange(self._reserve_used, self._reserve_used + n)
            self._state.put(games[done : done + n], self._reserve.take(taken))
            self.game_seed[games[done : done + n]] = self._reserve_seeds[taken]
            self._reserve_used += n
            done += n
        self._new_lineups(games)

    def _new_lineups(self, games: np.ndarray) -> None:
        """The learner's seat and the opponents of ``games``: drawn from each game's seed alone
        (``game_uniforms``), so that a seed means the same game, seats and opponents included,
        in a single env and at any place of any batch."""
        P = self.num_players
        u = game_uniforms(self.game_seed[games], 1 + P)
        self.seat[games] = np.minimum((u[:, 0] * P).astype(np.int64), P - 1)
        self.lineup[games] = self.opponents.pick(u[:, 1:])
        self.lineup[games, self.seat[games]] = -1
        self.lengths[games] = 0
        self.reported[games] = False
        self.illegal[games] = False

    # -- rollback -------------------------------------------------------------------------------------

    _BOOKKEEPING = ("seat", "lineup", "lengths", "margin", "reported", "illegal", "game_seed")

    @property
    def _state(self) -> core.State:
        """The games' state, for the methods that run after the first reset (which makes it)."""
        if self.state is None:
            raise RuntimeError("the env has no games yet: call reset() first")
        return self.state

    def _save(self) -> tuple:
        arrays = {k: getattr(self, k).copy() for k in self._BOOKKEEPING}
        rng = None if self.rng is None else self.rng.bit_generator.state
        # the records as raw bytes: a structured copy is several times slower than a plain memory copy
        records = None if self.state is None else self.state.records.view(np.uint8).copy()
        return (
            self.state,
            records,
            arrays,
            rng,
            self._next_seed,
            self._reserve,
            self._reserve_seeds,
            self._reserve_used,
            self.opponents.rng_states(),
        )

    def _restore(self, saved: tuple) -> None:
        (
            state,
            records,
            arrays,
            rng,
            self._next_seed,
            self._reserve,
            self._reserve_seeds,
            self._reserve_used,
            agent_rngs,
        ) = saved
        self.state = state
        if state is not None:
            state.records.view(np.uint8)[...] = records
        for k, v in arrays.items():
            getattr(self, k)[...] = v
        if rng is not None and self.rng is not None:
            self.rng.bit_generator.state = rng
        self.opponents.set_rng_states(agent_rngs)

    # -- the API ---------------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, games: Any = None) -> np.ndarray:
        """Deal new games: all of them, or with ``games`` (a (N,) bool mask or game indices) only those.

        ``seed``: game ``i`` of those dealt gets the engine seed ``seed + i`` (the game of
        ``core.init(1, P, seed=seed + i)``; its seat and line-up come from that seed too), and
        the env's stream (the seeds of later games) and the opponents' are reseeded from it;
        None continues the stream (the first reset then uses the constructor's seed, or fresh
        entropy). Returns the learner's observations (N, OBS_DIM). No game ends here: one that
        ends before the learner's first decision is dealt again (with the stream's next seed).
        """
        seed = check_optional_seed("seed", seed)
        if games is not None:
            if self.state is None:
                raise ResetNeeded("reset(games=...) needs the games dealt first: call reset() without games")
            games = self._check_games(games)
        if seed is not None:  # every game's seed must be one: seed + N - 1 <= 2**63 - 1
            check_seeds("seed", seed, self.num_envs if games is None else games.size)
        saved = self._save()
        try:
            first = seed if seed is not None else (self._first_seed if self.rng is None else None)
            if seed is not None or self.rng is None:
                self._seed(first)
            if games is None:
                games = np.arange(self.num_envs)
                if first is None:  # no seed given: the batch continues the stream
                    self.game_seed[:] = self._seeds(self.num_envs)
                else:
                    self.game_seed[:] = check_seeds("seed", first, self.num_envs)
                self.state = core.init(
                    self.num_envs,
                    self.num_players,
                    seed=self.game_seed,
                    max_turns=self.max_turns,
                    cards=self.cards,
                    backend=self.backend,
                )
                self._reserve = None
                self._new_lineups(games)
            elif seed is not None:
                self.game_seed[games] = check_seeds("seed", seed, games.size)
                core.reset(self._state, games, self.game_seed[games])
                self._new_lineups(games)
            else:
                self._deal(games)
            rewards = np.zeros(self.num_envs, dtype=np.float32)
            self._play_opponents(games, rewards, [])
            if self.shaping:
                self.margin[games] = _score_and_lead(core.final_scores(self._state, games), self.seat[games])[1]
        except BaseException:
            self._restore(saved)
            raise
        return self.observe()

    def _check_games(self, games: Any) -> np.ndarray:
        N = self.num_envs
        arr = np.asarray(games) if isinstance(games, (list, tuple, np.ndarray)) else None
        if arr is not None and arr.dtype == bool and arr.shape == (N,):
            return np.flatnonzero(arr)
        if arr is not None and arr.ndim == 1 and arr.dtype.kind in "iu" and arr.size:
            if arr.min() >= 0 and arr.max() < N and np.unique(arr).size == arr.size:
                return arr.astype(np.int64)
        raise fail("games", f"a bool mask of shape ({N},) or distinct game indices 0..{N - 1}", games)

    def check_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as int64 (N,), or ArgumentError: one action id 0..43 per game (Python or numpy
        ints; not floats, bools or strings), legal in every game that waits for the learner
        (with illegal_action="raise"). Changes nothing."""
        if self.state is None:
            raise ResetNeeded("step() called before reset(): call reset() first")
        N, A = self.num_envs, core.NUM_ACTIONS
        allowed = f"an integer array of shape ({N},) with action ids 0..{A - 1}"
        a = actions if isinstance(actions, np.ndarray) else None
        if a is None:
            if not isinstance(actions, (list, tuple)):
                raise fail("actions", allowed, actions)
            try:
                a = np.asarray(actions)
            except (ValueError, TypeError):
                raise fail("actions", allowed, actions) from None
            if a.dtype.kind not in "iu" and not (a.size == 0 and N == 0):
                raise fail("actions", allowed, actions)
        if a.shape != (N,) or a.dtype.kind not in "iu":
            raise fail("actions", allowed, a)
        bad = (a < 0) | (a >= A)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ArgumentError(f"actions must be action ids 0..{A - 1}, got {a[i]} for game {i}")
        a = a.astype(np.int64)
        if self.autoreset_mode == AutoresetMode.DISABLED and self.reported.any():
            over = np.flatnonzero(self.reported)
            raise ResetNeeded(
                f"games {over[:10].tolist()} are over: deal them again with reset(games=...) "
                "(autoreset_mode DISABLED) before stepping"
            )
        if self.illegal_action == "raise":
            live = ~self.reported
            illegal = live & ~self.state.legal_action_mask[np.arange(N), a]
            if illegal.any():
                lines = [core.describe_illegal(self.state, int(g), int(a[g])) for g in np.flatnonzero(illegal)[:3]]
                raise ArgumentError("actions must be legal (see action_masks()): " + "; ".join(lines))
        return a

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Ended]:
        """Apply the learner's actions, play the opponents, handle finished games (autoreset mode).

        Returns obs (N, OBS_DIM), rewards (N,) float32, terminated (N,), truncated (N,) and
        ``Ended`` (the games that ended in this step, with their final observations).
        """
        a = self.check_actions(actions)
        self.opponents.release(self.lineup)  # agents removed from the pool that no game plays any more
        saved = self._save()
        try:
            return self._step(a)
        except BaseException:
            self._restore(saved)
            raise

    def _step(self, a: np.ndarray):
        state, N = self._state, self.num_envs
        rewards = np.zeros(N, dtype=np.float32)
        ended: list[Ended] = []
        pending = np.flatnonzero(self.reported)  # NEXT_STEP: finished games whose action is ignored
        if pending.size:
            self._deal(pending)
        playing = ~self.reported
        playing[pending] = False
        learner = np.flatnonzero(playing)
        if self.illegal_action == "terminate":
            legal = state.legal_action_mask[learner, a[learner]]
            bad = learner[~legal]
            if bad.size:
                core.truncate(state, bad)  # the game ends for the learner (reported as terminated)
                self.illegal[bad] = True
                learner = learner[legal]
        self.lengths[playing] += 1
        if learner.size == N:
            core.step(state, a)
        elif learner.size:
            core.step(state, a[learner], games=learner)
        self._play_opponents(np.arange(N), rewards, ended)
        obs = self.observe()
        out = Ended.join(ended)
        if out.final_obs is None:
            out.final_obs = obs[out.games].copy()
        if self.shaping:
            _, margin = _score_and_lead(core.final_scores(state), self.seat)
            going = playing.copy()
            going[out.games] = False  # their last shaping term came with their end
            rewards[going] += np.float32(self.shaping) * (margin[going] - self.margin[going]).astype(np.float32)
            self.margin[:] = margin
        terminated = np.zeros(N, dtype=bool)
        truncated = np.zeros(N, dtype=bool)
        terminated[out.games] = out.terminated
        truncated[out.games] = out.truncated
        return obs, rewards, terminated, truncated, out

    def observe(self) -> np.ndarray:
        """(N, OBS_DIM) the learner's observation in each game (a finished game's last one)."""
        if self.state is None:
            raise ResetNeeded("observe() called before reset(): call reset() first")
        return core.observe(self.state, self.seat)

    def action_masks(self) -> np.ndarray:
        """(N, 44) bool: the learner's legal actions. A game that awaits its deal (NEXT_STEP) allows
        every action (the next step ignores it; an all-False mask would break masked sampling)."""
        if self.state is None:
            raise ResetNeeded("action_masks() called before reset(): call reset() first")
        masks = self.state.legal_action_mask.copy()
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            masks[self.reported] = True
        return masks

    # -- inside a step ------------------------------------------------------------------------------

    def _end(self, games: np.ndarray, rewards: np.ndarray) -> Ended:
        """Rewards and the record of the games ``games`` that just ended (before they are dealt again)."""
        state, seat = self._state, self.seat[games]
        illegal = self.illegal[games]
        outcome = np.where(illegal, np.float32(self.illegal_reward), state.rewards[games, seat]).astype(np.float32)
        if self.truncation_reward is not None:
            outcome[state.truncated[games] & ~illegal] = self.truncation_reward
        mine, margin = _score_and_lead(core.final_scores(state, games), seat)
        rewards[games] += outcome
        if self.shaping:
            shaped = ~illegal
            rewards[games[shaped]] += np.float32(self.shaping) * (margin[shaped] - self.margin[games[shaped]]).astype(
                np.float32
            )
        # NEXT_STEP and DISABLED: the step's own observations are the final ones (filled in by step)
        final_obs = core.observe(state, seat, games=games) if self.autoreset_mode == AutoresetMode.SAME_STEP else None
        names = [", ".join(sorted({self.opponents.slot_name(s) for s in row if s >= 0})) for row in self.lineup[games]]
        return Ended(
            games=games.copy(),
            final_obs=final_obs,
            outcome=outcome,
            length=self.lengths[games].copy(),
            win=(state.rewards[games, seat] == 1.0) & ~illegal,
            score=mine.astype(np.int64),
            margin=margin.astype(np.int64),
            seat=seat.copy(),
            terminated=state.terminated[games] | illegal,
            truncated=state.truncated[games] & ~illegal,
            illegal=illegal.copy(),
            opponents=names,
        )

    def _play_opponents(self, games: np.ndarray, rewards: np.ndarray, ended: list[Ended]) -> None:
        """Let opponents act in ``games`` until each waits for the learner or is over and reported.

        A game that ends after the learner's first decision is reported (``ended``); with
        SAME_STEP it is dealt again at once and its new game's opponents play in the same loop,
        so restarted games cost no engine calls of their own. A game that ends before the
        learner's first decision (possible only with a very short turn limit) is not an episode:
        it is dealt again.
        """
        state = self._state
        redeals = 0
        while True:
            over = state.terminated[games] | state.truncated[games]
            new_end = games[over & ~self.reported[games]]
            if new_end.size:
                played = self.lengths[new_end] > 0
                unplayed = new_end[~played]
                if new_end[played].size:
                    g = new_end[played]
                    ended.append(self._end(g, rewards))
                    self.reported[g] = True
                    if self.autoreset_mode == AutoresetMode.SAME_STEP:
                        self._deal(g)
                if unplayed.size:
                    redeals += 1
                    if redeals > _MAX_REDEALS:
                        raise RuntimeError(
                            f"games keep ending before the learner's first decision "
                            f"(max_turns={self.max_turns} is too short?)"
                        )
                    self._deal(unplayed)
                continue
            live = games[~over]
            who = self.lineup[live, state.current_player[live]]
            mine = who >= 0
            if not mine.any():
                return
            theirs, who = live[mine], who[mine]
            actions = np.zeros(theirs.size, dtype=np.int64)
            for slot in np.unique(who):
                sel = who == slot
                actions[sel] = self._opponent_actions(int(slot), theirs[sel])
            # step only the games where an opponent acts: the others keep waiting for the learner
            core.step(state, actions, games=theirs)

    def _opponent_actions(self, slot: int, games: np.ndarray) -> np.ndarray:
        """The actions of the opponent in ``slot`` for ``games``, checked: OpponentError if not legal."""
        agent, name = self.opponents.slot_agent(slot), self.opponents.slot_name(slot)
        try:
            out = act_on_state(agent, self._state, games)
        except Exception as e:
            raise OpponentError(
                f"opponent {name!r} ({agent!r}) raised {type(e).__name__}: {e}; the env is as it was before the step"
            ) from e
        a = np.asarray(out) if isinstance(out, (np.ndarray, list, tuple)) else None
        if a is None or a.shape != (games.size,) or a.dtype.kind not in "iu":
            raise OpponentError(
                f"opponent {name!r} ({agent!r}) must return {games.size} action ids (an integer "
                f"array of shape ({games.size},)), got {out!r:.80}; the env is as it was before "
                "the step"
            )
        a = a.astype(np.int64)
        ok = (a >= 0) & (a < core.NUM_ACTIONS)
        ok[ok] = self._state.legal_action_mask[games[ok], a[ok]]
        if not ok.all():
            bad = np.flatnonzero(~ok)
            lines = [core.describe_illegal(self._state, int(games[i]), int(a[i])) for i in bad[:3]]
            raise OpponentError(
                f"opponent {name!r} ({agent!r}) chose an illegal action: "
                + "; ".join(lines)
                + "; the env is as it was before the step"
            )
        return a

    def __repr__(self) -> str:
        return (
            f"LearnerEnv({self.num_envs} games, {self.num_players} players, opponents={self.opponents!r}, "
            f"autoreset_mode={self.autoreset_mode.name})"
        )
