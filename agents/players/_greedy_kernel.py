"""The greedy agent's scoring, compiled with numba: per-row scalar code over a batch of observations.

``greedy_actions`` scores the legal actions of each row and takes the best (ties: the lowest action
id). Each decision phase has its scoring in one function of the section "the phases' scoring"
below; ``score_phase`` is the table from phase to that function. What they read (the card tables,
the observation's entries, the quantities several phases use) and the cache they compile into are
in ``agents.players._greedy_base``.

Every score is a sum of a few counts times a few constants, computed in one fixed order; sums over
kinds are sums of small whole numbers (exact in any order), or of at most two values (the offered
cards), so the scores do not depend on how the sums are ordered. tests/test_greedy.py checks the
decisions against a recording (first made with the numpy implementation this kernel replaced: the
same decisions, but for a fixed Prayer threshold).
"""

from __future__ import annotations

import numpy as np

from aos_env.core import Phase
from aos_env.core.constants import (
    ACT,
    AXE,
    MANA_0,
    NO,
    NUM_ACTIONS,
    NUM_COLOURS,
    OPTION_A,
    OPTION_B,
    STONE,
    SWORD,
    TARGET_1,
    YES,
)

from ._greedy_base import (  # one kernel in two files: the names of its first half
    _COMMAND_NUMBER,
    _COMMAND_NUMBER_SCALE,
    _FAITH,
    _FAITH_SCALE,
    _HAND_SIZE,
    _HAND_SIZE_SCALE,
    _HEAD,
    _HEAD_NUMBER,
    _HEAD_NUMBER_SCALE,
    _ICONS,
    _ICONS_SCALE,
    _NUM_PHASES,
    _NUM_PLAYERS,
    _OFFER,
    _PHASE,
    _PHASE_AT,
    _SCORE,
    _SCORE_SCALE,
    _SEAT,
    _VP,
    _VP_SCALE,
    SCRATCH_DTYPE,
    SYNERGY,
    K,
    _argmax,
    _count,
    _read,
    action_worths,
    hold_worths,
    jit,
    mana_surplus,
    spirit_colours,
    worth_of_number,
)

# ---- the phases' scoring -----------------------------------------------------------------------
# Each function fills the scores ``s`` (one per action id, zero on entry) of one observation ``o``.

KEEP_SHARE = 0.4  # Phase I: a command card costs this share of its worth in hand
ASMODAI_MARGIN = 0.01  # Asmodai: on a tie, keep the number as it is
SUMMON_WEIGHT = 1.3  # Phase II: a summon is worth its spirit's value times this
STONE_LAST = -5.0  # payments and mana discards: a stone only when nothing else will do
FRESH_DRAW = 1.0  # Prayer discards: worth of the card drawn for a discarded one
BALDANDERS_NO = 10.0  # Baldanders: decline unless the payment needs a card from hand
NEVER = -1.0e9  # a score below every other: an action the agent never takes while another is legal
ALCHEMY_SHORT_HAND = 4  # Alchemy: draw with fewer cards in hand than this, else take faith
PRAYER_FEW_CARDS = 2  # Prayer: option (b) with this many cards in hand or fewer
PILGRIMAGE_VP_FAITH = 3  # Pilgrimage: VP from this much faith up
# Phase III: the assisted card helps the right neighbour
HURT_CONQUEST = 0.4  # per axe and sword of the neighbour, for a number of 2 or less
HURT_PILGRIMAGE = 0.15  # per faith of the neighbour, for a number of 4 or more
GIFT_SHARE = 0.2  # share of the assisted card's worth, over 3


@jit
def command(o, t, w, s):
    """Phase I: the card whose number (with the head's) leads to the best action, minus a share of
    its worth in hand."""
    action_worths(o, t, w)
    hold_worths(o, t, w)
    head_number = 0.0
    for k in range(K):
        head_number += np.float64(o[_HEAD + k]) * t.number[k]
    for k in range(K):
        number = np.int64(np.rint(head_number + t.number[k]))
        s[k] = worth_of_number(t, w, number) - KEEP_SHARE * w.hold[k]


