"""The compiled engine: the rules again, as per-game scalar code compiled with numba, with the batch
a compiled loop over games. Its topic modules have the names of the numpy reference's
(``np_engine``), and each phase's handlers are the functions the phase table names
(``phases.PHASES``) in both; the same State fields, and the same games: the per-game random stream
is used in the same order.

This module is the Python side: it hands the kernels the State's records and the card tables (a
few arrays per call) and turns their status codes into errors. Its functions are the engine's
interface, the numpy engine's too (``setup``, ``step``, ``observe``, ``final_scores``, ``truncate``,
``refresh_turn_start``); ``core.GameHandle`` calls the one-game kernels itself (``game_calls``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .. import _numba
from ..obs_layout import OBS_DIM
from ..state import State
from . import engine as _k
from .tables import card_tables

#: Batches at least this large are stepped on all cores (prange); below it the threads cost more
#: than they save (benchmarks/engine_throughput.py on 2 cores), and a smaller batch never compiles
#: the threaded kernel (compiled on first use: its compile costs as much as the serial one's).
#: ``$AOS_PARALLEL_MIN_GAMES`` sets it (a huge value turns threads off).
PARALLEL_MIN_GAMES = int(os.environ.get("AOS_PARALLEL_MIN_GAMES", "16384"))
_threads_started = False


def _threaded(n: int) -> bool:
    """Whether a batch of ``n`` games runs on threads; if so, numba's threads are started first
    (``_numba.launch_threads``: our threading layer, unless the user chose one)."""
    global _threads_started
    if n < PARALLEL_MIN_GAMES:
        return False
    if not _threads_started:
        _numba.launch_threads()
        _threads_started = True
    return True


def _tb(state: State) -> np.ndarray:
    """The state's card tables for the kernels (packed once per card set, then kept on the state)."""
    tb = state._tables
    if tb is None:
        tb = card_tables(state.cards)
        object.__setattr__(state, "_tables", tb)
    return tb


def engine_bug() -> RuntimeError:
    """The error for a kernel's ENGINE_BUG status."""
    return RuntimeError("engine bug: a decision with no legal action (please report it with the seed)")


def setup(state: State, seeds: np.ndarray) -> None:
    """Set up every game of a fresh state (R2) with its seed, advancing to its first decision."""
    B = state.batch_size
    if B == 1:
        status = _k.one_game(state.records, _tb(state), state.num_players, state.max_turns, _k.SETUP, int(seeds[0]))[0]
    else:
        seeds = np.ascontiguousarray(seeds, dtype=np.int64)
        kernel = _k.setup_batch_parallel if _threaded(B) else _k.setup_batch
        status = kernel(state.records, _tb(state), state.num_players, state.max_turns, seeds)
    if status == _k.ENGINE_BUG:
        raise engine_bug()


def step(state: State, games: np.ndarray, actions: np.ndarray) -> int:
    """``core.step``: check the actions of games ``games`` (int64 indices) and step them in one call:
    OK (-1) if done, else the position in ``games`` of the first game whose action is illegal (then
    nothing changed). Rewards of ``games`` are zeroed. A batch of one game goes to the one-game
    kernel (whose illegal status, 0, is that position): the batch kernel's index arrays cost more
    than a step of one game."""
    if state._batch == 1 and games.size == 1:
        status = _k.one_game(state.records, _tb(state), state.num_players, state.max_turns, _k.STEP, int(actions[0]))[0]
    else:
        kernel = _k.step_batch_parallel if _threaded(games.size) else _k.step_batch
        status = kernel(state.records, _tb(state), state.num_players, state.max_turns, games, actions)
    if status == _k.ENGINE_BUG:
        raise engine_bug()
    return int(status)


class GameCalls(NamedTuple):
    """What ``core.GameHandle`` calls for one game: the one-game kernels and the arguments they
    start with, bound once."""

    step: Callable[..., tuple[int, ...]]  #: ``engine.one_game``: (rec, tb, P, max_turns, KERNEL_STEP, action)
    observe: Callable[
        ..., tuple[np.ndarray, np.ndarray]
    ]  #: ``engine.aec_observe``: (rec, tb, P, max_turns, player, acting)
    record: np.ndarray  #: the game's record: a one-record view of the state's records
    tables: np.ndarray  #: the card tables


def game_calls(state: State, game: int) -> GameCalls:
    """The one-game kernels for game ``game`` of ``state`` (which the kernels step as their first
    record: the state's records for a batch of one, else a one-record view of game ``game``'s)."""
    rec = state.records if state._batch == 1 else state.records[game : game + 1]
    return GameCalls(_k.one_game, _k.aec_observe, rec, _tb(state))


def observe(state: State, player: np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
    """(n, OBS_DIM) float32 observations of ``player[i]`` in games ``games`` (default: all)."""
    B = state.batch_size
    if games is None:
        games = np.arange(B, dtype=np.int64)
    n = games.size
    out = np.zeros((n, OBS_DIM), dtype=np.float32)
    kernel = _k.observe_batch_parallel if _threaded(n) else _k.observe_batch
    kernel(
        state.records,
        _tb(state),
        state.num_players,
        state.max_turns,
        np.ascontiguousarray(games, dtype=np.int64),
        np.ascontiguousarray(player, dtype=np.int64),
        out,
    )
    return out


def observe_one(state: State, player: int) -> np.ndarray:
    """(1, OBS_DIM) observation of ``player`` in a batch of one game (the AEC env's fast path)."""
    return _k.observe_one_game(state.records, _tb(state), state.num_players, state.max_turns, player)


def final_scores(state: State, g: np.ndarray | None = None) -> np.ndarray:
    """(n, P) int32 final scores (R7.3) of games g (default: all)."""
    if g is None:
        g = np.arange(state.batch_size, dtype=np.int64)
    out = np.zeros((g.size, state.num_players), dtype=np.int32)
    _k.scores_batch(state.records, state.num_players, np.ascontiguousarray(g, dtype=np.int64), out)
    return out


def truncate(state: State, g: np.ndarray) -> None:
    """``core.truncate``: end games ``g`` (unfinished ones, checked by the caller) as truncated (R7.5)."""
    _k.truncate_batch(state.records, _tb(state), state.num_players, np.ascontiguousarray(g, dtype=np.int64))


def refresh_turn_start(state: State, live: np.ndarray) -> None:
    """Re-derive the turn-start decision and the legal actions of games ``live`` (after a hand edit)."""
    _k.refresh_batch(
        state.records, _tb(state), state.num_players, state.max_turns, np.ascontiguousarray(live, dtype=np.int64)
    )


__all__ = [
    "setup",
    "step",
    "GameCalls",
    "game_calls",
    "engine_bug",
    "truncate",
    "observe",
    "observe_one",
    "final_scores",
    "refresh_turn_start",
    "card_tables",
    "PARALLEL_MIN_GAMES",
]
