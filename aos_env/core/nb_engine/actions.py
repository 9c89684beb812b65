"""The seven game actions of Phase II (R6) for one game, one function group each; the scalar twin
of ``np_engine/actions.py``. The Inquisition owns ``giver_seat``."""

from __future__ import annotations

import numpy as np

from ..cards import (
    BONUS_CARDS,
    BONUS_FAITH,
    BONUS_FIELDS,
    BONUS_FLIPS,
    BONUS_STEAL,
    BONUS_STONES,
    BONUS_VP,
    BONUS_VP_PER_GIFT,
)
from ..constants import (
    ALCHEMY,
    AXE,
    CONQUEST,
    FESTIVAL,
    FESTIVAL_REVEAL,
    GAME_ACTION_OF_NUMBER,
    INQUISITION,
    INQUISITION_DRAW,
    INQUISITION_DRAW_4P,
    LAST_NUMBER_ROW,
    MANA_0,
    NO,
    NUM_COLOURS,
    OPTION_A,
    PEND_HAND,
    PEND_STONE,
    PRAYER,
    PRAYER_DRAW,
    PRAYER_HAND_SIZE,
    RESEARCH,
    SWORD,
    TARGET_1,
    K,
)
from ..phases import Phase
from ..state import STAT_BONUS0, STAT_ICONS
from . import abilities
from ._jit import Array, Record, Tables, jit
from .chips import gain_faith
from .choice import discard_from_hand, ordered_choice_mask
from .draws import request_draws
from .zones import mana_by_colour, take_mana, zone_size

_NUM_BONUS = len(BONUS_FIELDS)
_ICON0 = STAT_ICONS.start


@jit
def game_action_of_number(number: int) -> int:
    """Command number -> game action, from the R6 table ``constants.GAME_ACTION_OF_NUMBER``."""
    return GAME_ACTION_OF_NUMBER[min(number, LAST_NUMBER_ROW)]


@jit
def action_bonus(r: Record, p: int, action: int, field: int) -> int:
    """Total of one plain bonus for game action ``action`` over player p's spirits."""
    return r.stats[p, STAT_BONUS0 + action * _NUM_BONUS + field]


@jit
def finish_action(r: Record) -> None:
    """Make the action's pending draws (bonus cards included), then go to Phase III."""
    request_draws(r, Phase.PHASE3, 0, 0, 0, 0, 0)


