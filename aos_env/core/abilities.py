"""The special (rule-changing) spirit abilities, one small function group each.

Plain bonuses (Imp, Fairy, Unicorn, ...) are not here: they are numpy tables
built from the card data (``cards.action_bonus``, ``cards.summon_bonus``,
``cards.score``) and applied in ``actions.py`` / ``turn.py``. Every ability
works per copy in play and copies add up (R10.1) unless its text says
otherwise. Which kinds have which ability comes from the card file
(``effect = { special = "..." }``), so each function counts "copies of
spirits with that special".
"""

from __future__ import annotations

import numpy as np

from .constants import MANA_0, NO, PH, STONE, YES
from .state import PEND_HAND, PEND_MANA, STAT_ICONS, STAT_SPECIAL, State, ksum
from .zones import (
    colour_counts, discard_from_hand, discard_many_from_hand, empty_mask, forced_units, give_up_mana,
    ordered_choice_mask, request_draws, start_discard_round,
)


def _count(state: State, g: np.ndarray, p: np.ndarray, name: str) -> np.ndarray:
    """(n,) copies in play of spirits with ability ``name`` (from the per-player totals)."""
    return state.stats[g, p, STAT_SPECIAL[name]]


# ---- Leprechaun: start of turn, optional: draw n, then discard n -------------


