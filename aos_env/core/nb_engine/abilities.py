"""The special (rule-changing) spirit abilities for one game, one small function group each; the
scalar twin of ``np_engine/abilities.py`` (Baldanders' placements, a part of paying, live in summon.py).
Counts of copies in play come from the per-player totals ``state.stats``."""

from __future__ import annotations

import numpy as np

from ..cards import SPECIALS
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
    K,
)
from ..phases import Phase
from ..state import STAT_ICONS, STAT_SPECIAL
from ._jit import Array, Record, Tables, jit
from .choice import discard_from_hand, discard_many_from_hand, forced_units, hand_units, ordered_choice_mask
from .discards import over_limit, start_discard_round
from .draws import request_draws
from .zones import colour_count, give_up_unit, zone_size

# columns of state.stats: copies in play of each special
_ASMODAI = STAT_SPECIAL["asmodai"]
_BELIAL = STAT_SPECIAL["belial"]
_LEPRECHAUN = STAT_SPECIAL["leprechaun"]
_BALDANDERS = STAT_SPECIAL["baldanders"]
_TREANT = STAT_SPECIAL["treant"]
_CERBERUS = STAT_SPECIAL["cerberus"]
_GARGOYLE = STAT_SPECIAL["gargoyle"]
_PEGASUS = STAT_SPECIAL["pegasus"]
_VALKYRIE = STAT_SPECIAL["valkyrie"]
_BAAL = STAT_SPECIAL["baal"]
_ICON0 = STAT_ICONS.start
# rows of the tables' special (kinds with that ability)
SPECIAL_GIANT = list(SPECIALS).index("giant")
SPECIAL_SPHINX = list(SPECIALS).index("sphinx")
SPECIAL_NIGHTMARE = list(SPECIALS).index("nightmare")
_CERBERUS_LOW, _CERBERUS_HIGH = CERBERUS_NUMBERS


# ---- Leprechaun: start of turn, optional: draw n, then discard n -------------


@jit
def leprechaun_count(r: Record, p: int) -> int:
    return r.stats[p, _LEPRECHAUN]


@jit
def apply_leprechaun(r: Record, t: Tables, P: int, action: int) -> None:
    """YES: draw one card per Leprechaun (all at once, R10.4), then discard as many."""
    if action == YES:
        request_draws(r, Phase.LEPRECHAUN_DRAWN, 0, leprechaun_count(r, r.active_player), 0, 0, 0)
    else:
        r.phase = Phase.COMMAND_START


