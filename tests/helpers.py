"""Small helpers for scenario tests: name actions, step a single game, read zones."""

from __future__ import annotations

import numpy as np

from aos_env import core
from aos_env.cards import COLOURS, DEFAULT as CARDS
from aos_env.core import Phase
from aos_env.positions import position  # noqa: F401  (re-exported for tests)

_NAMED = {n: i for i, n in enumerate(core.ACTION_NAMES)}


def action_id(a) -> int:
    """An action as an id: an int, an action name ("ACT", "MANA_RED", "TARGET_1"), or a card name ("Sphinx")."""
    if isinstance(a, (int, np.integer)):
        return int(a)
    if a in _NAMED:
        return _NAMED[a]
    return CARDS.kind(a)  # CARD_k


def legal(state: core.State, b: int = 0) -> list[str]:
    """Names of the legal actions of game b (cards by card name)."""
    out = []
    for i in np.nonzero(state.legal_action_mask[b])[0]:
        out.append(CARDS.names[i] if i < 30 else core.ACTION_NAMES[i])
    return out


def play(state: core.State, *actions) -> core.State:
    """Step game 0 of a batch (all games get the same action) through the given actions."""
    for a in actions:
        state = core.step(state, np.full(state.batch_size, action_id(a)))
    return state


def phase(state: core.State, b: int = 0) -> Phase:
    return Phase(int(state.phase[b]))


def cards_of(counts: np.ndarray) -> dict[str, int]:
    """Counts by kind -> {card name: count} (zero counts left out)."""
    return {CARDS.names[k]: int(n) for k, n in enumerate(counts) if n}


def zone(state: core.State, name: str, player: int | None = None, b: int = 0) -> dict[str, int]:
    """A zone of game b as {card name: count}: hand/spirits/mana/stones need a player."""
    arr = getattr(state, name)[b]
    return cards_of(arr[player] if player is not None else arr)


def total_cards(state: core.State) -> np.ndarray:
    """(B,) cards over all zones: always 110."""
    return (
        state.hand.sum((1, 2), dtype=np.int64) + state.spirits.sum((1, 2), dtype=np.int64)
        + state.mana.sum((1, 2), dtype=np.int64) + state.stones.sum((1, 2), dtype=np.int64)
        + state.deck.sum(1, dtype=np.int64) + state.discard.sum(1, dtype=np.int64)
        + state.offer.sum(1, dtype=np.int64)
    )


MANA = {c: f"MANA_{c.upper()}" for c in COLOURS}
