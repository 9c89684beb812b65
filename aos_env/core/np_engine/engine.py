"""The numpy engine's dispatch: which function handles each phase, and the passes that advance
a batch of games.

Each game is a small state machine (``state.phase``). A step applies one action per unfinished
game, grouped by phase, then *advances*: internal phases (drawing, passing the turn, ...) run
by themselves, and decisions with a single legal action are taken, until every game waits for
a real choice or is over. Games in different phases advance in the same call; the work per
call is a few numpy operations per phase present, never a Python loop over games.

The public entry points (argument checks, the choice of engine) are in ``core/api.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import rng
from ..constants import (
    CARD_0,
    INITIAL_FAITH,
    INITIAL_HAND,
    INITIAL_MANA,
    MANA_0,
    NO,
    NUM_ACTIONS,
    NUM_UNITS,
    OPTION_A,
    OPTION_B,
    YES,
)
from ..phases import DECISIONS as _DECISION_PHASES
from ..phases import FORCED_PART as _FORCED_PHASES
from ..phases import INTERNAL as _INTERNAL_PHASES
from ..phases import MASK_FUNCTIONS, NUM_PHASES, PH, PHASES, WAITING, Mask, Phase, PhaseInfo
from ..state import State
from . import turn
from .zones import draw_from_deck

MaskFn = Callable[[State, np.ndarray], np.ndarray]
ApplyFn = Callable[[State, np.ndarray, np.ndarray], None]
RunFn = Callable[[State, np.ndarray], None]


def _fixed(*legal: int) -> MaskFn:
    row = np.zeros(NUM_ACTIONS, dtype=bool)
    row[list(legal)] = True

    def mask(state: State, g: np.ndarray) -> np.ndarray:
        return np.broadcast_to(row, (g.size, NUM_ACTIONS))

    return mask


def _on_cards(fn: MaskFn) -> MaskFn:
    """Place a (n, K) mask over the CARD_k actions."""

    def mask(state: State, g: np.ndarray) -> np.ndarray:
        out = np.zeros((g.size, NUM_ACTIONS), dtype=bool)
        m = fn(state, g)
        out[:, CARD_0 : CARD_0 + m.shape[1]] = m
        return out

    return mask


def _on_units(fn: MaskFn) -> MaskFn:
    """Place a (n, 6) mask over MANA_BLACK..MANA_BLUE, STONE."""

    def mask(state: State, g: np.ndarray) -> np.ndarray:
        out = np.zeros((g.size, NUM_ACTIONS), dtype=bool)
        out[:, MANA_0 : MANA_0 + NUM_UNITS] = fn(state, g)
        return out

    return mask


def _as_unit(fn: ApplyFn) -> ApplyFn:
    """Call fn with the unit index (0..4 colours, 5 stone) instead of the action id."""
    return lambda state, g, action: fn(state, g, action - MANA_0)


# ---- the dispatch tables, from the phase table (phases.PHASES) ---------------------------------

assert CARD_0 == 0  # Mask.*CARDS: the action id is the kind
_YES_NO = _fixed(YES, NO)
_OPTIONS = _fixed(OPTION_A, OPTION_B)


def _function(module: str, name: str) -> Callable[..., Any]:
    """Function ``name`` of topic module ``module`` of this engine."""
    # looked up by name from the phase table (its one source), so type checkers see the handlers as
    # Callable[..., Any]; test_game_definition holds every name to a function of the right module
    result: Callable[..., Any] = getattr(importlib.import_module(f"{__package__}.{module}"), name)
    return result


def _mask_of(info: PhaseInfo) -> MaskFn:
    """A decision's mask function over all action ids, by its mask kind."""
    if info.mask is Mask.YES_NO:
        return _YES_NO
    if info.mask is Mask.OPTIONS:
        return _OPTIONS
    if info.mask in MASK_FUNCTIONS:
        return _on_cards(_function(*MASK_FUNCTIONS[info.mask]))
    fn = _function(info.module, info.mask_fn)
    if info.mask is Mask.CARDS:
        return _on_cards(fn)
    if info.mask is Mask.UNITS:
        return _on_units(fn)
    return fn


def _apply_of(info: PhaseInfo) -> ApplyFn:
    fn = _function(info.module, info.apply)
    return _as_unit(fn) if info.mask is Mask.UNITS else fn


#: Decision phases: (legal-action mask, apply the chosen action).
DECISIONS: dict[Phase, tuple[MaskFn, ApplyFn]] = {
    p: (_mask_of(PHASES[p]), _apply_of(PHASES[p])) for p in _DECISION_PHASES
}
#: Repeated choices with a forced part: when games arrive at one of these decisions, the engine
#: first takes the part of the choice that is forced (it may finish the choice); the legal
#: actions then cover what is left. Doing it on arrival handles all the games that got there in
#: a pass in one call, wherever they came from.
FORCED_PART: dict[Phase, RunFn] = {p: _function(PHASES[p].module, PHASES[p].forced) for p in _FORCED_PHASES}
#: Internal phases: run by the engine itself.
INTERNAL: dict[Phase, RunFn] = {p: _function(PHASES[p].module, PHASES[p].run) for p in _INTERNAL_PHASES}

