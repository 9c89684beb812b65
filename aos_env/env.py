"""PettingZoo AEC environment (classic-games conventions) over the batched engine.

>>> import aos_env
>>> env = aos_env.env(num_players=3)
>>> env.reset(seed=0)
>>> for agent in env.agent_iter():
...     obs, reward, termination, truncation, info = env.last()
...     action = None if termination or truncation else int(obs["action_mask"].nonzero()[0][0])
...     env.step(action)

The env is a batch of one game of ``aos_env.core``: every rule lives there.
The acting agent is always the engine's ``current_player``, which may be a
player other than the one whose turn it is (Inquisition gifts, Nightmare and
R8.3 discards).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import core
from .cards import load_cards
from .core import Phase
from .checks import check_int
from .core import describe_illegal
from .render import agent_name, describe_action, render_text

if TYPE_CHECKING:
    from .replay import Replay

ENV_NAME = "age_of_summoners_v0"
_PHASE_NAMES = [p.name for p in Phase]  # by value (building a Phase member costs a microsecond or so)
def observation_box() -> spaces.Box:
    """The observation vector's space: 0 up to a bound per slice, 1 or unbounded (core.observation_bounds)."""
    low, high = core.observation_bounds()
    return spaces.Box(low, high, (core.OBS_DIM,), dtype=np.float32)


