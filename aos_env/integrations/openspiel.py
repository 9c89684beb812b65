"""Age of Summoners as an OpenSpiel game.

``import aos_env.integrations.openspiel`` registers the game with pyspiel::

    import pyspiel
    import aos_env.integrations.openspiel  # noqa: F401  (registers "python_age_of_summoners")

    game = pyspiel.load_game("python_age_of_summoners", {"players": 3, "max_turns": 200, "rng_seed": 0})
    state = game.new_initial_state()      # a chance node: the cards are not dealt yet
    state.apply_action(0)                  # the deal; then player decisions until the end

Parameters: ``players`` 2..4 (default 2), ``max_turns`` (default 200, the
truncation limit of R7.5) and ``rng_seed`` (0..2**31-1, default 0); for tabular
algorithms (``TABULAR_GAME``), ``deals`` (default 0: the sampled deal below; N:
the deal is an explicit chance node of N equally likely outcomes, outcome i the
engine seed ``rng_seed + i``, and since the seed fixes every later draw the
history fixes the state: EXPLICIT_STOCHASTIC), ``score_truncated`` (default
False: a truncated game gives 0 to all; True: it is scored as if it ended,
R7.3/R7.4) and ``perfect_recall`` (default False; True adds to the
information-state string a digest of everything the player observed since the
deal and their own actions, so that histories they can tell apart never share a
key; the tensor stays as below).

**Chance: SAMPLED_STOCHASTIC.** The engine draws every card with its own
per-game random stream inside ``core.step``: a draw is not a separate step
the wrapper could expose, and the R8.1/R8.3 reshuffles happen in the middle
of an action. Explicit chance nodes (one per card drawn or stone gained, with
the deck's kinds as outcomes) would need the engine to stop at each draw.
So the game follows OpenSpiel's convention for such games (the C++
``tarok`` and ``negotiation``): the initial state is a chance node with a
single outcome (0, probability 1) whose application *samples* the deal. It
draws the next engine seed of the game object (``rng_seed``, ``rng_seed +
1``, ... for its successive deals, so the i-th game played on a game object
is exactly ``core.init(1, players, seed=rng_seed + i, max_turns=...)``).
That seed fixes the deal and every later draw: after the deal each state
holds its game's random stream, so a state and its clones play on
identically (``State.clone`` and ``random_sim_test``'s clone checks need
this), while the history of actions alone does not fix the cards, which is
what SAMPLED_STOCHASTIC tells algorithms. ``resample_from_infostate`` gives
searches (IS-MCTS) worlds with re-dealt hidden cards *and* a fresh stream.

**Observations.** The observation tensor is ``core.observe`` (``core.OBS_DIM`` = 603 floats,
player-relative, what R9 lets the player know now; docs/observation.md).
The information-state tensor is that observation followed by a summary of
the player's own past decisions: how often they chose each action id in each
kind of decision (``NUM_DECISION_PHASES x NUM_ACTIONS`` counts / 10;
decisions the engine took because only one action was legal are not
counted). That is not perfect recall: a perfect-recall information state
would hold every observation since the deal, which grows without bound (a
game has hundreds of decisions) and cannot be a fixed-size tensor, and what
it would add (which card went where since a reshuffle, the cards you gave
in an Inquisition, R9.2) the engine does not report, since zones are counts
by kind. ``resample_from_infostate`` samples the hidden cards uniformly
given that information state.

**Serialization: a text of parameters and actions, no pickle.** For a Python game OpenSpiel's own
``State.serialize`` pickles the state's attributes, and ``Game.deserialize_state`` unpickles its
input: a crafted string runs code. This game replaces both, as OpenSpiel's C++ games do:
``state.serialize()`` is a plain text of the game's parameters, the deal's engine seed and the
action history (and the worlds ``resample_from_infostate`` drew), and ``game.deserialize_state(text)``
parses it strictly and replays it; a text that is not one (OpenSpiel's pickle-based one included)
is an ArgumentError, and nothing in it is ever unpickled or run. The overrides reach Python
callers only: OpenSpiel's C++ functions that serialize a Python state themselves,
``pyspiel.deserialize_game_and_state`` and ``pickle.loads`` of a pyspiel state, still use
OpenSpiel's pickle-based format and must never be given a string from anyone you do not trust.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Callable, Mapping

import numpy as np

from ..base.extras import missing_extra

try:
    import pyspiel
except ImportError as e:  # the openspiel extra is optional: say how to install it
    raise missing_extra(e, "openspiel", "aos_env.integrations.openspiel") from e

from .. import core
from ..base import checks
from ..core.cards import TOTAL_CARDS
from ..core.phases import DECISIONS
from ..tools.determinise import determinise, fresh_streams
from ..view.render import agent_name, describe_action

GAME_NAME = "python_age_of_summoners"
MIN_PLAYERS, MAX_PLAYERS = 2, 4
DEFAULT_PLAYERS = 2
DEFAULT_MAX_TURNS = core.DEFAULT_MAX_TURNS
DEFAULT_RNG_SEED = 0
DEAL = 0  # the one outcome of the initial chance node (with deals=0, the default)
DEFAULT_DEALS = 0  # 0: the deal is sampled (SAMPLED_STOCHASTIC); N: N explicit deals
#: Most explicit deals (``deals``): tabular algorithms enumerate them all.
MAX_DEALS = 10_000

#: A small configuration for tabular algorithms (CFR, MCCFR, best response, exploitability): two
#: explicit deals (engine seeds 117 and 118, chosen for their small trees: 5,615 histories in all),
#: two turns (one each), a truncated game scored as if it ended (R7.3, R7.4: +1 to the leader) and
#: perfect-recall information-state strings. CFR's iteration takes a few seconds here.
TABULAR_GAME = f"{GAME_NAME}(players=2,max_turns=2,deals=2,rng_seed=117,score_truncated=True,perfect_recall=True)"

# ---- max_game_length ---------------------------------------------------------------
# OpenSpiel wants a true upper bound on the decisions of a game (random_sim_test checks it).
# Turns: a game without a declaration is truncated after max_turns turns (R7.5); a
# declaration, at the latest in turn max_turns - 1, adds one more turn per player (R7.2):
# at most max_turns + players turns.
# Decisions in one turn (everyone's: discards and gifts are asked of all players):
# - fewer than ONE_OFF_DECISIONS that come at most once a turn: Leprechaun, the command
#   card, Asmodai, Phase II, the Conquest target, one Alchemy / Prayer / Pilgrimage option,
#   the Festival pick, an Inquisition gift from each other player, the Phase III keep, the
#   declaration, and the "stop" that ends Baldanders placements, Prayer discards and Belial;
# - every other decision moves one card: out of a hand (a discard, a Baldanders placement)
#   or out of a mana row (a payment, a discard, Belial, a Research flip into a stone). A card
#   is moved at most twice before it lies in the discard pile (placed then paid, flipped then
#   discarded), and must be drawn again to be moved again. So these decisions number at most
#   2 x (cards held when the turn starts + cards drawn during it) <= 2 x (110 + 110): no turn
#   draws 110 cards (the most with this card set is about 35: four Leprechauns, a command
#   card from the deck, a Sphinx counting every shield, Phase III).
# The bound is loose on purpose (random play's longest turns have about 30 decisions): it
# must hold for every game. Algorithms that size buffers by it should cap episodes themselves.
ONE_OFF_DECISIONS = 20
DECISIONS_PER_TURN = ONE_OFF_DECISIONS + 2 * (TOTAL_CARDS + TOTAL_CARDS)
#: max_turns above this would make max_game_length overflow OpenSpiel's 32-bit int.
MAX_MAX_TURNS = (2**31 - 1) // DECISIONS_PER_TURN - MAX_PLAYERS

OWN_ACTIONS_SHAPE = (core.NUM_DECISION_PHASES, core.NUM_ACTIONS)
#: Row of each decision in the own-action counts: its place among the decisions (``core.phases.DECISIONS``),
#: not its phase value (the decisions added later, Nightmare's question and the Homunculus flip, have
#: values past the others').
_DECISION_ROW = {int(ph): i for i, ph in enumerate(DECISIONS)}
OWN_ACTIONS_SCALE = 10.0  # the information state holds own-decision counts / 10
#: Size of the perfect-recall digest (blake2b): 16 bytes, so that two histories that a player can tell
#: apart share a key with probability about 2**-128.
RECALL_DIGEST_BYTES = 16
INFO_STATE_DIM = core.OBS_DIM + OWN_ACTIONS_SHAPE[0] * OWN_ACTIONS_SHAPE[1]

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Age of Summoners",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    # the deal and every draw are sampled from the state's own stream (module docstring)
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    # +1 for the winner, -1/(P-1) for the others (sum 0); a truncated game gives 0 to all
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=True,  # the public and private observers
    parameter_specification={
        "players": DEFAULT_PLAYERS,
        "max_turns": DEFAULT_MAX_TURNS,
        "rng_seed": DEFAULT_RNG_SEED,
        "deals": DEFAULT_DEALS,
        "score_truncated": False,
        "perfect_recall": False,
    },
)


def game_type(deals: int) -> pyspiel.GameType:
    """The GameType of a game with ``deals`` explicit deals: the registered one (SAMPLED_STOCHASTIC) for
    0, EXPLICIT_STOCHASTIC otherwise (the deal is a chance outcome, and the history fixes every draw)."""
    if deals == 0:
        return _GAME_TYPE
    return pyspiel.GameType(
        short_name=_GAME_TYPE.short_name,
        long_name=_GAME_TYPE.long_name,
        dynamics=_GAME_TYPE.dynamics,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=_GAME_TYPE.information,
        utility=_GAME_TYPE.utility,
        reward_model=_GAME_TYPE.reward_model,
        max_num_players=MAX_PLAYERS,
        min_num_players=MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=True,
        parameter_specification=_GAME_TYPE.parameter_specification,
    )


def game_info(players: int, max_turns: int, deals: int = DEFAULT_DEALS) -> pyspiel.GameInfo:
    """The GameInfo of a game with these parameters."""
    return pyspiel.GameInfo(
        num_distinct_actions=core.NUM_ACTIONS,  # the 44 action ids of core.ACTION_NAMES, in every decision
        max_chance_outcomes=max(deals, 1),  # the deal: one sampled outcome, or ``deals`` explicit ones
        num_players=players,
        min_utility=-1.0 / (players - 1),  # a loss
        max_utility=1.0,  # a win
        utility_sum=0.0,
        max_game_length=(max_turns + players) * DECISIONS_PER_TURN,  # see the bound above
    )


_GAME_INFO = game_info(DEFAULT_PLAYERS, DEFAULT_MAX_TURNS)  # the defaults'; each game builds its own


#: Highest rng_seed: OpenSpiel's game parameters are C++ ints.
MAX_RNG_SEED = 2**31 - 1

# ---- the serialized state: a text, replayed ------------------------------------------------
#: First line of a serialized state, with the version of its format.
SERIAL_HEADER = f"{GAME_NAME} state 1"
#: Words of the seed of one resampled world (``resample_from_infostate``), each 0..2**32-1.
RESAMPLE_WORDS = 4
_WORD_MAX = 2**32 - 1
#: Characters a serialized state may have per move of the longest game (a move with a resample
#: line takes about 60): a longer text is refused before it is parsed.
SERIAL_CHARS_PER_MOVE = 64


def _int_param(params: dict, name: str, low: int, high: int | None = None) -> int:
    value = params[name]
    if not checks.is_int(value):
        raise checks.ArgumentError(f"{GAME_NAME}: parameter '{name}' must be an int, got {value!r:.80}")
    if value < low or (high is not None and value > high):
        allowed = f"{low}..{high}" if high is not None else f">= {low}"
        raise checks.ArgumentError(f"{GAME_NAME}: parameter '{name}' must be {allowed}, got {value}")
    return int(value)


def _bool_param(params: dict, name: str) -> bool:
    value = params[name]
    if not isinstance(value, (bool, np.bool_)):
        raise checks.ArgumentError(f"{GAME_NAME}: parameter '{name}' must be a bool, got {value!r:.80}")
    return bool(value)


def action_id(action) -> int:
    """``action`` as a Python int: an int, a numpy integer or any 0-d integer array or tensor (numpy,
    torch, jax), as OpenSpiel's own games take them. ArgumentError for anything else: a bool (pybind11
    would make True a 1), a float, a string, an array of more than one dimension."""
    dtype = getattr(action, "dtype", None)
    ndim = getattr(action, "ndim", 0)
    if (
        isinstance(action, (bool, np.bool_, str, bytes))
        or "bool" in str(dtype)  # a 0-d bool array or tensor has __index__ too (torch's)
        or ndim != 0
        or not hasattr(action, "__index__")
    ):
        raise checks.fail(
            "action", f"an integer action id 0..{core.NUM_ACTIONS - 1} (int or 0-d integer array)", action
        )
    try:
        return operator.index(action)
    except TypeError:  # a float tensor or array has __index__ that refuses
        raise checks.fail(
            "action", f"an integer action id 0..{core.NUM_ACTIONS - 1} (int or 0-d integer array)", action
        ) from None


class AgeOfSummonersGame(pyspiel.Game):
    """The game; load it with ``pyspiel.load_game(GAME_NAME, {...})``."""

    def __init__(self, params: dict | None = None) -> None:
        if params is not None and not isinstance(params, Mapping):
            raise checks.fail(f"{GAME_NAME}: params", "a dict of parameters or None", params)
        params = {**_GAME_TYPE.parameter_specification, **(params or {})}
        unknown = sorted(set(params) - set(_GAME_TYPE.parameter_specification))
        if unknown:
            raise checks.ArgumentError(
                f"{GAME_NAME}: unknown parameter(s) {unknown}; allowed: {sorted(_GAME_TYPE.parameter_specification)}"
            )
        players = _int_param(params, "players", MIN_PLAYERS, MAX_PLAYERS)
        self.max_turns = _int_param(params, "max_turns", 1, MAX_MAX_TURNS)
        # the deals use seeds rng_seed, rng_seed + 1, ...: engine seeds are >= 0 (a negative one failed
        # only at the first deal, as a 'seed' the caller never gave)
        self.rng_seed = _int_param(params, "rng_seed", 0, MAX_RNG_SEED)
        self.deals = _int_param(params, "deals", 0, MAX_DEALS)
        if self.deals and self.rng_seed + self.deals - 1 > MAX_RNG_SEED:
            raise checks.ArgumentError(
                f"{GAME_NAME}: rng_seed + deals - 1 must be <= {MAX_RNG_SEED}, got {self.rng_seed} + {self.deals} - 1"
            )
        self.score_truncated = _bool_param(params, "score_truncated")
        self.perfect_recall = _bool_param(params, "perfect_recall")
        # OpenSpiel's C++ side takes Python ints only (a numpy int there is a TypeError): pass the checked values
        params = {
            "players": players,
            "max_turns": self.max_turns,
            "rng_seed": self.rng_seed,
            "deals": self.deals,
            "score_truncated": self.score_truncated,
            "perfect_recall": self.perfect_recall,
        }
        super().__init__(game_type(self.deals), game_info(players, self.max_turns, self.deals), params)
        self._deals = 0  # deals made so far: the next one uses seed rng_seed + _deals

    def new_initial_state(self) -> AgeOfSummonersState:
        """A new game, before the deal (a chance node). Cheap: OpenSpiel calls it for every clone."""
        return AgeOfSummonersState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer for ``iig_obs_type``: a player's view (public_info=True,
        private_info=SINGLE_PLAYER; perfect_recall=False gives the observation, True the information
        state, see the module docstring), the public view (private_info=NONE: what every player sees)
        or the private one (public_info=False: the player's hand and the cards only they are offered)."""
        if isinstance(iig_obs_type, dict):  # called as make_py_observer(params)
            iig_obs_type, params = None, iig_obs_type
        if iig_obs_type is not None and not isinstance(iig_obs_type, pyspiel.IIGObservationType):
            raise checks.fail("iig_obs_type", "a pyspiel.IIGObservationType or None", iig_obs_type)
        iig_obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if params:
            raise ValueError(f"{GAME_NAME} observers take no parameters, got {params}")
        single = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        if not iig_obs_type.perfect_recall:
            if iig_obs_type.public_info and iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE:
                return PublicObserver()
            if not iig_obs_type.public_info and single:
                return PrivateObserver()
        if not (iig_obs_type.public_info and single):
            raise ValueError(
                f"{GAME_NAME} provides a player's view (public_info=True, private_info=SINGLE_PLAYER) as "
                f"observation (perfect_recall=False) or information state (perfect_recall=True), and the "
                f"public (private_info=NONE) and private (public_info=False) observations; got "
                f"public_info={iig_obs_type.public_info}, private_info={iig_obs_type.private_info}, "
                f"perfect_recall={iig_obs_type.perfect_recall}"
            )
        return AgeOfSummonersObserver(iig_obs_type, None)

    def next_deal_seed(self) -> int:
        """The engine seed of the next deal on this game object (and count it as used)."""
        seed = self.rng_seed + self._deals
        self._deals += 1
        return seed

    def deserialize_state(self, text: str) -> AgeOfSummonersState:
        """The state ``state.serialize()`` wrote, rebuilt by replaying it: the deal with its seed (this
        game object's deal count is not used), every action, every resampled world. Safe for a text
        from anyone: it is parsed as numbers and played through the checked engine, never unpickled.
        ArgumentError for a text that is not a serialized state of a game of these parameters, or whose
        actions cannot be played (OpenSpiel's pickle-based text for Python games is refused too)."""
        parsed = _parse_serialized(text, self.num_players(), self.max_turns, self.max_game_length())
        return AgeOfSummonersState.replay(self, *parsed)


