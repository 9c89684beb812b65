"""Gymnasium envs: one learner seat against opponents, as a ``gymnasium.Env`` and as a
``gymnasium.vector.VectorEnv`` over the batched engine.

``import aos_env`` registers both under one id::

    env = gymnasium.make("aos_env/AgeOfSummoners-v1", num_players=3, opponents="greedy")
    envs = gymnasium.make_vec("aos_env/AgeOfSummoners-v1", num_envs=1024, opponents="greedy@0.5 random@0.5")

The vector env is one ``core.State`` of ``num_envs`` games (no per-game env objects);
``vectorization_mode="sync"`` would build ``num_envs`` single envs instead, which is far slower.

**The action mask** is in ``info["action_mask"]`` (int8, 1 = legal), as Gymnasium's own
envs with masks do (Taxi-v3: ``env.action_space.sample(info["action_mask"])`` samples a
legal action), and from ``env.action_masks()`` (bool), the method sb3-contrib's
MaskablePPO calls. The observation then stays a flat ``Box`` that SB3's ``MlpPolicy``,
CleanRL's scripts and Gymnasium's observation wrappers take as it is. With
``mask_in_obs=True`` the observation is instead ``Dict({"observations": Box,
"action_mask": Box(0, 1, (44,), int8)})``, the layout of RLlib's action-masking RLModule
(which takes the mask from the observation); ``info["action_mask"]`` is there too.

**Illegal actions.** Every action of the action space is accepted (Gymnasium's checkers step
with random actions): by default (``illegal_action="terminate"``) one that is not legal now
ends the learner's game with reward ``illegal_reward`` (-1) and ``info["illegal_action"]``,
like PettingZoo's TerminateIllegalWrapper; the single env's first one also warns
(``IllegalActionWarning``, once per env), so that a policy that ignores the mask is not
scored -1 without a word. ``illegal_action="raise"`` makes it an error instead (nothing
changes). Values outside the action space (-1, 44, 2.5, "3", True) are always errors.

**Seeds.** ``reset(seed=s)`` deals the game of ``core.init(1, P, seed=s)`` (the AEC env's
``reset(seed=s)`` too), and game ``i`` of the vector env's batch is the game of seed ``s + i``,
so that every ``gymnasium.make_vec`` mode deals the same games ("sync" and "async" seed their
env ``i`` with ``s + i``). The learner's seat and the opponents of a game are drawn from its
seed alone (``learner_env.game_uniforms``). The games after the first ones (autoreset,
``reset()``) take seeds from the env's own stream, seeded by ``s``.

**Pictures.** ``render_mode="rgb_array"`` gives the table from the learner's seat as an
(H, W, 3) uint8 frame (``aos_env.view.svg.render_rgb``; the ``render`` extra), the vector env a
tuple of them, one per game, as Gymnasium's vector envs do; ``RecordVideo`` and
``gymnasium.wrappers.vector.RecordVideo`` write them to mp4 (the ``video`` extra).

**Autoreset (vector env).** ``autoreset_mode`` is Gymnasium's ``AutoresetMode``, in
``metadata["autoreset_mode"]``. The default is ``NEXT_STEP``, Gymnasium's default and what
RLlib's ``SingleAgentEnvRunner`` expects: the step in which a game ends returns its final
observation with ``terminated``/``truncated`` and the game's results in ``info``; the
next step ignores that game's action (its mask allows every action), deals a new game and
returns its first observation with reward 0. ``SAME_STEP`` (what SB3's ``VecEnv`` does;
``aos_env.integrations.sb3`` uses it) deals the new game in the same step and puts the final
observation in ``info["final_obs"]`` and the results in ``info["final_info"]``.
``DISABLED`` leaves finished games over until ``reset(options={"reset_mask": mask})``.

Per-game results, in ``info`` at a game's end (with a ``_key`` mask each in the vector env):
``outcome`` (the terminal reward without shaping: +1 win, -1/(P-1) loss, 0 truncated,
``illegal_reward``), ``length`` (the learner's decisions), ``win``, ``score``, ``margin``
(score lead), ``seat`` and ``illegal_action``. Episode returns and lengths are left to
``RecordEpisodeStatistics``.

**Infos are numbers only** (int, float, bool arrays), so that libraries that turn infos into
tensors take them (TorchRL's ``GymEnv``/``GymWrapper``). The names of the opponents a game was
played against are in the env's ``ended_opponents`` instead: the single env's is a str (the
names, comma separated) or None, the vector env's a list with one such entry per game; each
entry is that of the game that ended last (in the step that reports it, and until the next one
ends). ``envs.call("ended_opponents")`` reads them through a Gymnasium vector env of single envs.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import core
from ..base.checks import ArgumentError, check_bool, check_choice, fail, is_int
from ..view.render import render_text
from .learner import Ended, LearnerEnv
from .opponents import OpponentPool
from .spaces import observation_box

ENV_ID = "aos_env/AgeOfSummoners-v1"  # registered by aos_env/__init__.py
#: The observation key of the Dict observation (RLlib's action-masking examples read these two keys).
OBS_KEY = "observations"
MASK_KEY = "action_mask"
RENDER_MODES = ["ansi", "human", "rgb_array"]
VECTOR_RENDER_MODES = ["ansi", "rgb_array"]
#: Frames per second of a recorded game (RecordVideo): one decision a second, to be followed by eye.
RENDER_FPS = 1


class IllegalActionWarning(UserWarning):
    """The single env's first illegal action ended a game (``illegal_action="terminate"``)."""


