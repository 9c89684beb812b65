"""Summoning for one game (R5): which spirits can be paid for, the cost after reductions (R10.2),
Baldanders placements and the payment; the scalar twin of ``np_engine/summon.py``. Owns
``summon_kind``, ``pay_need``, ``pay_any`` and ``paid``.

A cost is coloured symbols ``need`` (one count per colour) plus ``any`` symbols; mana of a colour
pays its colour or an "any", a stone pays anything (R4.1).
"""

from __future__ import annotations

import numpy as np

from ..constants import MANA_0, NO, NUM_COLOURS, NUM_UNITS, STONE_UNIT, K
from ..phases import Phase
from ._jit import Array, Record, Tables, jit
from .abilities import baldanders_count, cost_reduction
from .choice import last_unit
from .zones import give_up_unit, give_up_units, mana_by_colour, zone_size


@jit
def can_pay(need: Array, n_any: int, mana: Array, stones: int) -> bool:
    """Whether a cost (need (5,), n_any) can be paid with face-up mana by colour (5,) and stones."""
    short = -stones
    over = stones - n_any
    for c in range(NUM_COLOURS):
        short += max(need[c] - mana[c], 0)
        over += mana[c] - need[c]
    return bool(short <= 0 and over >= 0)


@jit
def can_pay_placing(need: Array, n_any: int, mana: Array, stones: int, place: Array, place_n: int) -> bool:
    """``can_pay`` when up to ``place_n`` hand cards of colours ``place`` (5,) may first be added to
    the mana (Baldanders): the best ones fill missing colours."""
    short = -stones
    over = stones - n_any
    fills = 0
    extra = 0
    for c in range(NUM_COLOURS):
        missing = max(need[c] - mana[c], 0)
        short += missing
        over += mana[c] - need[c]
        fills += min(missing, place[c])
        extra += place[c]
    return bool(short <= min(fills, place_n) and over + min(extra, place_n) >= 0)


@jit
def summon_cost(r: Record, t: Tables, p: int, k: int, need: Array) -> None:
    """``need`` (5,) = coloured symbols spirit k costs player p after its reductions (R10.2: own
    colour only, never an "any", never below zero)."""
    red = cost_reduction(r, t, p, k)
    for c in range(NUM_COLOURS):
        need[c] = max(t.cost[k, c] - red * t.colour_onehot[k, c], 0)


@jit
def summonable(r: Record, t: Tables, mask: Array) -> None:
    """CARD_k for the spirits in the active player's hand that can be summoned and paid for
    (R5.1); with Baldanders, cards the player may place from hand first count."""
    p = r.active_player
    mana = np.empty(NUM_COLOURS, dtype=np.int64)
    mana_by_colour(r, t, p, mana)
    stones = zone_size(r.stones[p])
    n_place = baldanders_count(r, p)
    hand_col = np.zeros(NUM_COLOURS, dtype=np.int64)
    if n_place > 0:
        for k in range(K):
            hand_col[t.colour[k]] += r.hand[p, k]
    need = np.empty(NUM_COLOURS, dtype=np.int64)
    place = np.empty(NUM_COLOURS, dtype=np.int64)
    for k in range(K):
        if r.hand[p, k] == 0:
            continue
        summon_cost(r, t, p, k, need)
        if n_place == 0:
            mask[k] = can_pay(need, t.cost_any[k], mana, stones)
        else:
            for c in range(NUM_COLOURS):
                place[c] = max(hand_col[c] - t.colour_onehot[k, c], 0)  # the spirit itself is not placed
            mask[k] = can_pay_placing(need, t.cost_any[k], mana, stones, place, n_place)


@jit
def start_summon(r: Record, t: Tables, k: int) -> None:
    """The player chose to summon kind k: fix its cost, then Baldanders or payment."""
    p = r.active_player
    r.summon_kind = k
    need = np.empty(NUM_COLOURS, dtype=np.int64)
    summon_cost(r, t, p, k, need)
    for c in range(NUM_COLOURS):
        r.pay_need[c] = need[c]
    r.pay_any = t.cost_any[k]
    for u in range(NUM_UNITS):
        r.paid[u] = 0
    n_place = baldanders_count(r, p)
    if n_place > 0:
        r.choice_left = n_place
        r.choice_floor = 0
        r.phase = Phase.BALDANDERS
    else:
        start_payment(r)


# ---- Baldanders: when summoning another spirit, place hand cards as mana first ------------


@jit
def baldanders_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """CARD_j: place j (kinds in ascending order) if the summon stays payable; NO: stop placing
    (allowed while the summon is payable as it is). R10.4: a card the summon does not need may
    be placed too."""
    p = r.active_player
    hand = np.empty(K, dtype=np.int64)
    for k in range(K):
        hand[k] = r.hand[p, k]
    hand[r.summon_kind] -= 1  # the spirit being summoned stays in hand until paid
    mana = np.empty(NUM_COLOURS, dtype=np.int64)
    mana_by_colour(r, t, p, mana)
    stones = zone_size(r.stones[p])
    need = r.pay_need
    n_any = r.pay_any
    later = np.zeros(NUM_COLOURS, dtype=np.int64)  # hand cards of kind >= j by colour, j excluded
    place = np.empty(NUM_COLOURS, dtype=np.int64)
    with_j = np.empty(NUM_COLOURS, dtype=np.int64)
    floor = r.choice_floor
    for j in range(K - 1, -1, -1):
        c_j = t.colour[j]
        for c in range(NUM_COLOURS):
            place[c] = later[c]
            with_j[c] = mana[c]
        place[c_j] = max(later[c_j] + hand[j] - 1, 0)
        with_j[c_j] += 1
        ok = can_pay_placing(need, n_any, with_j, stones, place, r.choice_left - 1)
        mask[j] = ok and hand[j] > 0 and j >= floor
        later[c_j] += hand[j]
    mask[NO] = can_pay(need, n_any, mana, stones)


