"""Moving cards between zones, for one game (its record ``r``): mana by colour, stones, the deck, the discard
pile, hands (the scalar twin of ``np_engine/zones.py``)."""

from __future__ import annotations

import numpy as np

from ..constants import NUM_COLOURS, STONE_UNIT, K
from . import rng
from ._jit import Array, Int, Record, Tables, jit


@jit
def zone_size(row: Array) -> int:
    """Cards in a zone row (counts by kind)."""
    n = 0
    for k in range(K):
        n += row[k]
    return n


@jit
def mana_total(r: Record, p: int) -> int:
    """Face-up mana plus stones of player p (the waiting head counts, R4.3)."""
    return zone_size(r.mana[p]) + zone_size(r.stones[p])


@jit
def colour_count(r: Record, t: Tables, p: int, colour: int) -> int:
    """Face-up mana of ``colour`` of player p, the waiting head included."""
    n = 0
    for k in range(K):
        if t.colour[k] == colour:
            n += r.mana[p, k]
    return n


@jit
def mana_by_colour(r: Record, t: Tables, p: int, out: Array) -> int:
    """``out`` (5,) = player p's face-up mana by colour (the waiting head included); returns the total."""
    for c in range(NUM_COLOURS):
        out[c] = 0
    for k in range(K):
        out[t.colour[k]] += r.mana[p, k]
    n = 0
    for c in range(NUM_COLOURS):
        n += out[c]
    return n


@jit
def givable(r: Record, p: int, k: int) -> bool:
    """Face-up mana of kind k of player p that may be given up: not the waiting head (R4.3)."""
    n = np.int64(r.mana[p, k])
    if r.head[p] == k:
        n -= 1
    return n


@jit
def choosable_units(r: Record, t: Tables, p: int, out: Array) -> None:
    """``out`` (6,) = units that may be given up: face-up mana by colour (not the waiting head),
    then stones."""
    for u in range(NUM_COLOURS + 1):
        out[u] = 0
    for k in range(K):
        out[t.colour[k]] += givable(r, p, k)
    out[STONE_UNIT] = zone_size(r.stones[p])


@jit
def take_mana(r: Record, t: Tables, p: int, colour: int) -> int:
    """Remove one face-up mana of ``colour`` (not the waiting head) and return its kind: the
    lowest kind of that colour (mana of one colour is interchangeable in play)."""
    for k in range(K):
        if t.colour[k] == colour and givable(r, p, k) > 0:
            r.mana[p, k] -= 1
            return k
    return -1


@jit
def random_kind(r: Record, row: Array) -> int:
    """A kind drawn with probability proportional to the counts ``row`` (one random number)."""
    x = rng.randint(r, zone_size(row))
    return kind_at(row, x)


@jit
def kind_at(row: Array, r: Int) -> int:
    """The kind of card number r (0-based) of a zone, counting kinds in order."""
    c = 0
    for k in range(K):
        c += row[k]
        if c > r:
            return k
    return K - 1


@jit
def take_stone(r: Record, p: int) -> int:
    """Remove one of player p's stones, a random one (nobody knows their faces)."""
    k = random_kind(r, r.stones[p])
    r.stones[p, k] -= 1
    return k


@jit
def give_up_unit(r: Record, t: Tables, p: int, unit: int) -> int:
    """Move one unit (colour 0..4, or STONE_UNIT: a stone) of player p to the discard pile."""
    if unit == STONE_UNIT:
        k = take_stone(r, p)
    else:
        k = take_mana(r, t, p, unit)
    r.discard[k] += 1
    return k


@jit
def give_up_units(r: Record, t: Tables, p: int, take: Array) -> None:
    """Move ``take`` (6,) units of player p to the discard pile: the colours lowest kinds first,
    then the stones one by one (as ``give_up_unit`` repeated)."""
    for c in range(NUM_COLOURS):
        for _ in range(take[c]):
            k = take_mana(r, t, p, c)
            r.discard[k] += 1
    for _ in range(take[STONE_UNIT]):
        k = take_stone(r, p)
        r.discard[k] += 1


@jit
def hand_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """``mask`` (K,): the kinds in the current player's hand (Mask.HAND_CARDS: command card,
    Inquisition gift)."""
    p = r.current_player
    for k in range(K):
        mask[k] = r.hand[p, k] > 0


@jit
def offer_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """``mask`` (K,): the kinds on offer (Mask.OFFER_CARDS: Festival pick, Phase III keep)."""
    for k in range(K):
        mask[k] = r.offer[k] > 0


@jit
def draw_from_deck(r: Record) -> int:
    """Take a uniformly random card of the deck (which must not be empty)."""
    k = random_kind(r, r.deck)
    r.deck[k] -= 1
    return k