class _Engine:
    """Holds a game's engine state (a batch of one). OpenSpiel clones a Python state by
    deep-copying its attributes; this copies the arrays and shares the read-only card tables."""

    def __init__(self, state: core.State) -> None:
        self.state = state

    def __deepcopy__(self, memo) -> _Engine:
        return _Engine(self.state.copy())


class AgeOfSummonersState(pyspiel.State):
    """One game. Before the deal it is a chance node; afterwards ``engine_state`` is the
    engine's state of the game (batch of one), read-only for callers."""

    def __init__(self, game: AgeOfSummonersGame) -> None:
        super().__init__(game)
        self._num_players = game.num_players()
        self._max_turns = game.max_turns
        self._deals = game.deals
        self._score_truncated = game.score_truncated
        # perfect_recall: per player, a digest of every observation since the deal and their own actions
        self._recall: list[bytes] | None = [b""] * self._num_players if game.perfect_recall else None
        self._seed: int | None = None  # the engine seed of this game, once dealt
        self._engine: _Engine | None = None
        self._own_actions = np.zeros((self._num_players, *OWN_ACTIONS_SHAPE), dtype=np.int32)
        self._returns = [0.0] * self._num_players
        self._obs_cache: dict[int, np.ndarray] = {}  # player -> core.observe of the current position
        # the worlds resample_from_infostate drew into this state: (history length, player, seed words)
        self._resamples: list[tuple[int, int, tuple[int, ...]]] = []
        self._deal_seed: int | None = None  # set by a replay: the seed the deal must use

    # -- read access ---------------------------------------------------------------
    @property
    def engine_state(self) -> core.State | None:
        """The engine's state (``core.State`` with one game), None before the deal."""
        return None if self._engine is None else self._engine.state

    @property
    def _dealt(self) -> _Engine:
        """The engine, for the methods that only run after the deal (the chance node made it)."""
        if self._engine is None:
            raise RuntimeError("the game is not dealt yet (apply the chance outcome first)")
        return self._engine

    @property
    def seed(self) -> int | None:
        """The engine seed this game was dealt with (None before the deal)."""
        return self._seed

    def observation(self, player: int) -> np.ndarray:
        """``core.observe`` of the position for ``player`` (OBS_DIM,), computed once per position
        (OpenSpiel asks for tensors and strings of the same position several times)."""
        self._check_player(player)
        obs = self._obs_cache.get(player)
        if obs is None:
            if self._engine is None:
                raise ValueError("the cards are not dealt yet: apply the chance outcome first")
            obs = self._obs_cache[player] = core.observe(self._engine.state, player)[0]
            obs.flags.writeable = False
        return obs

    def own_action_counts(self, player: int) -> np.ndarray:
        """(NUM_DECISION_PHASES, NUM_ACTIONS) how often ``player`` chose each action in each decision."""
        self._check_player(player)
        return self._own_actions[player].copy()

    def _check_player(self, player) -> int:
        if (
            isinstance(player, (bool, np.bool_))
            or not isinstance(player, (int, np.integer))
            or not 0 <= player < self._num_players
        ):
            raise checks.ArgumentError(f"player must be an int in 0..{self._num_players - 1}, got {player!r:.80}")
        return int(player)

    def _over(self) -> bool:
        s = self._dealt.state
        return bool(s.terminated[0] or s.truncated[0])

    # -- OpenSpiel API -------------------------------------------------------------
    def current_player(self) -> int:
        if self._engine is None:
            return pyspiel.PlayerId.CHANCE
        if self._over():
            return pyspiel.PlayerId.TERMINAL
        return int(self._engine.state.current_player[0])

    def is_terminal(self) -> bool:
        return self._engine is not None and self._over()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._engine is not None:
            return []
        if self._deals == 0:
            return [(DEAL, 1.0)]
        return [(i, 1.0 / self._deals) for i in range(self._deals)]

    def _legal_actions(self, player: int) -> list[int]:
        return np.flatnonzero(self._dealt.state.legal_action_mask[0]).tolist()

    def apply_action(self, action: int) -> None:
        """pyspiel's ``apply_action``, the action checked first: an int, a numpy integer or a 0-d
        integer array or tensor (numpy, torch, jax: what OpenSpiel's own games take); an ArgumentError
        for anything else (a bool, a float, a string: pybind11 would turn True into 1, and reject
        2**63 or -1 with its own errors), a ValueError naming it for an id that is not legal now; the
        state and its history are then unchanged."""
        action = action_id(action)
        outcomes = max(self._deals, 1) if self._engine is None else core.NUM_ACTIONS
        if not 0 <= action < outcomes:
            self._refuse(action)
        super().apply_action(action)

    def _refuse(self, action: int) -> None:
        """Raise the error for ``action``, which cannot be applied here."""
        if self._engine is None:
            if self._deals:
                raise ValueError(
                    f"the deal's chance outcomes are 0..{self._deals - 1} (deals={self._deals}); got {action}"
                )
            raise ValueError(f"the deal has one chance outcome, {DEAL}; got {action}")
        if self._over():
            raise ValueError(f"the game is over (a terminal state): no action can be applied, got {action}")
        raise ValueError("illegal action: " + core.describe_illegal(self._engine.state, 0, action))

    def _apply_action(self, action: int) -> None:
        if self._engine is None:  # the deal: a sampled chance outcome, or one of ``deals`` explicit ones
            if not 0 <= action < max(self._deals, 1):
                self._refuse(action)
            if self._deals:
                self._seed = self.get_game().rng_seed + action
            elif self._deal_seed is not None:
                self._seed = self._deal_seed
            else:
                self._seed = self.get_game().next_deal_seed()
            self._deal_seed = None
            self._engine = _Engine(core.init(1, self._num_players, seed=self._seed, max_turns=self._max_turns))
            self._remember(None, action)
            return
        if self._over():  # core.step would ignore the action (and zero the rewards)
            self._refuse(action)
        s = self._engine.state
        player, phase = int(s.current_player[0]), int(s.phase[0])
        core.step(s, np.array([action], dtype=np.int64))  # ValueError (state unchanged) if illegal
        self._obs_cache.clear()
        self._own_actions[player, _DECISION_ROW[phase], action] += 1
        self._remember(player, action)
        winner = None
        if s.terminated[0]:
            winner = int(np.argmax(s.rewards[0]))
        elif s.truncated[0] and self._score_truncated:  # scored as if the game ended now (R7.3, R7.4)
            winner = int(core.winners(s)[0])
        if winner is not None:  # +1 for the winner, -1/(P-1) for the others, in float64: float32 thirds
            # miss OpenSpiel's zero-sum check (1e-9)
            self._returns = [1.0 if p == winner else -1.0 / (self._num_players - 1) for p in range(self._num_players)]

    def _remember(self, actor: int | None, action: int) -> None:
        """With perfect_recall, extend each player's digest by what they observe now (and the actor's
        own action); the deal (actor None) is remembered by its observations only."""
        if self._recall is None:
            return
        for p in range(self._num_players):
            h = hashlib.blake2b(self._recall[p], digest_size=RECALL_DIGEST_BYTES)
            h.update(self.observation(p).tobytes())
            if p == actor:
                h.update(b"own %d" % action)
            self._recall[p] = h.digest()

    def recall_digest(self, player: int) -> str | None:
        """With perfect_recall, the hex digest of everything ``player`` observed since the deal and
        their own actions (part of their information-state string); None otherwise."""
        self._check_player(player)
        return None if self._recall is None else self._recall[player].hex()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE or self._engine is None:
            return "deal the cards" if action == DEAL else f"chance outcome {action} (not an outcome)"
        return describe_action(self._engine.state, 0, int(action))

    def returns(self) -> list[float]:
        return list(self._returns) if self.is_terminal() else [0.0] * self._num_players

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> AgeOfSummonersState:
        """A copy consistent with what ``player_id`` knows, hidden cards dealt anew (IS-MCTS).

        Kept: everything public and ``player_id``'s own hand, offer view and decision
        counts, so their observation and information state are unchanged. Re-dealt
        among the same zone sizes: the other hands, the faces of all stones, the deck,
        the discard pile and the Phase III cards another player is choosing from;
        the copy also gets a fresh random stream (future draws). ``probability_sampler``
        (e.g. ``pyspiel.UniformProbabilitySampler(seed, 0., 1.)``) supplies the
        randomness: the same sampler state gives the same world.
        """
        self._check_player(player_id)
        if not callable(probability_sampler):
            raise ValueError(
                f"probability_sampler must be a callable returning floats in [0, 1), got {probability_sampler!r}"
            )
        world = self.clone()
        if self._engine is None:  # nothing dealt: any world is a new deal
            return world
        world._resample(int(player_id), tuple(_sample_word(probability_sampler) for _ in range(RESAMPLE_WORDS)))
        return world

    def _resample(self, player: int, words: tuple[int, ...]) -> None:
        """Redeal what ``player`` cannot see and draw a fresh stream, from ``words`` (in place); kept in
        ``_resamples`` so that ``serialize`` can say where and how."""
        rng = np.random.default_rng(list(words))
        s = self._dealt.state
        determinise(s, np.array([player]), rng)
        fresh_streams(s, rng)
        self._obs_cache.clear()  # the other players' views changed
        self._resamples.append((len(self.history()), player, words))

    # -- serialization: parameters and actions as text, replayed (module docstring) ------------
    def serialize(self) -> str:
        """The state as plain text: the game's parameters, the deal's engine seed, the action history and
        the resampled worlds. ``game.deserialize_state(text)`` replays it into an equal state. (This
        replaces OpenSpiel's pickle of a Python state's attributes; OpenSpiel's C++ functions that
        serialize a state themselves still pickle.)"""
        lines = [
            SERIAL_HEADER,
            f"players {self._num_players}",
            f"max_turns {self._max_turns}",
            f"seed {'none' if self._seed is None else self._seed}",
            " ".join(["history", *map(str, self.history())]),
        ]
        lines += [" ".join(map(str, ("resample", at, player, *words))) for at, player, words in self._resamples]
        return "\n".join(lines)

    @classmethod
    def replay(
        cls,
        game: AgeOfSummonersGame,
        seed: int | None,
        history: list[int],
        resamples: list[tuple[int, int, tuple[int, ...]]],
    ) -> AgeOfSummonersState:
        """A new state of ``game`` that plays ``history`` (the deal first, with engine seed ``seed``) and
        draws each resampled world where it was drawn. ArgumentError naming the first move that
        cannot be played."""
        if game.deals and history and seed != game.rng_seed + history[0]:
            raise checks.ArgumentError(
                f"{GAME_NAME}: serialized state: deal {history[0]} of a game with deals={game.deals} and "
                f"rng_seed={game.rng_seed} has seed {game.rng_seed + history[0]}, the text says {seed}"
            )
        state = game.new_initial_state()
        pending = list(resamples)
        for i, action in enumerate(history):
            while pending and pending[0][0] == i:
                state._resample(pending[0][1], pending.pop(0)[2])
            if i == 0:
                state._deal_seed = seed
            try:
                state.apply_action(action)
            except (ValueError, pyspiel.SpielError) as e:
                raise checks.ArgumentError(
                    f"{GAME_NAME}: serialized state: move {i}, action {action}, cannot be played: {e}"
                ) from None
        for _, player, words in pending:  # drawn after the last move
            state._resample(player, words)
        return state

    def __str__(self) -> str:
        """The whole state, hidden cards included (for debugging; OpenSpiel compares clones by it)."""
        if self._engine is None:
            return f"Age of Summoners, {self._num_players} players: the cards are not dealt yet"
        return full_text(self._engine.state, self._seed)