@jit
def asmodai(o, t, w, s):
    """Asmodai: count the card as 0 (the head's number alone) when that action is worth more."""
    action_worths(o, t, w)
    head_only = np.int64(np.rint(_read(o, _HEAD_NUMBER, _HEAD_NUMBER_SCALE)))
    number = np.int64(np.rint(_read(o, _COMMAND_NUMBER, _COMMAND_NUMBER_SCALE)))
    s[YES] = worth_of_number(t, w, head_only) - ASMODAI_MARGIN
    s[NO] = worth_of_number(t, w, number)


@jit
def summon_or_act(o, t, w, s):
    """Phase II: summon the most valuable spirit (with synergy) when it beats the action."""
    action_worths(o, t, w)
    spirit_colours(o, t, w)
    for k in range(K):
        s[k] = t.value[k] * SUMMON_WEIGHT + SYNERGY * w.spirit_colours[t.colour[k]]
    s[ACT] = worth_of_number(t, w, np.int64(np.rint(_read(o, _COMMAND_NUMBER, _COMMAND_NUMBER_SCALE))))


@jit
def give_up_mana(o, t, w, s):
    """Payments, mana discards and Research flips: the colour needed least; stones last."""
    mana_surplus(o, t, w)
    for c in range(NUM_COLOURS):
        s[MANA_0 + c] = w.surplus[c]
    s[STONE] = STONE_LAST


@jit
def give_up_card(o, t, w, s):
    """Card discards and Inquisition gifts: the card worth least in hand."""
    hold_worths(o, t, w)
    for k in range(K):
        s[k] = -w.hold[k]


@jit
def prayer_discard(o, t, w, s):
    """Prayer (b) discards: every card worth less in hand than a fresh draw, then stop."""
    hold_worths(o, t, w)
    for k in range(K):
        s[k] = FRESH_DRAW - w.hold[k]
    s[NO] = 0.0


@jit
def baldanders(o, t, w, s):
    """Baldanders: decline, unless only a card from hand can pay (the least valuable one)."""
    give_up_card(o, t, w, s)
    s[NO] = BALDANDERS_NO


@jit
def keep(o, t, w, s):
    """Phase III: keep the card worth more in hand, the assisted one hurting the right neighbour
    least: a low number helps a Conquest player (axes and swords), a high one a Pilgrimage player
    (faith). With two cards on offer, keeping k assists the other, of number total - k's."""
    hold_worths(o, t, w)
    right = _SEAT * (_argmax(o, _NUM_PLAYERS, 3) + 1)  # the right neighbour is seat P-1
    axes_swords = _read(o, right + _ICONS + AXE, _ICONS_SCALE) + _read(o, right + _ICONS + SWORD, _ICONS_SCALE)
    faith = _read(o, right + _FAITH, _FAITH_SCALE)
    offer_number, offer_value = 0.0, 0.0
    for k in range(K):
        n = np.float64(o[_OFFER + k])
        offer_number += n * t.number[k]
        if n != 0.0:
            offer_value += n * t.value[k]
    for k in range(K):
        other_number = offer_number - t.number[k]
        other_value = offer_value - t.value[k]
        hurt_conquest = (1.0 if other_number <= 2 else 0.0) * axes_swords * HURT_CONQUEST
        hurt_pilgrimage = (1.0 if other_number >= 4 else 0.0) * faith * HURT_PILGRIMAGE
        s[k] = w.hold[k] - (hurt_conquest + hurt_pilgrimage + GIFT_SHARE * other_value / 3)


@jit
def festival(o, t, w, s):
    """Festival: the revealed card of the colour the hand needs most."""
    mana_surplus(o, t, w)
    for k in range(K):
        s[k] = -w.surplus[t.colour[k]]


@jit
def conquest_target(o, t, w, s):
    """Conquest: steal from the opponent with the most VP."""
    for i in range(3):
        s[TARGET_1 + i] = _read(o, _SEAT * (i + 1) + _VP, _VP_SCALE)


@jit
def alchemy(o, t, w, s):
    """Alchemy: draw (a) with a short hand, else faith (b)."""
    short = _count(o, _HAND_SIZE, _HAND_SIZE_SCALE) < ALCHEMY_SHORT_HAND
    s[OPTION_A] = 1.0 if short else 0.0
    s[OPTION_B] = 0.0 if short else 1.0


@jit
def prayer(o, t, w, s):
    """Prayer: (b) draw up to 5 with few cards in hand, else (a)."""
    few = _count(o, _HAND_SIZE, _HAND_SIZE_SCALE) <= PRAYER_FEW_CARDS
    s[OPTION_A] = 0.0 if few else 1.0
    s[OPTION_B] = 1.0 if few else 0.0


