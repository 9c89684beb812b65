"""Summoning (R5): which spirits can be paid for, the cost after reductions (R10.2),
Baldanders placements and the payment.

A cost is coloured symbols ``need`` (one count per colour) plus ``any`` symbols. Mana of a
colour pays its colour or an "any"; a stone pays anything (R4.1). Payment is chosen one unit
at a time (MANA_c or STONE), in ascending action order (only the multiset matters), and a unit
is legal only if the rest of the cost can still be paid with what is left. This module owns
``summon_kind``, ``pay_need``, ``pay_any`` and ``paid``.

Arrays here are colour-first, ``(5, ...)``, and float32: summing over a leading axis and
multiplying float32 matrices are much faster in numpy than reducing a short trailing axis or
multiplying integer matrices, and the small counts stay exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..constants import MANA_0, NO, NUM_COLOURS, NUM_UNITS, STONE_UNIT
from ..phases import PH
from ..state import State, ksum
from . import abilities
from .choice import last_unit
from .zones import colour_counts, empty_mask, give_up_unit, give_up_units

_E = np.eye(NUM_COLOURS, NUM_UNITS, dtype=np.float32)  # _E[c, u]: unit u is mana of colour c
_GE = (np.arange(NUM_COLOURS)[:, None] >= np.arange(NUM_UNITS)[None, :]).astype(
    np.float32
)  # colour c may follow unit u
_IS_STONE = (np.arange(NUM_UNITS) == STONE_UNIT).astype(np.float32)


def summon_cost(state: State, g: np.ndarray, p: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(n, 5) coloured symbols spirit k[i] costs player p[i], after its reductions (R10.2: own
    colour only, never an "any", never below zero)."""
    cards = state.cards
    reduction = abilities.cost_reduction(state, g, p, k)
    result: np.ndarray = np.maximum(cards.cost[k] - reduction[:, None] * cards.colour_onehot[k], 0)
    return result


def can_pay(
    need: np.ndarray,
    any_: np.ndarray,
    mana: np.ndarray,
    stones: np.ndarray,
    place: np.ndarray | None = None,
    place_n: Any = None,
) -> np.ndarray:
    """Whether a cost can be paid (colour-first shapes, broadcasting on the rest).

    need (5, ...), any_ (...), mana (5, ...) face-up mana by colour, stones (...). With
    Baldanders, up to ``place_n`` hand cards of colours ``place`` (5, ...) may first be added
    to the mana: the best ones fill missing colours.
    """
    missing = np.maximum(need - mana, 0)
    short = missing.sum(0) - stones
    over = mana.sum(0) + stones - need.sum(0) - any_  # mana left over after paying everything
    result: np.ndarray
    if place is None:
        result = (short <= 0) & (over >= 0)
        return result
    fills = np.minimum(np.minimum(missing, place).sum(0), place_n)
    extra = np.minimum(place.sum(0), place_n)
    result = (short <= fills) & (over + extra >= 0)
    return result


def summonable(state: State, g: np.ndarray) -> np.ndarray:
    """(n, K) spirits in the active player's hand that can be summoned and paid for (R5.1).

    With Baldanders in play, cards the player may place from hand first count (the spirit
    itself excluded).
    """
    cards = state.cards
    p = state.active_player[g]
    hand = state.hand[g, p]
    # Speed: only the (game, kind) pairs of cards in hand are checked (a hand holds a few of
    # the 30 kinds), colour-first as (5, pairs).
    rows, kinds = np.nonzero(hand)
    reduction = abilities.cost_reduction(state, g[rows], p[rows], kinds).astype(np.float32)
    need = cards.cost_cf32[:, kinds] - reduction * cards.onehot_cf32[:, kinds]
    np.maximum(need, 0, out=need)
    mana = colour_counts(state, state.mana[g, p]).T[:, rows]  # (5, pairs)
    stones = ksum(state.stones[g, p])[rows]
    n_place = abilities.baldanders_count(state, g, p)
    if not n_place.any():
        ok = can_pay(need, cards.cost_any[kinds], mana, stones)
    else:
        hand_col = colour_counts(state, hand).T[:, rows] - cards.onehot_cf32[:, kinds]  # minus the spirit
        ok = can_pay(need, cards.cost_any[kinds], mana, stones, np.maximum(hand_col, 0), n_place[rows])
    out = np.zeros(hand.shape, dtype=bool)
    out[rows[ok], kinds[ok]] = True
    return out


