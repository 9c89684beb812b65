"""Drawing cards for one game (R8.1-R8.3): a draw is queued with ``request_draws`` and made by
the internal phase DRAW, which then returns to the phase that asked for it; the scalar twin of
``np_engine/draws.py``. Owns ``draw_pend``, ``draw_return``, ``drawn`` and ``draw_round_done``."""

from __future__ import annotations

import numpy as np

from ..constants import NUM_PEND, PEND_CMD, PEND_HAND, PEND_MANA, PEND_OFFER, PEND_STONE, SHORTAGE_LIMIT, K
from ..phases import Phase
from . import rng
from ._jit import Record, Tables, jit
from .discards import over_limit, start_discard_round
from .zones import kind_at, zone_size


@jit
def request_draws(r: Record, then: int, cmd: int, hand: int, mana: int, stone: int, offer: int) -> None:
    """Queue draws for the active player, then go on to ``then`` (draws already pending, an
    action's bonus cards say, are made in the same draw)."""
    r.draw_pend[PEND_CMD] += cmd
    r.draw_pend[PEND_HAND] += hand
    r.draw_pend[PEND_MANA] += mana
    r.draw_pend[PEND_STONE] += stone
    r.draw_pend[PEND_OFFER] += offer
    r.draw_return = then
    r.drawn = 0
    r.phase = Phase.DRAW


@jit
def run_draw(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """Phase.DRAW: make the pending draws, in column order (command card, hand, mana, stones,
    offer). Draw i of this call uses the game's random number counter + i.

    R8.1: an empty deck is refilled from the discard pile. R8.3: with both empty, a discard
    round down to 9 cards and 9 mana starts and the draw resumes afterwards. [decision] One round
    per draw: if nobody is over the limits, or a round already took place during this draw,
    the rest of the draw is skipped.
    """
    pend = np.empty(NUM_PEND, dtype=np.int64)
    total = 0
    for c in range(NUM_PEND):
        pend[c] = r.draw_pend[c]
        total += pend[c]
    p = r.active_player
    held = False
    drawn = 0
    for i in range(total):
        deck_n = zone_size(r.deck)
        if deck_n == 0:
            for k in range(K):  # R8.1 (a multiset needs no shuffling)
                r.deck[k] += r.discard[k]
                r.discard[k] = 0
            deck_n = zone_size(r.deck)
            if deck_n == 0:
                if over_limit(r, P, SHORTAGE_LIMIT, SHORTAGE_LIMIT) and not r.draw_round_done:
                    # R8.3: a discard round, then this draw goes on with what is left to draw
                    cum = 0
                    for c in range(NUM_PEND):
                        cum += pend[c]
                        r.draw_pend[c] = min(max(cum - i, 0), pend[c])
                    start_discard_round(r, True, Phase.DRAW)
                    r.draw_round_done = True
                    held = True
                break  # [decision] otherwise the rest of the draw is skipped
        x = rng.scale(rng.raw(r, i), deck_n)
        k = kind_at(r.deck, x)
        r.deck[k] -= 1
        drawn += 1
        # destination: the first column whose running total passes i
        cum = 0
        dest = 0
        for c in range(NUM_PEND):
            cum += pend[c]
            if cum > i:
                dest = c
                break
        if dest == PEND_OFFER:
            r.offer[k] += 1
        elif dest == PEND_HAND:
            r.hand[p, k] += 1
        elif dest == PEND_STONE:
            r.stones[p, k] += 1
        else:  # PEND_MANA, or PEND_CMD: the top card of the deck played as command card (R3.1.2, R8.2)
            r.mana[p, k] += 1
            if dest == PEND_CMD:
                r.cmd_card = k
    r.rng_counter += np.uint64(drawn)
    r.drawn += drawn
    if not held:
        for c in range(NUM_PEND):
            r.draw_pend[c] = 0
        r.phase = r.draw_return
        r.draw_round_done = False