@jit
def run_action(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """Phase.ACTION: the player chose ACT; perform the command number's action (R6)."""
    which = game_action_of_number(r.command_number)
    p = r.active_player
    r.vp[p] += action_bonus(r, p, which, BONUS_VP)
    gain_faith(r, p, action_bonus(r, p, which, BONUS_FAITH))  # before any choice (Undine)
    r.draw_pend[PEND_HAND] += action_bonus(r, p, which, BONUS_CARDS)  # with the action's own draws
    r.draw_pend[PEND_STONE] += action_bonus(r, p, which, BONUS_STONES)
    if which == CONQUEST:
        conquest(r, p, P)
    elif which == RESEARCH:
        research(r, p)
    elif which == ALCHEMY:
        r.phase = Phase.ALCHEMY
    elif which == PRAYER:
        r.phase = Phase.PRAYER
    elif which == FESTIVAL:
        festival(r, p)
    elif which == INQUISITION:
        inquisition(r, P)
    else:
        r.phase = Phase.PILGRIMAGE


# ---- R6.1 Conquest --------------------------------------------------------------


@jit
def can_rob(r: Record, p: int, victim: int) -> bool:
    """Whether Conquest by p may steal from ``victim``: another player with a VP chip, not
    protected by Valkyrie."""
    return victim != p and r.vp[victim] > 0 and not abilities.valkyrie_protected(r, victim)


@jit
def conquest(r: Record, p: int, P: int) -> None:
    """VP per axe and sword icon; then steal 1 VP from one player (from the supply if nobody has one)."""
    r.vp[p] += r.stats[p, _ICON0 + AXE] + r.stats[p, _ICON0 + SWORD]
    victims = 0
    for q in range(P):
        if can_rob(r, p, q):
            victims += 1
    if victims == 0:
        r.vp[p] += 1  # R6.1: nobody to steal from: from the supply
        finish_action(r)
        return
    baal = abilities.baal_count(r, p)
    if baal > 0:  # Baal: steal from every victim instead of one
        per_victim = baal + action_bonus(r, p, CONQUEST, BONUS_STEAL)
        stolen = 0
        for q in range(P):
            if can_rob(r, p, q):
                n = min(r.vp[q], per_victim)
                r.vp[q] -= n
                stolen += n
        r.vp[p] += stolen
        finish_action(r)
        return
    r.phase = Phase.CONQUEST_TARGET


@jit
def conquest_target_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """TARGET_i: the player i seats to the left, if they can be stolen from."""
    p = r.active_player
    for i in range(1, P):
        mask[TARGET_1 + i - 1] = can_rob(r, p, (p + i) % P)


@jit
def apply_conquest_target(r: Record, t: Tables, P: int, action: int) -> None:
    p = r.active_player
    victim = (p + action - TARGET_1 + 1) % P
    n = min(r.vp[victim], 1 + action_bonus(r, p, CONQUEST, BONUS_STEAL))  # Ifrit: 1 more each
    r.vp[victim] -= n
    r.vp[p] += n
    finish_action(r)


# ---- R6.2 Research --------------------------------------------------------------


@jit
def research(r: Record, p: int) -> None:
    """Score 1 VP per stone first, then turn a face-up mana into a stone (R6.2); each Homunculus
    then offers one more flip, which the player may decline (R10.1)."""
    r.vp[p] += zone_size(r.stones[p])
    # the flips left: Research's own, then one optional flip per Homunculus (the observation's count)
    r.choice_left = 1 + action_bonus(r, p, RESEARCH, BONUS_FLIPS)
    r.choice_floor = MANA_0
    if zone_size(r.mana[p]) > 0:
        r.phase = Phase.RESEARCH_FLIP
    else:
        finish_action(r)


@jit
def flip_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """Phase.RESEARCH_FLIP and HOMUNCULUS_FLIP: the face-up mana colours that may be flipped next
    (ascending order; each flip stands alone, so any open colour with mana will do)."""
    p = r.active_player
    mana = np.empty(NUM_COLOURS, dtype=np.int64)
    mana_by_colour(r, t, p, mana)
    ordered_choice_mask(mana, NUM_COLOURS, r.choice_floor - MANA_0, 1, mask, MANA_0)


@jit
def homunculus_flip_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """Phase.HOMUNCULUS_FLIP: one more flip, or NO to stop (R10.1: each Homunculus may be declined)."""
    flip_mask(r, t, P, mask)
    mask[NO] = True


@jit
def apply_research_flip(r: Record, t: Tables, P: int, action: int) -> None:
    """Phase.RESEARCH_FLIP and HOMUNCULUS_FLIP: flip the chosen colour (NO, at a Homunculus flip:
    stop). Another Homunculus flip follows while flips are left and face-up mana remains."""
    if action == NO:
        finish_action(r)
        return
    p = r.active_player
    k = take_mana(r, t, p, action - MANA_0)
    r.stones[p, k] += 1
    r.choice_floor = action
    r.choice_left -= 1
    if r.choice_left == 0 or zone_size(r.mana[p]) == 0:
        finish_action(r)
    else:
        r.phase = Phase.HOMUNCULUS_FLIP


# ---- R6.3 Alchemy, R6.7 Pilgrimage: two options ---------------------------------


@jit
def apply_alchemy(r: Record, t: Tables, P: int, action: int) -> None:
    """(a) draw 1 card and gain a stone, or (b) gain 1 faith and gain a stone."""
    p = r.active_player
    if action == OPTION_A:
        r.draw_pend[PEND_HAND] += 1
    else:
        gain_faith(r, p, 1)
    r.draw_pend[PEND_STONE] += 1
    finish_action(r)


@jit
def apply_pilgrimage(r: Record, t: Tables, P: int, action: int) -> None:
    """(a) gain VP equal to your faith (keeping it), or (b) draw 1 card and gain 1 faith."""
    p = r.active_player
    if action == OPTION_A:
        r.vp[p] += r.faith[p]
    else:
        r.draw_pend[PEND_HAND] += 1
        gain_faith(r, p, 1)
    finish_action(r)


# ---- R6.4 Prayer ------------------------------------------------------------------


@jit
def apply_prayer(r: Record, t: Tables, P: int, action: int) -> None:
    """(a) draw 2 cards, or (b) discard any number of cards, then draw up to 5."""
    if action == OPTION_A:
        r.draw_pend[PEND_HAND] += PRAYER_DRAW
        finish_action(r)
        return
    r.choice_floor = 0
    r.choice_left = zone_size(r.hand[r.active_player])  # at most the whole hand
    if r.choice_left > 0:
        r.phase = Phase.PRAYER_DISCARD
    else:
        _prayer_refill(r)


@jit
def prayer_discard_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """CARD_k (kinds in ascending order) to discard one more, NO to stop (zero is allowed)."""
    p = r.active_player
    floor = r.choice_floor
    for k in range(K):
        mask[k] = r.hand[p, k] > 0 and k >= floor
    mask[NO] = True


@jit
def apply_prayer_discard(r: Record, t: Tables, P: int, action: int) -> None:
    if action == NO:
        _prayer_refill(r)
        return
    p = r.active_player
    discard_from_hand(r, p, action)
    r.choice_left -= 1
    if zone_size(r.hand[p]) == 0:
        _prayer_refill(r)


@jit
def _prayer_refill(r: Record) -> None:
    """Draw until the hand holds 5 (Dryad's extra card, already pending, comes on top)."""
    r.draw_pend[PEND_HAND] += max(PRAYER_HAND_SIZE - zone_size(r.hand[r.active_player]), 0)
    finish_action(r)


# ---- R6.5 Festival ------------------------------------------------------------------


@jit
def festival(r: Record, p: int) -> None:
    """Gain 1 faith first, then reveal 2 cards from the deck (publicly)."""
    gain_faith(r, p, 1)
    r.offer_public = True
    request_draws(r, Phase.FESTIVAL_RESOLVE, 0, 0, 0, 0, FESTIVAL_REVEAL)


@jit
def run_festival_resolve(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """Both cards to the mana row if another player now has lower faith (or with a Treant);
    otherwise the player picks one."""
    p = r.active_player
    mine = abilities.compared_faith(r, p)
    lower = False
    for q in range(P):
        if q != p and abilities.compared_faith(r, q) < mine:
            lower = True
    if lower or abilities.treant_count(r, p) > 0:
        for k in range(K):
            r.mana[p, k] += r.offer[k]
            r.offer[k] = 0
        finish_action(r)
    elif zone_size(r.offer) == 0:
        finish_action(r)
    else:
        r.phase = Phase.FESTIVAL_PICK


@jit
def apply_festival_pick(r: Record, t: Tables, P: int, k: int) -> None:
    """The chosen card goes into the mana row, the other to the discard pile."""
    r.mana[r.active_player, k] += 1
    r.offer[k] -= 1
    for j in range(K):
        r.discard[j] += r.offer[j]
        r.offer[j] = 0
    finish_action(r)


# ---- R6.6 Inquisition -----------------------------------------------------------------


@jit
def inquisition(r: Record, P: int) -> None:
    """Draw 3 cards (2 with 4 players), then collect gifts from the players with lower faith."""
    r.giver_seat = 1
    n = INQUISITION_DRAW_4P if P == 4 else INQUISITION_DRAW
    request_draws(r, Phase.INQUISITION_NEXT, 0, n, 0, 0, 0)


@jit
def run_inquisition_next(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """Find the next giver, from ``giver_seat`` on: lower (compared) faith than the active player."""
    p = r.active_player
    r.current_player = p
    mine = abilities.compared_faith(r, p)
    for seat in range(max(r.giver_seat, 1), P):
        giver = (p + seat) % P
        if abilities.compared_faith(r, giver) < mine:
            if zone_size(r.hand[giver]) == 0:
                # R8.2: a giver with an empty hand gives the top card of the deck. The draw may run
                # an R8.3 round or be skipped: giver_seat is the Inquisition's alone, so the next
                # giver is still the one after this one; Succubus counts the gift once it arrived.
                r.giver_seat = seat + 1
                request_draws(r, Phase.INQUISITION_DECK_GIFT, 0, 1, 0, 0, 0)
            else:
                r.giver_seat = seat
                r.current_player = giver
                r.phase = Phase.INQUISITION_GIFT
            return
    finish_action(r)


@jit
def apply_gift(r: Record, t: Tables, P: int, k: int) -> None:
    giver, p = r.current_player, r.active_player
    r.hand[giver, k] -= 1
    r.hand[p, k] += 1
    r.vp[p] += action_bonus(r, p, INQUISITION, BONUS_VP_PER_GIFT)  # Succubus
    r.giver_seat += 1
    r.current_player = p
    r.phase = Phase.INQUISITION_NEXT


@jit
def run_inquisition_deck_gift(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """Phase.INQUISITION_DECK_GIFT: after the draw of a gift from the deck (R8.2). Succubus scores
    it only if it arrived (R8.3 may have skipped the draw)."""
    p = r.active_player
    r.vp[p] += action_bonus(r, p, INQUISITION, BONUS_VP_PER_GIFT) * r.drawn
    r.phase = Phase.INQUISITION_NEXT
