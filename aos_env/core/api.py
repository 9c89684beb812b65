"""The public entry points of the engine: ``init``, ``step``, ``observe``, ``refresh``, ``reset``,
``final_scores`` (and ``winners``, ``score_lead``, ``truncate``).

Each checks its arguments before it changes anything, then hands over to the engine the state
was made for: ``np_engine`` (the numpy-vectorised reference) or ``nb_engine`` (the compiled
numba kernels, the default). Both play exactly the same games.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np
from numpy.typing import ArrayLike

from ..base import checks
from . import np_engine
from . import scores as _scores
from .cards import TOTAL_CARDS, CardSet, load_cards
from .constants import (
    ACTION_NAMES,
    DEFAULT_MAX_TURNS,
    FAITH_CAP,
    KERNEL_ILLEGAL,
    KERNEL_OK,
    KERNEL_STEP,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
)
from .obs_layout import OBS_DIM, STATE_DIM
from .phases import Phase
from .state import BACKENDS, State, empty_state, recompute_stats

if TYPE_CHECKING:  # nb_engine loads numba: imported on first use (``_nb``)
    from .nb_engine import GameCalls

#: The environment variable that picks the default engine.
BACKEND_ENV = "AOS_BACKEND"
#: Memory one game may take in init/step/observe, temporaries included: the numpy engine's
#: measured peak (tracemalloc, 4 players, batch 4096, init + 30 steps + observe) is about 8 kB;
#: twice that leaves room. ``init`` refuses batches that would not fit (aos_env.base.checks).
PEAK_BYTES_PER_GAME = 16 * 1024
#: Largest ``max_turns``: the turn counters are int32, and a game declared in its last turn plays up to
#: MAX_PLAYERS more turns (R7.2), which must still fit.
MAX_MAX_TURNS = int(np.iinfo(np.int32).max) - MAX_PLAYERS
#: Highest VP chips a position may hold (refresh): far above any real game (the end may be declared
#: from 30 VP, R7.1), and far enough from the int32 limit that final scores (chips + printed points +
#: game-end scoring) cannot overflow.
MAX_VP = 1_000_000
_INT32_MAX = int(np.iinfo(np.int32).max)


def turn_limit(declared: ArrayLike, max_turns: int, num_players: int) -> Any:
    """The highest ``turn`` (turns played) of a game that is not over: ``max_turns - 1`` without a
    declaration (at ``max_turns`` it is over, R7.5); with one, as high as the int32 turn counters
    allow with the last round still to play (R7.2). Bools or arrays of them."""
    return np.where(declared, _INT32_MAX - num_players, max_turns - 1)


def last_turn_of(turn: Any, active: Any, declarer: Any, num_players: int) -> Any:
    """R7.2: the index of a declared game's final turn, the declarer's: their next turn from
    ``turn`` (where ``active`` plays), or this one. Ints or arrays of them."""
    return turn + (declarer - active) % num_players


def default_backend() -> str:
    """The engine ``init`` uses when none is given: ``$AOS_BACKEND``, else "numba"."""
    name = os.environ.get(BACKEND_ENV, "numba")
    if name not in BACKENDS:
        raise ValueError(f"{BACKEND_ENV} must be one of {', '.join(BACKENDS)}, got {name!r}")
    return name


class Engine(Protocol):
    """What each engine module (``np_engine``, ``nb_engine``) gives ``api``: the type checker holds
    both modules to it. (``step`` differs: the numpy engine steps games checked here, the compiled
    one checks as it steps.)"""

    def setup(self, state: State, seeds: np.ndarray) -> None: ...
    def observe(self, state: State, player: np.ndarray, games: np.ndarray | None = None) -> np.ndarray: ...
    def final_scores(self, state: State, g: np.ndarray | None = None) -> np.ndarray: ...
    def truncate(self, state: State, g: np.ndarray) -> None: ...
    def refresh_turn_start(self, state: State, live: np.ndarray) -> None: ...


class CompiledEngine(Engine, Protocol):
    """``nb_engine``'s own calls beyond ``Engine``."""

    def step(self, state: State, games: np.ndarray, actions: np.ndarray) -> int: ...
    def observe_one(self, state: State, player: int) -> np.ndarray: ...
    def game_calls(self, state: State, game: int) -> GameCalls: ...
    def engine_bug(self) -> RuntimeError: ...


