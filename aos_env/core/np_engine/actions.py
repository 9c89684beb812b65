"""The seven game actions of Phase II (R6), one function group each.

``run_action`` applies the plain per-action bonuses of the spirits in play
(``cards.action_bonus``: Imp, Salamander, Unicorn, Undine, Fairy, Golem, ...) and hands over to
the action's own function. Every action ends with ``finish_action``: its pending draws are
made, then Phase III starts. The Inquisition owns ``giver_seat``.
"""

from __future__ import annotations

from collections.abc import Callable

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
    INQUISITION,
    INQUISITION_DRAW,
    INQUISITION_DRAW_4P,
    MANA_0,
    NO,
    NUM_COLOURS,
    OPTION_A,
    PEND_HAND,
    PEND_STONE,
    PILGRIMAGE,
    PRAYER,
    PRAYER_DRAW,
    PRAYER_HAND_SIZE,
    RESEARCH,
    SWORD,
    TARGET_1,
    game_action_of_number,
)
from ..phases import PH
from ..state import STAT_ICONS, State, ksum, stat_bonus
from . import abilities
from .chips import gain_faith
from .choice import discard_from_hand, ordered_choice_mask
from .draws import request_draws
from .zones import colour_counts, empty_mask, take_mana


def action_bonus(state: State, g: np.ndarray, p: np.ndarray, action: int, field: int) -> np.ndarray:
    """(n,) total of one plain bonus for game action ``action`` over player p's spirits."""
    result: np.ndarray = state.stats[g, p, stat_bonus(action).start + field]
    return result


def finish_action(state: State, g: np.ndarray) -> None:
    """Make the action's pending draws (bonus cards included), then go to Phase III."""
    request_draws(state, g, PH.PHASE3)


def run_action(state: State, g: np.ndarray) -> None:
    """Phase.ACTION: the player chose ACT; perform the command number's action (R6)."""
    which = game_action_of_number(state.command_number[g])
    p = state.active_player[g]
    # the spirits' plain bonuses for each game's own action, all games in one gather
    # (n, fields) rather than once per action kind (each call costs the same whatever its size)
    columns = stat_bonus(0).start + which[:, None] * len(BONUS_FIELDS) + np.arange(len(BONUS_FIELDS))
    bonus = state.stats[g[:, None], p[:, None], columns]
    state.vp[g, p] += bonus[:, BONUS_VP]
    gain_faith(state, g, p, bonus[:, BONUS_FAITH])  # before any choice (Undine: "before you choose")
    state.draw_pend[g, PEND_HAND] += bonus[:, BONUS_CARDS]  # drawn with the action's own draws
    state.draw_pend[g, PEND_STONE] += bonus[:, BONUS_STONES]
    for a in np.unique(which):
        sel = which == a
        _STARTS[a](state, g[sel], p[sel])


# ---- R6.1 Conquest --------------------------------------------------------------