assert set(DECISIONS) | set(INTERNAL) | {Phase.GAME_OVER} == set(Phase)

# Handlers as lists indexed by the phase value (faster than building Phase members).
_MASK: list[Any] = [None] * NUM_PHASES  # a handler, or None for phases without one
_APPLY: list[Any] = [None] * NUM_PHASES  # a handler, or None for phases without one
_RUN: list[Any] = [None] * NUM_PHASES  # a handler, or None for phases without one
_FORCED: list[Any] = [None] * NUM_PHASES  # a handler, or None for phases without one
for _p, (_m, _a) in DECISIONS.items():
    _MASK[_p], _APPLY[_p] = _m, _a
for _p, _f in FORCED_PART.items():
    _FORCED[_p] = _f
for _p, _r in INTERNAL.items():
    _RUN[_p] = _r
_IS_INTERNAL = np.array([r is not None for r in _RUN])

#: Every phase in the order a turn meets it, the internal ones and the decisions, DRAW (and the
#: phases a draw may return to) listed at each place it can come up. One pass down this list
#: takes a game through a whole chain of internal phases and decisions with a single legal
#: action (say KEEP -> END_TURN -> BELIAL -> DECLARE_CHECK -> ... -> COMMAND), each phase's games
#: together in one call, until it meets a real choice. A game that reaches the end of the list
#: goes on in another pass. The list starts after KEEP because few chains cross that point
#: (only when KEEP is forced), while many go from a forced MAIN into ACTION. The order changes
#: only how many calls a step takes, never a game: games are independent.
_PHASE_ORDER = [
    Phase.END_TURN,
    Phase.BELIAL,
    Phase.DECLARE_CHECK,
    Phase.DECLARE,
    Phase.NEXT_TURN,
    Phase.TURN_START,
    Phase.LEPRECHAUN,
    Phase.DRAW,
    Phase.LEPRECHAUN_DRAWN,
    Phase.LEPRECHAUN_DISCARD,
    Phase.COMMAND_START,
    Phase.COMMAND,
    Phase.DRAW,
    Phase.COMMAND_DONE,
    Phase.ASMODAI,
    Phase.MAIN,
    Phase.BALDANDERS,
    Phase.PAY,
    Phase.ACTION,
    Phase.CONQUEST_TARGET,
    Phase.RESEARCH_FLIP,
    Phase.HOMUNCULUS_FLIP,
    Phase.ALCHEMY,
    Phase.PRAYER,
    Phase.PRAYER_DISCARD,
    Phase.PILGRIMAGE,
    Phase.SUMMON_DONE,
    Phase.NIGHTMARE,
    Phase.FESTIVAL_RESOLVE,
    Phase.FESTIVAL_PICK,
    Phase.INQUISITION_NEXT,
    Phase.INQUISITION_GIFT,
    Phase.DISCARD_NEXT,
    Phase.NIGHTMARE_HAND,
    Phase.NIGHTMARE_MANA,
    Phase.SHORTAGE_HAND,
    Phase.SHORTAGE_MANA,
    Phase.DISCARD_NEXT,
    Phase.DRAW,
    Phase.FESTIVAL_RESOLVE,
    Phase.FESTIVAL_PICK,
    Phase.INQUISITION_NEXT,
    Phase.INQUISITION_GIFT,
    Phase.DRAW,
    Phase.INQUISITION_DECK_GIFT,
    Phase.PHASE3,
    Phase.DRAW,
    Phase.KEEP_START,
    Phase.KEEP,
]
_ORDER = [int(p) for p in _PHASE_ORDER]  # ints: faster to compare than Phase members
assert set(_ORDER) == set(range(NUM_PHASES)) - {int(Phase.GAME_OVER)}