def env(**kwargs) -> AECEnv:
    """The AEC env with PettingZoo's classic wrappers: an illegal action ends the game
    with -1 for the offender; out-of-bounds actions are caught; call order is enforced."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """Age of Summoners as a PettingZoo AEC env (no wrappers: illegal actions raise ValueError)."""

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": ENV_NAME,
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        max_turns: int = core.DEFAULT_MAX_TURNS,
        card_file: str | None = None,
        record_replay: bool = False,
    ) -> None:
        EzPickle.__init__(self, num_players, render_mode, max_turns, card_file, record_replay)
        super().__init__()
        num_players = check_int("num_players", num_players, 2, 4)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.num_players = num_players
        self.render_mode = render_mode
        self.max_turns = max_turns
        if not isinstance(record_replay, bool):
            raise ValueError(f"record_replay must be True or False, got {record_replay!r}")
        self.cards = load_cards(card_file)
        self.card_file = card_file
        self.record_replay = record_replay  # keep each game's seed and actions for replay() / save_replay()
        self._replay: Replay | None = None
        self.possible_agents = [agent_name(p) for p in range(self.num_players)]
        self.agent_name_mapping = {a: p for p, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": observation_box(),
                "action_mask": spaces.Box(0, 1, (core.NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(core.NUM_ACTIONS) for a in self.possible_agents}
        self.state: core.State | None = None
        self._rng = np.random.default_rng()

    # -- PettingZoo API ------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``reset(seed=s)`` always gives the same game."""
        if seed is None:
            seed = int(self._rng.integers(2**62))
        self._begin(core.init(1, self.num_players, seed=int(seed), max_turns=self.max_turns, cards=self.cards))
        if self.record_replay:
            from .replay import Replay  # not at module level: `python -m aos_env.replay` imports this package first

            self._replay = Replay.start(int(seed), self.num_players, self.max_turns, cards=self.cards,
                                        card_file=self.card_file, source="aos_env.env")

    def _begin(self, state: core.State) -> None:
        """Play ``state`` from here: fresh rewards, terminations and infos for every agent."""
        self.state = state
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._update_after_step()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation vector and its action mask (all zeros unless it must act)."""
        p = self.agent_name_mapping[agent]
        state = self._require_state()
        mask = np.zeros(core.NUM_ACTIONS, dtype=np.int8)
        if agent == self.agent_selection and not (self.terminations.get(agent) or self.truncations.get(agent)):
            mask[:] = state.legal_action_mask[0]
        return {"observation": core.observe(state, p)[0], "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._require_state()
        a = int(action)
        if not (0 <= a < core.NUM_ACTIONS and state.legal_action_mask[0, a]):
            raise ValueError(f"{agent}: " + describe_illegal(state, 0, a).split(": ", 1)[1])
        if self._replay is not None:
            self._replay.record(self.agent_name_mapping[agent], a)
        core.step(state, np.array([a]))
        self._cumulative_rewards[agent] = 0.0
        self._update_after_step()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: return the table as text; ``"human"``: print it; ``"rgb_array"``: the picture of
        ``aos_env.render_svg`` as an (H, W, 3) uint8 frame (needs the ``render`` extra)."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; "
                                  "use render_mode='ansi', 'human' or 'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            from .svg import render_rgb  # resvg and Pillow are loaded only for this mode

            return render_rgb(self._require_state(), 0, self._seat())
        text = render_text(self._require_state(), 0, self._seat())
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass

    # -- helpers ----------------------------------------------------------------

    def load_state(self, state: core.State) -> None:
        """Continue from a given engine state (a batch of one), e.g. from ``aos_env.positions``."""
        if state.batch_size != 1 or state.num_players != self.num_players:
            raise ValueError(f"need a state of 1 game of {self.num_players} players, got "
                             f"{state.batch_size} games of {state.num_players}")
        self._begin(state)
        self._replay = None  # a position set by hand has no seed: it cannot be replayed

    def replay(self, players: Sequence[str] | None = None) -> Replay:
        """The game so far as an ``aos_env.replay.Replay`` (needs ``record_replay=True``).

        ``players``: who sat in each seat (agent specs, "human", ...; default the agent names).
        """
        if not self.record_replay:
            raise RuntimeError("this env keeps no replay: create it with record_replay=True")
        if self._replay is None:
            raise RuntimeError("no game to replay: call reset() first (a game begun with load_state() has no seed "
                               "and cannot be replayed)")
        replay = copy.deepcopy(self._replay)
        if players is not None:
            if len(players) != self.num_players:
                raise ValueError(f"players: expected {self.num_players} names (one per seat), got {len(players)}")
            replay.players = [str(p) for p in players]
        replay.finish(self._require_state())
        return replay

    def save_replay(self, path: str | Path, players: Sequence[str] | None = None) -> Path:
        """Write ``replay(players)`` to ``path`` as JSON (``python -m aos_env.replay PATH`` shows it)."""
        return self.replay(players).save(path)

    def describe(self, action: int) -> str:
        """What ``action`` means in the current decision, e.g. ``"summon Sphinx (AS018)"``."""
        return describe_action(self._require_state(), 0, int(action))

    def legal_actions(self) -> list[int]:
        """The acting agent's legal action ids."""
        return [int(a) for a in np.nonzero(self._require_state().legal_action_mask[0])[0]]

    def _require_state(self) -> core.State:
        if self.state is None:
            raise RuntimeError("call reset() before using the environment")
        return self.state

    def _seat(self) -> int:
        return self.agent_name_mapping.get(self.agent_selection, 0)

    def _update_after_step(self) -> None:
        state = self._require_state()
        self.agent_selection = self.possible_agents[state.current_player[0]]
        info = {"phase": _PHASE_NAMES[state.phase[0]], "command_number": int(state.command_number[0]),
                "turn": int(state.turn[0]), "active_player": self.possible_agents[state.active_player[0]]}
        if state.terminated[0] or state.truncated[0]:
            scores = core.final_scores(state)[0]
            winner = agent_name(int(np.argmax(state.rewards[0]))) if state.terminated[0] else None
            info.update(final_scores={a: int(scores[p]) for p, a in enumerate(self.possible_agents)}, winner=winner)
            for a in self.agents:
                self.rewards[a] = float(state.rewards[0, self.agent_name_mapping[a]])
                self.terminations[a] = bool(state.terminated[0])
                self.truncations[a] = bool(state.truncated[0])
        for a in self.agents:
            self.infos[a] = dict(info)
