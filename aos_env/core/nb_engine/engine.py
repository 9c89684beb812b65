"""The compiled engine's dispatch: which function handles each phase, one game's advance, and the
batch kernels the Python side calls.

Per-game scalar code: a game advances on its own (internal phases run, a decision with a single
legal action is taken) until it waits for a real choice or is over, exactly as the numpy engine
advances each game. The batch is a compiled loop over games (``prange`` for large batches: games
are independent). The kernels take the State as its records (one per game, see state.py), so a
call unboxes a few arrays rather than forty, and each game's code works on its own record ``r``.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..constants import (
    INITIAL_FAITH, INITIAL_HAND, INITIAL_MANA, K, MANA_0, NO, NUM_ACTIONS, OPTION_A, OPTION_B, YES,
)
from ..obs_layout import OBS_DIM
from ..phases import IS_INTERNAL, Phase
from . import abilities, actions, discards, draws, rng, summon, turn
from ._jit import jit, jit_parallel
from .observe import observe_one
from .scoring import final_score
from .zones import draw_from_deck

_IS_INTERNAL = np.array(IS_INTERNAL, dtype=np.bool_)  # a global array: numba compiles it in as a constant

#: Status codes of the kernels (>= 0: the position of the first game with an illegal action).
OK = -1
ENGINE_BUG = -2  #: a decision with no legal action (never happens; the numpy engine raises too)


# ---- dispatch ---------------------------------------------------------------------------------


@jit
def run_internal(r, t, P, max_turns, ph):
    """Run internal phase ``ph`` of the game in record ``r``."""
    if ph == Phase.TURN_START:
        turn.run_turn_start(r)
    elif ph == Phase.LEPRECHAUN_DRAWN:
        abilities.run_leprechaun_drawn(r)
    elif ph == Phase.COMMAND_START:
        turn.run_command_start(r)
    elif ph == Phase.COMMAND_DONE:
        turn.run_command_done(r, t)
    elif ph == Phase.SUMMON_DONE:
        turn.run_summon_done(r, t, P)
    elif ph == Phase.ACTION:
        actions.run_action(r, t, P)
    elif ph == Phase.FESTIVAL_RESOLVE:
        actions.run_festival_resolve(r, P)
    elif ph == Phase.INQUISITION_NEXT:
        actions.run_inquisition_next(r, P)
    elif ph == Phase.INQUISITION_DECK_GIFT:
        actions.run_inquisition_deck_gift(r)
    elif ph == Phase.PHASE3:
        turn.run_phase3(r)
    elif ph == Phase.KEEP_START:
        turn.run_keep_start(r)
    elif ph == Phase.END_TURN:
        turn.run_end_turn(r)
    elif ph == Phase.DECLARE_CHECK:
        turn.run_declare_check(r)
    elif ph == Phase.NEXT_TURN:
        turn.run_next_turn(r, t, P, max_turns)
    elif ph == Phase.DRAW:
        draws.run_draw(r, t, P)
    elif ph == Phase.DISCARD_NEXT:
        discards.run_discard_next(r, t, P)


@jit
def forced_part(r, t, ph):
    """Repeated choices, on arrival: take the part of the choice that is forced (it may finish
    the choice); the legal actions then cover what is left."""
    if ph == Phase.PAY:
        summon.pay_forced(r, t)
    elif ph == Phase.LEPRECHAUN_DISCARD:
        abilities.leprechaun_discard_forced(r)
    elif (ph == Phase.NIGHTMARE_HAND or ph == Phase.NIGHTMARE_MANA or ph == Phase.SHORTAGE_HAND
          or ph == Phase.SHORTAGE_MANA):
        discards.discard_forced(r, t)


@jit
def fill_mask(r, t, P, ph):
    """Fill ``legal_action_mask[b]`` for decision ``ph``."""
    mask = r.legal_action_mask
    for a in range(NUM_ACTIONS):
        mask[a] = False
    if ph == Phase.COMMAND or ph == Phase.INQUISITION_GIFT:
        turn.command_mask(r, mask)
    elif ph == Phase.LEPRECHAUN or ph == Phase.ASMODAI or ph == Phase.DECLARE or ph == Phase.NIGHTMARE:
        mask[YES] = True
        mask[NO] = True
    elif ph == Phase.ALCHEMY or ph == Phase.PRAYER or ph == Phase.PILGRIMAGE:
        mask[OPTION_A] = True
        mask[OPTION_B] = True
    elif ph == Phase.LEPRECHAUN_DISCARD:
        abilities.leprechaun_discard_mask(r, mask)
    elif ph == Phase.MAIN:
        turn.main_mask(r, t, mask)
    elif ph == Phase.BALDANDERS:
        summon.baldanders_mask(r, t, mask)
    elif ph == Phase.PAY:
        summon.pay_mask(r, t, mask)
    elif ph == Phase.NIGHTMARE_HAND or ph == Phase.SHORTAGE_HAND:
        discards.discard_hand_mask(r, mask)
    elif ph == Phase.NIGHTMARE_MANA or ph == Phase.SHORTAGE_MANA:
        discards.discard_mana_mask(r, t, mask)
    elif ph == Phase.CONQUEST_TARGET:
        actions.conquest_target_mask(r, P, mask)
    elif ph == Phase.RESEARCH_FLIP:
        actions.flip_mask(r, t, mask)
    elif ph == Phase.HOMUNCULUS_FLIP:
        actions.homunculus_flip_mask(r, t, mask)
    elif ph == Phase.PRAYER_DISCARD:
        actions.prayer_discard_mask(r, mask)
    elif ph == Phase.FESTIVAL_PICK or ph == Phase.KEEP:
        turn.offer_mask(r, mask)
    elif ph == Phase.BELIAL:
        abilities.belial_mask(r, t, mask)


@jit
def apply_decision(r, t, P, ph, a):
    """Apply legal action ``a`` of the game in record ``r`` at decision ``ph``."""
    if ph == Phase.COMMAND:
        turn.apply_command(r, a)
    elif ph == Phase.LEPRECHAUN:
        abilities.apply_leprechaun(r, a)
    elif ph == Phase.LEPRECHAUN_DISCARD:
        abilities.apply_leprechaun_discard(r, a)
    elif ph == Phase.ASMODAI:
        abilities.apply_asmodai(r, a)
    elif ph == Phase.MAIN:
        turn.apply_main(r, t, a)
    elif ph == Phase.BALDANDERS:
        summon.apply_baldanders(r, a)
    elif ph == Phase.PAY:
        summon.apply_pay(r, t, a - MANA_0)
    elif ph == Phase.NIGHTMARE_HAND or ph == Phase.SHORTAGE_HAND:
        discards.apply_discard_hand(r, a)
    elif ph == Phase.NIGHTMARE_MANA or ph == Phase.SHORTAGE_MANA:
        discards.apply_discard_mana(r, t, a - MANA_0)
    elif ph == Phase.CONQUEST_TARGET:
        actions.apply_conquest_target(r, P, a)
    elif ph == Phase.RESEARCH_FLIP or ph == Phase.HOMUNCULUS_FLIP:
        actions.apply_research_flip(r, t, a)
    elif ph == Phase.NIGHTMARE:
        abilities.apply_nightmare(r, a)
    elif ph == Phase.ALCHEMY:
        actions.apply_alchemy(r, a)
    elif ph == Phase.PRAYER:
        actions.apply_prayer(r, a)
    elif ph == Phase.PRAYER_DISCARD:
        actions.apply_prayer_discard(r, a)
    elif ph == Phase.FESTIVAL_PICK:
        actions.apply_festival_pick(r, a)
    elif ph == Phase.INQUISITION_GIFT:
        actions.apply_gift(r, a)
    elif ph == Phase.PILGRIMAGE:
        actions.apply_pilgrimage(r, a)
    elif ph == Phase.KEEP:
        turn.apply_keep(r, t, P, a)
    elif ph == Phase.BELIAL:
        abilities.apply_belial(r, t, a)
    elif ph == Phase.DECLARE:
        turn.apply_declare(r, P, a)


@jit
def _has_forced_part(ph):
    return (ph == Phase.PAY or ph == Phase.LEPRECHAUN_DISCARD
            or ph == Phase.NIGHTMARE_HAND or ph == Phase.NIGHTMARE_MANA or ph == Phase.SHORTAGE_HAND
            or ph == Phase.SHORTAGE_MANA)


@jit
def advance(r, t, P, max_turns):
    """Run the game's internal phases and single-choice decisions until it waits for a real choice
    or is over. Returns OK, or ENGINE_BUG for a decision without a legal action."""
    while True:
        ph = r.phase
        if ph == Phase.GAME_OVER:
            return OK
        if _IS_INTERNAL[ph]:
            run_internal(r, t, P, max_turns, ph)
            continue
        if _has_forced_part(ph):
            forced_part(r, t, ph)
            if r.phase != ph:
                continue
        fill_mask(r, t, P, ph)
        n, first = 0, -1
        for a in range(NUM_ACTIONS):
            if r.legal_action_mask[a]:
                n += 1
                if first < 0:
                    first = a
        if n == 0:
            return ENGINE_BUG
        if n > 1:
            return OK
        apply_decision(r, t, P, ph, first)


@jit
def step_game(r, t, P, max_turns, a):
    """Apply legal action ``a`` of an unfinished game, then advance it."""
    apply_decision(r, t, P, r.phase, a)
    return advance(r, t, P, max_turns)


@jit
def setup_game(r, t, P, max_turns, seed):
    """Set up the game of a fresh record (R2) with its seed, and advance to its first decision."""
    r.rng_key = rng.seed_key(seed)
    for k in range(K):
        r.deck[k] = t.copies[k]  # R2.2
    for p in range(P):
        r.faith[p] = INITIAL_FAITH
    for p in range(P):  # R2.3: 6 cards each
        for _ in range(INITIAL_HAND):
            r.hand[p, draw_from_deck(r)] += 1
    for p in range(P):  # R2.4: 2 mana each, the second is the head
        k = 0
        for _ in range(INITIAL_MANA):
            k = draw_from_deck(r)
            r.mana[p, k] += 1
        r.head[p] = k
    r.active_player = rng.randint(r, P)  # R2.5
    r.phase = Phase.TURN_START
    return advance(r, t, P, max_turns)


@jit
def refresh_game(r, t, P):
    """Re-derive the turn-start decision (Leprechaun or command card) and the legal actions of
    a game after a hand edit (checked by the caller). Never advances the game."""
    for c in range(r.draw_pend.shape[0]):
        r.draw_pend[c] = 0
    r.phase = Phase.TURN_START
    turn.run_turn_start(r)
    if r.phase == Phase.COMMAND_START:
        r.phase = Phase.COMMAND
    fill_mask(r, t, P, r.phase)


# ---- kernels (called from Python) ---------------------------------------------------------------
# ``rec``: the State's records (one per game); ``tb``: the card tables (a one-record array).


@jit
def _legal(r, a):
    return 0 <= a < NUM_ACTIONS and r.legal_action_mask[a] != 0


@jit
def _over(r):
    return r.terminated or r.truncated


@jit
def step_one(rec, tb, P, max_turns, a):
    """``core.step`` for a batch of one game: check, then apply action ``a``. Returns OK, 0 (the
    action is illegal: nothing changed) or ENGINE_BUG."""
    r = rec[0]
    t = tb[0]
    for p in range(P):
        r.rewards[p] = 0.0
    if _over(r):
        return OK
    if not _legal(r, a):
        return 0
    return step_game(r, t, P, max_turns, a)


@jit
def _check_batch(rec, games, acts):
    for i in range(games.shape[0]):
        r = rec[games[i]]
        if not _over(r) and not _legal(r, acts[i]):
            return i
    return OK


@jit
def step_batch(rec, tb, P, max_turns, games, acts):
    """``core.step``: check every action first (nothing changes if one is illegal: the position of
    the first illegal one is returned), zero the rewards, then step the unfinished games."""
    t = tb[0]
    bad = _check_batch(rec, games, acts)
    if bad != OK:
        return bad
    status = OK
    for i in range(games.shape[0]):
        r = rec[games[i]]
        for p in range(P):
            r.rewards[p] = 0.0
        if not _over(r):
            if step_game(r, t, P, max_turns, acts[i]) == ENGINE_BUG:
                status = ENGINE_BUG
    return status


@jit_parallel
def step_batch_parallel(rec, tb, P, max_turns, games, acts):
    """``step_batch`` with the games spread over threads. (The loop body takes the table record
    itself: numba's parallel loops cannot capture a record.)"""
    bad = _check_batch(rec, games, acts)
    if bad != OK:
        return bad
    bugs = 0
    for i in prange(games.shape[0]):
        r = rec[games[i]]
        for p in range(P):
            r.rewards[p] = 0.0
        if not _over(r):
            if step_game(r, tb[0], P, max_turns, acts[i]) == ENGINE_BUG:
                bugs += 1
    return ENGINE_BUG if bugs else OK


@jit
def setup_batch(rec, tb, P, max_turns, seeds):
    """Set up every game of fresh records with its seed."""
    t = tb[0]
    status = OK
    for b in range(rec.shape[0]):
        if setup_game(rec[b], t, P, max_turns, seeds[b]) == ENGINE_BUG:
            status = ENGINE_BUG
    return status


@jit_parallel
def setup_batch_parallel(rec, tb, P, max_turns, seeds):
    bugs = 0
    for b in prange(rec.shape[0]):
        if setup_game(rec[b], tb[0], P, max_turns, seeds[b]) == ENGINE_BUG:
            bugs += 1
    return ENGINE_BUG if bugs else OK


@jit
def refresh_batch(rec, tb, P, games):
    t = tb[0]
    for i in range(games.shape[0]):
        refresh_game(rec[games[i]], t, P)


@jit
def observe_batch(rec, tb, P, max_turns, games, players, out):
    """Observations of players[i] in games[i] into ``out`` (n, OBS_DIM), which is zero."""
    t = tb[0]
    for i in range(games.shape[0]):
        observe_one(rec[games[i]], t, P, max_turns, players[i], out[i])


@jit_parallel
def observe_batch_parallel(rec, tb, P, max_turns, games, players, out):
    for i in prange(games.shape[0]):
        observe_one(rec[games[i]], tb[0], P, max_turns, players[i], out[i])


@jit
def observe_one_game(rec, tb, P, max_turns, player):
    """The observation of ``player`` in a batch of one game (a fresh (1, OBS_DIM) array)."""
    out = np.zeros((1, OBS_DIM), dtype=np.float32)
    observe_one(rec[0], tb[0], P, max_turns, player, out[0])
    return out


@jit
def scores_batch(rec, P, games, out):
    """Final scores (R7.3) of games[i] into out (n, P)."""
    for i in range(games.shape[0]):
        r = rec[games[i]]
        for p in range(P):
            out[i, p] = final_score(r, p)


# ---- the AEC env's one-game calls: everything its bookkeeping needs in one call --------------


@jit
def aec_step(rec, tb, P, max_turns, a):
    """Check and apply action ``a`` of game 0, then advance it. Returns (status, current player,
    phase, command number, turn, active player, over): status OK, 0 (illegal: nothing changed)
    or ENGINE_BUG."""
    r = rec[0]
    status = step_one(rec, tb, P, max_turns, a)
    return status, r.current_player, r.phase, r.command_number, r.turn, r.active_player, _over(r)


@jit
def aec_observe(rec, tb, P, max_turns, player, with_mask):
    """Player ``player``'s observation of game 0 (OBS_DIM,) and its action mask (44,) int8: the legal
    actions if ``with_mask`` (the player must act now), else zeros."""
    obs = np.zeros(OBS_DIM, dtype=np.float32)
    r = rec[0]
    observe_one(r, tb[0], P, max_turns, player, obs)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if with_mask:
        for i in range(NUM_ACTIONS):
            mask[i] = r.legal_action_mask[i]
    return obs, mask