def _render(state: core.State, game: int, seat: int, mode: str):
    """Game ``game`` from ``seat``: the table as text ("ansi", "human") or as a frame ("rgb_array")."""
    if mode == "rgb_array":
        from ..view.svg import render_rgb  # resvg and Pillow are loaded only for this mode

        return render_rgb(state, game, seat)
    return render_text(state, game, seat)


def observation_space(mask_in_obs: bool, learner: LearnerEnv | None = None) -> spaces.Space:
    """One learner's observation space: the Box, or the Dict with the mask (``mask_in_obs``). Its
    bounds are those of the learner env's card set and turn limit (default: the shipped cards, 200)."""
    box = observation_box() if learner is None else observation_box(learner.cards, learner.max_turns)
    if not mask_in_obs:
        return box
    return spaces.Dict({OBS_KEY: box, MASK_KEY: spaces.Box(0, 1, (core.NUM_ACTIONS,), dtype=np.int8)})


def _check_options(options: Any, allowed: tuple[str, ...]) -> dict:
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise fail(
            "options", "None or a dict" + (f" with keys {', '.join(map(repr, allowed))}" if allowed else ""), options
        )
    unknown = [k for k in options if k not in allowed]
    if unknown:
        what = f"its keys are {', '.join(map(repr, allowed))}" if allowed else "it takes no keys"
        raise ArgumentError(f"options: unknown key {unknown[0]!r}; {what}")
    return options


def _final_info(ended: Ended, i: int, mask: np.ndarray) -> dict[str, Any]:
    """The results of the ``i``-th game of ``ended`` as one game's info (numbers only: the opponents'
    names go to the env's ``ended_opponents``)."""
    return {
        "action_mask": mask,
        "outcome": float(ended.outcome[i]),
        "length": int(ended.length[i]),
        "win": bool(ended.win[i]),
        "score": int(ended.score[i]),
        "margin": int(ended.margin[i]),
        "seat": int(ended.seat[i]),
        "illegal_action": bool(ended.illegal[i]),
    }


class _OnLearner:
    """What both envs read from their ``LearnerEnv`` (``self.learner``), and their observation:
    the array, or the Dict with the mask when ``mask_in_obs``."""

    learner: LearnerEnv
    mask_in_obs: bool

    @property
    def opponents(self) -> OpponentPool:
        return self.learner.opponents

    @property
    def num_players(self) -> int:
        return self.learner.num_players

    def _obs(self, obs: np.ndarray, mask: np.ndarray):
        return {OBS_KEY: obs, MASK_KEY: mask.copy()} if self.mask_in_obs else obs


