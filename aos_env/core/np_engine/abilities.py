"""The special (rule-changing) spirit abilities, one small function group each.

Plain bonuses (Imp, Fairy, Unicorn, ...) are not here: they are numpy tables built from the
card data (``cards.action_bonus``, ``cards.summon_bonus``, ``cards.score``) and applied where
their timing is (actions.py, turn.py, scoring.py). Every ability works per copy in play and
copies add up (R10.1) unless its text says otherwise. Which kinds have which ability comes
from the card file (``effect = { special = "..." }``), so each function counts "copies of
spirits with that special". Baldanders' placements, a part of paying, live in summon.py.
"""

from __future__ import annotations

import numpy as np

from ..constants import (
    BELIAL_COLOUR,
    BELIAL_VP,
    CERBERUS_NUMBERS,
    CERBERUS_VP,
    MANA_0,
    NIGHTMARE_HAND_LIMIT,
    NIGHTMARE_MANA_LIMIT,
    NO,
    PEGASUS_FAITH,
    PEND_HAND,
    PEND_MANA,
    SPHINX_TO_HAND,
    STONE,
    YES,
)
from ..phases import PH
from ..state import STAT_ICONS, STAT_SPECIAL, State, ksum
from .choice import discard_from_hand, discard_many_from_hand, forced_units, ordered_choice_mask
from .discards import over_limit, start_discard_round
from .draws import request_draws
from .zones import empty_mask, give_up_unit


def count(state: State, g: np.ndarray, p: np.ndarray, name: str) -> np.ndarray:
    """(n,) copies in play of spirits with ability ``name`` (from the per-player totals)."""
    result: np.ndarray = state.stats[g, p, STAT_SPECIAL[name]]
    return result


# ---- Leprechaun: start of turn, optional: draw n, then discard n -------------


