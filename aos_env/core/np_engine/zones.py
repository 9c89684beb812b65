"""Moving cards between zones: mana by colour, stones, the deck, the discard pile, hands.

Every function works on a batch of games ``g`` (an index array) at once; ``p`` is then a
same-length array of players.
"""

from __future__ import annotations

import numpy as np

from .. import rng
from ..constants import NUM_ACTIONS, NUM_COLOURS, STONE_UNIT
from ..state import State, ksum


def empty_mask(n: int) -> np.ndarray:
    """(n, 44) all-False action mask, to fill in."""
    return np.zeros((n, NUM_ACTIONS), dtype=bool)


def colour_counts(state: State, x: np.ndarray) -> np.ndarray:
    """Counts by kind (..., K) -> counts by colour (..., 5), as float32 (exact: small counts)."""
    result: np.ndarray = x.astype(np.float32) @ state.cards.colour_onehot_f32
    return result


def mana_total(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Face-up mana plus stones of player p (the waiting head counts, R4.3)."""
    result: np.ndarray = ksum(state.mana[g, p]) + ksum(state.stones[g, p])
    return result


def givable_mana(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(n, K) face-up mana of player p by kind that may be given up: not the waiting head (R4.3)."""
    avail = state.mana[g, p].astype(np.int64)
    h = state.head[g, p]
    has = np.nonzero(h >= 0)[0]
    avail[has, h[has]] -= 1
    result: np.ndarray = avail
    return result


def choosable_units(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(n, 6) units that may be given up: face-up mana by colour (not the waiting head), then stones."""
    m = colour_counts(state, givable_mana(state, g, p))
    s = ksum(state.stones[g, p])
    return np.concatenate([m, s[:, None]], axis=1)


def take_mana(state: State, g: np.ndarray, p: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Remove one face-up mana of ``colour`` (not the waiting head) and return its kind.

    Mana cards of one colour are interchangeable in play, so the engine takes the lowest kind
    of that colour: the choice only decides which card goes on to the discard pile or becomes
    a stone.
    """
    avail = givable_mana(state, g, p) * (state.cards.colour[None, :] == colour[:, None])
    k = np.argmax(avail > 0, axis=1)
    state.mana[g, p, k] -= 1
    result: np.ndarray = k
    return result


def take_mana_colours(state: State, g: np.ndarray, p: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Remove ``counts`` (n, 5) face-up mana by colour, the lowest kinds first and never the
    waiting head (as repeated ``take_mana`` would); returns the cards removed (n, K)."""
    cards = state.cards
    avail = givable_mana(state, g, p)
    earlier = avail.astype(np.float32) @ cards.same_colour_below_f32  # same-colour cards of lower kinds
    want = counts[:, cards.colour]  # (n, K): how many of the kind's colour to take
    removed = np.clip(want - earlier, 0, avail).astype(np.int64)
    state.mana[g, p] -= removed.astype(state.mana.dtype)
    result: np.ndarray = removed
    return result


def take_stones(state: State, g: np.ndarray, p: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Remove ``n[i]`` random stones of player p[i]; returns the cards removed (len(g), K)."""
    removed = np.zeros((g.size, state.stones.shape[2]), dtype=np.int64)
    for i in range(int(n.max(initial=0))):
        sel = np.nonzero(n > i)[0]
        removed[sel, take_stone(state, g[sel], p[sel])] += 1
    return removed


def take_stone(state: State, g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Remove one of player p's stones, a random one (nobody knows their faces)."""
    k = random_kind(state, g, state.stones[g, p])
    state.stones[g, p, k] -= 1
    return k


def give_up_unit(state: State, g: np.ndarray, p: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Move one unit (colour 0..4, or STONE_UNIT: a stone) of player p to the discard pile."""
    k = np.empty(g.size, dtype=np.int64)
    is_stone = unit == STONE_UNIT
    s, c = np.nonzero(is_stone)[0], np.nonzero(~is_stone)[0]
    if s.size:
        k[s] = take_stone(state, g[s], p[s])
    if c.size:
        k[c] = take_mana(state, g[c], p[c], unit[c])
    discard_cards(state, g, k)
    return k


def give_up_units(state: State, g: np.ndarray, p: np.ndarray, take: np.ndarray) -> None:
    """Move ``take`` (n, 6) units of player p to the discard pile at once (forced units): the
    colours as repeated ``take_mana``, then the stones one by one."""
    removed = take_mana_colours(state, g, p, take[:, :NUM_COLOURS]) + take_stones(state, g, p, take[:, STONE_UNIT])
    state.discard[g] += removed.astype(state.discard.dtype)


def draw_from_deck(state: State, g: np.ndarray) -> np.ndarray:
    """Take a uniformly random card of each game's deck (which must not be empty)."""
    k = random_kind(state, g, state.deck[g])
    state.deck[g, k] -= 1
    return k


_TRIU = np.triu(np.ones((30, 30), dtype=np.float32))


def cumulative(counts: np.ndarray) -> np.ndarray:
    """(n, K) running totals over kinds.

    A float32 product with a triangular matrix is several times faster than ``np.cumsum`` on a
    short axis; for large n OpenBLAS would start threads, which costs more than it saves, so
    cumsum is used there.
    """
    if counts.shape[0] <= 1024 and counts.shape[1] == 30:
        return counts.astype(np.float32) @ _TRIU
    return np.cumsum(counts, axis=1, dtype=np.int32)


def random_kind(state: State, g: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """A kind drawn with probability proportional to counts (n, K), per game (one random number)."""
    cum = cumulative(counts)
    return kind_at(cum, rng.randint(state.rng_key, state.rng_counter, g, cum[:, -1]))


def kind_at(cum: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The kind of card number r[i] in a zone with running totals cum (n, K)."""
    result: np.ndarray = (cum > r[:, None]).argmax(1)  # the first kind whose running total passes r
    return result


def discard_cards(state: State, g: np.ndarray, k: np.ndarray) -> None:
    """Put one card of kind k[i] on game g[i]'s discard pile."""
    state.discard[g, k] += 1


def hand_mask(state: State, g: np.ndarray) -> np.ndarray:
    """(n, K) the kinds in the current player's hand (Mask.HAND_CARDS: command card, Inquisition gift)."""
    result: np.ndarray = state.hand[g, state.current_player[g]] > 0
    return result


def offer_mask(state: State, g: np.ndarray) -> np.ndarray:
    """(n, K) the kinds on offer (Mask.OFFER_CARDS: Festival pick, Phase III keep)."""
    result: np.ndarray = state.offer[g] > 0
    return result