class AgeOfSummonersEnv(_OnLearner, gymnasium.Env):
    """One game: the learner's seat against opponents played inside the env.

    num_players: 2..4. opponents: agent specs, as ``train.py --opponents`` takes them
    ("greedy", "greedy@0.5 random@0.5", a list of spec@weight, a dict {spec: weight}, or an
    ``OpponentPool``); each game draws the other seats from them by weight. max_turns: the
    turn limit (R7.5; a game that reaches it is truncated). shaping: reward per point of
    change in the learner's score lead, on top of the final +1 / -1/(P-1). truncation_reward:
    the reward of a game that reaches the turn limit (None: the game's own 0; "loss": -1/(P-1),
    so that stalling never pays). mask_in_obs, illegal_action, illegal_reward: see the module
    docstring. render_mode: "ansi" (the table from the learner's seat, as text), "human"
    (printed) or "rgb_array" (the picture, an (H, W, 3) uint8 frame). card_file, backend: as
    ``core.init``.

    The learner's seat is drawn for every game; ``reset(seed=s)`` deals the game of seed ``s``
    and fixes the deals after it, the seats, the line-ups and the opponents' random streams.
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS}

    def __init__(
        self,
        num_players: int = 2,
        opponents: Any = "random",
        max_turns: int = core.DEFAULT_MAX_TURNS,
        shaping: float = 0.0,
        mask_in_obs: bool = False,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        card_file=None,
        backend: str | None = None,
        truncation_reward: float | str | None = None,
    ) -> None:
        self.mask_in_obs = check_bool("mask_in_obs", mask_in_obs)
        self.render_mode = check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        self.learner = LearnerEnv(
            1,
            num_players,
            opponents,
            max_turns=max_turns,
            card_file=card_file,
            shaping=shaping,
            autoreset_mode=AutoresetMode.DISABLED,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            backend=backend,
            truncation_reward=truncation_reward,
        )
        self.observation_space = observation_space(self.mask_in_obs, self.learner)
        self.action_space = spaces.Discrete(core.NUM_ACTIONS)
        self._warned_illegal = False
        #: The opponents (names, comma separated) of the game that ended last; None before one ends.
        self.ended_opponents: str | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        _check_options(options, ())
        obs = self.learner.reset(seed=seed)
        if seed is not None or self._np_random is None:  # np_random is the env's own stream
            self._np_random, self._np_random_seed = self.learner.rng, (seed if seed is not None else -1)
        mask = self.learner.action_masks()[0].astype(np.int8)
        if self.render_mode == "human":
            self.render()
        return self._obs(obs[0], mask), {"action_mask": mask}

    def step(self, action):
        learner = self.learner
        if learner.state is None:
            raise ResetNeeded("step() called before reset(): call reset() first")
        if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
            action = action.item()  # SB3's predict gives a 0-d array for one observation
        if not is_int(action) or not 0 <= action < core.NUM_ACTIONS:
            raise fail("action", f"an int 0..{core.NUM_ACTIONS - 1} (an action id)", action)
        if learner.reported[0]:
            raise ResetNeeded("the game is over: call reset() to start the next one")
        if learner.illegal_action == "raise" and not learner.state.legal_action_mask[0, action]:
            raise ArgumentError(
                "action must be legal (see info['action_mask']): "
                + core.describe_illegal(learner.state, 0, int(action))
            )
        obs, rewards, terminated, truncated, ended = learner.step(np.array([action], dtype=np.int64))
        mask = learner.state.legal_action_mask[0].astype(np.int8)
        info = {"action_mask": mask}
        if ended.games.size:
            info = _final_info(ended, 0, mask)
            self.ended_opponents = ended.opponents[0]
            if info["illegal_action"]:
                self._warn_illegal(int(action))
        if self.render_mode == "human":
            self.render()
        return self._obs(obs[0], mask), float(rewards[0]), bool(terminated[0]), bool(truncated[0]), info

    def _warn_illegal(self, action: int) -> None:
        """Warn of the first illegal action of this env: a policy that ignores the mask otherwise
        just loses every game."""
        if getattr(self, "_warned_illegal", False):  # an env pickled before this attribute has none
            return
        self._warned_illegal = True
        warnings.warn(
            f"action {action} is not legal now: the game ended with reward {self.learner.illegal_reward:g} "
            "(illegal_action='terminate'; this warning is shown once per env). Choose among the legal actions "
            "of info['action_mask'] or env.action_masks() (sb3-contrib's MaskablePPO and "
            "aos_env.integrations.sb3.evaluate_policy use them), or make the env with illegal_action='raise' "
            "to stop at the first one.",
            IllegalActionWarning,
            stacklevel=3,
        )

    def action_masks(self) -> np.ndarray:
        """(44,) bool: the legal actions now (sb3-contrib's MaskablePPO calls this)."""
        return self.learner.action_masks()[0]

    def render(self) -> Any:  # str, an (H, W, 3) uint8 frame or None (Gymnasium's RenderFrame)
        """The table from the learner's seat: text ("ansi"), printed ("human") or a frame ("rgb_array")."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; make the env with render_mode='ansi', 'human' or 'rgb_array'"
            )
            return None
        if self.learner.state is None:
            raise ResetNeeded("render() called before reset(): call reset() first")
        check_choice("render_mode", self.render_mode, RENDER_MODES)  # a value set after construction too
        out = _render(self.learner.state, 0, int(self.learner.seat[0]), self.render_mode)
        if self.render_mode == "human":
            print(out)
            return None
        return out


class AgeOfSummonersVectorEnv(_OnLearner, VectorEnv):
    """``num_envs`` games on one batched engine state, one learner seat each (see the module docstring).

    Takes the single env's arguments, plus num_envs (>= 1, within memory) and autoreset_mode
    (a ``gymnasium.vector.AutoresetMode`` or its value; default NEXT_STEP). ``action_masks()``
    gives (num_envs, 44) bool. ``render()`` gives a tuple with every game's table, from its
    learner's seat: text (render_mode="ansi") or frames ("rgb_array", what
    ``gymnasium.wrappers.vector.RecordVideo`` records). Game ``i`` of ``reset(seed=s)`` is the
    game of seed ``s + i``.
    """

    metadata = {
        "render_modes": VECTOR_RENDER_MODES,
        "render_fps": RENDER_FPS,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(
        self,
        num_envs: int = 1,
        num_players: int = 2,
        opponents: Any = "random",
        max_turns: int = core.DEFAULT_MAX_TURNS,
        shaping: float = 0.0,
        mask_in_obs: bool = False,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        card_file=None,
        backend: str | None = None,
        truncation_reward: float | str | None = None,
    ) -> None:
        self.mask_in_obs = check_bool("mask_in_obs", mask_in_obs)
        self.render_mode = check_choice("render_mode", render_mode, (None, *VECTOR_RENDER_MODES))
        self.learner = LearnerEnv(
            num_envs,
            num_players,
            opponents,
            max_turns=max_turns,
            card_file=card_file,
            shaping=shaping,
            autoreset_mode=autoreset_mode,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            backend=backend,
            truncation_reward=truncation_reward,
        )
        self.num_envs = self.learner.num_envs
        self.autoreset_mode = self.learner.autoreset_mode
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.single_observation_space = observation_space(self.mask_in_obs, self.learner)
        self.single_action_space = spaces.Discrete(core.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        #: Per game, the opponents (names, comma separated) of its game that ended last; None before one ends.
        self.ended_opponents: list[str | None] = [None] * self.num_envs

    def _masks(self) -> np.ndarray:
        return self.learner.action_masks().astype(np.int8)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Deal every game (or, with ``options={"reset_mask": mask}``, the games where the (num_envs,)
        bool mask is True). ``seed``: one int for the whole batch (None: continue the stream)."""
        options = _check_options(options, ("reset_mask",))
        games = None
        if "reset_mask" in options:
            mask = options["reset_mask"]
            if not (isinstance(mask, np.ndarray) and mask.dtype == bool and mask.shape == (self.num_envs,)):
                raise fail("options['reset_mask']", f"a bool array of shape ({self.num_envs},)", mask)
            games = mask
        obs = self.learner.reset(seed=seed, games=games)
        if seed is not None or self._np_random is None:
            self._np_random, self._np_random_seed = self.learner.rng, (seed if seed is not None else -1)
        masks = self._masks()
        return self._obs(obs, masks), {"action_mask": masks, "_action_mask": np.ones(self.num_envs, bool)}

    def step(self, actions):
        obs, rewards, terminated, truncated, ended = self.learner.step(actions)
        masks = self._masks()
        N = self.num_envs
        infos: dict[str, Any] = {"action_mask": masks, "_action_mask": np.ones(N, bool)}
        if ended.games.size:
            results = self._results(ended)
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                final_obs = np.full(N, None, dtype=object)
                final_masks = np.zeros((ended.games.size, core.NUM_ACTIONS), np.int8)  # a finished game: none legal
                for j, g in enumerate(ended.games):
                    final_obs[g] = (
                        {OBS_KEY: ended.final_obs[j], MASK_KEY: final_masks[j]}
                        if self.mask_in_obs
                        else ended.final_obs[j]
                    )
                has = np.zeros(N, bool)
                has[ended.games] = True
                results["action_mask"] = np.zeros((N, core.NUM_ACTIONS), np.int8)
                results["_action_mask"] = has
                infos.update(final_obs=final_obs, _final_obs=has, final_info=results, _final_info=has.copy())
            else:
                infos.update(results)
        return self._obs(obs, masks), rewards, terminated, truncated, infos

    def _results(self, ended: Ended) -> dict[str, np.ndarray]:
        """The games' results as Gymnasium vector infos: an (N,) array per key and its ``_key`` mask
        (numbers only); the opponents' names go to ``ended_opponents``."""
        N, g = self.num_envs, ended.games
        for j, i in enumerate(g):
            self.ended_opponents[int(i)] = ended.opponents[j]
        out: dict[str, np.ndarray] = {}
        for key, values, dtype in (
            ("outcome", ended.outcome, np.float32),
            ("length", ended.length, np.int64),
            ("win", ended.win, bool),
            ("score", ended.score, np.int64),
            ("margin", ended.margin, np.int64),
            ("seat", ended.seat, np.int64),
            ("illegal_action", ended.illegal, bool),
        ):
            arr = np.zeros(N, dtype=dtype)
            arr[g] = values
            has = np.zeros(N, bool)
            has[g] = True
            out[key], out[f"_{key}"] = arr, has
        return out

    def action_masks(self) -> np.ndarray:
        """(num_envs, 44) bool: the learner's legal actions (every action for a game that awaits its
        deal in NEXT_STEP mode: the next step ignores it)."""
        return self.learner.action_masks()

    def render(self) -> Any:  # a tuple of str or of (H, W, 3) uint8 frames, or None
        """Every game's table from its learner's seat, as a tuple: text ("ansi") or frames ("rgb_array")."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; make the env with render_mode='ansi' or 'rgb_array'"
            )
            return None
        if self.learner.state is None:
            raise ResetNeeded("render() called before reset(): call reset() first")
        check_choice("render_mode", self.render_mode, VECTOR_RENDER_MODES)  # a value set after construction too
        state, seat = self.learner.state, self.learner.seat
        return tuple(_render(state, b, int(seat[b]), self.render_mode) for b in range(self.num_envs))