def _parse_serialized(
    text: str, players: int, max_turns: int, max_length: int
) -> tuple[int | None, list[int], list[tuple[int, int, tuple[int, ...]]]]:
    """(seed, history, resamples) of a serialized state, every field checked against the game that
    reads it (``players``, ``max_turns``, ``max_length`` moves after the deal)."""
    what = f"{GAME_NAME}: serialized state"
    if not isinstance(text, str):
        raise checks.fail(what, "a str (from state.serialize())", text)
    most = (max_length + 2) * SERIAL_CHARS_PER_MOVE
    if len(text) > most:
        raise checks.ArgumentError(f"{what}: {len(text):,} characters, more than the longest game takes ({most:,})")
    lines = text.removesuffix("\n").split("\n")  # a file's final newline is no line
    if lines[0] != SERIAL_HEADER:
        raise checks.ArgumentError(
            f"{what} must start with {SERIAL_HEADER!r} (a text from state.serialize()), got {lines[0][:60]!r}; "
            "OpenSpiel's pickle-based text for Python games is never read"
        )
    if len(lines) < 5:
        raise checks.ArgumentError(
            f"{what}: expected the lines players, max_turns, seed and history, got {len(lines) - 1} line(s)"
        )

    def field(line: str, key: str) -> list[str]:
        words = line.split(" ")
        if words[0] != key:
            raise checks.ArgumentError(f"{what}: expected a line {key!r}, got {line[:60]!r}")
        return words[1:]

    def number(word: str, name: str, low: int, high: int) -> int:
        try:
            return checks.parse_int_text(name, word, low, high)
        except checks.ArgumentError as e:
            raise checks.ArgumentError(f"{what}: {e}") from None

    def one(line: str, key: str) -> str:
        words = field(line, key)
        if len(words) != 1:
            raise checks.ArgumentError(f"{what}: line {key!r} must hold one value, got {line[:60]!r}")
        return words[0]

    for key, want in (("players", players), ("max_turns", max_turns)):
        got = number(one(lines[1 if key == "players" else 2], key), key, 1, checks.MAX_SEED)
        if got != want:
            raise checks.ArgumentError(
                f"{what}: it is of a game with {key} {got}, this game has {want}: "
                f"deserialize it with a game of its parameters"
            )
    seed_text = one(lines[3], "seed")
    seed = None if seed_text == "none" else number(seed_text, "seed", 0, checks.MAX_SEED)
    # the deal's outcome may be up to MAX_DEALS - 1 (deals=N); replay refuses what this game cannot play
    top = max(core.NUM_ACTIONS, MAX_DEALS) - 1
    history = [number(w, "action", 0, top) for w in field(lines[4], "history") if w != ""]
    if len(history) > max_length + 1:
        raise checks.ArgumentError(
            f"{what}: {len(history):,} moves, more than a game of these parameters can have ({max_length + 1:,})"
        )
    if (seed is None) != (not history):
        raise checks.ArgumentError(
            f"{what}: a seed goes with a dealt game (history starting with the deal, "
            f"{DEAL}), 'none' with an empty history"
        )
    resamples, last = [], 1
    for line in lines[5:]:
        words = field(line, "resample")
        if len(words) != 2 + RESAMPLE_WORDS:
            raise checks.ArgumentError(
                f"{what}: a resample line holds the move, the player and {RESAMPLE_WORDS} seed words, got {line[:60]!r}"
            )
        at = number(words[0], "resample move", last, len(history))
        player = number(words[1], "resample player", 0, players - 1)
        resamples.append((at, player, tuple(number(w, "resample seed word", 0, _WORD_MAX) for w in words[2:])))
        last = at
    return seed, history, resamples