_NB: CompiledEngine | None = None  # the compiled engine's module, imported on first use (it loads numba)


def _nb() -> CompiledEngine:
    global _NB
    if _NB is None:
        from . import nb_engine  # compiled on first use (cached on disk)

        _NB = nb_engine
    return _NB


def _engine(state: State) -> Engine:
    return _nb() if state.backend == "numba" else np_engine


def resolve_backend(backend: str | None = None) -> str:
    """The engine a ``backend`` argument names: "numba" or "numpy", or for None ``$AOS_BACKEND``,
    else "numba". The one place a backend is checked: the envs and tools pass theirs here."""
    if backend is None:
        return default_backend()
    return str(checks.check_choice("backend", backend, (None, *BACKENDS)))


def _check_state(state: object) -> State:
    if not isinstance(state, State):
        raise TypeError(f"state must be a core.State (from core.init), got {type(state).__name__}")
    return state


def init(
    num_envs: int = 1,
    num_players: int = 2,
    seed: ArrayLike = 0,
    max_turns: int = DEFAULT_MAX_TURNS,
    card_file: str | Path | None = None,
    cards: CardSet | None = None,
    backend: str | None = None,
) -> State:
    """Set up ``num_envs`` games of ``num_players`` (R2) and advance each to its first decision.

    ``seed``: an int ``s`` (games get seeds ``s, s+1, ...``) or a (B,) integer array; seeds
    are 0..2**63-1. ``max_turns``: turns (all players together) after which a game with no end
    declaration is truncated (R7.5). ``card_file``: another card file of the same schema (or
    pass a loaded ``cards``). ``backend``: "numba" (compiled) or "numpy" (the reference);
    None reads ``$AOS_BACKEND`` (default "numba").
    """
    B = checks.check_int("num_envs", num_envs, 1)
    P = checks.check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
    max_turns = checks.check_int("max_turns", max_turns, 1, MAX_MAX_TURNS)
    backend = resolve_backend(backend)
    if cards is not None:
        if card_file is not None:
            raise checks.ArgumentError(
                f"give card_file or cards, not both, got card_file={card_file!r:.60} and a card set"
            )
        if not isinstance(cards, CardSet):
            raise checks.fail("cards", "a CardSet (from aos_env.cards.load_cards) or None", cards)
    checks.check_batch_memory("num_envs", B, PEAK_BYTES_PER_GAME)  # before anything of B games is allocated
    seeds = checks.check_seeds("seed", seed, B)
    if cards is None:
        cards = load_cards(card_file)
    state = empty_state(B, P, max_turns, cards, backend)
    _engine(state).setup(state, seeds)
    return state


def _check_games(state: State, games: ArrayLike, name: str = "games") -> np.ndarray:
    """``games`` as a contiguous int64 index array: distinct game indices 0..B-1 (do not write to it)."""
    return checks.check_indices(name, games, state.batch_size)


def reset(state: State, games: ArrayLike, seed: ArrayLike) -> State:
    """Start new games in positions ``games`` of the batch (in place), e.g. the finished ones.

    ``seed``: an int (the games get ``seed, seed+1, ...``) or one seed per game. Game
    ``games[i]`` then plays exactly like ``init(1, P, seed=seeds[i])``.
    """
    _check_state(state)
    g = _check_games(state, games)
    seeds = checks.check_seeds("seed", seed, g.size)
    if g.size:
        fresh = empty_state(g.size, state.num_players, state.max_turns, state.cards, state.backend)
        _engine(state).setup(fresh, seeds)
        state.put(g, fresh)
    return state


