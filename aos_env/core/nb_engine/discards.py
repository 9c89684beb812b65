"""Discard rounds for one game: Nightmare (down to 6 cards, then 7 mana) and R8.3 (down to 9 and
9); the scalar twin of ``np_engine/discards.py``. Owns ``discard_seat``, ``discard_shortage``
and ``discard_return``."""

from __future__ import annotations

import numpy as np

from ..constants import (
    MANA_0,
    NIGHTMARE_HAND_LIMIT,
    NIGHTMARE_MANA_LIMIT,
    NUM_UNITS,
    SHORTAGE_LIMIT,
    K,
)
from ..phases import Phase
from ._jit import Array, Record, Tables, jit
from .choice import discard_from_hand, discard_many_from_hand, forced_units, hand_units, last_unit, ordered_choice_mask
from .zones import choosable_units, give_up_unit, give_up_units, mana_total, zone_size


@jit
def hand_limit(r: Record) -> int:
    return SHORTAGE_LIMIT if r.discard_shortage else NIGHTMARE_HAND_LIMIT


@jit
def mana_limit(r: Record) -> int:
    return SHORTAGE_LIMIT if r.discard_shortage else NIGHTMARE_MANA_LIMIT


@jit
def over_limit(r: Record, P: int, hand_lim: int, mana_lim: int) -> bool:
    """Whether some player holds more cards or mana than the limits."""
    for p in range(P):
        if zone_size(r.hand[p]) > hand_lim or mana_total(r, p) > mana_lim:
            return True
    return False


@jit
def start_discard_round(r: Record, shortage: bool, then: int) -> None:
    """Start a round (R8.3's if ``shortage``, else Nightmare's), then go on to ``then``."""
    r.discard_shortage = shortage
    r.discard_return = then
    r.discard_seat = 0
    r.phase = Phase.DISCARD_NEXT


@jit
def run_discard_next(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """Phase.DISCARD_NEXT: find the next player (from ``discard_seat`` on) over a limit."""
    h_lim, m_lim = hand_limit(r), mana_limit(r)
    active = r.active_player
    for seat in range(r.discard_seat, P):
        p = (active + seat) % P
        hand = zone_size(r.hand[p])
        mana = mana_total(r, p)
        if hand > h_lim or mana > m_lim:
            r.discard_seat = seat
            r.current_player = p
            short = r.discard_shortage
            if hand > h_lim:
                r.phase = Phase.SHORTAGE_HAND if short else Phase.NIGHTMARE_HAND
                r.choice_floor = 0
                r.choice_left = hand - h_lim  # cards still to discard
            else:
                r.phase = Phase.SHORTAGE_MANA if short else Phase.NIGHTMARE_MANA
                r.choice_floor = MANA_0
                r.choice_left = mana - m_lim
            return
    r.phase = r.discard_return
    r.current_player = active


@jit
def discard_forced(r: Record, t: Tables, P: int) -> None:
    """The discard decisions, on arrival: take the forced part of the current player's discards
    at once (choice.forced_units)."""
    p = r.current_player
    ph = r.phase
    if ph == Phase.NIGHTMARE_HAND or ph == Phase.SHORTAGE_HAND:
        lim = hand_limit(r)
        avail = np.empty(K, dtype=np.int64)
        hand_units(r, p, avail)
        take = np.empty(K, dtype=np.int64)
        n = forced_units(avail, K, r.choice_floor, zone_size(r.hand[p]) - lim, take)
        if n > 0:
            discard_many_from_hand(r, p, take)
            r.choice_left -= n
            if zone_size(r.hand[p]) <= lim:
                r.phase = Phase.DISCARD_NEXT
    else:
        lim = mana_limit(r)
        avail = np.empty(NUM_UNITS, dtype=np.int64)
        choosable_units(r, t, p, avail)
        take = np.empty(NUM_UNITS, dtype=np.int64)
        n = forced_units(avail, NUM_UNITS, r.choice_floor - MANA_0, mana_total(r, p) - lim, take)
        if n > 0:
            give_up_units(r, t, p, take)
            r.choice_floor = MANA_0 + last_unit(take, NUM_UNITS)
            r.choice_left -= n
            if mana_total(r, p) <= lim:
                r.phase = Phase.DISCARD_NEXT


@jit
def discard_hand_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """``mask`` (K,): the kinds the current player may discard in a discard round."""
    p = r.current_player
    avail = np.empty(K, dtype=np.int64)
    hand_units(r, p, avail)
    ordered_choice_mask(avail, K, r.choice_floor, zone_size(r.hand[p]) - hand_limit(r), mask, 0)


@jit
def apply_discard_hand(r: Record, t: Tables, P: int, k: int) -> None:
    p = r.current_player
    discard_from_hand(r, p, k)
    r.choice_left -= 1
    if zone_size(r.hand[p]) <= hand_limit(r):
        r.phase = Phase.DISCARD_NEXT


@jit
def discard_mana_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """``mask`` (6,): the units (MANA_c, STONE) the current player may discard in a discard round."""
    p = r.current_player
    avail = np.empty(NUM_UNITS, dtype=np.int64)
    choosable_units(r, t, p, avail)
    ordered_choice_mask(avail, NUM_UNITS, r.choice_floor - MANA_0, mana_total(r, p) - mana_limit(r), mask, 0)


@jit
def apply_discard_mana(r: Record, t: Tables, P: int, unit: int) -> None:
    p = r.current_player
    give_up_unit(r, t, p, unit)
    r.choice_floor = MANA_0 + unit
    r.choice_left -= 1
    if mana_total(r, p) <= mana_limit(r):
        r.phase = Phase.DISCARD_NEXT
