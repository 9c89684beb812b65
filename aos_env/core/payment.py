"""Summoning costs and payment (R5, R10.2).

A cost is coloured symbols ``need`` (one count per colour) plus ``any``
symbols. Mana of a colour pays its colour or an "any"; a stone pays anything
(R4.1). Payment is chosen one unit at a time (MANA_c or STONE), in ascending
action order (the order never matters, only the multiset), and a unit is
legal only if the rest of the cost can still be paid with what is left.
"""

from __future__ import annotations

import numpy as np

from . import abilities
from .constants import MANA_0, Phase
from .state import State
from .zones import colour_counts, give_up_mana

_GE = np.arange(6)[None, :] >= np.arange(6)[:, None]  # _GE[u, v]: unit v may follow unit u
_EYE6 = np.eye(6, dtype=np.int64)


def summon_costs(state: State, spirits: np.ndarray) -> np.ndarray:
    """(n, K, 5) coloured symbols each kind would cost a player with ``spirits`` (n, K).

    Reductions (Gargoyle, Giant) lower only the spirit's own colour, never an
    "any" symbol, and never below zero (R10.2). ``cards.cost_any`` is the rest.
    """
    cards = state.cards
    reduction = abilities.gargoyle_reduction(state, spirits)[:, None] + abilities.giant_reduction(state, spirits)
    reduction *= abilities.giant_no_reduction(state, spirits) == 0
    need = cards.cost[None] - reduction[:, :, None] * cards.colour_onehot[None]
    return np.maximum(need, 0)


def can_pay(need, any_, mana, stones, place=None, place_n=None) -> np.ndarray:
    """Whether a cost can be paid (shapes broadcast; colour axis last).

    need (..., 5), any_ (...), mana (..., 5) face-up mana by colour, stones (...).
    With Baldanders, up to ``place_n`` hand cards of colours ``place`` (..., 5)
    may first be added to the mana: the best ones fill missing colours.
    """
    missing = np.maximum(need - mana, 0)
    total_cost = need.sum(-1) + any_
    have = mana.sum(-1) + stones
    if place is None:
        return (missing.sum(-1) <= stones) & (have >= total_cost)
    fills = np.minimum(np.minimum(missing, place).sum(-1), place_n)
    extra = np.minimum(place.sum(-1), place_n)
    return (missing.sum(-1) - fills <= stones) & (have + extra >= total_cost)


def summonable(state: State, g: np.ndarray) -> np.ndarray:
    """(n, K) spirits in the active player's hand that can be summoned and paid for (R5.1).

    With Baldanders in play, cards the player may place from hand first count
    (the spirit itself excluded).
    """
    p = state.active_player[g]
    hand = state.hand[g, p]
    need = summon_costs(state, state.spirits[g, p])
    mana = colour_counts(state, state.mana[g, p])
    stones = state.stones[g, p].sum(1, dtype=np.int64)
    hand_col = colour_counts(state, hand)[:, None, :] - state.cards.colour_onehot[None]
    n_place = abilities.baldanders_count(state, g, p)
    ok = can_pay(
        need, state.cards.cost_any[None], mana[:, None], stones[:, None],
        np.maximum(hand_col, 0), n_place[:, None],
    )
    return ok & (hand > 0)


def start_summon(state: State, g: np.ndarray, k: np.ndarray) -> None:
    """The player chose to summon kind k: fix its cost, then Baldanders or payment."""
    p = state.active_player[g]
    state.summon_kind[g] = k
    need = summon_costs(state, state.spirits[g, p])
    state.pay_need[g] = need[np.arange(g.size), k]
    state.pay_any[g] = state.cards.cost_any[k]
    state.paid[g] = 0
    n_place = abilities.baldanders_count(state, g, p)
    placing = n_place > 0
    b = g[placing]
    state.count[b] = n_place[placing]
    state.floor[b] = 0
    state.phase[b] = Phase.BALDANDERS
    start_payment(state, g[~placing])


def start_payment(state: State, g: np.ndarray) -> None:
    """Go to PAY, or straight to the summon when nothing is left to pay."""
    state.floor[g] = MANA_0
    free = state.pay_need[g].sum(1) + state.pay_any[g] == 0
    state.phase[g] = np.where(free, Phase.SUMMON_DONE, Phase.PAY)


def pay_mask(state: State, g: np.ndarray) -> np.ndarray:
    """(n, 6) units (MANA_c, STONE) that keep the rest of the cost payable."""
    p = state.active_player[g]
    avail = np.concatenate(
        [colour_counts(state, state.mana[g, p]), state.stones[g, p].sum(1, dtype=np.int64)[:, None]], axis=1
    )
    paid = state.paid[g][:, None, :] + _EYE6[None]  # (n, u, 6): after paying unit u
    left = avail[:, None, :] - _EYE6[None]
    left_mana = left[..., :5] * _GE[None, :, :5]  # later units may not be of a lower colour
    left_stones = left[..., 5]
    need = state.pay_need[g][:, None, :]
    to_pay = (state.pay_need[g].sum(1) + state.pay_any[g])[:, None] - paid.sum(-1)
    missing = np.maximum(need - paid[..., :5], 0)
    fills = np.minimum(missing, left_mana).sum(-1)
    short = missing.sum(-1) - paid[..., 5] - np.minimum(to_pay, fills + left_stones)
    ok = (avail > 0) & (to_pay >= 0) & (left_mana.sum(-1) + left_stones >= to_pay) & (short <= 0)
    return ok & (np.arange(6)[None] >= (state.floor[g] - MANA_0)[:, None])


def apply_pay(state: State, g: np.ndarray, unit: np.ndarray) -> None:
    """Pay one unit: the mana (or a random stone) goes to the discard pile (R5.2)."""
    give_up_mana(state, g, state.active_player[g], unit)
    state.paid[g, unit] += 1
    state.floor[g] = MANA_0 + unit
    done = state.paid[g].sum(1) == state.pay_need[g].sum(1) + state.pay_any[g]
    state.phase[g[done]] = Phase.SUMMON_DONE
