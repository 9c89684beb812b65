"""Repeated choices: a multiset picked one unit at a time (payments, discards, Research flips,
Baldanders placements, Belial uses).

The engine asks for the units in ascending action order (``state.choice_floor``), so that each
multiset is reached by one path only, and offers a unit only if the rest can still be
completed. When games arrive at such a decision, the part of the choice that is forced is
taken at once (``forced_units``). This module owns ``choice_left`` and ``choice_floor``: one
repeated choice is in progress at a time, and never across a draw.
"""

from __future__ import annotations

import numpy as np

from ..state import State


def ordered_choice_mask(avail: np.ndarray, floor: np.ndarray, needed: np.ndarray) -> np.ndarray:
    """Legal units of a repeated choice of ``needed`` units, made in ascending order.

    Unit ``u`` is legal if one is available, it is not below ``floor`` and enough units remain
    at ``u`` or above to finish. avail (n, U), floor (n,) relative unit index, needed (n,) ->
    (n, U) bool.
    """
    suffix = np.cumsum(avail[:, ::-1], axis=1)[:, ::-1]
    units = np.arange(avail.shape[1])
    return (avail > 0) & (units >= floor[:, None]) & (suffix >= needed[:, None])


def forced_units(avail: np.ndarray, floor: np.ndarray, needed: np.ndarray) -> np.ndarray:
    """(n, U) the part of a repeated choice that is forced, so the engine can take it at once.

    Same setting as ``ordered_choice_mask``. The choice is fully forced when everything still
    available (from ``floor`` on) is needed, or when only one unit is available. Otherwise the
    first available unit u must still be taken ``needed - (units available after u)`` times,
    if that is positive (the units come in ascending order); the rest is a real choice. Taking
    the forced part at once gives exactly what taking the single legal action again and again
    would give, in fewer engine passes.
    """
    n, U = avail.shape
    a = np.where(np.arange(U)[None, :] >= floor[:, None], avail, 0)
    total = a.sum(1)
    rows = np.arange(n)
    first = np.argmax(a > 0, axis=1)
    after = total - a[rows, first]
    take = np.zeros_like(a)
    every = needed >= total
    take[every] = a[every]
    part = ~every & (needed > 0)
    take[rows[part], first[part]] = np.where(after[part] == 0, needed[part], np.maximum(needed[part] - after[part], 0))
    return take


def last_unit(take: np.ndarray) -> np.ndarray:
    """(n,) index of the highest unit taken in each row of ``take`` (n, U): the new floor."""
    result: np.ndarray = take.shape[1] - 1 - np.argmax(take[:, ::-1] > 0, axis=1)
    return result


def discard_from_hand(state: State, g: np.ndarray, p: np.ndarray, k: np.ndarray) -> None:
    """One card of kind k[i] from player p[i]'s hand to the discard pile, as the next unit of a
    repeated choice (the floor moves to it)."""
    state.hand[g, p, k] -= 1
    state.discard[g, k] += 1
    state.choice_floor[g] = k


def discard_many_from_hand(state: State, g: np.ndarray, p: np.ndarray, take: np.ndarray) -> None:
    """``take`` (n, K) cards from player p[i]'s hand to the discard pile at once (forced units)."""
    state.hand[g, p] -= take.astype(state.hand.dtype)
    state.discard[g] += take.astype(state.discard.dtype)
    state.choice_floor[g] = last_unit(take)