@jit
def pilgrimage(o, t, w, s):
    """Pilgrimage: VP (a) from a few faith up, else faith (b)."""
    enough = _count(o, _FAITH, _FAITH_SCALE) >= PILGRIMAGE_VP_FAITH
    s[OPTION_A] = 1.0 if enough else 0.0
    s[OPTION_B] = 0.0 if enough else 1.0


@jit
def always_flip(o, t, w, s):
    """Homunculus: always take the extra flip (as before it could be declined), of the colour
    needed least."""
    give_up_mana(o, t, w, s)
    s[NO] = NEVER


@jit
def always_use(o, t, w, s):
    """Leprechaun, Belial and Nightmare: always use them (Belial: a Lightning mana before a stone)."""
    s[YES] = 1.0
    s[MANA_0] = 2.0
    s[STONE] = 1.0


@jit
def declare(o, t, w, s):
    """End declaration: only when the observer's current score leads the table."""
    others = _read(o, _SEAT + _SCORE, _SCORE_SCALE)
    for i in range(2, 4):
        others = max(others, _read(o, _SEAT * i + _SCORE, _SCORE_SCALE))
    ahead = _read(o, _SCORE, _SCORE_SCALE) > others
    s[YES] = 1.0 if ahead else 0.0
    s[NO] = 0.0 if ahead else 1.0


@jit
def score_phase(ph, o, t, w, s):
    """The table from phase to its scoring: fill ``s`` for decision ``ph`` (GAME_OVER: all zero)."""
    if ph == Phase.COMMAND:
        command(o, t, w, s)
    elif ph == Phase.ASMODAI:
        asmodai(o, t, w, s)
    elif ph == Phase.MAIN:
        summon_or_act(o, t, w, s)
    elif ph == Phase.PAY or ph == Phase.NIGHTMARE_MANA or ph == Phase.SHORTAGE_MANA or ph == Phase.RESEARCH_FLIP:
        give_up_mana(o, t, w, s)
    elif (
        ph == Phase.LEPRECHAUN_DISCARD
        or ph == Phase.NIGHTMARE_HAND
        or ph == Phase.SHORTAGE_HAND
        or ph == Phase.INQUISITION_GIFT
    ):
        give_up_card(o, t, w, s)
    elif ph == Phase.PRAYER_DISCARD:
        prayer_discard(o, t, w, s)
    elif ph == Phase.BALDANDERS:
        baldanders(o, t, w, s)
    elif ph == Phase.KEEP:
        keep(o, t, w, s)
    elif ph == Phase.FESTIVAL_PICK:
        festival(o, t, w, s)
    elif ph == Phase.CONQUEST_TARGET:
        conquest_target(o, t, w, s)
    elif ph == Phase.ALCHEMY:
        alchemy(o, t, w, s)
    elif ph == Phase.PRAYER:
        prayer(o, t, w, s)
    elif ph == Phase.PILGRIMAGE:
        pilgrimage(o, t, w, s)
    elif ph == Phase.HOMUNCULUS_FLIP:
        always_flip(o, t, w, s)
    elif ph == Phase.LEPRECHAUN or ph == Phase.BELIAL or ph == Phase.NIGHTMARE:
        always_use(o, t, w, s)
    elif ph == Phase.DECLARE:
        declare(o, t, w, s)


# ---- the batch -----------------------------------------------------------------------------------


@jit
def best_legal(s, legal):
    """The lowest action id with the best score among the legal ones (0 if none is legal)."""
    best = -1
    for a in range(NUM_ACTIONS):
        if legal[a] and (best < 0 or s[a] > s[best]):
            best = a
    return max(best, 0)


@jit
def greedy_actions(obs, mask, tables, out):
    """``out[i]``: the greedy action of observation ``obs[i]`` with legal actions ``mask[i]``."""
    t = tables[0]
    scratch = np.zeros(1, dtype=SCRATCH_DTYPE)
    w = scratch[0]
    s = np.zeros(NUM_ACTIONS)
    for i in range(obs.shape[0]):
        o = obs[i]
        for a in range(NUM_ACTIONS):
            s[a] = 0.0
        score_phase(_PHASE_AT[_argmax(o, _PHASE, _NUM_PHASES)], o, t, w, s)
        out[i] = best_legal(s, mask[i])
