"""MonteCarloAgent: determinised Monte-Carlo search on the batched engine.

At each decision the agent

1. copies the real position once per (legal action, rollout) into one batch;
2. *determinises* every copy from the acting player's point of view: the cards
   it cannot see (other hands, the faces of all stones, the deck, the discard
   pile, hidden offered cards) are pooled and dealt back at random into zones
   of the same sizes, so each copy is a world consistent with what the player
   has seen (R9); each copy also gets a fresh random stream;
3. plays the action in each copy, then finishes the game with a fast default
   policy (``rollout_policy``), all copies advancing together in the engine;
4. picks the action with the best mean outcome for the player: +1 for a win,
   -1/(P-1) for a loss, plus 0.02 per point of score lead, which separates
   actions whose win counts tie. A rollout cut at ``max_rollout_turns`` is
   valued by ``leaf_value``: ``"score"`` counts it as if the game ended there,
   ``"bot"`` asks the shipped bot's value network (plus the same lead term).

With ``rollout_policy="bot", leaf_value="bot"`` the search stands on the trained
policy: it plays the rollouts and values where they stop (``make_agent("search")``).

All actions of a game are tried on the same determinised worlds with the
same random draws (common random numbers), so their comparison is not
drowned in the noise of the deals.

Several games can be searched at once: their copies share the same batch.
Determinisation lives in ``aos_env.tools.determinise`` (the OpenSpiel adapter's
IS-MCTS resampling uses it too).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aos_env import core
from aos_env.base.checks import (
    check_batch_memory,
    check_choice,
    check_int,
    check_optional_float,
    check_optional_int,
    fail,
)
from aos_env.core import PEAK_BYTES_PER_GAME as BYTES_PER_GAME
from aos_env.tools.determinise import determinise, fresh_streams

from .base import BaseAgent, act_on_state
from .bot import BotAgent
from .greedy import GreedyAgent
from .random_agent import RandomAgent

#: Rollout policies by name (or pass any agent).
ROLLOUT_POLICIES = ("greedy", "random", "bot")
#: How a cut rollout is valued: as if the game ended there, or by the bot's value network.
LEAF_VALUES = ("score", "bot")


class MonteCarloAgent(BaseAgent):
    """Determinised Monte-Carlo search (see the module docstring).

    rollouts: rollouts per legal action (an int >= 1). rollout_policy: "greedy",
    "random", "bot" (the shipped bot) or an agent. max_rollout_turns: cut each rollout after this
    many turns (an int >= 1, or None: play to the end). leaf_value: "score" or "bot" (or an object
    with ``values(obs)``, as BotAgent has). The defaults (32 rollouts, greedy, 8 turns, score) beat
    the greedy agent in most 2-player games at well under a second per decision.
    """

    name = "mc"
    needs_state = True

    def __init__(
        self,
        rollouts: int = 32,
        rollout_policy="greedy",
        max_rollout_turns: int | None = 8,
        seed: int | None = 0,
        leaf_value="score",
        prior_weight: float | None = None,
    ) -> None:
        rollouts = check_int("rollouts", rollouts, 1)
        # one searched game holds up to one copy per (legal action, rollout)
        check_batch_memory("rollouts", rollouts, core.NUM_ACTIONS * BYTES_PER_GAME, unit="rollout")
        max_rollout_turns = check_optional_int("max_rollout_turns", max_rollout_turns, 1)
        if isinstance(rollout_policy, str):
            check_choice("rollout_policy", rollout_policy, ROLLOUT_POLICIES)
        elif not callable(getattr(rollout_policy, "act", None)):
            raise fail(
                "rollout_policy",
                f"one of {', '.join(map(repr, ROLLOUT_POLICIES))} or an agent (with an act method)",
                rollout_policy,
            )
        if isinstance(leaf_value, str):
            check_choice("leaf_value", leaf_value, LEAF_VALUES)
        elif not callable(getattr(leaf_value, "values", None)):
            raise fail(
                "leaf_value",
                f"one of {', '.join(map(repr, LEAF_VALUES))} or an object with a values(obs) method (a BotAgent)",
                leaf_value,
            )
        prior_weight = check_optional_float("prior_weight", prior_weight, 0.0)
        super().__init__(seed)
        self.prior_weight = prior_weight
        self.rollouts = rollouts
        self.max_rollout_turns = max_rollout_turns
        wants_bot = "bot" in (rollout_policy, leaf_value) or prior_weight is not None
        bot = BotAgent(seed=seed) if wants_bot else None
        if rollout_policy == "greedy":
            rollout_policy = GreedyAgent(seed=seed)
        elif rollout_policy == "random":
            rollout_policy = RandomAgent(seed=seed)
        elif rollout_policy == "bot":
            rollout_policy = bot
        self.rollout_policy = rollout_policy
        # "score" or an object with values(): the bot was made above when leaf_value is "bot"
        self.leaf_value: Any = bot if leaf_value == "bot" else leaf_value
        self.prior = bot if prior_weight is not None else None  # the policy whose log-probabilities guide

    def __repr__(self) -> str:
        return (
            f"MonteCarloAgent(rollouts={self.rollouts}, rollout_policy={self.rollout_policy!r}, "
            f"max_rollout_turns={self.max_rollout_turns}, leaf_value={self.leaf_value!r}, "
            f"prior_weight={self.prior_weight}, seed={self.seed})"
        )

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: core.State | None = None) -> np.ndarray:
        if state is None:
            raise ValueError(
                "MonteCarloAgent searches on the engine: pass the engine state (act_on_state / act_on_env)"
            )
        B = mask.shape[0]
        out = np.zeros(B, dtype=np.int64)
        log_prior = None
        if self.prior is not None:
            # search only the actions the policy gives a real chance (the rest are pruned), and
            # add prior_weight * log-probability to each searched action's mean at the end
            log_prior = self.prior.log_probs(obs, mask)
            mask = mask & (log_prior >= log_prior.max(1, keepdims=True) + np.log(PRIOR_PRUNE))
        legal_count = mask.sum(1)
        single = legal_count == 1
        out[single] = mask[single].argmax(1)
        games, acts = np.nonzero(mask & (legal_count > 1)[:, None])
        if not games.size:
            return out
        R = self.rollouts
        # One determinised world per (game, rollout), shared by all the game's actions
        # (common random numbers: actions are compared on the same worlds and draws).
        searched = np.unique(games)
        worlds = state.take(np.repeat(searched, R))
        determinise(worlds, worlds.current_player.copy(), self.rng)
        fresh_streams(worlds, self.rng)
        block = np.searchsorted(searched, games)  # world block of each (game, action) pair
        sim = worlds.take((block[:, None] * R + np.arange(R)[None, :]).ravel())
        first = np.repeat(acts, R)
        viewer = sim.current_player.copy()
        core.step(sim, first)
        start_turn = sim.turn.copy()
        value = np.zeros(sim.batch_size)
        valued = np.zeros(sim.batch_size, dtype=bool)
        while True:
            over = sim.terminated | sim.truncated
            just = np.nonzero(over & ~valued)[0]
            if just.size:  # rewards exist only in the step that ended a game
                value[just] = sim.rewards[just, viewer[just]] + MARGIN_WEIGHT * core.score_lead(sim, just, viewer[just])
                valued[just] = True
            if self.max_rollout_turns is not None:
                cut = np.nonzero(~over & (sim.turn - start_turn >= self.max_rollout_turns))[0]
                if cut.size:
                    value[cut] = self._leaf(sim, cut, viewer[cut])
                    valued[cut] = True
                    core.truncate(sim, cut)  # our private copy: the engine now ignores these games
            live = np.nonzero(~(sim.terminated | sim.truncated))[0]
            if not live.size:
                break
            actions = np.zeros(sim.batch_size, dtype=np.int64)
            actions[live] = act_on_state(self.rollout_policy, sim, live)
            core.step(sim, actions)
        mean = np.bincount(np.repeat(np.arange(games.size), R), weights=value, minlength=games.size) / R
        best = np.full((B, mask.shape[1]), -np.inf)
        best[games, acts] = mean if log_prior is None else mean + self.prior_weight * log_prior[games, acts]
        multi = legal_count > 1
        self.last_search = best  # what the search weighed, for replays that explain (aos_env.view.explain)
        out[multi] = best[multi].argmax(1)
        return out

    def _leaf(self, sim: core.State, g: np.ndarray, viewer: np.ndarray) -> np.ndarray:
        """The value of cut rollouts g for their viewers."""
        if isinstance(self.leaf_value, str):
            return _leader_value(sim, g, viewer)
        # the value network estimates the return from here, shaped by 0.02 per point of lead
        # gained from now on (train.py's --shaping): adding the lead now puts it on the scale of
        # a finished rollout's value (reward + 0.02 * final lead)
        estimate = self.leaf_value.values(core.observe(sim, viewer, games=g))
        return estimate + MARGIN_WEIGHT * core.score_lead(sim, g, viewer)


MARGIN_WEIGHT = 0.02  # value of one point of score lead, next to +1 for a win (train.py's --shaping)
#: With a prior, actions below this share of the policy's favourite's probability are not searched.
PRIOR_PRUNE = 0.05


def _leader_value(state: core.State, g: np.ndarray, viewer: np.ndarray) -> np.ndarray:
    """Outcome of a cut rollout: as if the game ended now (+1 if the viewer leads,
    else -1/(P-1)), plus the small score-margin term."""
    P = state.num_players
    margin = core.score_lead(state, g, viewer)
    return np.where(margin > 0, 1.0, -1.0 / (P - 1)) + MARGIN_WEIGHT * margin
