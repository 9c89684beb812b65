"""Age of Summoners as a PettingZoo AEC environment (classic-games conventions).

>>> import aos_env
>>> env = aos_env.env(num_players=3)
>>> env.reset(seed=0)
>>> for agent in env.agent_iter():
...     obs, reward, termination, truncation, info = env.last()
...     action = None if termination or truncation else int(obs["action_mask"].nonzero()[0][0])
...     env.step(action)

| | |
|---|---|
| agents | ``player_0`` ... ``player_{P-1}``, P = 2, 3 or 4 |
| actions | ``Discrete(44)`` (docs/api.md "Actions") |
| observations | ``{"observation": Box(0, bound, (603,), float32), "action_mask": Box(0, 1, (44,), int8)}`` |
| ``observation="flat"`` | the Box alone; the mask in ``infos[agent]["action_mask"]`` (for SuperSuit) |
| state | ``state()``: ``Box(0, bound, (STATE_DIM,), float32)``, hidden information included |
| rewards | at the end: the winner +1, the others -1/(P-1); a truncated game 0 for all |
| infos | numbers only, the same keys at every step (``INFO_KEYS``) |

The env is a batch of one game of ``aos_env.core`` (every rule lives there; ``engine_state`` is
that game). The acting agent is always the engine's ``current_player``, who may be another player
than the one whose turn it is (Inquisition gifts, Nightmare and R8.3 discards). With the compiled
engine (the default) a step and an observation each go straight into one kernel call.

``env()`` adds the behaviour of PettingZoo's three classic wrappers (TerminateIllegalWrapper,
AssertOutOfBoundsWrapper, OrderEnforcingWrapper) in one wrapper, ``ClassicWrapper``: an illegal
action ends the game with -1 for the offender, an action outside the action space is an
``ActionSpaceError`` (an ``ArgumentError`` that is also an AssertionError, PettingZoo's convention,
naming the agent, the value and the range), and calls before ``reset`` are errors. ``raw_env``
raises ``ValueError`` for an illegal action and leaves the game as it was.

Version history: v0 (aos-env 0.1): first release; aos-env 0.2: numeric infos, ``state()``, the
observation gains ``is_first`` per seat (``core.OBS_VERSION`` 2), the engine state is
``engine_state`` (was the ``state`` attribute, which hid PettingZoo's ``state()``); v1
(aos-env 0.3): Nightmare and Homunculus are optional (R10.1), two new decisions, observation
version 3 (603 entries).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env import AECIterable, AECIterator
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.base import BaseWrapper

from .. import core
from ..base import checks
from ..core import describe_illegal
from ..core.cards import load_cards
from ..core.constants import FAITH_CAP
from ..view.render import agent_name, describe_action, render_text
from .spaces import mask_box, observation_box, state_box

if TYPE_CHECKING:
    from ..view.replay import Replay

from ..base.names import ENV_NAME  # "age_of_summoners_v1", the name PettingZoo shows

#: The keys of every agent's info at every step. Until the game ends ``final_scores`` holds -1 for
#: every seat and ``winner`` is -1; a truncated game keeps ``winner`` -1 (nobody wins, R7.5).
INFO_KEYS = ("phase", "command_number", "turn", "active_player", "final_scores", "winner")
NOT_YET = -1
#: ``observation=``: the Dict of PettingZoo's classic games, or the vector alone with the mask in the infos.
OBSERVATION_LAYOUTS = ("dict", "flat")
ILLEGAL_REWARD = -1.0  # env(): the reward of an agent that plays an illegal action


class ActionSpaceError(checks.ArgumentError, AssertionError):
    """An action outside ``Discrete(44)`` given to ``env().step``: an ``ArgumentError`` that names the
    agent, the value and the range, and an AssertionError as PettingZoo's AssertOutOfBoundsWrapper
    raises (code that catches either keeps working; raised even under ``python -O``)."""


def _out_of_space(agent: str, action: Any) -> ActionSpaceError:
    return ActionSpaceError(
        f"{agent}: action is not in the action space Discrete({core.NUM_ACTIONS}): it must be an int "
        f"action id 0..{core.NUM_ACTIONS - 1} (None only once the agent is done), got {action!r:.80}"
    )


def env(**kwargs) -> AECEnv:
    """The AEC env with the classic wrappers' behaviour (``ClassicWrapper``): an illegal action ends
    the game with -1 for the offender; out-of-space actions and calls before reset are errors."""
    return ClassicWrapper(raw_env(**kwargs))


def _action_id(action, agent: str) -> int:
    """``action`` as an int id; ValueError for anything that is not an integer (no rounding, no parsing)."""
    if type(action) is int:
        return action
    if isinstance(action, np.integer) or (
        isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
    ):
        return int(action)
    raise checks.ArgumentError(
        f"{agent}: action must be an int action id 0..{core.NUM_ACTIONS - 1}, got {action!r:.80}"
    )


class raw_env(AECEnv):
    """Age of Summoners as a PettingZoo AEC env (no wrappers: illegal actions raise ValueError).

    ``num_players`` 2..4; ``render_mode`` None, "human", "ansi" or "rgb_array"; ``max_turns``
    the turn limit (R7.5); ``card_file`` another card file; ``record_replay`` keep each game's
    seed and actions for ``replay()``; ``backend`` the engine ("numba", "numpy" or None for the
    default); ``render_seat`` the seat whose hand ``render()`` shows (None: the acting seat's; a fixed
    seat keeps the frames of a video from jumping between seats); ``observation`` "dict" (the
    default: ``{"observation", "action_mask"}``) or "flat" (the observation ``Box`` alone, the mask
    in ``infos[agent]["action_mask"]``: the layout SuperSuit's observation wrappers take).
    """

    metadata: dict[str, Any] = {
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
        backend: str | None = None,
        render_seat: int | None = None,
        observation: str = "dict",
    ) -> None:
        super().__init__()
        self.num_players = checks.check_int("num_players", num_players, 2, 4)
        self.render_seat = checks.check_optional_int("render_seat", render_seat, 0, self.num_players - 1)
        self.observation = str(checks.check_choice("observation", observation, OBSERVATION_LAYOUTS))
        self._flat = self.observation == "flat"
        if render_mode is not None:
            checks.check_choice("render_mode", render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.max_turns = checks.check_int("max_turns", max_turns, 1, core.api.MAX_MAX_TURNS)
        self.record_replay = checks.check_bool("record_replay", record_replay)
        self.backend = core.resolve_backend(backend)
        self.cards = load_cards(card_file)
        self.card_file = card_file
        self._replay: Replay | None = None
        self.possible_agents = [agent_name(p) for p in range(self.num_players)]
        self.agent_name_mapping = {a: p for p, a in enumerate(self.possible_agents)}
        box = observation_box(self.cards, self.max_turns)  # bounds of this card set and turn limit
        obs_space: spaces.Space = box if self._flat else spaces.Dict({"observation": box, "action_mask": mask_box()})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space] = {
            a: spaces.Discrete(core.NUM_ACTIONS) for a in self.possible_agents
        }
        self.state_space = state_box(self.cards, self.max_turns)
        self._game: core.State | None = None
        self._handle: core.GameHandle | None = None  # the one-game calls on self._game
        self._rng = np.random.default_rng()

    # -- PettingZoo API ------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[self._agent(agent)]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``reset(seed=s)`` always gives the same game (seeds 0..2**63-1)."""
        seed = checks.check_optional_seed("seed", seed)
        if options is not None and not isinstance(options, dict):
            raise checks.fail("options", "a dict or None", options)
        # the keys of options are not checked: the game takes none, and PettingZoo's api_test passes some
        if seed is None:
            seed = int(self._rng.integers(2**62))
        self._begin(
            core.init(1, self.num_players, seed=seed, max_turns=self.max_turns, cards=self.cards, backend=self.backend)
        )
        if self.record_replay:
            from ..view.replay import (
                Replay,  # not at module level: `python -m aos_env.view.replay` imports this package first
            )

            self._replay = Replay.start(
                seed, self.num_players, self.max_turns, cards=self.cards, card_file=self.card_file, source="aos_env.env"
            )

    def _begin(self, game: core.State) -> None:
        """Play ``game`` from here: fresh rewards, terminations and infos for every agent."""
        self._game = game
        self._handle = core.game_handle(game, 0)  # the one-game path: state and game checked once
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._not_yet = np.full(self.num_players, NOT_YET, dtype=np.int64)
        g = self._game
        self._after(
            int(g.current_player[0]),
            int(g.phase[0]),
            int(g.command_number[0]),
            int(g.turn[0]),
            int(g.active_player[0]),
            bool(g.terminated[0] or g.truncated[0]),
        )
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Any:
        """The agent's observation vector and its action mask (all zeros unless it must act now); with
        ``observation="flat"`` the vector alone (the mask is in ``infos[agent]["action_mask"]``)."""
        p = self.agent_name_mapping.get(agent) if type(agent) is str else None
        if p is None:
            p = self.agent_name_mapping[self._agent(agent)]
        handle = self._require_handle()
        acting = agent == self.agent_selection and not (self.terminations.get(agent) or self.truncations.get(agent))
        obs, mask = handle.observe(p, acting)
        return obs if self._flat else {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state (STATE_DIM,) float32: every seat's observation, then the stones by kind,
        the deck, the discard pile and the offer (hidden information included; see core.global_state)."""
        return core.global_state(self._require_game())[0]

    def step(self, action: int | None) -> None:
        """Play ``action`` for the acting agent (``None`` once the agent is done)."""
        if self._game is None:
            self._require_game()
        if not self.agents:  # PettingZoo: step(None) removes a done agent; with none left the game is over
            raise RuntimeError(
                "every agent is done and removed (step(None) removes a done agent): the game is over, "
                "call reset() to play another"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        handle = self._require_handle()
        a = _action_id(action, agent)
        if not 0 <= a < core.NUM_ACTIONS:
            self._illegal(agent, a)
        legal, cur, phase, cmd, turn, active, over = handle.step(a)
        if not legal:
            self._illegal(agent, a)
        if self._replay is not None:
            self._replay.record(self.agent_name_mapping[agent], a)
        self._cumulative_rewards[agent] = 0.0
        self._after(cur, phase, cmd, turn, active, over)
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True):
        """PettingZoo's ``last``; before ``reset`` the RuntimeError of every other call (not an AttributeError)."""
        if self._game is None:
            self._require_game()
        return super().last(observe)

    def _illegal(self, agent: str, a: int) -> None:
        raise ValueError(f"{agent}: " + describe_illegal(self._require_game(), 0, a).split(": ", 1)[1])

    def _after(self, cur: int, phase: int, cmd: int, turn: int, active: int, over: bool) -> None:
        """Bookkeeping after a step: who acts, the infos, and at the end rewards and terminations."""
        self.agent_selection = self.possible_agents[cur]
        if not over:
            info = {
                "phase": phase,
                "command_number": cmd,
                "turn": turn,
                "active_player": active,
                "final_scores": self._not_yet.copy(),
                "winner": NOT_YET,
            }
            if self._flat:  # the mask moves from the observation to the infos: one dict per agent
                mask = self._require_game().legal_action_mask[0].astype(np.int8)
                none = np.zeros(core.NUM_ACTIONS, np.int8)
                self.infos = {
                    a: {**info, "action_mask": mask if a == self.agent_selection else none.copy()} for a in self.agents
                }
            else:
                self.infos = dict.fromkeys(self.agents, info)  # one dict per step, the same for every agent
            return
        game = self._require_game()
        scores = core.final_scores(game)[0].astype(np.int64)
        terminated = bool(game.terminated[0])
        winner = int(np.argmax(game.rewards[0])) if terminated else NOT_YET
        self.infos = {
            a: {
                "phase": phase,
                "command_number": cmd,
                "turn": turn,
                "active_player": active,
                "final_scores": scores.copy(),
                "winner": winner,
                **({"action_mask": np.zeros(core.NUM_ACTIONS, np.int8)} if self._flat else {}),
            }
            for a in self.agents
        }
        for a in self.agents:
            self.rewards[a] = float(game.rewards[0, self.agent_name_mapping[a]])
            self.terminations[a] = terminated
            self.truncations[a] = not terminated
        self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: return the table as text; ``"human"``: print it; ``"rgb_array"``: the picture of
        ``aos_env.render_svg`` as an (H, W, 3) uint8 frame (needs the ``render`` extra)."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "render() called without a render_mode; use render_mode='ansi', 'human' or 'rgb_array'"
            )
            return None
        # render_mode is a plain attribute: a value set after construction is checked here, never taken as "human"
        checks.check_choice("render_mode", self.render_mode, self.metadata["render_modes"])
        if self.render_mode == "rgb_array":
            from ..view.svg import render_rgb  # resvg and Pillow are loaded only for this mode

            return render_rgb(self._require_game(), 0, self._seat())
        text = render_text(self._require_game(), 0, self._seat())
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass

    # -- helpers ----------------------------------------------------------------

    @property
    def engine_state(self) -> core.State:
        """The game being played: a ``core.State`` holding one game (read it; to change the game, use
        ``load_state``)."""
        return self._require_game()

    def load_state(self, state: core.State) -> None:
        """Continue from a given engine state (a batch of one), e.g. from ``aos_env.tools.positions``."""
        if not isinstance(state, core.State):
            raise checks.ArgumentError(
                f"state must be a core.State of 1 game of {self.num_players} players, got {type(state).__name__}"
            )
        if state.batch_size != 1 or state.num_players != self.num_players:
            raise checks.ArgumentError(
                f"state must be a core.State of 1 game of {self.num_players} players, got "
                f"{state.batch_size} games of {state.num_players}"
            )
        self._check_consistent(state)
        self._begin(state)
        self._replay = None  # a position set by hand has no seed: it cannot be replayed

    def _check_consistent(self, state: core.State) -> None:
        """Refuse a state this env cannot play: another card set or turn limit (the observation
        space is theirs), or zones and counts that no game reaches (cards made or lost, faith
        beyond its cap, a player id out of range). Checked before anything changes."""
        cards = state.cards
        if cards.num_kinds != self.cards.num_kinds or not np.array_equal(cards.copies, self.cards.copies):
            raise checks.ArgumentError(
                f"state: its card set has {cards.num_kinds} kinds and {int(cards.copies.sum())} cards, this env's "
                f"{self.cards.num_kinds} and {int(self.cards.copies.sum())}; make the env with the state's card_file"
            )
        if state.max_turns != self.max_turns:
            raise checks.ArgumentError(
                f"state: max_turns is {state.max_turns}; this env's is {self.max_turns} (the observation bounds "
                f"depend on it): make the env with max_turns={state.max_turns}"
            )
        zones = ("hand", "spirits", "mana", "stones")
        for name in (*zones, "deck", "discard", "offer"):
            z = np.asarray(getattr(state, name)[0])
            if (z < 0).any():
                raise checks.ArgumentError(f"state: {name} holds a negative count of cards; counts are >= 0")
        per_kind = sum(np.asarray(getattr(state, n)[0]).sum(0, dtype=np.int64) for n in zones) + sum(
            np.asarray(getattr(state, n)[0], dtype=np.int64) for n in ("deck", "discard", "offer")
        )
        wrong = np.flatnonzero(per_kind != cards.copies)
        if wrong.size:
            k = int(wrong[0])
            raise checks.ArgumentError(
                f"state: it has {int(per_kind[k])} cards of {cards.label(k)} over all zones; it must be "
                f"{int(cards.copies[k])} ({int(per_kind.sum())} cards in all, the card set has "
                f"{int(cards.copies.sum())}); build positions with aos_env.tools.positions or core.refresh"
            )
        faith = np.asarray(state.faith[0])
        bad = np.flatnonzero((faith < 0) | (faith > FAITH_CAP))
        if bad.size:
            p = int(bad[0])
            raise checks.ArgumentError(
                f"state: players[{p}].faith is {int(faith[p])}; it must be 0..{FAITH_CAP} (R1.4)"
            )
        for name in ("current_player", "active_player"):
            v = int(getattr(state, name)[0])
            if not 0 <= v < self.num_players:
                raise checks.ArgumentError(f"state: {name} is {v}; it must be 0..{self.num_players - 1}")

    def replay(self, players: Sequence[str] | None = None) -> Replay:
        """The game so far as an ``aos_env.view.replay.Replay`` (needs ``record_replay=True``).

        ``players``: who sat in each seat (agent specs, "human", ...; default the agent names).
        """
        names = self._check_players(players)
        if not self.record_replay:
            raise RuntimeError("this env keeps no replay: create it with record_replay=True")
        if self._replay is None:
            raise RuntimeError(
                "no game to replay: call reset() first (a game begun with load_state() has no seed "
                "and cannot be replayed)"
            )
        replay = copy.deepcopy(self._replay)
        if names is not None:
            replay.players = names
        replay.finish(self._require_game())
        return replay

    def _check_players(self, players) -> list[str] | None:
        """``players`` of ``replay``: None, or one non-empty name (a string) per seat."""
        if players is None:
            return None
        allowed = f"a list of {self.num_players} names (non-empty strings, one per seat) or None"
        if isinstance(players, (str, bytes)) or not isinstance(players, (list, tuple, np.ndarray)):
            raise checks.fail("players", allowed, players)
        names = list(players)
        if len(names) != self.num_players or not all(isinstance(p, str) and p.strip() for p in names):
            raise checks.fail("players", allowed, players)
        return [str(p) for p in names]

    def save_replay(self, path: str | Path, players: Sequence[str] | None = None) -> Path:
        """Write ``replay(players)`` to ``path`` as JSON (``python -m aos_env.view.replay PATH`` shows it)."""
        checks.check_output_file("path", path)
        return self.replay(players).save(path)

    def describe(self, action: int) -> str:
        """What ``action`` means in the current decision, e.g. ``"summon Sphinx (AS018)"``."""
        a = _action_id(action, "describe")
        if not 0 <= a < core.NUM_ACTIONS:
            raise checks.ArgumentError(f"describe: action must be an action id 0..{core.NUM_ACTIONS - 1}, got {a}")
        return describe_action(self._require_game(), 0, a)

    def legal_actions(self) -> list[int]:
        """The acting agent's legal action ids."""
        return [int(a) for a in np.nonzero(self._require_game().legal_action_mask[0])[0]]

    def _agent(self, agent) -> str:
        try:
            known = isinstance(agent, str) and agent in self.agent_name_mapping
        except TypeError:  # e.g. an array: not hashable
            known = False
        if not known:
            raise checks.ArgumentError(f"agent must be one of {', '.join(self.possible_agents)}, got {agent!r:.80}")
        return str(agent)

    def _require_game(self) -> core.State:
        if self._game is None:
            raise RuntimeError("call reset() before using the environment")
        return self._game

    def _require_handle(self) -> core.GameHandle:
        if self._handle is None:
            raise RuntimeError("call reset() before using the environment")
        return self._handle

    def _seat(self) -> int:
        if self.render_seat is not None:
            return self.render_seat
        agent = getattr(self, "agent_selection", None)
        return self.agent_name_mapping.get(agent, 0) if isinstance(agent, str) else 0


def _in_space(space, action) -> bool:
    """Whether ``action`` is in the Discrete ``space`` (PettingZoo's AssertOutOfBoundsWrapper test),
    bools excluded; ints beyond int64 are simply outside (some gymnasium versions overflow on them)."""
    if isinstance(action, (bool, np.bool_)):
        return False
    if isinstance(action, (int, np.integer)) and not 0 <= int(action) < space.n:
        return False
    return bool(space.contains(action))


class ClassicWrapper(BaseWrapper):
    """PettingZoo's three classic wrappers in one (the same behaviour, a third of the cost):

    - TerminateIllegalWrapper: an action the mask forbids ends the game; the offender gets
      ``illegal_reward``, everybody else 0, and every agent is done (terminated and truncated);
    - AssertOutOfBoundsWrapper: an action outside the action space is an ``ActionSpaceError``, an
      AssertionError as there, with a message that names the agent, the value and the range;
    - OrderEnforcingWrapper: step, observe, state, render and agent_iter before ``reset`` are
      errors, and so is reading rewards, terminations, truncations, infos, agent_selection,
      num_agents or agents.
    """

    _BEFORE_RESET = {"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"}

    def __init__(self, env: raw_env, illegal_reward: float = ILLEGAL_REWARD) -> None:
        if not isinstance(env, raw_env):
            raise checks.fail("env", "an aos_env.envs.aec.raw_env", env)
        self._illegal_reward = checks.check_float("illegal_reward", illegal_reward)
        super().__init__(env)
        self._has_reset = False
        self._has_updated = False
        self._terminated = False  # by an illegal move

    @property
    def render_mode(self) -> str | None:  # type: ignore[override]
        """The wrapped env's (setting it sets the wrapped env's: ``render()`` checks it there)."""
        return self.env.render_mode

    @render_mode.setter
    def render_mode(self, value: str | None) -> None:
        self.env.render_mode = value

    def __getattr__(self, name: str) -> Any:
        if name in ClassicWrapper._BEFORE_RESET and not self.__dict__.get("_has_reset", False):
            raise AttributeError(f"{name} cannot be accessed before reset")
        return super().__getattr__(name)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self._has_reset = True
        self._has_updated = True
        self._terminated = False

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def state(self) -> np.ndarray:
        if not self._has_reset:
            EnvLogger.error_state_before_reset()
        return self.env.state()

    def render(self) -> str | np.ndarray | None:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return self.env.render()

    def last(self, observe: bool = True):
        raw = self.env
        if raw._game is None:
            raw._require_game()
        agent = raw.agent_selection
        obs = self.observe(agent) if observe else None
        return obs, raw._cumulative_rewards[agent], raw.terminations[agent], raw.truncations[agent], raw.infos[agent]

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self.env
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        done = raw.terminations[agent] or raw.truncations[agent]
        if action is None:
            if not done:
                raise _out_of_space(agent, action)
            self._has_updated = True
            raw.step(None)
            return
        if not _in_space(raw.action_spaces[agent], action):
            raise _out_of_space(agent, action)
        self._has_updated = True
        if self._terminated and done:
            raw._was_dead_step(action)
        elif not done and not raw._require_game().legal_action_mask[0, int(action)]:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[agent] = self._illegal_reward
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True
        else:
            raw.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcingIterable(self, max_iter)

    # copies keep the game (BaseWrapper's __getattr__ refuses private names, so say it here)
    def __getstate__(self) -> dict:
        return self.__dict__.copy()

    def __setstate__(self, d: dict) -> None:
        self.__dict__.update(d)

    def __str__(self) -> str:
        return str(self.env)


class _OrderEnforcingIterable(AECIterable):
    def __iter__(self) -> AECIterator:
        return _OrderEnforcingIterator(self.env, self.max_iter)


class _OrderEnforcingIterator(AECIterator):
    def __next__(self) -> str:
        agent = super().__next__()
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        return agent