def _sample_word(sampler: Callable[[], float]) -> int:
    u = sampler()
    if not isinstance(u, (float, int, np.floating)) or not 0.0 <= u <= 1.0:
        raise ValueError(f"probability_sampler must return floats in [0, 1), got {u!r}")
    return int(u * 2**32) & 0xFFFFFFFF


def _counts_text(names, counts: np.ndarray) -> str:
    parts = [f"{names[k]}" + (f" x{n}" if n > 1 else "") for k, n in enumerate(counts) if n]
    return ", ".join(parts) if parts else "-"


def full_text(s: core.State, seed: int | None = None) -> str:
    """Game 0 of ``s`` in full: every zone, the hidden ones too."""
    names = s.cards.names
    declarer = int(s.declarer[0])
    lines = [
        f"seed {seed} | turn {int(s.turn[0])}/{s.max_turns} | phase {core.Phase(int(s.phase[0])).name} | "
        f"active {agent_name(int(s.active_player[0]))} | to choose {agent_name(int(s.current_player[0]))} | "
        f"command number {int(s.command_number[0])} | declarer {agent_name(declarer) if declarer >= 0 else '-'}",
        f"deck: {_counts_text(names, s.deck[0])}",
        f"discard: {_counts_text(names, s.discard[0])}",
        f"offer: {_counts_text(names, s.offer[0])}" + (" (public)" if s.offer_public[0] else ""),
    ]
    for p in range(s.num_players):
        head = int(s.head[0, p])
        lines.append(
            f"{agent_name(p)}: vp {int(s.vp[0, p])} faith {int(s.faith[0, p])}"
            f" | hand: {_counts_text(names, s.hand[0, p])}"
            f" | mana: {_counts_text(names, s.mana[0, p])} (head {names[head] if head >= 0 else '-'})"
            f" | stones: {_counts_text(names, s.stones[0, p])} | spirits: {_counts_text(names, s.spirits[0, p])}"
        )
    if s.terminated[0] or s.truncated[0]:
        lines.append(("truncated" if s.truncated[0] else "over") + f", rewards {s.rewards[0].tolist()}")
    return "\n".join(lines)