@jit
def run_leprechaun_drawn(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """After Leprechaun's draw: discard as many cards as there are Leprechauns (fewer if the hand
    is short); the number is taken now, after any R8.3 round in the draw."""
    p = r.active_player
    r.choice_left = min(leprechaun_count(r, p), zone_size(r.hand[p]))
    r.choice_floor = 0
    r.phase = Phase.LEPRECHAUN_DISCARD if r.choice_left > 0 else Phase.COMMAND_START


@jit
def leprechaun_discard_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """``mask`` (K,): the kinds the active player may discard next (ascending order)."""
    avail = np.empty(K, dtype=np.int64)
    hand_units(r, r.active_player, avail)
    ordered_choice_mask(avail, K, r.choice_floor, r.choice_left, mask, 0)


@jit
def apply_leprechaun_discard(r: Record, t: Tables, P: int, k: int) -> None:
    discard_from_hand(r, r.active_player, k)
    r.choice_left -= 1
    if r.choice_left == 0:
        r.phase = Phase.COMMAND_START


@jit
def leprechaun_discard_forced(r: Record, t: Tables, P: int) -> None:
    """Phase.LEPRECHAUN_DISCARD, on arrival: discard the forced part at once."""
    p = r.active_player
    avail = np.empty(K, dtype=np.int64)
    hand_units(r, p, avail)
    take = np.empty(K, dtype=np.int64)
    n = forced_units(avail, K, r.choice_floor, r.choice_left, take)
    if n > 0:
        discard_many_from_hand(r, p, take)
        r.choice_left -= n
        if r.choice_left == 0:
            r.phase = Phase.COMMAND_START


# ---- Asmodai: command phase, optional: count the hand card as 0 --------------


@jit
def asmodai_count(r: Record, p: int) -> int:
    return r.stats[p, _ASMODAI]


@jit
def apply_asmodai(r: Record, t: Tables, P: int, action: int) -> None:
    """YES: the command card counts 0, so the number is the head's alone (R10.4)."""
    if action == YES:
        r.command_number = r.head_number
    r.phase = Phase.MAIN


# ---- Nightmare and Sphinx: when summoned --------------------------------------


@jit
def nightmare_on_summon(r: Record, P: int) -> None:
    """When summoned: if the ability would make some player discard, its summoner decides whether
    it takes effect, all of it or none (Phase.NIGHTMARE; R10.1). Otherwise it changes nothing and
    nobody is asked: Phase III follows."""
    if over_limit(r, P, NIGHTMARE_HAND_LIMIT, NIGHTMARE_MANA_LIMIT):
        r.phase = Phase.NIGHTMARE
    else:
        r.phase = Phase.PHASE3


@jit
def apply_nightmare(r: Record, t: Tables, P: int, a: int) -> None:
    """YES: every player, the summoner first, discards down to 6 cards, then to 7 mana; then
    Phase III. NO: Phase III at once."""
    if a == YES:
        start_discard_round(r, False, Phase.PHASE3)
    else:
        r.phase = Phase.PHASE3


@jit
def sphinx_on_summon(r: Record, t: Tables, p: int, kind: int) -> None:
    """Count the icons of the Sphinx's colour (shields) in play, this one included; draw that
    many: the first 3 to hand, the rest face up into the mana row (R10.4)."""
    n = r.stats[p, _ICON0 + t.colour[kind]]
    to_hand = min(n, SPHINX_TO_HAND)
    r.draw_pend[PEND_HAND] += to_hand
    r.draw_pend[PEND_MANA] += n - to_hand


# ---- Belial: end of turn, optional: 1 Lightning mana or a stone for 2 VP ------


@jit
def start_belial(r: Record) -> None:
    """End of turn: one optional use per Belial, then the end declaration check."""
    n = r.stats[r.active_player, _BELIAL]
    r.choice_left = n
    r.choice_floor = 0
    r.phase = Phase.BELIAL if n > 0 else Phase.DECLARE_CHECK


@jit
def belial_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """MANA_BLACK, STONE (R10.4: a stone may pay) or NO; units in ascending order."""
    p = r.active_player
    floor = r.choice_floor
    mask[MANA_0 + BELIAL_COLOUR] = colour_count(r, t, p, BELIAL_COLOUR) > 0 and floor <= MANA_0 + BELIAL_COLOUR
    mask[STONE] = zone_size(r.stones[p]) > 0
    mask[NO] = True


@jit
def apply_belial(r: Record, t: Tables, P: int, action: int) -> None:
    if action == NO:
        r.phase = Phase.DECLARE_CHECK
        return
    p = r.active_player
    give_up_unit(r, t, p, action - MANA_0)
    r.vp[p] += BELIAL_VP
    r.choice_floor = action
    r.choice_left -= 1
    if r.choice_left == 0:
        r.phase = Phase.DECLARE_CHECK


# ---- Cerberus: assist phase ---------------------------------------------------


@jit
def cerberus_bonus(r: Record, t: Tables, p: int, assisted: int) -> int:
    """VP for the assisting player: 1 per Cerberus if the assisted card is a 4 or a 5."""
    number = t.number[assisted]
    if number == _CERBERUS_LOW or number == _CERBERUS_HIGH:
        return r.stats[p, _CERBERUS] * CERBERUS_VP
    return 0


# ---- Gargoyle and Giant: cost reductions (R10.2, R10.4) -----------------------


@jit
def cost_reduction(r: Record, t: Tables, p: int, k: int) -> int:
    """Symbols of its own colour the cost of kind k is lowered by for player p: one per Gargoyle,
    and for a Giant one per icon of its colour (shield) in play; a Giant when one is already in
    play gets none at all (R10.4)."""
    giant = t.special[SPECIAL_GIANT, k] > 0
    if giant and r.spirits[p, k] > 0:
        return 0
    red = r.stats[p, _GARGOYLE]
    if giant:
        red += r.stats[p, _ICON0 + t.colour[k]]
    return red


# ---- Pegasus and Valkyrie: passive ----------------------------------------------


@jit
def compared_faith(r: Record, p: int) -> int:
    """Player p's faith as it counts in comparisons: +2 per Pegasus (the chips do not change)."""
    return r.faith[p] + PEGASUS_FAITH * r.stats[p, _PEGASUS]


@jit
def valkyrie_protected(r: Record, p: int) -> bool:
    """Whether other players' Conquest cannot steal player p's VP."""
    return r.stats[p, _VALKYRIE] > 0


# ---- Treant and Baal: action changes ---------------------------------------------


@jit
def treant_count(r: Record, p: int) -> int:
    return r.stats[p, _TREANT]


@jit
def baal_count(r: Record, p: int) -> int:
    return r.stats[p, _BAAL]


@jit
def baldanders_count(r: Record, p: int) -> int:
    return r.stats[p, _BALDANDERS]
