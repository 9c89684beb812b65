"""Repeated choices for one game: a multiset picked one unit at a time in ascending order
(payments, discards, Research flips, Baldanders placements, Belial uses); the scalar twin of
``np_engine/choice.py``. This module owns ``choice_left`` and ``choice_floor``."""

from __future__ import annotations

from ..constants import K
from ._jit import Array, Record, jit


@jit
def ordered_choice_mask(avail: Array, n: int, floor: int, needed: int, mask: Array, at: int) -> None:
    """Write into ``mask[at : at + n]`` the legal units of a choice of ``needed`` units among
    ``avail[:n]`` made in ascending order: a unit is legal if one is available, it is not below
    ``floor`` and enough units remain at it or above to finish."""
    suffix = 0
    for u in range(n - 1, -1, -1):
        suffix += avail[u]
        mask[at + u] = avail[u] > 0 and u >= floor and suffix >= needed


@jit
def forced_units(avail: Array, n: int, floor: int, needed: int, take: Array) -> int:
    """Write into ``take[:n]`` the part of the choice that is forced (see np_engine/choice.py):
    everything still available if all of it is needed, else the first available unit as many
    times as the units after it cannot cover. Returns how many units it takes."""
    total = 0
    first = -1
    for u in range(n):
        take[u] = 0
        if u >= floor:
            total += avail[u]
            if first < 0 and avail[u] > 0:
                first = u
    if needed <= 0 or first < 0:
        return 0
    if needed >= total:
        for u in range(max(floor, 0), n):
            take[u] = avail[u]
        return total
    after = total - avail[first]
    if after == 0:
        take[first] = needed
    else:
        take[first] = max(needed - after, 0)
    return take[first]


@jit
def last_unit(take: Array, n: int) -> int:
    """The highest unit taken (the new floor)."""
    for u in range(n - 1, -1, -1):
        if take[u] > 0:
            return u
    return n - 1


@jit
def discard_from_hand(r: Record, p: int, k: int) -> None:
    """One card of kind k from player p's hand to the discard pile, as the next unit of a
    repeated choice (the floor moves to it)."""
    r.hand[p, k] -= 1
    r.discard[k] += 1
    r.choice_floor = k


@jit
def hand_units(r: Record, p: int, out: Array) -> None:
    """``out`` (K,) int64 = player p's hand by kind (the units of a choice of cards)."""
    for k in range(K):
        out[k] = r.hand[p, k]


@jit
def discard_many_from_hand(r: Record, p: int, take: Array) -> None:
    """``take`` (K,) cards from player p's hand to the discard pile at once (forced units); the
    floor moves to the highest kind taken."""
    for k in range(K):
        r.hand[p, k] -= take[k]
        r.discard[k] += take[k]
    r.choice_floor = last_unit(take, K)