# ---- observer ------------------------------------------------------------------------

_SLICES = core.obs_slices()
_GLOBAL = sorted(((n, sl) for n, sl in _SLICES.items() if not n.startswith("seat")), key=lambda x: x[1].start)
_GLOBAL_DIM = _GLOBAL[-1][1].stop
_NUM_SEATS = len({n.split(".")[0] for n in _SLICES if n.startswith("seat")})
_SEAT_DIM = (core.OBS_DIM - _GLOBAL_DIM) // _NUM_SEATS
# observer.dict must cut the tensor into consecutive pieces (OpenSpiel's C++ side copies
# them one after the other): check that the global slices tile 0.._GLOBAL_DIM
assert [sl.start for _, sl in _GLOBAL] == [0] + [sl.stop for _, sl in _GLOBAL[:-1]]
assert _GLOBAL_DIM + _NUM_SEATS * _SEAT_DIM == core.OBS_DIM
_FIELDS = sorted(_SLICES.items(), key=lambda x: x[1].start)  # every named field, in layout order
_FIELD_OF = np.zeros(core.OBS_DIM, dtype=np.int64)  # observation index -> its field in _FIELDS
for _f, (_name, _sl) in enumerate(_FIELDS):
    _FIELD_OF[_sl] = _f


class AgeOfSummonersObserver:
    """OpenSpiel's PyObserver interface: ``tensor``, ``dict`` (named views), ``set_from``, ``string_from``.

    Views: the global fields of the observation by name (``phase``, ``hand``, ...; see
    docs/observation.md), ``seats`` (4 x SEAT_DIM, 114: the observer first, then to the left), and
    for the information state ``own_actions`` (decision phase x action id, counts / 10).
    """

    def __init__(self, iig_obs_type: pyspiel.IIGObservationType, params: dict | None) -> None:
        if params:
            raise ValueError(f"{GAME_NAME} observers take no parameters, got {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError(
                f"{GAME_NAME} provides only the single-player views (public_info=True, "
                f"private_info=SINGLE_PLAYER), as observation (perfect_recall=False) or information state "
                f"(perfect_recall=True); got public_info={iig_obs_type.public_info}, "
                f"private_info={iig_obs_type.private_info}"
            )
        self.info_state = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(INFO_STATE_DIM if self.info_state else core.OBS_DIM, np.float32)
        self.dict = {name: self.tensor[sl] for name, sl in _GLOBAL}
        self.dict["seats"] = self.tensor[_GLOBAL_DIM : core.OBS_DIM].reshape(_NUM_SEATS, _SEAT_DIM)
        if self.info_state:
            self.dict["own_actions"] = self.tensor[core.OBS_DIM :].reshape(OWN_ACTIONS_SHAPE)

    def set_from(self, state: AgeOfSummonersState, player: int) -> None:
        """Fill ``tensor`` (and so ``dict``) with ``state`` seen by ``player``; zeros before the deal."""
        s = state.engine_state
        if s is None:
            self.tensor.fill(0.0)
            return
        self.tensor[: core.OBS_DIM] = state.observation(player)
        if self.info_state:
            self.tensor[core.OBS_DIM :] = state.own_action_counts(player).ravel() / OWN_ACTIONS_SCALE

    def string_from(self, state: AgeOfSummonersState, player: int) -> str:
        """The same content as text: ``name=value`` for every non-zero field of the
        observation (sparse ``{index: value}`` for the larger ones), then, for the
        information state, the player's own decisions as ``PHASE/ACTION xN``."""
        s = state.engine_state
        if s is None:
            return f"player {player}: the cards are not dealt yet"
        obs = state.observation(player)
        parts = [f"player {player}"]
        nz = np.flatnonzero(obs)
        for f in np.unique(_FIELD_OF[nz]):  # the fields with a non-zero value, in layout order
            name, sl = _FIELDS[f]
            if sl.stop - sl.start == 1:
                parts.append(f"{name}={obs[sl.start]:g}")
            else:
                idx = nz[(nz >= sl.start) & (nz < sl.stop)]
                parts.append(f"{name}={{" + ",".join(f"{i - sl.start}:{obs[i]:g}" for i in idx) + "}")
        text = " ".join(parts)
        if self.info_state:
            counts = state.own_action_counts(player)
            own = [f"{DECISIONS[row].name}/{core.ACTION_NAMES[a]} x{counts[row, a]}" for row, a in np.argwhere(counts)]
            text += " | own actions: " + (", ".join(own) if own else "-")
            digest = state.recall_digest(player)
            if digest is not None:
                text += f" | recall {digest}"
        return text


