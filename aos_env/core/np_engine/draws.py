"""Drawing cards (R8.1-R8.3): a draw is queued with ``request_draws`` and made by the internal
phase DRAW, which then returns to the phase that asked for it.

This module owns ``draw_pend``, ``draw_return``, ``drawn`` and ``draw_round_done``.
"""

from __future__ import annotations

import numpy as np

from .. import rng
from ..constants import PEND_CMD, PEND_HAND, PEND_MANA, PEND_OFFER, PEND_STONE, SHORTAGE_LIMIT
from ..phases import PH
from ..state import State
from .discards import over_limit, start_discard_round
from .zones import cumulative, kind_at

_PEND_COLUMNS = {"cmd": PEND_CMD, "hand": PEND_HAND, "mana": PEND_MANA, "stone": PEND_STONE, "offer": PEND_OFFER}


def request_draws(state: State, g: np.ndarray, then: int, **counts: np.ndarray | int) -> None:
    """Queue draws for the active player (keys: cmd, hand, mana, stone, offer), then go on to ``then``.

    Draws already pending (an action's bonus cards, say) are made in the same draw.
    """
    for key, n in counts.items():
        state.draw_pend[g, _PEND_COLUMNS[key]] += n
    state.draw_return[g] = then
    state.drawn[g] = 0
    state.phase[g] = PH.DRAW


def run_draw(state: State, g: np.ndarray) -> None:
    """Phase.DRAW: resolve the pending draws, one card per game per round.

    R8.1: an empty deck is refilled from the discard pile. R8.3: with both empty, a discard
    round down to 9 cards and 9 mana starts (and the draw resumes afterwards). [decision] One
    round per draw: if nobody is over the limits, or a round already took place during this
    draw, the rest of the draw is skipped (otherwise a player could be made to discard and
    redraw the same card again and again).
    """
    pend = state.draw_pend[g]
    cum_pend = np.cumsum(pend, axis=1)  # draw number i goes to the first column with cum_pend > i
    total = cum_pend[:, -1]
    act = state.active_player[g]
    held = np.zeros(g.size, dtype=bool)  # stopped for an R8.3 discard round
    live = np.nonzero(total > 0)[0]  # positions into g
    # all the random numbers this draw may need, in one go (draw i of a game uses its i-th number)
    z = rng.block(state.rng_key, state.rng_counter, g[live], int(total.max(initial=0)))
    drawn = np.zeros(g.size, dtype=np.uint64)
    zrow = np.full(g.size, -1)
    zrow[live] = np.arange(live.size)
    i = 0
    while live.size:
        gl = g[live]
        cum = cumulative(state.deck[gl])
        empty = cum[:, -1] == 0
        if empty.any():
            e = gl[empty]
            state.deck[e] += state.discard[e]  # R8.1 (a multiset needs no shuffling)
            state.discard[e] = 0
            cum[empty] = cumulative(state.deck[e])
            dry = cum[:, -1] == 0
            if dry.any():
                d = live[dry]
                gd = g[d]
                over = over_limit(state, gd, SHORTAGE_LIMIT, SHORTAGE_LIMIT) & ~state.draw_round_done[gd]
                # R8.3: a discard round, then this draw goes on with what is left to draw
                state.draw_pend[gd[over]] = np.minimum(np.maximum(cum_pend[d[over]] - i, 0), pend[d[over]])
                start_discard_round(state, gd[over], shortage=True, then=PH.DRAW)
                state.draw_round_done[gd[over]] = True
                held[d[over]] = True  # [decision] the others skip the rest of the draw
                live, gl, cum = live[~dry], gl[~dry], cum[~dry]
                if not live.size:
                    break
        r = rng.scale(z[zrow[live], i], cum[:, -1])
        k = kind_at(cum, r)
        state.deck[gl, k] -= 1
        drawn[live] += np.uint64(1)
        dest = (cum_pend[live] > i).argmax(1)
        a = act[live]
        for col in np.nonzero(np.bincount(dest, minlength=len(_PEND_COLUMNS)))[0]:
            sel = dest == col
            gs, ps, ks = gl[sel], a[sel], k[sel]
            if col == PEND_OFFER:
                state.offer[gs, ks] += 1
            elif col == PEND_HAND:
                state.hand[gs, ps, ks] += 1
            elif col == PEND_STONE:
                state.stones[gs, ps, ks] += 1
            else:  # PEND_MANA, or PEND_CMD: the top card of the deck played as command card (R3.1.2, R8.2)
                state.mana[gs, ps, ks] += 1
                if col == PEND_CMD:
                    state.cmd_card[gs] = ks
        i += 1
        live = live[total[live] > i]
    state.rng_counter[g] += drawn
    state.drawn[g] += drawn.astype(state.drawn.dtype)
    fin = g[~held]
    state.draw_pend[fin] = 0
    state.phase[fin] = state.draw_return[fin]
    state.draw_round_done[fin] = False