def start_summon(state: State, g: np.ndarray, k: np.ndarray) -> None:
    """The player chose to summon kind k: fix its cost, then Baldanders or payment."""
    p = state.active_player[g]
    state.summon_kind[g] = k
    state.pay_need[g] = summon_cost(state, g, p, k)
    state.pay_any[g] = state.cards.cost_any[k]
    state.paid[g] = 0
    n_place = abilities.baldanders_count(state, g, p)
    placing = n_place > 0
    b = g[placing]
    state.choice_left[b] = n_place[placing]
    state.choice_floor[b] = 0
    state.phase[b] = PH.BALDANDERS
    start_payment(state, g[~placing])


# ---- Baldanders: when summoning another spirit, place hand cards as mana first ------------


def baldanders_mask(state: State, g: np.ndarray) -> np.ndarray:
    """CARD_j: place j (kinds in ascending order) if the summon stays payable; NO: stop placing.

    R10.4: a card the summon does not need may be placed too.
    """
    cards = state.cards
    p = state.active_player[g]
    rows = np.arange(g.size)
    hand = state.hand[g, p].astype(np.float32)
    hand[rows, state.summon_kind[g]] -= 1  # the spirit being summoned stays in hand until paid
    onehot = cards.onehot_cf32[:, None, :]  # (5, 1, K)
    mana = colour_counts(state, state.mana[g, p]).T[:, :, None]  # (5, n, 1)
    stones = ksum(state.stones[g, p])[:, None]
    need = state.pay_need[g].T[:, :, None]
    any_ = state.pay_any[g][:, None]
    # colours of the hand cards of kind >= j that could still be placed after j
    later = np.cumsum((hand[None] * onehot)[:, :, ::-1], axis=2)[:, :, ::-1] - onehot
    place_ok = can_pay(need, any_, mana + onehot, stones, np.maximum(later, 0), (state.choice_left[g] - 1)[:, None])
    kinds = np.arange(hand.shape[1])
    mask = empty_mask(g.size)
    mask[:, : hand.shape[1]] = place_ok & (hand > 0) & (kinds[None] >= state.choice_floor[g][:, None])
    mask[:, NO] = can_pay(need[:, :, 0], any_[:, 0], mana[:, :, 0], stones[:, 0])
    return mask


def apply_baldanders(state: State, g: np.ndarray, action: np.ndarray) -> None:
    place = action < NO
    b, k = g[place], action[place]
    p = state.active_player[b]
    state.hand[b, p, k] -= 1
    state.mana[b, p, k] += 1
    state.choice_floor[b] = k
    state.choice_left[b] -= 1
    done = np.concatenate([g[~place], b[state.choice_left[b] == 0]])
    start_payment(state, done)


# ---- R5.2 payment ---------------------------------------------------------------------------


def start_payment(state: State, g: np.ndarray) -> None:
    """Go to PAY, or straight to the summon when nothing is left to pay."""
    state.choice_floor[g] = MANA_0
    state.choice_left[g] = state.pay_need[g].sum(1) + state.pay_any[g] - state.paid[g].sum(1)  # units to pay
    free = state.choice_left[g] == 0
    state.phase[g] = np.where(free, PH.SUMMON_DONE, PH.PAY)  # the engine then takes the forced units (pay_forced)


def pay_mask(state: State, g: np.ndarray) -> np.ndarray:
    """(n, 6) units (MANA_c, STONE) that keep the rest of the cost payable.

    For each candidate unit u (last axis): pay it, then check the rest can be paid with what
    is left, using only colours from u on (ascending order).
    """
    p = state.active_player[g]
    mana = colour_counts(state, state.mana[g, p])  # (n, 5)
    stones = ksum(state.stones[g, p]).astype(np.float32)
    paid = state.paid[g].astype(np.float32)  # (n, 6)
    need = state.pay_need[g].T.astype(np.float32)[:, :, None]  # (5, n, 1)
    paid_col = paid[:, :NUM_COLOURS].T[:, :, None] + _E[:, None, :]  # (5, n, u) after paying u
    left_mana = (mana.T[:, :, None] - _E[:, None, :]) * _GE[:, None, :]  # (5, n, u) still usable
    paid_stones = paid[:, STONE_UNIT:] + _IS_STONE  # (n, u)
    left_stones = stones[:, None] - _IS_STONE
    to_pay = (state.pay_need[g].sum(1) + state.pay_any[g] - paid.sum(1) - 1)[:, None]  # (n, 1)
    missing = np.maximum(need - paid_col, 0)
    fills = np.minimum(missing, left_mana).sum(0)
    short = missing.sum(0) - paid_stones - np.minimum(to_pay, fills + left_stones)
    avail = np.concatenate([mana, stones[:, None]], axis=1)
    ok = (avail > 0) & (to_pay >= 0) & (left_mana.sum(0) + left_stones >= to_pay) & (short <= 0)
    result: np.ndarray = ok & (np.arange(NUM_UNITS)[None] >= (state.choice_floor[g] - MANA_0)[:, None])
    return result