def _sparse_text(head: str, values: np.ndarray) -> str:
    """``head`` then ``name=value`` for every field of ``values`` (an observation) that is not zero."""
    parts = [head]
    nz = np.flatnonzero(values)
    for f in np.unique(_FIELD_OF[nz]):
        name, sl = _FIELDS[f]
        if sl.stop - sl.start == 1:
            parts.append(f"{name}={values[sl.start]:g}")
        else:
            idx = nz[(nz >= sl.start) & (nz < sl.stop)]
            parts.append(f"{name}={{" + ",".join(f"{i - sl.start}:{values[i]:g}" for i in idx) + "}")
    return " ".join(parts)


_HAND = _SLICES["hand"]
_OFFER = _SLICES["offer"]


def public_observation(state: AgeOfSummonersState) -> np.ndarray:
    """(OBS_DIM,) what every player sees: ``core.observe`` for player 0 (so seat i is player i) without
    player 0's hand and without the offer unless it is public (a Festival reveal)."""
    obs = state.observation(0).copy()
    obs[_HAND] = 0.0
    engine_state = state.engine_state
    if engine_state is None or not engine_state.offer_public[0]:
        obs[_OFFER] = 0.0
    return obs


class PublicObserver:
    """The public observation (OpenSpiel's private_info=NONE): the observation layout, seats in player
    order from player 0, with nobody's hand and no private offer. The same for every player."""

    def __init__(self) -> None:
        self.tensor = np.zeros(core.OBS_DIM, np.float32)
        self.dict = {name: self.tensor[sl] for name, sl in _GLOBAL}
        self.dict["seats"] = self.tensor[_GLOBAL_DIM:].reshape(_NUM_SEATS, _SEAT_DIM)

    def set_from(self, state: AgeOfSummonersState, player: int) -> None:
        if state.engine_state is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = public_observation(state)

    def string_from(self, state: AgeOfSummonersState, player: int) -> str:
        if state.engine_state is None:
            return "public: the cards are not dealt yet"
        return _sparse_text("public", public_observation(state))