def describe_illegal(state: State, b: int, a: int) -> str:
    """Words for an illegal action in game b: the action, the phase and what is allowed."""
    _check_state(state)
    b = checks.check_int("b", b, 0, state.batch_size - 1)
    if not checks.is_int(a):
        raise checks.fail("a", "an int", a)
    a = int(a)
    name = ACTION_NAMES[a] if 0 <= a < NUM_ACTIONS else "not an action id"
    legal = [ACTION_NAMES[i] for i in np.nonzero(state.legal_action_mask[b])[0]]
    return (
        f"game {b}: action {a} ({name}) is not legal for player {int(state.current_player[b])} "
        f"in phase {Phase(int(state.phase[b])).name}; legal actions: {', '.join(legal)}"
    )


def _actions_array(actions: ArrayLike, n: int) -> np.ndarray:
    """``actions`` as an integer array of shape (n,), in the dtype given; ArgumentError otherwise."""
    a = checks.as_array("actions", actions, f"an integer array of shape ({n},): one action id per game stepped")
    if a.shape != (n,):
        raise checks.ArgumentError(
            f"actions must have shape ({n},): one action id per game stepped; got shape {a.shape}"
        )
    if a.dtype.kind not in "iu":
        if a.dtype.kind in "fO" and isinstance(actions, (list, tuple)) and all(map(checks.is_int, actions)):
            # Python ints, one beyond int64 (numpy made the list floats or objects): keep them exact,
            # so that the illegal one is named as given
            return np.array([int(x) for x in actions], dtype=object)
        raise checks.ArgumentError(f"actions must be integers (action ids 0..{NUM_ACTIONS - 1}); got dtype {a.dtype}")
    return a


def _check_actions(state: State, actions: ArrayLike, games: ArrayLike | None) -> tuple[np.ndarray, np.ndarray]:
    """Validate the actions; returns (unfinished games stepped, their actions). Raises ValueError."""
    B = state.batch_size
    g = np.arange(B) if games is None else _check_games(state, games)
    a = _actions_array(actions, g.size)
    live = ~(state.terminated[g] | state.truncated[g])
    in_range = ((a >= 0) & (a < NUM_ACTIONS)).astype(bool)  # on the values given: ids beyond int64 are not wrapped
    ids = np.where(in_range, a, 0).astype(np.int64)
    legal = in_range & state.legal_action_mask[g, ids]
    bad = np.nonzero(live & ~legal)[0]
    if bad.size:
        lines = [describe_illegal(state, int(g[i]), int(a[i])) for i in bad[:5]]
        more = f" (and {bad.size - 5} more games)" if bad.size > 5 else ""
        raise ValueError("illegal action: " + "; ".join(lines) + more)
    return g[live], ids[live]


def _action_ids(actions: ArrayLike, n: int) -> np.ndarray:
    """``actions`` as a contiguous int64 array of shape (n,); ArgumentError for a wrong shape or dtype."""
    a = _actions_array(actions, n)
    # ids beyond int64 would wrap to other ids: every id >= NUM_ACTIONS is illegal alike, so cap them
    if a.dtype == np.uint64:
        a = np.minimum(a, NUM_ACTIONS)
    elif a.dtype == object:
        a = np.array([min(max(x, -1), NUM_ACTIONS) for x in a], dtype=np.int64)
    if a.dtype != np.int64 or not a.flags.c_contiguous:
        a = np.ascontiguousarray(a, dtype=np.int64)
    return a


def step(state: State, actions: ArrayLike, games: ArrayLike | None = None) -> State:
    """Apply one action per game (ignored for finished games) and advance to the next decisions.

    ``games``: optionally, the indices of the games to step (``actions`` then has one entry per
    index); the other games are left as they are. Updates ``state`` in place and returns it.
    Raises ``ValueError`` (state unchanged) if an action has the wrong shape/dtype or is illegal.
    """
    if type(state) is not State:
        _check_state(state)
    g = state._every if games is None else _check_games(state, games)
    if state.backend == "numba":
        # the kernel checks every action before it changes anything
        if _nb().step(state, g, _action_ids(actions, g.size)) == KERNEL_OK:
            return state
        _check_actions(state, actions, games)  # raises with the words for every illegal action
        raise AssertionError("the compiled engine refused an action the reference accepts")
    live, a = _check_actions(state, actions, games)
    state.rewards[g] = 0.0
    np_engine.step(state, live, a)
    return state


