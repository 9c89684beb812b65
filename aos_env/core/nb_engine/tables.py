"""The card tables the compiled engine reads, as one record (int64 fields), made once per card set."""

from __future__ import annotations

import numpy as np

from ..cards import SPECIALS, CardSet
from ..constants import NUM_COLOURS, K
from ..state import NUM_STATS

#: (name, shape) of each table, all int64.
TABLES: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("colour", (K,)),
    ("number", (K,)),
    ("copies", (K,)),
    ("cost", (K, NUM_COLOURS)),
    ("cost_any", (K,)),
    ("colour_onehot", (K, NUM_COLOURS)),
    ("stat_table", (K, NUM_STATS)),
    ("summon_bonus", (K, 7)),
    ("special", (len(SPECIALS), K)),  # rows in SPECIALS order: 1 for the kinds with that ability
)
TABLE_DTYPE = np.dtype([(name, np.int64, shape) for name, shape in TABLES], align=True)

_MADE: dict[int, tuple[CardSet, np.ndarray]] = {}


def card_tables(cards: CardSet) -> np.ndarray:
    """A one-record array of ``cards``' tables (cached per card set)."""
    hit = _MADE.get(id(cards))
    if hit is not None and hit[0] is cards:
        return hit[1]
    parts = {
        "colour": cards.colour,
        "number": cards.number,
        "copies": cards.copies,
        "cost": cards.cost,
        "cost_any": cards.cost_any,
        "colour_onehot": cards.colour_onehot,
        "stat_table": cards.stat_table,
        "summon_bonus": cards.summon_bonus,
        "special": np.stack([cards.special[name] for name in SPECIALS]),
    }
    tb = np.zeros(1, dtype=TABLE_DTYPE)
    for name, shape in TABLES:
        arr = np.asarray(parts[name], dtype=np.int64)
        if arr.shape != shape:
            raise ValueError(f"card table {name} has shape {arr.shape}, the compiled engine needs {shape}")
        tb[name][0] = arr
    tb.setflags(write=False)
    _MADE[id(cards)] = (cards, tb)
    return tb