class PrivateObserver:
    """What only ``player`` sees (OpenSpiel's public_info=False): their hand, and the cards they are
    offered when nobody else sees them (Phase III), by kind as in the observation."""

    def __init__(self) -> None:
        self.tensor = np.zeros(2 * (_HAND.stop - _HAND.start), np.float32)
        half = _HAND.stop - _HAND.start
        self.dict = {"hand": self.tensor[:half], "offer": self.tensor[half:]}

    def set_from(self, state: AgeOfSummonersState, player: int) -> None:
        if state.engine_state is None:
            self.tensor.fill(0.0)
            return
        obs = state.observation(player)
        self.dict["hand"][:] = obs[_HAND]
        self.dict["offer"][:] = 0.0 if state.engine_state.offer_public[0] else obs[_OFFER]

    def string_from(self, state: AgeOfSummonersState, player: int) -> str:
        if state.engine_state is None:
            return f"private {player}: the cards are not dealt yet"
        s = state.engine_state
        names = s.cards.names
        hand = s.hand[0, player]
        sees_offer = not s.offer_public[0] and int(s.active_player[0]) == player
        offer = s.offer[0] if sees_offer else np.zeros_like(s.offer[0])
        text = f"private {player}: hand {_counts_text(names, hand)}"
        return text + (f" | offered {_counts_text(names, offer)}" if offer.any() else "")


def _register() -> None:
    try:
        pyspiel.register_game(_GAME_TYPE, AgeOfSummonersGame)
    except pyspiel.SpielError:  # already registered (the module was reloaded)
        pass


_register()

__all__ = [
    "GAME_NAME",
    "TABULAR_GAME",
    "action_id",
    "public_observation",
    "PublicObserver",
    "PrivateObserver",
    "AgeOfSummonersGame",
    "AgeOfSummonersState",
    "AgeOfSummonersObserver",
    "game_info",
    "full_text",
    "DECISIONS_PER_TURN",
]
