"""Discard rounds: Nightmare (down to 6 cards, then 7 mana) and R8.3 (down to 9 and 9).

Every player, the active one first and then clockwise, discards down to the limits (their
choice: a repeated choice, see choice.py). This module owns ``discard_seat``,
``discard_shortage`` and ``discard_return``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..constants import MANA_0, NIGHTMARE_HAND_LIMIT, NIGHTMARE_MANA_LIMIT, SHORTAGE_LIMIT
from ..phases import PH
from ..state import State, ksum
from .choice import discard_from_hand, discard_many_from_hand, forced_units, last_unit, ordered_choice_mask
from .zones import choosable_units, give_up_unit, give_up_units, mana_total


def limits(state: State, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(hand limit, mana limit) of the round in progress in games g."""
    short = state.discard_shortage[g]
    hand = np.where(short, SHORTAGE_LIMIT, NIGHTMARE_HAND_LIMIT)
    mana = np.where(short, SHORTAGE_LIMIT, NIGHTMARE_MANA_LIMIT)
    return hand, mana


def over_limit(state: State, g: np.ndarray, hand_limit: ArrayLike, mana_limit: ArrayLike) -> np.ndarray:
    """(n,) True where some player holds more cards or mana than the limits."""
    hand = ksum(state.hand[g])
    mana = ksum(state.mana[g]) + ksum(state.stones[g])
    result: np.ndarray = ((hand > np.reshape(hand_limit, (-1, 1))) | (mana > np.reshape(mana_limit, (-1, 1)))).any(1)
    return result


def start_discard_round(state: State, g: np.ndarray, shortage: bool, then: int) -> None:
    """Start a round in games g (R8.3's if ``shortage``, else Nightmare's), then go on to ``then``."""
    state.discard_shortage[g] = shortage
    state.discard_return[g] = then
    state.discard_seat[g] = 0
    state.phase[g] = PH.DISCARD_NEXT


def run_discard_next(state: State, g: np.ndarray) -> None:
    """Phase.DISCARD_NEXT: find the next player (from ``discard_seat`` on) over a limit."""
    P = state.num_players
    hand_limit, mana_limit = limits(state, g)
    players = (state.active_player[g][:, None] + np.arange(P)) % P  # by seat offset
    rows = np.arange(g.size)[:, None]
    hand = ksum(state.hand[g])[rows, players]
    mana = (ksum(state.mana[g]) + ksum(state.stones[g]))[rows, players]
    hand_over = hand > hand_limit[:, None]
    over = (hand_over | (mana > mana_limit[:, None])) & (np.arange(P) >= state.discard_seat[g][:, None])
    found = over.any(1)
    fin = g[~found]
    state.phase[fin] = state.discard_return[fin]
    state.current_player[fin] = state.active_player[fin]
    if not found.any():
        return
    f = g[found]
    seat = np.argmax(over[found], axis=1)
    state.discard_seat[f] = seat
    state.current_player[f] = players[found, seat]
    on_hand = hand_over[found, seat]
    short = state.discard_shortage[f]
    state.phase[f] = np.where(
        on_hand,
        np.where(short, PH.SHORTAGE_HAND, PH.NIGHTMARE_HAND),
        np.where(short, PH.SHORTAGE_MANA, PH.NIGHTMARE_MANA),
    )
    state.choice_floor[f] = np.where(on_hand, 0, MANA_0)
    excess = np.where(on_hand, hand[found, seat] - hand_limit[found], mana[found, seat] - mana_limit[found])
    state.choice_left[f] = excess  # cards (or mana) still to discard


def discard_forced(state: State, g: np.ndarray) -> None:
    """The discard decisions, on arrival: take the forced part of the current player's
    discards at once (see choice.forced_units)."""
    ph = state.phase[g]
    hand = g[(ph == PH.NIGHTMARE_HAND) | (ph == PH.SHORTAGE_HAND)]
    if hand.size:
        p = state.current_player[hand]
        cards = state.hand[hand, p].astype(np.int64)
        limit, _ = limits(state, hand)
        take = forced_units(cards, state.choice_floor[hand], cards.sum(1) - limit)
        hit = take.any(1)
        if hit.any():
            h = hand[hit]
            discard_many_from_hand(state, h, p[hit], take[hit])
            state.choice_left[h] -= take[hit].sum(1)
            done = ksum(state.hand[h, p[hit]]) <= limit[hit]
            state.phase[h[done]] = PH.DISCARD_NEXT
    mana = g[(ph == PH.NIGHTMARE_MANA) | (ph == PH.SHORTAGE_MANA)]
    if mana.size:
        p = state.current_player[mana]
        _, limit = limits(state, mana)
        avail = choosable_units(state, mana, p).astype(np.int64)
        take = forced_units(avail, state.choice_floor[mana] - MANA_0, mana_total(state, mana, p) - limit)
        hit = take.any(1)
        if hit.any():
            m, t, pm = mana[hit], take[hit], p[hit]
            give_up_units(state, m, pm, t)
            state.choice_floor[m] = MANA_0 + last_unit(t)
            state.choice_left[m] -= t.sum(1)
            done = mana_total(state, m, pm) <= limit[hit]
            state.phase[m[done]] = PH.DISCARD_NEXT


def discard_hand_mask(state: State, g: np.ndarray) -> np.ndarray:
    """(n, K) cards the current player may discard in a discard round."""
    p = state.current_player[g]
    hand = state.hand[g, p]
    limit, _ = limits(state, g)
    return ordered_choice_mask(hand, state.choice_floor[g], ksum(hand) - limit)


def apply_discard_hand(state: State, g: np.ndarray, k: np.ndarray) -> None:
    p = state.current_player[g]
    discard_from_hand(state, g, p, k)
    state.choice_left[g] -= 1
    limit, _ = limits(state, g)
    done = ksum(state.hand[g, p]) <= limit
    state.phase[g[done]] = PH.DISCARD_NEXT


def discard_mana_mask(state: State, g: np.ndarray) -> np.ndarray:
    """(n, 6) mana colours / stone the current player may discard in a discard round."""
    p = state.current_player[g]
    _, limit = limits(state, g)
    return ordered_choice_mask(
        choosable_units(state, g, p), state.choice_floor[g] - MANA_0, mana_total(state, g, p) - limit
    )


def apply_discard_mana(state: State, g: np.ndarray, unit: np.ndarray) -> None:
    p = state.current_player[g]
    give_up_unit(state, g, p, unit)
    state.choice_floor[g] = MANA_0 + unit
    state.choice_left[g] -= 1
    _, limit = limits(state, g)
    done = mana_total(state, g, p) <= limit
    state.phase[g[done]] = PH.DISCARD_NEXT