@jit
def apply_baldanders(r: Record, t: Tables, P: int, action: int) -> None:
    if action == NO:
        start_payment(r)
        return
    p = r.active_player
    r.hand[p, action] -= 1
    r.mana[p, action] += 1
    r.choice_floor = action
    r.choice_left -= 1
    if r.choice_left == 0:
        start_payment(r)


# ---- R5.2 payment ---------------------------------------------------------------------------


@jit
def _to_pay(r: Record) -> int:
    n = r.pay_any
    for c in range(NUM_COLOURS):
        n += r.pay_need[c]
    for u in range(NUM_UNITS):
        n -= r.paid[u]
    return n


@jit
def start_payment(r: Record) -> None:
    """Go to PAY, or straight to the summon when nothing is left to pay."""
    r.choice_floor = MANA_0
    r.choice_left = _to_pay(r)  # units to pay
    r.phase = Phase.SUMMON_DONE if r.choice_left == 0 else Phase.PAY


@jit
def pay_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """``mask`` (6,): the units (MANA_c, STONE) that keep the rest of the cost payable: pay the
    unit, then check the rest can be paid with what is left, using only colours from it on
    (ascending order)."""
    p = r.active_player
    mana = np.empty(NUM_COLOURS, dtype=np.int64)
    mana_by_colour(r, t, p, mana)
    stones = zone_size(r.stones[p])
    to_pay = _to_pay(r) - 1
    floor = r.choice_floor - MANA_0
    for u in range(NUM_UNITS):
        avail = stones if u == STONE_UNIT else mana[u]
        paid_stones = r.paid[STONE_UNIT] + (1 if u == STONE_UNIT else 0)
        left_stones = stones - (1 if u == STONE_UNIT else 0)
        missing_sum = 0
        fills = 0
        left_sum = 0
        for c in range(NUM_COLOURS):
            paid_c = r.paid[c] + (1 if c == u else 0)
            missing = max(r.pay_need[c] - paid_c, 0)
            left = (mana[c] - (1 if c == u else 0)) if c >= u else 0
            missing_sum += missing
            fills += min(missing, left)
            left_sum += left
        short = missing_sum - paid_stones - min(to_pay, fills + left_stones)
        mask[u] = avail > 0 and to_pay >= 0 and left_sum + left_stones >= to_pay and short <= 0 and u >= floor


@jit
def apply_pay(r: Record, t: Tables, P: int, unit: int) -> None:
    """Pay one unit: the mana (or a random stone) goes to the discard pile (R5.2)."""
    give_up_unit(r, t, r.active_player, unit)
    r.paid[unit] += 1
    r.choice_floor = MANA_0 + unit
    r.choice_left -= 1
    if _to_pay(r) == 0:
        r.phase = Phase.SUMMON_DONE


@jit
def pay_forced(r: Record, t: Tables, P: int) -> None:
    """Phase.PAY, on arrival: pay at once the units that every completion of the payment starts
    with (np_engine/summon.py derives the bounds: with D the coloured symbols still missing, R the
    units left, ps the stones paid, A the units after u and W those after u that can fill missing
    symbols, a completion pays v of colour u exactly when v >= R - A, v >= (D - ps) - W and
    v <= d_u + R - (D - ps))."""
    p = r.active_player
    mana = np.empty(NUM_COLOURS, dtype=np.int64)
    mana_by_colour(r, t, p, mana)
    stones = zone_size(r.stones[p])
    d = np.empty(NUM_COLOURS, dtype=np.int64)
    d_sum = 0
    for c in range(NUM_COLOURS):
        d[c] = max(r.pay_need[c] - r.paid[c], 0)
        d_sum += d[c]
    left = _to_pay(r)
    if left <= 0:
        return
    q = d_sum - r.paid[STONE_UNIT]
    floor = r.choice_floor - MANA_0
    take = np.zeros(NUM_UNITS, dtype=np.int64)
    for u in range(NUM_UNITS):
        if u < floor:
            continue
        if u == STONE_UNIT:
            take[u] = left  # only stones remain
            left = 0
            break
        a_after = stones
        w_after = stones
        for c in range(u + 1, NUM_COLOURS):
            a_after += mana[c]
            w_after += min(d[c], mana[c])
        lo = max(max(left - a_after, q - w_after), 0)
        hi = min(min(mana[u], left), d[u] + left - q)
        take[u] = lo
        left -= lo
        q -= min(lo, d[u])
        if lo != hi or left <= 0:
            break
    n = 0
    for u in range(NUM_UNITS):
        n += take[u]
    if n == 0:
        return
    give_up_units(r, t, p, take)
    for u in range(NUM_UNITS):
        r.paid[u] += take[u]
    r.choice_floor = MANA_0 + last_unit(take, NUM_UNITS)
    r.choice_left -= n
    if _to_pay(r) == 0:
        r.phase = Phase.SUMMON_DONE