def apply_pay(state: State, g: np.ndarray, unit: np.ndarray) -> None:
    """Pay one unit: the mana (or a random stone) goes to the discard pile (R5.2)."""
    give_up_unit(state, g, state.active_player[g], unit)
    state.paid[g, unit] += 1
    state.choice_floor[g] = MANA_0 + unit
    state.choice_left[g] -= 1
    done = state.paid[g].sum(1) == state.pay_need[g].sum(1) + state.pay_any[g]
    state.phase[g[done]] = PH.SUMMON_DONE


def _after(x: np.ndarray) -> np.ndarray:
    """(n, 5) -> (n, 5): column u is the sum of the columns after u."""
    suffix = np.cumsum(x[:, ::-1], axis=1)[:, ::-1]
    return np.concatenate([suffix[:, 1:], np.zeros((x.shape[0], 1), dtype=x.dtype)], axis=1)


def pay_forced(state: State, g: np.ndarray) -> None:
    """Phase.PAY, on arrival: pay at once the units of the payment that are forced.

    Taking the single legal unit again and again gives the same result, in one engine pass per
    unit; this computes it directly. A unit is forced while every way of completing the
    payment starts with it. Going through the units u from the floor up: if the number x_u of
    u every completion pays is fixed (least == most), it is paid and the next unit is looked
    at; otherwise the least number is paid and the rest is the player's choice. With D the
    coloured symbols still missing (d_c each), R the units left, ps the stones paid so far,
    and after u only the mana W that can fill missing symbols (plus stones) and A in all, a
    completion pays x_u = v of colour u exactly when

        v >= R - A,   v >= (D - ps) - W,   v <= d_u + R - (D - ps),

    because min(v, d_u) + min(R - v, W) >= D - ps is those linear bounds.
    """
    if not g.size:
        return
    p = state.active_player[g]
    n = g.size
    mana = colour_counts(state, state.mana[g, p]).astype(np.int64)  # (n, 5)
    stones = ksum(state.stones[g, p]).astype(np.int64)
    need = state.pay_need[g].astype(np.int64)
    paid = state.paid[g].astype(np.int64)
    left = need.sum(1) + state.pay_any[g] - paid.sum(1)  # R
    floor = (state.choice_floor[g] - MANA_0).astype(np.int64)
    take = np.zeros((n, NUM_UNITS), dtype=np.int64)
    open_ = left > 0  # still deciding which units are forced
    # Speed: all that does not depend on what is taken is computed once: d_u, and A and W
    # after u as suffix sums over colours (the units after u are not taken yet when u is
    # looked at); R and D - ps are then kept up to date as units are taken.
    d = np.maximum(need - paid[:, :NUM_COLOURS], 0)  # missing colour symbols
    a_after = _after(mana) + stones[:, None]  # (n, 5): A after unit u
    w_after = _after(np.minimum(d, mana)) + stones[:, None]  # (n, 5): W after unit u
    r = left  # R: units still to pay
    q = d.sum(1) - paid[:, STONE_UNIT]  # D - ps: symbols the stones still have to cover
    for u in range(NUM_UNITS):
        if not open_.any():
            break
        at = open_ & (floor <= u)
        if not at.any():
            continue
        if u == STONE_UNIT:
            lo = hi = r  # only stones remain
        else:
            lo = np.maximum(np.maximum(r - a_after[:, u], q - w_after[:, u]), 0)
            hi = np.minimum(np.minimum(mana[:, u], r), d[:, u] + r - q)
        x = np.where(at, lo, 0)
        take[:, u] = x
        open_ &= ~at | (lo == hi)  # a real choice about u: stop there
        r = r - x
        q = q - (np.minimum(x, d[:, u]) if u < STONE_UNIT else x)
        open_ &= r > 0
    hit = take.any(1)
    if not hit.any():
        return
    h, t, ph = g[hit], take[hit], p[hit]
    give_up_units(state, h, ph, t)
    state.paid[h] += t
    state.choice_floor[h] = MANA_0 + last_unit(t)
    state.choice_left[h] -= t.sum(1)
    done = state.paid[h].sum(1) == state.pay_need[h].sum(1) + state.pay_any[h]
    state.phase[h[done]] = PH.SUMMON_DONE