def _groups(state: State, g: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Split games g by phase, up front: [(phase, positions into g), ...]."""
    ph = state.phase[g]
    if g.size == 1:
        return [(int(ph[0]), np.zeros(1, dtype=np.intp))]
    counts = np.bincount(ph, minlength=NUM_PHASES)
    present = np.nonzero(counts)[0]
    if present.size == 1:
        return [(int(present[0]), np.arange(g.size))]
    order = np.argsort(ph, kind="stable")
    ends = np.cumsum(counts)
    return [(int(p), order[ends[p] - counts[p] : ends[p]]) for p in present]


def apply(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """Apply one (legal) action per game g, each by its phase's handler."""
    for phase, pos in _groups(state, g):
        _APPLY[phase](state, g[pos], action[pos])


def compute_masks(state: State, g: np.ndarray) -> None:
    """Fill ``legal_action_mask`` for games g (all waiting for a decision)."""
    for phase, pos in _groups(state, g):
        state.legal_action_mask[g[pos]] = _MASK[phase](state, g[pos])


def advance(state: State, g: np.ndarray) -> None:
    """Run internal phases and single-choice decisions until games g wait for a real choice.

    Passes down ``_ORDER`` until every game is done: the games at an internal phase run it; at
    a decision, their legal actions are computed, a single legal action is taken at once, and
    the others wait (they leave the pass). Games are independent, so running each phase's
    games together gives every game the same play as running it alone.
    """
    if g.size == 1:
        return _advance_one(state, g)
    todo = g
    while todo.size:
        ph = state.phase[todo]  # (a copy) where each game is; WAITING once it waits for a player
        ph[ph == PH.GAME_OVER] = WAITING
        counts = np.bincount(ph[ph >= 0], minlength=NUM_PHASES)
        for p in _ORDER:
            if not counts[p]:
                continue
            pos = np.flatnonzero(ph == p)
            sub = todo[pos]
            if _IS_INTERNAL[p]:
                _RUN[p](state, sub)
                new = state.phase[sub]
                new = np.where(new == PH.GAME_OVER, WAITING, new)
            else:
                new = _decide(state, p, sub)
            ph[pos] = new
            counts[p] = 0
            counts += np.bincount(new[new >= 0], minlength=NUM_PHASES)
        todo = todo[ph != WAITING]


def _decide(state: State, p: int, g: np.ndarray) -> np.ndarray:
    """Games g arrived at decision p: take its forced part, then the action if it is the only
    legal one. Returns where each game is now (WAITING for those waiting for a player or over)."""
    if _FORCED[p] is not None:
        _FORCED[p](state, g)
        new = state.phase[g]
        still = new == p
        if not still.all():
            new = np.where(new == PH.GAME_OVER, WAITING, new)
            if still.any():
                new[still] = _decide_now(state, p, g[still])
            return new
    return _decide_now(state, p, g)


def _decide_now(state: State, p: int, g: np.ndarray) -> np.ndarray:
    """The legal actions of games g at decision p; the action is taken where it is the only one."""
    mask = _MASK[p](state, g)
    state.legal_action_mask[g] = mask
    n_legal = mask.sum(1)
    if not n_legal.all():
        b = g[n_legal == 0][0]
        raise RuntimeError(f"engine bug: game {b} has no legal action in phase {Phase(p).name}")
    forced = n_legal == 1
    new = np.full(g.size, WAITING)  # a real choice: wait for the player
    if forced.any():
        f = g[forced]
        _APPLY[p](state, f, mask[forced].argmax(1))
        after = state.phase[f]
        new[forced] = np.where(after == PH.GAME_OVER, WAITING, after)
    return new


def _advance_one(state: State, g: np.ndarray) -> None:
    """``advance`` for one game (g of size 1): follow its phases one by one (the case where the
    bookkeeping of the batched passes would cost more than the handlers)."""
    while True:
        p = int(state.phase[g[0]])
        if p == PH.GAME_OVER:
            return
        if _IS_INTERNAL[p]:
            _RUN[p](state, g)
        elif _decide(state, p, g)[0] == WAITING:
            return


def step(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """Apply legal actions of unfinished games g (checked by the caller), then advance them."""
    if g.size:
        apply(state, g, action)
        advance(state, g)


def setup(state: State, seeds: np.ndarray) -> None:
    """Set up every game of a fresh state (R2) with its seed, and advance to its first decision."""
    B, P = state.batch_size, state.num_players
    state.rng_key[:] = rng.seed_keys(seeds)
    state.deck[:] = state.cards.copies  # R2.2
    state.faith[:] = INITIAL_FAITH
    every = np.arange(B)
    for p in range(P):  # R2.3: 6 cards each
        for _ in range(INITIAL_HAND):
            state.hand[every, p, draw_from_deck(state, every)] += 1
    for p in range(P):  # R2.4: 2 mana each, the second is the head
        for _ in range(INITIAL_MANA):
            k = draw_from_deck(state, every)
            state.mana[every, p, k] += 1
        state.head[:, p] = k
    state.active_player[:] = rng.randint(state.rng_key, state.rng_counter, every, np.full(B, P))  # R2.5
    state.phase[:] = Phase.TURN_START
    advance(state, every)


def refresh_turn_start(state: State, live: np.ndarray) -> None:
    """Re-derive the turn-start decision (Leprechaun or command card) and the legal actions of
    games ``live`` after a hand edit (checked by the caller). Never advances a game."""
    state.draw_pend[live] = 0
    state.phase[live] = Phase.TURN_START
    turn.run_turn_start(state, live)
    state.phase[live[state.phase[live] == Phase.COMMAND_START]] = Phase.COMMAND
    state.legal_action_mask[live] = False
    compute_masks(state, live)