def _victims(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(n, P) other players with a VP chip that Conquest may steal (Valkyrie protects)."""
    P = state.num_players
    others = np.arange(P)[None, :] != p[:, None]
    result: np.ndarray = others & (state.vp[g] > 0) & ~abilities.valkyrie_protected(state, g)
    return result


def conquest(state: State, g: np.ndarray, p: np.ndarray) -> None:
    """VP per axe and sword icon; then steal 1 VP from one player (from the supply if nobody has one)."""
    icons = state.stats[g, p, STAT_ICONS]
    state.vp[g, p] += icons[:, AXE] + icons[:, SWORD]
    victims = _victims(state, g, p)
    baal = abilities.baal_count(state, g, p)
    none = ~victims.any(1)
    state.vp[g[none], p[none]] += 1  # R6.1: nobody to steal from: from the supply
    all_of_them = ~none & (baal > 0)
    if all_of_them.any():  # Baal: steal from every victim instead of one
        b, pb = g[all_of_them], p[all_of_them]
        per_victim = baal[all_of_them] + action_bonus(state, b, pb, CONQUEST, BONUS_STEAL)
        taken = np.minimum(state.vp[b], per_victim[:, None]) * victims[all_of_them]
        state.vp[b] -= taken
        state.vp[b, pb] += taken.sum(1)
    finish_action(state, g[none | all_of_them])
    choose = g[~none & (baal == 0)]
    state.phase[choose] = PH.CONQUEST_TARGET


def conquest_target_mask(state: State, g: np.ndarray) -> np.ndarray:
    """TARGET_i: the player i seats to the left, if they can be stolen from."""
    P = state.num_players
    p = state.active_player[g]
    victims = _victims(state, g, p)
    mask = empty_mask(g.size)
    for i in range(1, P):
        mask[:, TARGET_1 + i - 1] = victims[np.arange(g.size), (p + i) % P]
    return mask


def apply_conquest_target(state: State, g: np.ndarray, action: np.ndarray) -> None:
    P = state.num_players
    p = state.active_player[g]
    victim = (p + action - TARGET_1 + 1) % P
    n = np.minimum(state.vp[g, victim], 1 + action_bonus(state, g, p, CONQUEST, BONUS_STEAL))  # Ifrit: 1 more each
    state.vp[g, victim] -= n
    state.vp[g, p] += n
    finish_action(state, g)


# ---- R6.2 Research --------------------------------------------------------------


def research(state: State, g: np.ndarray, p: np.ndarray) -> None:
    """Score 1 VP per stone first, then turn a face-up mana into a stone (R6.2); each Homunculus
    then offers one more flip, which the player may decline (R10.1)."""
    state.vp[g, p] += ksum(state.stones[g, p])
    # the flips left: Research's own, then one optional flip per Homunculus (the observation's count)
    state.choice_left[g] = 1 + action_bonus(state, g, p, RESEARCH, BONUS_FLIPS)
    state.choice_floor[g] = MANA_0
    has_mana = ksum(state.mana[g, p]) > 0
    state.phase[g[has_mana]] = PH.RESEARCH_FLIP
    finish_action(state, g[~has_mana])


def flip_mask(state: State, g: np.ndarray) -> np.ndarray:
    """Phase.RESEARCH_FLIP and HOMUNCULUS_FLIP: the face-up mana colours that may be flipped next.
    The flips are a multiset chosen in ascending order (choice.py), so a colour below the last
    one flipped is closed; each flip stands alone (the later ones are optional), so any open
    colour with mana will do."""
    p = state.active_player[g]
    mana = colour_counts(state, state.mana[g, p])
    mask = empty_mask(g.size)
    mask[:, MANA_0 : MANA_0 + NUM_COLOURS] = ordered_choice_mask(
        mana, state.choice_floor[g] - MANA_0, np.ones(g.size, dtype=np.int64)
    )
    return mask


def homunculus_flip_mask(state: State, g: np.ndarray) -> np.ndarray:
    """Phase.HOMUNCULUS_FLIP: one more flip, or NO to stop (R10.1: each Homunculus may be declined)."""
    mask = flip_mask(state, g)
    mask[:, NO] = True
    return mask


def apply_research_flip(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """Phase.RESEARCH_FLIP and HOMUNCULUS_FLIP: flip the chosen colour (NO, at a Homunculus flip:
    stop). Another Homunculus flip follows while flips are left and face-up mana remains."""
    stop = action == NO
    finish_action(state, g[stop])
    g, action = g[~stop], action[~stop]
    p = state.active_player[g]
    k = take_mana(state, g, p, action - MANA_0)
    state.stones[g, p, k] += 1
    state.choice_floor[g] = action
    state.choice_left[g] -= 1
    done = (state.choice_left[g] == 0) | (ksum(state.mana[g, p]) == 0)
    finish_action(state, g[done])
    state.phase[g[~done]] = PH.HOMUNCULUS_FLIP


# ---- R6.3 Alchemy, R6.7 Pilgrimage: two options ---------------------------------


def to_choice(phase: int) -> Callable[[State, np.ndarray, np.ndarray], None]:
    def start(state: State, g: np.ndarray, p: np.ndarray) -> None:
        state.phase[g] = phase

    return start


def apply_alchemy(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """(a) draw 1 card and gain a stone, or (b) gain 1 faith and gain a stone."""
    p = state.active_player[g]
    a = action == OPTION_A
    state.draw_pend[g, PEND_HAND] += a
    gain_faith(state, g[~a], p[~a], 1)
    state.draw_pend[g, PEND_STONE] += 1
    finish_action(state, g)


def apply_pilgrimage(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """(a) gain VP equal to your faith (keeping it), or (b) draw 1 card and gain 1 faith."""
    p = state.active_player[g]
    a = action == OPTION_A
    state.vp[g[a], p[a]] += state.faith[g[a], p[a]]
    state.draw_pend[g[~a], PEND_HAND] += 1
    gain_faith(state, g[~a], p[~a], 1)
    finish_action(state, g)


# ---- R6.4 Prayer ------------------------------------------------------------------


def apply_prayer(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """(a) draw 2 cards, or (b) discard any number of cards, then draw up to 5."""
    a = action == OPTION_A
    state.draw_pend[g[a], PEND_HAND] += PRAYER_DRAW
    finish_action(state, g[a])
    b = g[~a]
    state.choice_floor[b] = 0
    state.choice_left[b] = ksum(state.hand[b, state.active_player[b]])  # at most the whole hand
    has_cards = state.choice_left[b] > 0
    state.phase[b[has_cards]] = PH.PRAYER_DISCARD
    _prayer_refill(state, b[~has_cards])


def prayer_discard_mask(state: State, g: np.ndarray) -> np.ndarray:
    """CARD_k (kinds in ascending order) to discard one more, NO to stop (zero is allowed)."""
    hand = state.hand[g, state.active_player[g]]
    mask = empty_mask(g.size)
    kinds = np.arange(hand.shape[1])
    mask[:, : hand.shape[1]] = (hand > 0) & (kinds[None] >= state.choice_floor[g][:, None])
    mask[:, NO] = True
    return mask


def apply_prayer_discard(state: State, g: np.ndarray, action: np.ndarray) -> None:
    d = action != NO
    gd, k = g[d], action[d]
    p = state.active_player[gd]
    discard_from_hand(state, gd, p, k)
    state.choice_left[gd] -= 1
    empty = ksum(state.hand[gd, p]) == 0
    _prayer_refill(state, np.concatenate([g[~d], gd[empty]]))


def _prayer_refill(state: State, g: np.ndarray) -> None:
    """Draw until the hand holds 5 (Dryad's extra card, already pending, comes on top)."""
    hand_n = ksum(state.hand[g, state.active_player[g]])
    state.draw_pend[g, PEND_HAND] += np.maximum(PRAYER_HAND_SIZE - hand_n, 0)
    finish_action(state, g)


# ---- R6.5 Festival ------------------------------------------------------------------


def festival(state: State, g: np.ndarray, p: np.ndarray) -> None:
    """Gain 1 faith first, then reveal 2 cards from the deck (publicly)."""
    gain_faith(state, g, p, 1)
    state.offer_public[g] = True
    request_draws(state, g, PH.FESTIVAL_RESOLVE, offer=FESTIVAL_REVEAL)


def run_festival_resolve(state: State, g: np.ndarray) -> None:
    """Both cards to the mana row if another player now has lower faith (or with a Treant);
    otherwise the player picks one."""
    p = state.active_player[g]
    faith = abilities.compared_faith(state, g)
    mine = faith[np.arange(g.size), p]
    others = np.arange(state.num_players)[None, :] != p[:, None]
    lower = ((faith < mine[:, None]) & others).any(1)
    both = lower | (abilities.treant_count(state, g, p) > 0)
    b, pb = g[both], p[both]
    state.mana[b, pb] += state.offer[b]
    state.offer[b] = 0
    finish_action(state, b)
    pick = g[~both]
    empty = ksum(state.offer[pick]) == 0
    finish_action(state, pick[empty])
    state.phase[pick[~empty]] = PH.FESTIVAL_PICK


def apply_festival_pick(state: State, g: np.ndarray, k: np.ndarray) -> None:
    """The chosen card goes into the mana row, the other to the discard pile."""
    state.mana[g, state.active_player[g], k] += 1
    state.offer[g, k] -= 1
    state.discard[g] += state.offer[g]
    state.offer[g] = 0
    finish_action(state, g)


# ---- R6.6 Inquisition -----------------------------------------------------------------


def inquisition(state: State, g: np.ndarray, p: np.ndarray) -> None:
    """Draw 3 cards (2 with 4 players), then collect gifts from the players with lower faith."""
    state.giver_seat[g] = 1
    request_draws(
        state, g, PH.INQUISITION_NEXT, hand=INQUISITION_DRAW_4P if state.num_players == 4 else INQUISITION_DRAW
    )


def run_inquisition_next(state: State, g: np.ndarray) -> None:
    """Find the next giver, from ``giver_seat`` on: lower (compared) faith than the active player."""
    P = state.num_players
    p = state.active_player[g]
    rows = np.arange(g.size)
    faith = abilities.compared_faith(state, g)
    mine = faith[rows, p]
    seats = np.arange(1, P)
    givers = (p[:, None] + seats[None]) % P
    eligible = (faith[rows[:, None], givers] < mine[:, None]) & (seats[None] >= state.giver_seat[g][:, None])
    found = eligible.any(1)
    state.current_player[g] = p
    finish_action(state, g[~found])
    f = g[found]
    if not f.size:
        return
    seat = seats[np.argmax(eligible[found], axis=1)]
    giver = givers[found, seat - 1]
    empty = ksum(state.hand[f, giver]) == 0
    # R8.2: a giver with an empty hand gives the top card of the deck. The draw may run an R8.3
    # discard round or be skipped: giver_seat belongs to the Inquisition alone, so the next giver
    # is still the one after this one, and Succubus counts the gift once it has arrived.
    e = f[empty]
    state.giver_seat[e] = seat[empty] + 1
    request_draws(state, e, PH.INQUISITION_DECK_GIFT, hand=1)
    h = f[~empty]
    state.giver_seat[h] = seat[~empty]
    state.current_player[h] = giver[~empty]
    state.phase[h] = PH.INQUISITION_GIFT


def apply_gift(state: State, g: np.ndarray, k: np.ndarray) -> None:
    giver, p = state.current_player[g], state.active_player[g]
    state.hand[g, giver, k] -= 1
    state.hand[g, p, k] += 1
    state.vp[g, p] += action_bonus(state, g, p, INQUISITION, BONUS_VP_PER_GIFT)  # Succubus
    state.giver_seat[g] += 1
    state.current_player[g] = p
    state.phase[g] = PH.INQUISITION_NEXT


def run_inquisition_deck_gift(state: State, g: np.ndarray) -> None:
    """Phase.INQUISITION_DECK_GIFT: after the draw of a gift from the deck (R8.2). Succubus scores
    it only if it arrived (R8.3 may have skipped the draw)."""
    p = state.active_player[g]
    state.vp[g, p] += action_bonus(state, g, p, INQUISITION, BONUS_VP_PER_GIFT) * state.drawn[g]
    state.phase[g] = PH.INQUISITION_NEXT


_STARTS = {
    CONQUEST: conquest,
    RESEARCH: research,
    ALCHEMY: to_choice(PH.ALCHEMY),
    PRAYER: to_choice(PH.PRAYER),
    FESTIVAL: festival,
    INQUISITION: inquisition,
    PILGRIMAGE: to_choice(PH.PILGRIMAGE),
}
