"""GreedyAgent: a hand-written player that scores every legal action and takes the best.

It reads only its observation (and the card tables), so it plays the same on
the AEC env and on a batch. Its heuristics:

- **Spirit value** of a card kind: printed points, plus its bonuses from the
  card tables (VP, faith, cards, stones per use, weighted by how often they
  pay off), plus a fixed estimate for each special ability and game-end
  scoring, plus a little for icons that match the spirits already in play.
- **Action value** of a command number: what the action would give right now
  (Conquest: axe and sword icons + Imp bonus + the steal; Research: one VP per
  stone; Pilgrimage: VP = faith; card and mana actions a fixed worth, plus
  the table bonuses of the spirits in play).
- **Command card**: the card whose number leads to the best action value,
  minus a share of its value as a spirit (keep good spirits in hand).
- **Phase II**: summon the most valuable affordable spirit when it is worth
  more than the action; otherwise act.
- **Payment and discards of mana**: give up the colour it needs least (mana
  beyond what the spirits in hand cost); keep stones for last.
- **Phase III**: keep the more valuable card; assist the other, preferring a
  card that hurts the right neighbour: a high number to a Conquest player
  (many axes and swords), a low number to a Pilgrimage player (high faith).
- **Options**: Alchemy draws with a short hand, else takes faith; Prayer (b)
  with two cards or fewer in hand; Pilgrimage takes VP from 3 faith up.
- **Conquest** steals from the richest opponent; **gifts and card discards**
  give up the least valuable card; **Festival** keeps the most needed colour.
- **Optional abilities**: Leprechaun, Belial, Nightmare and Homunculus always, Asmodai when the
  action it gives is better, Baldanders only when a payment needs it.
- **End declaration**: only when its current score leads the table.

The worths that depend only on the card set (spirit values, the actions' base worth) are
computed here once, with numpy; the scoring of a position is compiled (numba, cached on disk
like the engine): ``agents/players/_greedy_kernel.py`` has each phase's scoring in one function.
"""

from __future__ import annotations

import numpy as np

from aos_env import core
from aos_env.base.checks import fail
from aos_env.core.cards import ACTIONS, BONUS_FIELDS, DEFAULT, CardSet

from ._greedy_base import greedy_tables
from ._greedy_kernel import greedy_actions
from .base import BaseAgent

# worth of one unit of each plain bonus, in VP, over the rest of a game
_BONUS_WORTH = {"vp": 1.0, "faith": 0.6, "cards": 0.7, "stones": 0.7, "flips": 0.5, "steal": 0.8, "vp_per_gift": 0.6}
_ACTION_USES = 2.5  # about how often a player takes one given action after a summon
_SPECIAL_WORTH = {
    "asmodai": 0.7,
    "nightmare": 0.8,
    "belial": 2.5,
    "leprechaun": 0.6,
    "baldanders": 0.6,
    "treant": 1.2,
    "cerberus": 1.5,
    "gargoyle": 1.8,
    "sphinx": 2.5,
    "giant": 0.0,
    "pegasus": 1.0,
    "valkyrie": 1.0,
    "baal": 2.5,
}
_SCORE_EXPECT = {
    "axe": 2.0,
    "staff": 2.5,
    "sword": 2.0,
    "shield": 2.0,
    "armour": 2.0,
    "icon_set": 0.4,
    "stone": 2.0,
    "faith": 5.0,
}
# base worth of each action, before the player's own numbers
_ACTION_BASE = {
    "conquest": 1.5,
    "research": 0.6,
    "alchemy": 1.7,
    "prayer": 1.3,
    "festival": 2.0,
    "inquisition": 2.4,
    "pilgrimage": 0.0,
}


def spirit_values(cards: CardSet) -> np.ndarray:
    """(K,) a summoned spirit's worth in VP (see the module docstring)."""
    worth = np.array([_BONUS_WORTH[f] for f in BONUS_FIELDS])
    value = cards.points.astype(float)
    value += (cards.action_bonus @ worth).sum(0) * _ACTION_USES
    value += cards.summon_bonus @ worth
    for name, vec in cards.special.items():
        value += vec * _SPECIAL_WORTH.get(name, 0.5)
    value += cards.score @ np.array(
        [_SCORE_EXPECT[s] for s in ("axe", "staff", "sword", "shield", "armour", "icon_set", "stone", "faith")]
    )
    return value


class GreedyAgent(BaseAgent):
    """Scores each legal action with the heuristics of the module docstring; ties go to the lowest id."""

    name = "greedy"

    def __init__(self, seed: int | None = 0, cards: CardSet | None = None) -> None:
        if cards is not None and not isinstance(cards, CardSet):
            raise fail("cards", "a CardSet (aos_env.cards.load_cards) or None", cards)
        super().__init__(seed)
        self.cards = cards or DEFAULT
        self.value = spirit_values(self.cards)
        self.cost_total = self.cards.cost.sum(1) + self.cards.cost_any
        hold_value = self.value / np.sqrt(self.cost_total)  # (K,) worth of holding a card, before synergy
        action_base = np.array([_ACTION_BASE[a] for a in ACTIONS])
        self._tables = greedy_tables(self.cards, self.value, hold_value, action_base)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: core.State | None = None) -> np.ndarray:
        if obs.dtype != np.float32 and obs.dtype != np.float64:
            obs = obs.astype(np.float64)
        out = np.empty(obs.shape[0], dtype=np.int64)
        greedy_actions(np.ascontiguousarray(obs), np.ascontiguousarray(mask), self._tables, out)
        return out


def warm() -> None:
    """Compile (or load) the greedy kernel by letting greedy play a few games in one batch, through
    the tournament loop (``python -m aos_env.core.prebuild OUT --also agents.players.greedy``, what
    ``pip install`` runs)."""
    from ..evaluation.matches import play_games

    play_games([GreedyAgent(seed=0), GreedyAgent(seed=1)], 2, 4, seed=0, batch_size=4)
