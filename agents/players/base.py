"""The interface every agent follows, on the batched engine and on the AEC env.

An agent maps a batch of observations and legal-action masks to actions::

    actions = agent.act(obs, mask, state=None)   # obs (B, OBS_DIM), mask (B, 44) -> (B,) int

``state`` is the engine state the observations come from (games in the same
order); agents that search (MonteCarloAgent) need it, the others ignore it. A
game with an all-False mask (finished) gets action 0. Single observations
(shape (OBS_DIM,)) give a single int. ``act_on_state`` and ``act_on_env``
wrap the two usual sources.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from aos_env import core
from aos_env.base.checks import ArgumentError, check_indices, check_optional_seed, fail


@runtime_checkable
class Agent(Protocol):
    name: str

    def act(self, obs: np.ndarray, mask: np.ndarray, state: core.State | None = None) -> np.ndarray: ...


class BaseAgent:
    """Shared plumbing: single observations, seeding."""

    name = "agent"
    needs_state = False  # True for agents that search on the engine state (act gets a copy)
    needs_obs = True  # False for agents that look only at the mask: act then gets an empty (B, 0) obs

    def __init__(self, seed: int | None = 0) -> None:
        self.seed = check_optional_seed("seed", seed)
        self.rng = np.random.default_rng(self.seed)

    def reset(self, seed: int | None = None) -> None:
        """Restart the agent's random stream (``seed`` or the constructor's)."""
        seed = check_optional_seed("seed", seed)
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    def act(self, obs: np.ndarray, mask: np.ndarray, state: core.State | None = None):
        obs, mask = np.asarray(obs), np.asarray(mask)
        _check_inputs(obs, mask, state, self.needs_obs)
        mask = mask.astype(bool)
        if obs.ndim == 1:
            return int(self.act_batch(obs[None], mask[None], state)[0])
        return self.act_batch(obs, mask, state)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: core.State | None) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


def _check_inputs(obs: np.ndarray, mask: np.ndarray, state, needs_obs: bool) -> None:
    """obs (OBS_DIM,) with mask (A,), or obs (B, OBS_DIM) with mask (B, A), and state None or a
    batch of B games. Agents that read only the mask also take an empty (B, 0) obs."""
    A = core.NUM_ACTIONS
    if mask.ndim not in (1, 2) or mask.shape[-1] != A or mask.dtype.kind not in "biu":
        raise ArgumentError(
            f"mask must be a bool array of shape ({A},) or (B, {A}), got shape {mask.shape} and dtype {mask.dtype}"
        )
    if obs.ndim != mask.ndim or (obs.ndim == 2 and obs.shape[0] != mask.shape[0]):
        raise ArgumentError(f"obs must have one row per mask row: obs has shape {obs.shape}, mask {mask.shape}")
    width_ok = obs.shape[-1] == core.OBS_DIM or (obs.shape[-1] == 0 and not needs_obs)
    if not width_ok or obs.dtype.kind not in "biuf":
        raise ArgumentError(
            f"obs must be numbers of shape (..., {core.OBS_DIM}) (core.observe), got shape "
            f"{obs.shape} and dtype {obs.dtype}"
        )
    rows = mask.shape[0] if mask.ndim == 2 else 1
    if state is not None and (not isinstance(state, core.State) or state.batch_size != rows):
        got = f"a State of {state.batch_size} games" if isinstance(state, core.State) else repr(type(state))
        raise ArgumentError(f"state must be None or a core.State of {rows} games (one per mask row), got {got}")


def act_on_state(agent: Agent, state: core.State, games: np.ndarray | None = None) -> np.ndarray:
    """Actions of ``agent`` for the current players of ``games`` (default: all) of a batch.

    Only agents with ``needs_state = True`` (search agents) get a copy of the games' state;
    agents with ``needs_obs = False`` get an empty (n, 0) observation (building the
    observation is a large part of an opponent's cost inside the training env). ArgumentError for
    an agent without ``act``, a state that is not a ``core.State`` or games outside ``0..B-1``.
    """
    if not callable(getattr(agent, "act", None)):
        raise fail("agent", "an agent (with an act method)", agent)
    if not isinstance(state, core.State):
        raise fail("state", "a core.State (from core.init)", state)
    games = np.arange(state.batch_size) if games is None else _game_indices(games, state.batch_size)
    if getattr(agent, "needs_obs", True):
        obs = core.observe(state, state.current_player[games], games=games)
    else:
        obs = np.zeros((games.size, 0), dtype=np.float32)
    mask = state.legal_action_mask[games]
    sub = state.take(games) if getattr(agent, "needs_state", False) else None
    return np.asarray(agent.act(obs, mask, sub), dtype=np.int64)


def _game_indices(games, batch: int) -> np.ndarray:
    """``games`` checked as indices 0..batch-1: an int64 vector (what callers pass in the hot loops)
    by its range alone, anything else by ``check_indices`` (which also names a repeat)."""
    if type(games) is np.ndarray and games.dtype == np.int64 and games.ndim == 1:
        if not games.size or (games.min() >= 0 and games.max() < batch):
            return games
    return check_indices("games", games, batch)


def act_on_env(agent: Agent, env) -> int:
    """The action of ``agent`` for the acting agent of a PettingZoo env (``aos_env.env()``)."""
    obs = env.observe(env.agent_selection)
    raw = env.unwrapped
    return int(agent.act(obs["observation"], obs["action_mask"].astype(bool), raw.engine_state))


def masked_argmax(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Index of the best legal score per row (0 where nothing is legal)."""
    return np.where(mask, scores, -np.inf).argmax(1) * mask.any(1)


#: The largest magnitude a legal logit keeps (``finite_logits``): far beyond any real preference,
#: small enough that exp(logit - max) never overflows in float64.
LOGIT_LIMIT = 1e30


def finite_logits(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(n, A) float64 logits with every legal entry finite (NaN the least likely, +-inf clipped to
    +-``LOGIT_LIMIT``) and -inf where illegal: a network whose numbers overflow still plays a legal
    action, never action 0 by default."""
    z = np.nan_to_num(np.asarray(logits, dtype=np.float64), nan=-LOGIT_LIMIT, posinf=LOGIT_LIMIT, neginf=-LOGIT_LIMIT)
    return np.where(mask, np.clip(z, -LOGIT_LIMIT, LOGIT_LIMIT), -np.inf)


def choose_from_logits(
    logits: np.ndarray, mask: np.ndarray, deterministic: bool, rng: np.random.Generator
) -> np.ndarray:
    """(n,) a legal action per row (every row has one): the most likely, or one sampled from the
    softmax of the legal logits (``finite_logits`` first, so overflowed numbers cannot make it illegal)."""
    z = finite_logits(logits, mask)
    if deterministic:
        return z.argmax(1)
    z = z - z.max(1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(1, keepdims=True)
    u = rng.random(z.shape[0])[:, None]
    pick = np.minimum((p.cumsum(1) < u).sum(1), z.shape[1] - 1)
    illegal = ~mask[np.arange(z.shape[0]), pick]  # rounding at the top of the cumulative sum
    pick[illegal] = z[illegal].argmax(1)
    return pick