def leprechaun_count(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    return _count(state, g, p, "leprechaun")


def apply_leprechaun(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """YES: draw one card per Leprechaun (all at once, R10.4), then discard as many."""
    use = action == YES
    u = g[use]
    n = leprechaun_count(state, u, state.active_player[u])
    state.count[u] = n
    request_draws(state, u, PH.LEPRECHAUN_DRAWN, hand=n)
    state.phase[g[~use]] = PH.COMMAND_START


def run_leprechaun_drawn(state: State, g: np.ndarray) -> None:
    """After Leprechaun's draw: discard as many cards as were to be drawn (fewer if the hand is short)."""
    hand_n = ksum(state.hand[g, state.active_player[g]])
    state.count[g] = np.minimum(state.count[g], hand_n)
    state.floor[g] = 0
    state.phase[g] = np.where(state.count[g] > 0, PH.LEPRECHAUN_DISCARD, PH.COMMAND_START)


def leprechaun_discard_mask(state: State, g: np.ndarray) -> np.ndarray:
    mask = empty_mask(g.size)
    hand = state.hand[g, state.active_player[g]]
    mask[:, : hand.shape[1]] = ordered_choice_mask(hand, state.floor[g], state.count[g])
    return mask


def apply_leprechaun_discard(state: State, g: np.ndarray, k: np.ndarray) -> None:
    discard_from_hand(state, g, state.active_player[g], k)
    state.count[g] -= 1
    done = state.count[g] == 0
    state.phase[g[done]] = PH.COMMAND_START


def leprechaun_discard_forced(state: State, g: np.ndarray) -> None:
    """Phase.LEPRECHAUN_DISCARD, on arrival: discard the forced part of Leprechaun's discards
    at once (see zones.forced_units)."""
    p = state.active_player[g]
    hand = state.hand[g, p].astype(np.int64)
    take = forced_units(hand, state.floor[g], state.count[g])
    hit = take.any(1)
    if not hit.any():
        return
    f, t = g[hit], take[hit]
    discard_many_from_hand(state, f, p[hit], t)
    state.count[f] -= t.sum(1)
    state.phase[f[state.count[f] == 0]] = PH.COMMAND_START


# ---- Asmodai: command phase, optional: count the hand card as 0 --------------


def asmodai_count(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    return _count(state, g, p, "asmodai")


def apply_asmodai(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """YES: the command card counts 0, so the number is the head's alone (R10.4:
    never the assisted head). Several copies do nothing more."""
    use = g[action == YES]
    state.command_number[use] = state.head_number[use]
    state.phase[g] = PH.MAIN


# ---- Baldanders: when summoning another spirit, place hand cards as mana ------


def baldanders_count(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    return _count(state, g, p, "baldanders")


def baldanders_mask(state: State, g: np.ndarray) -> np.ndarray:
    """CARD_j: place j (kinds in ascending order) if the summon stays payable; NO: stop placing.

    R10.4: a card the summon does not need may be placed too. (Colour-first
    float32 arrays, as in payment.py.)
    """
    from .payment import can_pay  # payment imports this module

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
    place_ok = can_pay(need, any_, mana + onehot, stones, np.maximum(later, 0), (state.count[g] - 1)[:, None])
    kinds = np.arange(hand.shape[1])
    mask = empty_mask(g.size)
    mask[:, : hand.shape[1]] = place_ok & (hand > 0) & (kinds[None] >= state.floor[g][:, None])
    mask[:, NO] = can_pay(need[:, :, 0], any_[:, 0], mana[:, :, 0], stones[:, 0])
    return mask


def apply_baldanders(state: State, g: np.ndarray, action: np.ndarray) -> None:
    from .payment import start_payment

    place = action < NO
    b, k = g[place], action[place]
    p = state.active_player[b]
    state.hand[b, p, k] -= 1
    state.mana[b, p, k] += 1
    state.floor[b] = k
    state.count[b] -= 1
    done = np.concatenate([g[~place], b[state.count[b] == 0]])
    start_payment(state, done)


# ---- Nightmare and Sphinx: when summoned --------------------------------------


def nightmare_on_summon(state: State, g: np.ndarray) -> None:
    """Every player, the summoner first, discards down to 6 cards, then to 7 mana."""
    start_discard_round(state, g, shortage=False, then=PH.PHASE3)


SPHINX_TO_HAND = 3


def sphinx_on_summon(state: State, g: np.ndarray, p: np.ndarray, kind: np.ndarray) -> None:
    """Count the icons of the Sphinx's colour (shields) in play, this one included;
    draw that many: the first 3 to hand, the rest face up into the mana row."""
    n = state.stats[g, p, STAT_ICONS.start + state.cards.colour[kind]]
    to_hand = np.minimum(n, SPHINX_TO_HAND)
    state.pend[g, PEND_HAND] += to_hand
    state.pend[g, PEND_MANA] += n - to_hand


# ---- Belial: end of turn, optional: 1 Lightning mana or a stone for 2 VP ------

BELIAL_COLOUR = 0  # black: Lightning
BELIAL_VP = 2


def belial_count(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    return _count(state, g, p, "belial")


def belial_mask(state: State, g: np.ndarray) -> np.ndarray:
    """MANA_BLACK, STONE (R10.4: a stone may pay) or NO; units in ascending order."""
    p = state.active_player[g]
    black = state.mana[g, p].astype(np.int64) @ (state.cards.colour == BELIAL_COLOUR)
    stones = ksum(state.stones[g, p])
    floor = state.floor[g]
    mask = empty_mask(g.size)
    mask[:, MANA_0 + BELIAL_COLOUR] = (black > 0) & (floor <= MANA_0 + BELIAL_COLOUR)
    mask[:, STONE] = stones > 0
    mask[:, NO] = True
    return mask


def apply_belial(state: State, g: np.ndarray, action: np.ndarray) -> None:
    use = action != NO
    u, a = g[use], action[use]
    p = state.active_player[u]
    give_up_mana(state, u, p, a - MANA_0)
    state.vp[u, p] += BELIAL_VP
    state.floor[u] = a
    state.count[u] -= 1
    done = np.concatenate([g[~use], u[state.count[u] == 0]])
    state.phase[done] = PH.DECLARE_CHECK


# ---- Cerberus: assist phase ---------------------------------------------------

CERBERUS_NUMBERS = (4, 5)
CERBERUS_VP = 1


_CERBERUS_HIT = np.isin(np.arange(6), CERBERUS_NUMBERS)  # by card number


def cerberus_bonus(state: State, g: np.ndarray, p: np.ndarray, assisted: np.ndarray) -> np.ndarray:
    """VP for the assisting player: 1 per Cerberus if the assisted card is a 4 or a 5."""
    hit = _CERBERUS_HIT[state.cards.number[assisted]]
    return _count(state, g, p, "cerberus") * CERBERUS_VP * hit


# ---- Gargoyle and Giant: cost reductions (R10.2, R10.4) -----------------------


def gargoyle_reduction(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(n,): each Gargoyle makes every summon cost 1 less of the spirit's own colour."""
    return _count(state, g, p, "gargoyle")


def giant_reduction(state: State, g: np.ndarray, p: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(n,) for kind k[i]: a Giant costs 1 less of its colour (Silica) per icon of that colour
    (shield) in play; 0 for other kinds."""
    cards = state.cards
    icons = state.stats[g, p, STAT_ICONS.start + cards.colour[k]]  # icons of the kind's colour
    return icons * cards.special["giant"][k]


def giant_no_reduction(state: State, g: np.ndarray, p: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(n,) bool for kind k[i]: a Giant kind already in play; another one gets no reduction of any kind."""
    return (state.spirits[g, p, k] > 0) & (state.cards.special["giant"][k] > 0)


# ---- Pegasus and Valkyrie: passive ----------------------------------------------

PEGASUS_FAITH = 2


def compared_faith(state: State, g: np.ndarray) -> np.ndarray:
    """(n, P) faith as it counts in comparisons: +2 per Pegasus (the chips do not change)."""
    return state.faith[g] + PEGASUS_FAITH * state.stats[g, :, STAT_SPECIAL["pegasus"]]


def valkyrie_protected(state: State, g: np.ndarray) -> np.ndarray:
    """(n, P) players whose VP other players' Conquest cannot steal."""
    return state.stats[g, :, STAT_SPECIAL["valkyrie"]] > 0


# ---- Treant and Baal: action changes ---------------------------------------------


def treant_count(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """With a Treant, Festival puts both revealed cards into the mana row."""
    return _count(state, g, p, "treant")


def baal_count(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """With n Baals, Conquest steals n VP from every other player instead of 1 from one."""
    return _count(state, g, p, "baal")
