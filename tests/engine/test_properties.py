"""Property-based checks (hypothesis) of the engine's building blocks."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from aos_env.core.np_engine.choice import forced_units, ordered_choice_mask
from aos_env.core.np_engine.summon import can_pay


def take_single_legal_actions(avail: np.ndarray, floor: int, needed: int) -> np.ndarray:
    """What the engine did before forced_units: take the only legal unit while there is one."""
    avail, take = avail.copy(), np.zeros_like(avail)
    while needed > 0:
        legal = ordered_choice_mask(avail[None], np.array([floor]), np.array([needed]))[0]
        if legal.sum() != 1:
            break
        u = int(np.argmax(legal))
        take[u] += 1
        avail[u] -= 1
        floor, needed = u, needed - 1
    return take


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=8), st.integers(0, 7), st.integers(0, 20))
def test_forced_units_equals_repeating_the_single_legal_action(avail, floor, needed) -> None:
    avail = np.array(avail, dtype=np.int64)
    floor = min(floor, avail.size - 1)
    needed = min(needed, int(avail[floor:].sum()))  # the engine never asks for more than is available
    got = forced_units(avail[None], np.array([floor]), np.array([needed]))[0]
    assert np.array_equal(got, take_single_legal_actions(avail, floor, needed))


def brute_force_can_pay(need, any_, mana, stones) -> bool:
    """Try every way to hand out the stones to the five colours, then pay "any" with what is left."""
    import itertools

    for split in itertools.product(range(stones + 1), repeat=5):
        if sum(split) > stones:
            continue
        if all(m + x >= n for m, x, n in zip(mana, split, need, strict=True)):
            left = sum(mana) + stones - sum(need)
            if left >= any_:
                return True
    return False


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=5, max_size=5),
    st.integers(0, 3),
    st.lists(st.integers(0, 4), min_size=5, max_size=5),
    st.integers(0, 3),
)
def test_can_pay_matches_a_direct_count(need, any_, mana, stones) -> None:
    got = bool(
        can_pay(
            np.array(need, dtype=np.float32)[:, None],
            np.array([any_]),
            np.array(mana, dtype=np.float32)[:, None],
            np.array([stones]),
        )[0]
    )
    assert got == brute_force_can_pay(need, any_, mana, stones)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=5, max_size=5),
    st.integers(0, 3),
    st.lists(st.integers(0, 4), min_size=5, max_size=5),
    st.integers(0, 3),
    st.integers(0, 10_000),
)
def test_forced_payment_equals_repeating_the_single_legal_unit(need, any_, mana, stones, seed) -> None:
    """R5.2: the engine pays forced units at once; that must equal taking the only legal unit repeatedly."""
    from aos_env import core
    from aos_env.core.cards import DEFAULT as cards
    from aos_env.core.np_engine.summon import pay_forced, pay_mask
    from aos_env.core.np_engine.zones import give_up_unit
    from aos_env.tools.positions import position

    if sum(need) + any_ == 0:
        return
    # a position whose mana row holds the given colours; the cost is set directly
    by_colour = {c: [k for k in range(30) if cards.colour[k] == c and cards.copies[k] == 4] for c in range(5)}
    row = [by_colour[c][i] for c in range(5) for i in range(mana[c])]
    stone_cards = [cards.kind("Chimera")] * min(stones, 2) + [cards.kind("Baal")] * max(0, stones - 2)
    state = position(2, [{"hand": ["Imp", "Angel"], "mana": row, "stones": stone_cards}, {"hand": ["Imp"]}], seed=seed)
    avail = np.array(mana + [stones], dtype=np.float32)
    if not can_pay(np.array(need, dtype=np.float32)[:, None], np.array([any_]), avail[:5, None], np.array([stones]))[0]:
        return
    g = np.array([0])
    state.phase[:] = core.Phase.PAY
    state.pay_need[0] = need
    state.pay_any[0] = any_
    state.paid[0] = 0
    state.choice_floor[0] = 30
    reference = state.copy()
    # the old way: one unit at a time while exactly one is legal
    while reference.phase[0] == core.Phase.PAY:
        legal = pay_mask(reference, g)[0]
        if legal.sum() != 1:
            break
        unit = int(np.argmax(legal))
        give_up_unit(reference, g, reference.active_player[g], np.array([unit]))
        reference.paid[0, unit] += 1
        reference.choice_floor[0] = 30 + unit
        if reference.paid[0].sum() == sum(need) + any_:
            reference.phase[0] = core.Phase.SUMMON_DONE
    pay_forced(state, g)
    for name in ("paid", "choice_floor", "phase", "mana", "stones", "discard", "rng_counter"):
        assert np.array_equal(getattr(state, name), getattr(reference, name)), name