class StepReport(NamedTuple):
    """What a one-game step reports of the game it stepped: whether the action was legal (if not,
    nothing changed), then who acts next and where the game stands."""

    legal: bool
    current_player: int
    phase: int
    command_number: int
    turn: int
    active_player: int
    over: bool


def _check_game(state: State, game: object) -> int:
    return checks.check_int("game", game, 0, state._batch - 1)


def _check_action_id(action: object) -> int:
    """An action id as an int; ids out of 0..NUM_ACTIONS-1 are ints too (illegal, not wrong)."""
    return checks.check_int("action", action)


#: A StepReport from a tuple without namedtuple's Python-level __new__ (the AEC env's every step).
_new_report = tuple.__new__


def _report(state: State, game: int, legal: bool) -> StepReport:
    return StepReport(
        legal,
        int(state.current_player[game]),
        int(state.phase[game]),
        int(state.command_number[game]),
        int(state.turn[game]),
        int(state.active_player[game]),
        bool(state.terminated[game] or state.truncated[game]),
    )


class GameHandle:
    """One game of a state, stepped and observed with the state and the game checked once:
    ``core.game_handle(state, game)``; the one-game path of both engines (``step_game`` and
    ``observe_game`` are this, for one call). A caller that makes many calls on one game (the AEC
    env) pays the checks once. It stays valid as long as the state does (``reset`` and ``step`` of
    the state's other games included). A copy or a pickle of it is a handle on the copy of its
    state."""

    __slots__ = ("state", "game", "_step_kernel", "_observe_kernel", "_record", "_tables", "_players", "_max_turns")

    def __init__(self, state: State, game: int = 0) -> None:
        state = _check_state(state)
        self.state, self.game = state, _check_game(state, game)
        self._players, self._max_turns = state.num_players, state.max_turns
        # the compiled engine's one-game kernels and the game's record, bound once (None: numpy)
        self._step_kernel: Callable[..., tuple[int, ...]] | None = None
        self._observe_kernel: Callable[..., tuple[np.ndarray, np.ndarray]] | None = None
        self._record: np.ndarray | None = None
        self._tables: np.ndarray | None = None
        if state.backend == "numba":
            calls = _nb().game_calls(state, self.game)
            self._step_kernel, self._observe_kernel = calls.step, calls.observe
            self._record, self._tables = calls.record, calls.tables

    def step(self, action: int) -> StepReport:
        """Apply ``action`` in the game and advance it to its next decision. An illegal action
        changes nothing and reports ``legal=False`` (``describe_illegal`` says why); a finished game
        ignores the action, as in ``step``, and reports ``over``. The same games as
        ``step(state, [action], games=[game])``."""
        kernel = self._step_kernel
        if kernel is not None and type(action) is int and 0 <= action < NUM_ACTIONS:  # the AEC env's every step
            out = kernel(self._record, self._tables, self._players, self._max_turns, KERNEL_STEP, action)
            status = out[0]
            if status == KERNEL_OK:
                return _new_report(StepReport, (True,) + out[1:])
            if status == KERNEL_ILLEGAL:  # nothing changed
                return _new_report(StepReport, (False,) + out[1:])
            raise _nb().engine_bug()
        return self._step_other(action)

    def _step_other(self, action: object) -> StepReport:
        """``step`` for the rest: a numpy state, an action that is no Python int or out of range."""
        a = _check_action_id(action)
        if not 0 <= a < NUM_ACTIONS:
            return _report(self.state, self.game, False)
        if self._step_kernel is not None:
            return self.step(a)
        state, game = self.state, self.game
        if state.terminated[game] or state.truncated[game]:  # ignored, as ``step`` ignores actions of finished games
            state.rewards[game] = 0.0  # (and, as in ``step``, a finished game's rewards are 0 in every later step)
            return _report(state, game, True)
        if not state.legal_action_mask[game, a]:
            return _report(state, game, False)
        g = np.array([game], dtype=np.int64)
        state.rewards[g] = 0.0
        np_engine.step(state, g, np.array([a], dtype=np.int64))
        return _report(state, game, True)

    def observe(self, player: int, acting: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """``player``'s observation of the game (OBS_DIM,) float32 and an action mask (NUM_ACTIONS,)
        int8: the legal actions if ``acting`` (the player must choose now), else zeros."""
        kernel = self._observe_kernel
        if kernel is not None and type(player) is int and 0 <= player < self._players:  # the AEC env's every call
            return kernel(
                self._record, self._tables, self._players, self._max_turns, player, acting is True or bool(acting)
            )
        return self._observe_other(player, acting)

    def _observe_other(self, player: Any, acting: bool) -> tuple[np.ndarray, np.ndarray]:
        """``observe`` for the rest: a numpy state, a player that is no Python int or out of range."""
        p = int(_check_player(self.state, player, 1)[0])
        if self._observe_kernel is not None:
            return self.observe(p, acting)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if acting:
            mask[:] = self.state.legal_action_mask[self.game]
        return observe(self.state, p, games=np.array([self.game]))[0], mask

    def __reduce__(self) -> tuple[type[GameHandle], tuple[State, int]]:
        return GameHandle, (self.state, self.game)

    def __repr__(self) -> str:
        return f"GameHandle(game {self.game} of a {self.state.batch_size}-game {self.state.backend} state)"


def game_handle(state: State, game: int = 0) -> GameHandle:
    """A ``GameHandle`` on game ``game`` of ``state``: its ``step`` and ``observe`` are ``step_game``
    and ``observe_game`` with the state and the game checked once, here."""
    return GameHandle(state, game)


def step_game(state: State, game: int, action: int) -> StepReport:
    """One game's step (checked, for one call): ``game_handle(state, game).step(action)``; a caller
    that steps one game many times (the AEC env) keeps the handle instead."""
    return GameHandle(state, game).step(action)


def observe_game(state: State, game: int, player: int, acting: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """One game's observation (checked, for one call): ``game_handle(state, game).observe(player, acting)``:
    ``player``'s observation (OBS_DIM,) float32 and an action mask (NUM_ACTIONS,) int8 (the legal
    actions if ``acting``, else zeros)."""
    return GameHandle(state, game).observe(player, acting)


def _check_player(state: State, player: ArrayLike, n: int, name: str = "player") -> np.ndarray:
    """``player`` (an int or an (n,) integer array of seats 0..P-1) as an int64 array of shape (n,)."""
    return checks.check_seats(name, player, n, state.num_players)


def observe(state: State, player: ArrayLike, games: ArrayLike | None = None) -> np.ndarray:
    """(B, OBS_DIM) float32 observation of ``player`` (an int or a (B,) array), seat 0 = that player.

    ``games``: observe only these games (then ``player`` has one entry per game, or is an int).
    """
    if type(state) is not State:
        _check_state(state)
    if (
        games is None
        and state._batch == 1
        and type(player) is int
        and state.backend == "numba"
        and 0 <= player < state.num_players
    ):
        return _nb().observe_one(state, player)  # the one-game case, without the batch bookkeeping
    g = None if games is None else _check_games(state, games)
    n = state.batch_size if g is None else g.size
    p = _check_player(state, player, n)
    if n == 0:
        return np.zeros((0, OBS_DIM), dtype=np.float32)
    return _engine(state).observe(state, p, g)


def global_state(state: State, games: ArrayLike | None = None) -> np.ndarray:
    """(B, STATE_DIM) float32: everything about each game, hidden information included, for
    centralised critics (obs_layout.STATE_LAYOUT): every player's observation by absolute seat,
    then the stones by kind, the deck, the discard pile and the offer."""
    if type(state) is not State:
        _check_state(state)
    g = state._every if games is None else _check_games(state, games)
    n, P, K = g.size, state.num_players, state.cards.num_kinds
    out = np.zeros((n, STATE_DIM), dtype=np.float32)
    if n == 0:
        return out
    eng = _engine(state)
    for p in range(P):
        out[:, p * OBS_DIM : (p + 1) * OBS_DIM] = eng.observe(state, np.full(n, p, dtype=np.int64), g)
    at = MAX_PLAYERS * OBS_DIM
    out[:, at : at + P * K] = state.stones[g].reshape(n, P * K)
    at += MAX_PLAYERS * K
    for zone in (state.deck, state.discard, state.offer):
        out[:, at : at + K] = zone[g]
        at += K
    return out


def final_scores(state: State, games: ArrayLike | None = None) -> np.ndarray:
    """(B, P) int: VP chips + printed points + game-end abilities (R7.3); with ``games``, (n, P)
    for those games. Defined at any moment: the score if the game ended now."""
    _check_state(state)
    g = None if games is None else _check_games(state, games)
    return _engine(state).final_scores(state, g)


def winners(state: State, games: ArrayLike | None = None) -> np.ndarray:
    """(n,) the winner of each game as its scores stand (R7.4 tie-break)."""
    _check_state(state)
    g = np.arange(state.batch_size) if games is None else _check_games(state, games)
    return _scores.winners_of(final_scores(state, g), state.declarer[g])


def score_lead(state: State, games: ArrayLike, player: ArrayLike) -> np.ndarray:
    """(n,) player[i]'s current score minus the best other score in game games[i]."""
    _check_state(state)
    g = _check_games(state, games)
    return _scores.score_lead(final_scores(state, g), _check_player(state, player, g.size))


def truncate(state: State, games: ArrayLike) -> State:
    """End games ``games`` now as truncated (nobody wins, rewards 0; R7.5), e.g. to cut a
    rollout short. Finished games are left as they are."""
    _check_state(state)
    g = _check_games(state, games)
    live = g[~(state.terminated[g] | state.truncated[g])]
    if live.size:
        _engine(state).truncate(state, live)
    return state


# ---- refresh: positions set up by hand -------------------------------------------------------


def refresh(state: State) -> State:
    """Recompute the derived data after zone arrays were edited by hand.

    Allowed for games waiting for their command card (after ``init`` or at a turn's start).
    Checks everything first (every kind's copies add up to the card set, no negative counts, an
    empty offer, faith 0..10, VP 0..MAX_VP, heads among their owner's mana, players, turn,
    declarer and last turn), then re-derives the per-player totals, the turn-start decision
    (Leprechaun or command) and the legal actions of the unfinished games. Never advances a game;
    finished games are left as they are; on an error (a ValueError naming the game and the
    problem) nothing is changed.
    """
    _check_state(state)
    live = np.nonzero(~(state.terminated | state.truncated))[0]
    at_start = np.isin(state.phase[live], [Phase.COMMAND, Phase.LEPRECHAUN])
    if not at_start.all():
        b = live[~at_start][0]
        raise ValueError(
            f"refresh: game {b} is in phase {_phase_name(int(state.phase[b]))}; positions can only be "
            "set up while a game waits for its command card (after init or at a turn's start)"
        )
    _check_position(state, live)
    recompute_stats(state, live)
    _engine(state).refresh_turn_start(state, live)
    return state


def _phase_name(value: int) -> str:
    try:
        return Phase(value).name
    except ValueError:
        return f"{value} (no phase)"


def _first(bad: np.ndarray) -> tuple[int, ...]:
    """The index of the first True of ``bad``, as ints."""
    return tuple(int(x) for x in np.argwhere(bad)[0])


def _check_position(state: State, g: np.ndarray) -> None:
    """Every check of ``refresh`` on games ``g``, before anything is changed (ValueError naming the game)."""
    cards, P, K = state.cards, state.num_players, state.cards.num_kinds
    for name in ("hand", "mana", "spirits", "stones", "deck", "discard", "offer"):
        z = getattr(state, name)[g]
        if (z < 0).any():
            i, *at = _first(z < 0)
            where = f"players[{at[0]}].{name}" if len(at) == 2 else name
            raise ValueError(
                f"refresh: game {g[i]}: {where} has {z[(i,) + tuple(at)]} cards of {cards.label(at[-1])}; "
                "a zone cannot hold fewer than 0"
            )
    offered = state.offer[g].sum(1, dtype=np.int64)
    if offered.any():
        i = _first(offered != 0)[0]
        n = int(offered[i])
        raise ValueError(
            f"refresh: game {g[i]}: the offer holds {n} card{'s' if n != 1 else ''}; it must be empty at a turn's start"
        )
    per_kind = (
        state.hand[g].sum(1, dtype=np.int64)
        + state.spirits[g].sum(1, dtype=np.int64)
        + state.mana[g].sum(1, dtype=np.int64)
        + state.stones[g].sum(1, dtype=np.int64)
        + state.deck[g]
        + state.discard[g]
    )
    wrong = per_kind != cards.copies[None]
    if wrong.any():
        i, k = _first(wrong)
        raise ValueError(
            f"refresh: game {g[i]} has {per_kind[i, k]} cards of {cards.label(k)} over all zones; "
            f"it must be {cards.copies[k]} ({TOTAL_CARDS} cards in all, R1.1)"
        )
    for name, low, high, why in (
        ("faith", 0, FAITH_CAP, " (R1.4)"),
        ("vp", 0, MAX_VP, " (VP chips; the bound keeps final scores within int32)"),
        ("head", -1, K - 1, ""),
    ):
        v = getattr(state, name)[g]
        bad = (v < low) | (v > high)
        if bad.any():
            i, p = _first(bad)
            allowed = f"-1 (none) or a kind 0..{K - 1}" if name == "head" else f"{low}..{high}"
            raise ValueError(f"refresh: game {g[i]}: players[{p}].{name} is {v[i, p]}; it must be {allowed}{why}")
    head = state.head[g]
    rows, players = np.nonzero(head >= 0)
    missing = state.mana[g[rows], players, head[rows, players]] < 1
    if missing.any():
        j = _first(missing)[0]
        i, p = int(rows[j]), int(players[j])
        raise ValueError(
            f"refresh: game {g[i]}: players[{p}].head is {cards.label(int(head[i, p]))}, which is not "
            "among the player's mana (a head is one of its owner's mana cards, counted in mana)"
        )
    for name, low, none in (("active_player", 0, ""), ("current_player", 0, ""), ("declarer", -1, "-1 (none) or ")):
        v = getattr(state, name)[g]
        bad = (v < low) | (v >= P)
        if bad.any():
            i = _first(bad)[0]
            raise ValueError(f"refresh: game {g[i]}: {name} is {v[i]}; it must be {none}0..{P - 1}")
    turn, declarer, active = (
        state.turn[g].astype(np.int64),
        state.declarer[g].astype(np.int64),
        state.active_player[g].astype(np.int64),
    )
    declared = declarer >= 0
    high = turn_limit(declared, state.max_turns, P)
    bad = (turn < 0) | (turn > high)
    if bad.any():
        i = _first(bad)[0]
        why = " in a declared game" if declared[i] else f" (max_turns {state.max_turns}, no declaration)"
        raise ValueError(f"refresh: game {g[i]}: turn is {turn[i]}; it must be 0..{high[i]}{why}")
    last = last_turn_of(turn, active, declarer, P)
    bad = declared & (state.last_turn[g] != last)
    if bad.any():
        i = _first(bad)[0]
        raise ValueError(
            f"refresh: game {g[i]}: last_turn is {state.last_turn[g[i]]}; it must be {last[i]} (player "
            f"{declarer[i]}'s last turn: the declarer's next turn from turn {turn[i]}, or this one, R7.2)"
        )
    p = state.active_player[g]
    leprechauns = state.spirits[g, p].astype(np.int64) @ cards.special["leprechaun"]
    empty = (leprechauns == 0) & (state.hand[g, p].sum(1, dtype=np.int64) == 0)
    if empty.any():
        raise ValueError(
            f"refresh: in game {g[empty][0]} the active player has no card in hand; the command card "
            "would come from the deck, which refresh does not do. Give the player a card."
        )
