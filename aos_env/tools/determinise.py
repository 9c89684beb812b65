"""Worlds consistent with what a player knows (R9), for search.

A search that may not look at hidden cards plays on *determinised* copies of
the real game: the cards the searching player cannot see are pooled and
dealt back at random into zones of the same sizes, and each copy gets a
fresh random stream, so that its future draws are not the real game's
either. ``agents.MonteCarloAgent`` and the OpenSpiel adapter
(``aos_env.integrations.openspiel``, for IS-MCTS) both use these two functions.
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..base import checks


def _check(state, rng) -> None:
    """``state`` a core.State (TypeError otherwise, as in core), ``rng`` a numpy Generator."""
    if not isinstance(state, core.State):
        raise TypeError(f"state must be a core.State (from core.init), got {type(state).__name__}")
    if not isinstance(rng, np.random.Generator):
        raise checks.fail("rng", "a numpy.random.Generator (e.g. np.random.default_rng(seed))", rng)


def determinise(state: core.State, viewer, rng: np.random.Generator) -> None:
    """Redeal, in place, the cards ``viewer[i]`` cannot see in game i of ``state``.

    ``viewer``: a seat for every game (an int) or one per game (an integer array of shape
    (B,)), 0..P-1. Arguments are checked before anything changes (a seat out of range
    would otherwise see nothing: every hand would be redealt).

    Hidden (R9.2): the other players' hands, the faces of all stones (their
    owner's too, R1.3), the deck, the discard pile and the offered cards when
    the viewer may not see them (another player's Phase III draw). Their
    sizes and everything public stay as they are, so every kind still has all
    its copies (110 cards in all).
    """
    _check(state, rng)
    N, P = state.batch_size, state.num_players
    viewer = checks.check_seats("viewer", viewer, N, P)
    K = state.hand.shape[2]
    rows = np.arange(N)
    others = np.arange(P)[None, :] != viewer[:, None]  # (N, P)
    hidden_offer = ~(state.offer_public | (viewer == state.active_player))
    # hidden zones, in a fixed order: deck, discard, offer, hands (others only), stones (everyone)
    hands = state.hand * others[..., None]
    zones = [state.deck, state.discard, state.offer * hidden_offer[:, None]]
    zones += [hands[:, p] for p in range(P)] + [state.stones[:, p] for p in range(P)]
    counts = np.stack(zones, axis=1).astype(np.int64)  # (N, Z, K)
    sizes = counts.sum(2)  # (N, Z)
    pool = counts.sum(1)  # (N, K)
    total = pool.sum(1)  # (N,)
    L = int(total.max(initial=0))
    if L == 0:
        return
    j = np.arange(L)
    cum = np.cumsum(pool, axis=1)  # (N, K)
    kinds = (cum[:, :, None] <= j[None, None, :]).sum(1)  # (N, L): the pool as a sorted list of kinds
    keys = rng.random((N, L))
    keys[j[None, :] >= total[:, None]] = np.inf  # padding sorts last
    order = np.argsort(keys, axis=1)
    shuffled = np.take_along_axis(kinds, order, axis=1)
    ends = np.cumsum(sizes, axis=1)  # (N, Z)
    zone_of = (ends[:, :, None] <= j[None, None, :]).sum(1)  # (N, L) which zone slot j fills
    valid = j[None, :] < total[:, None]
    Z = counts.shape[1]
    flat = (rows[:, None] * Z + zone_of) * K + np.minimum(shuffled, K - 1)
    new = np.bincount(flat[valid], minlength=N * Z * K).reshape(N, Z, K)
    state.deck[:] = new[:, 0]
    state.discard[:] = new[:, 1]
    state.offer[:] = np.where(hidden_offer[:, None], new[:, 2], state.offer)
    state.hand[:] = np.where(others[..., None], new[:, 3 : 3 + P], state.hand)
    state.stones[:] = new[:, 3 + P : 3 + 2 * P]


def fresh_streams(state: core.State, rng: np.random.Generator) -> None:
    """Give every game of ``state`` a new random stream drawn from ``rng`` (in place).

    The engine draws cards from a per-game counter-based stream; a
    determinised copy that kept the real game's stream would still draw the
    real game's next cards.
    """
    _check(state, rng)
    state.rng_key[:] = rng.integers(0, 2**63, size=state.batch_size, dtype=np.int64).view(np.uint64)
    state.rng_counter[:] = 0
