"""The Gymnasium spaces of the game's observations, global state and action masks, shared by the
PettingZoo, Gymnasium and SB3 envs."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from .. import core
from ..core.cards import CardSet, load_cards
from ..core.constants import MAX_PLAYERS


def observation_box(cards: CardSet | None = None, max_turns: int = core.DEFAULT_MAX_TURNS) -> spaces.Box:
    """The observation vector's space: 0 up to a finite bound per entry, what a game with this card
    set (default: the shipped one) and turn limit can reach (``core.observation_bounds``)."""
    low, high = core.observation_bounds(cards, max_turns)
    return spaces.Box(low, high, (core.OBS_DIM,), dtype=np.float32)


def state_box(cards: CardSet | None = None, max_turns: int = core.DEFAULT_MAX_TURNS) -> spaces.Box:
    """The global state's space (``core.global_state``): every seat's observation (within its
    bounds), then counts by kind of cards, each at most the kind's copies."""
    cards = load_cards() if cards is None else cards
    _, obs_high = core.observation_bounds(cards, max_turns)
    copies = cards.copies.astype(np.float32)
    # STATE_LAYOUT: 4 observations, 4 players' stones by kind, the deck, the discard pile, the offer
    high = np.concatenate([np.tile(obs_high, MAX_PLAYERS), np.tile(copies, MAX_PLAYERS + 3)])
    return spaces.Box(np.zeros(core.STATE_DIM, np.float32), high, (core.STATE_DIM,), dtype=np.float32)


def mask_box() -> spaces.Box:
    """An action mask: 0 or 1 for each of the 44 actions, int8 (as PettingZoo's classic games)."""
    return spaces.Box(0, 1, (core.NUM_ACTIONS,), dtype=np.int8)