def leprechaun_count(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    return count(state, g, p, "leprechaun")


def apply_leprechaun(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """YES: draw one card per Leprechaun (all at once, R10.4), then discard as many."""
    use = action == YES
    u = g[use]
    request_draws(state, u, PH.LEPRECHAUN_DRAWN, hand=leprechaun_count(state, u, state.active_player[u]))
    state.phase[g[~use]] = PH.COMMAND_START


def run_leprechaun_drawn(state: State, g: np.ndarray) -> None:
    """After Leprechaun's draw: discard as many cards as there are Leprechauns (fewer if the hand
    is short). The number is taken now, not before the draw: an R8.3 round in the draw may
    have run a repeated choice of its own."""
    p = state.active_player[g]
    state.choice_left[g] = np.minimum(leprechaun_count(state, g, p), ksum(state.hand[g, p]))
    state.choice_floor[g] = 0
    state.phase[g] = np.where(state.choice_left[g] > 0, PH.LEPRECHAUN_DISCARD, PH.COMMAND_START)


def leprechaun_discard_mask(state: State, g: np.ndarray) -> np.ndarray:
    """(n, K) the kinds the active player may discard next (ascending order)."""
    hand = state.hand[g, state.active_player[g]]
    return ordered_choice_mask(hand, state.choice_floor[g], state.choice_left[g])


def apply_leprechaun_discard(state: State, g: np.ndarray, k: np.ndarray) -> None:
    discard_from_hand(state, g, state.active_player[g], k)
    state.choice_left[g] -= 1
    done = state.choice_left[g] == 0
    state.phase[g[done]] = PH.COMMAND_START


def leprechaun_discard_forced(state: State, g: np.ndarray) -> None:
    """Phase.LEPRECHAUN_DISCARD, on arrival: discard the forced part at once (choice.forced_units)."""
    p = state.active_player[g]
    hand = state.hand[g, p].astype(np.int64)
    take = forced_units(hand, state.choice_floor[g], state.choice_left[g])
    hit = take.any(1)
    if not hit.any():
        return
    f, t = g[hit], take[hit]
    discard_many_from_hand(state, f, p[hit], t)
    state.choice_left[f] -= t.sum(1)
    state.phase[f[state.choice_left[f] == 0]] = PH.COMMAND_START


# ---- Asmodai: command phase, optional: count the hand card as 0 --------------


def asmodai_count(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    return count(state, g, p, "asmodai")


def apply_asmodai(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """YES: the command card counts 0, so the number is the head's alone (R10.4: never the
    assisted head). Several copies do nothing more."""
    use = g[action == YES]
    state.command_number[use] = state.head_number[use]
    state.phase[g] = PH.MAIN


# ---- Nightmare and Sphinx: when summoned --------------------------------------


def nightmare_on_summon(state: State, g: np.ndarray) -> None:
    """When summoned: if the ability would make some player discard, its summoner decides whether
    it takes effect, all of it or none (Phase.NIGHTMARE; R10.1). Otherwise it changes nothing and
    nobody is asked: Phase III follows."""
    ask = over_limit(state, g, NIGHTMARE_HAND_LIMIT, NIGHTMARE_MANA_LIMIT)
    state.phase[g[ask]] = PH.NIGHTMARE
    state.phase[g[~ask]] = PH.PHASE3


def apply_nightmare(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """YES: every player, the summoner first, discards down to 6 cards, then to 7 mana; then
    Phase III. NO: Phase III at once."""
    use = action == YES
    start_discard_round(state, g[use], shortage=False, then=PH.PHASE3)
    state.phase[g[~use]] = PH.PHASE3


def sphinx_on_summon(state: State, g: np.ndarray, p: np.ndarray, kind: np.ndarray) -> None:
    """Count the icons of the Sphinx's colour (shields) in play, this one included; draw that
    many: the first 3 to hand, the rest face up into the mana row (R10.4)."""
    n = state.stats[g, p, STAT_ICONS.start + state.cards.colour[kind]]
    to_hand = np.minimum(n, SPHINX_TO_HAND)
    state.draw_pend[g, PEND_HAND] += to_hand
    state.draw_pend[g, PEND_MANA] += n - to_hand


# ---- Belial: end of turn, optional: 1 Lightning mana or a stone for 2 VP ------


def belial_count(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    return count(state, g, p, "belial")


def start_belial(state: State, g: np.ndarray) -> None:
    """End of turn: one optional use per Belial, then the end declaration check."""
    n = belial_count(state, g, state.active_player[g])
    state.choice_left[g] = n
    state.choice_floor[g] = 0
    state.phase[g] = np.where(n > 0, PH.BELIAL, PH.DECLARE_CHECK)


def belial_mask(state: State, g: np.ndarray) -> np.ndarray:
    """MANA_BLACK, STONE (R10.4: a stone may pay) or NO; units in ascending order."""
    p = state.active_player[g]
    black = state.mana[g, p].astype(np.int64) @ (state.cards.colour == BELIAL_COLOUR)
    stones = ksum(state.stones[g, p])
    floor = state.choice_floor[g]
    mask = empty_mask(g.size)
    mask[:, MANA_0 + BELIAL_COLOUR] = (black > 0) & (floor <= MANA_0 + BELIAL_COLOUR)
    mask[:, STONE] = stones > 0
    mask[:, NO] = True
    return mask


def apply_belial(state: State, g: np.ndarray, action: np.ndarray) -> None:
    use = action != NO
    u, a = g[use], action[use]
    p = state.active_player[u]
    give_up_unit(state, u, p, a - MANA_0)
    state.vp[u, p] += BELIAL_VP
    state.choice_floor[u] = a
    state.choice_left[u] -= 1
    done = np.concatenate([g[~use], u[state.choice_left[u] == 0]])
    state.phase[done] = PH.DECLARE_CHECK


# ---- Cerberus: assist phase ---------------------------------------------------

_CERBERUS_HIT = np.isin(np.arange(6), CERBERUS_NUMBERS)  # by card number


def cerberus_bonus(state: State, g: np.ndarray, p: np.ndarray, assisted: np.ndarray) -> np.ndarray:
    """VP for the assisting player: 1 per Cerberus if the assisted card is a 4 or a 5."""
    hit = _CERBERUS_HIT[state.cards.number[assisted]]
    result: np.ndarray = count(state, g, p, "cerberus") * CERBERUS_VP * hit
    return result


# ---- Gargoyle and Giant: cost reductions (R10.2, R10.4) -----------------------


def gargoyle_reduction(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(n,): each Gargoyle makes every summon cost 1 less of the spirit's own colour."""
    return count(state, g, p, "gargoyle")


def giant_reduction(state: State, g: np.ndarray, p: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(n,) for kind k[i]: a Giant costs 1 less of its colour (Silica) per icon of that colour
    (shield) in play; 0 for other kinds."""
    cards = state.cards
    icons = state.stats[g, p, STAT_ICONS.start + cards.colour[k]]  # icons of the kind's colour
    result: np.ndarray = icons * cards.special["giant"][k]
    return result


def giant_no_reduction(state: State, g: np.ndarray, p: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(n,) bool for kind k[i]: a Giant kind already in play; another one gets no reduction of any kind."""
    result: np.ndarray = (state.spirits[g, p, k] > 0) & (state.cards.special["giant"][k] > 0)
    return result


def cost_reduction(state: State, g: np.ndarray, p: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(n,) symbols of its own colour the cost of kind k[i] is lowered by for player p[i]: one per
    Gargoyle, and for a Giant one per icon of its colour (shield) in play; a Giant when one is
    already in play gets none at all (R10.4). ``summon.summon_cost`` applies it (R10.2)."""
    reduction = gargoyle_reduction(state, g, p) + giant_reduction(state, g, p, k)
    return np.where(giant_no_reduction(state, g, p, k), 0, reduction)


# ---- Pegasus and Valkyrie: passive ----------------------------------------------


def compared_faith(state: State, g: np.ndarray) -> np.ndarray:
    """(n, P) faith as it counts in comparisons: +2 per Pegasus (the chips do not change)."""
    result: np.ndarray = state.faith[g] + PEGASUS_FAITH * state.stats[g, :, STAT_SPECIAL["pegasus"]]
    return result


def valkyrie_protected(state: State, g: np.ndarray) -> np.ndarray:
    """(n, P) players whose VP other players' Conquest cannot steal."""
    return state.stats[g, :, STAT_SPECIAL["valkyrie"]] > 0


# ---- Baldanders: the count (its placements are part of paying: summon.py) ---------


def baldanders_count(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(n,) hand cards player p may place as mana before paying a summon (one per Baldanders)."""
    return count(state, g, p, "baldanders")


# ---- Treant and Baal: action changes ---------------------------------------------


def treant_count(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """With a Treant, Festival puts both revealed cards into the mana row."""
    return count(state, g, p, "treant")


def baal_count(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """With n Baals, Conquest steals n VP from every other player instead of 1 from one."""
    return count(state, g, p, "baal")
