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
- **Optional abilities**: Leprechaun and Belial always, Asmodai when the
  action it gives is better, Baldanders only when a payment needs it.
- **End declaration**: only when its current score leads the table.
"""

from __future__ import annotations

import numpy as np

from aos_env import core
from aos_env.cards import ACTIONS, BONUS_FIELDS, DEFAULT, NUM_KINDS, CardSet
from aos_env.checks import fail
from aos_env.core import OBS_PHASES, Phase
from aos_env.core.constants import (
    ACT, MANA_0, NO, NUM_ACTIONS, OPTION_A, OPTION_B, STONE, TARGET_1, YES,
    game_action_of_number as action_of_number,
)

from .base import BaseAgent, masked_argmax

SL = core.obs_slices()
K = NUM_KINDS

# worth of one unit of each plain bonus, in VP, over the rest of a game
_BONUS_WORTH = {"vp": 1.0, "faith": 0.6, "cards": 0.7, "stones": 0.7, "flips": 0.5, "steal": 0.8, "vp_per_gift": 0.6}
_ACTION_USES = 2.5  # about how often a player takes one given action after a summon
_SPECIAL_WORTH = {
    "asmodai": 0.7, "nightmare": 0.8, "belial": 2.5, "leprechaun": 0.6, "baldanders": 0.6, "treant": 1.2,
    "cerberus": 1.5, "gargoyle": 1.8, "sphinx": 2.5, "giant": 0.0, "pegasus": 1.0, "valkyrie": 1.0, "baal": 2.5,
}
_SCORE_EXPECT = {"axe": 2.0, "staff": 2.5, "sword": 2.0, "shield": 2.0, "armour": 2.0, "icon_set": 0.4,
                 "stone": 2.0, "faith": 5.0}
# base worth of each action, before the player's own numbers
_ACTION_BASE = {"conquest": 1.5, "research": 0.6, "alchemy": 1.7, "prayer": 1.3, "festival": 2.0,
                "inquisition": 2.4, "pilgrimage": 0.0}


def spirit_values(cards: CardSet) -> np.ndarray:
    """(K,) a summoned spirit's worth in VP (see the module docstring)."""
    worth = np.array([_BONUS_WORTH[f] for f in BONUS_FIELDS])
    value = cards.points.astype(float)
    value += (cards.action_bonus @ worth).sum(0) * _ACTION_USES
    value += cards.summon_bonus @ worth
    for name, vec in cards.special.items():
        value += vec * _SPECIAL_WORTH.get(name, 0.5)
    value += cards.score @ np.array([_SCORE_EXPECT[s] for s in ("axe", "staff", "sword", "shield", "armour",
                                                                "icon_set", "stone", "faith")])
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
        self._value_per_cost = self.value / np.sqrt(self.cost_total)  # (K,) worth of holding a card
        self._action_base = np.array([_ACTION_BASE[a] for a in ACTIONS])

    # -- helpers on a batch of observations --------------------------------------------

    def _seat(self, obs: np.ndarray, seat: int, name: str) -> np.ndarray:
        return obs[:, SL[f"seat{seat}.{name}"]]

    def _need_by_colour(self, hand: np.ndarray) -> np.ndarray:
        """(B, 5) coloured symbols the spirits in hand would cost."""
        return hand @ self.cards.cost

    def _action_values(self, obs: np.ndarray, numbers: np.ndarray) -> np.ndarray:
        """(B, n) worth of the action of each command number (numbers (B, n))."""
        cards = self.cards
        spirits = self._seat(obs, 0, "spirits")
        icons = spirits @ cards.icons
        stones = self._seat(obs, 0, "stones")[:, 0] * 10
        faith = self._seat(obs, 0, "faith")[:, 0] * 10
        vp_bonus = np.stack([spirits @ cards.action_bonus[a][:, 0] for a in range(7)], axis=1)  # (B, 7)
        per_action = self._action_base[None] + vp_bonus
        per_action[:, 0] += icons[:, 0] + icons[:, 2]  # Conquest: axes and swords
        per_action[:, 1] += stones
        per_action[:, 6] += np.maximum(faith, 1.2)
        a = action_of_number(np.rint(numbers).astype(np.int64))
        return np.take_along_axis(per_action, a, axis=1)

    def _synergy(self, obs: np.ndarray) -> np.ndarray:
        """(B, K) 0.3 per spirit in play of each kind's colour."""
        colours = self._seat(obs, 0, "spirits") @ self.cards.colour_onehot  # spirits per colour in play
        return 0.3 * colours[:, self.cards.colour]

    def _keep_value(self, obs: np.ndarray) -> np.ndarray:
        """(B, K) how much the player wants to hold a card of each kind."""
        return self._value_per_cost[None] + self._synergy(obs)

    def _mana_surplus(self, obs: np.ndarray) -> np.ndarray:
        """(B, 5) face-up mana of each colour beyond what the hand's spirits need."""
        mana = self._seat(obs, 0, "mana") @ self.cards.colour_onehot
        return mana - self._need_by_colour(obs[:, SL["hand"]])

    # -- the policy ----------------------------------------------------------------------

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: core.State | None = None) -> np.ndarray:
        obs = obs.astype(np.float64)
        B = obs.shape[0]
        scores = np.zeros((B, NUM_ACTIONS))
        phase = obs[:, SL["phase"]].argmax(1)  # position in OBS_PHASES
        for ph in np.unique(phase):
            if OBS_PHASES[ph] == Phase.GAME_OVER:
                continue
            rows = np.nonzero(phase == ph)[0]
            scores[rows] = self._score(OBS_PHASES[ph], obs[rows], mask[rows])
        # ties: lowest action id (argmax takes the first maximum)
        return masked_argmax(scores, mask)

    def _score(self, ph: Phase, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        cards = self.cards
        n = obs.shape[0]
        s = np.zeros((n, NUM_ACTIONS))
        number = np.rint(obs[:, SL["command_number"]][:, 0] * 10).astype(int)
        if ph == Phase.COMMAND:
            head = self._seat(obs, 0, "head")
            head_no = head @ cards.number
            numbers = head_no[:, None] + cards.number[None]
            s[:, :K] = self._action_values(obs, numbers) - 0.4 * self._keep_value(obs)
        elif ph == Phase.ASMODAI:
            head_no = np.rint(obs[:, SL["head_number"]][:, 0] * 10).astype(int)
            vals = self._action_values(obs, np.stack([head_no, number], 1))
            s[:, YES] = vals[:, 0] - 0.01  # on a tie keep the number as it is
            s[:, NO] = vals[:, 1]
        elif ph == Phase.MAIN:
            act_value = self._action_values(obs, number[:, None])[:, 0]
            s[:, :K] = self.value[None] * 1.3 + self._synergy(obs)
            s[:, ACT] = act_value
        elif ph in (Phase.PAY, Phase.NIGHTMARE_MANA, Phase.SHORTAGE_MANA, Phase.RESEARCH_FLIP):
            s[:, MANA_0 : MANA_0 + 5] = self._mana_surplus(obs)
            s[:, STONE] = -5.0
        elif ph in (Phase.LEPRECHAUN_DISCARD, Phase.NIGHTMARE_HAND, Phase.SHORTAGE_HAND, Phase.INQUISITION_GIFT):
            s[:, :K] = -self._keep_value(obs)
        elif ph == Phase.PRAYER_DISCARD:
            s[:, :K] = 1.0 - self._keep_value(obs)  # discard cards worth less than a fresh draw
            s[:, NO] = 0.0
        elif ph == Phase.BALDANDERS:
            s[:, :K] = -self._keep_value(obs)
            s[:, NO] = 10.0
        elif ph == Phase.KEEP:
            offer = obs[:, SL["offer"]]
            s[:, :K] = self._keep_value(obs) - self._assist_penalty(obs, offer)
        elif ph == Phase.FESTIVAL_PICK:
            s[:, :K] = -self._mana_surplus(obs)[:, cards.colour]  # the colours the hand needs most
        elif ph == Phase.CONQUEST_TARGET:
            for i in range(3):
                s[:, TARGET_1 + i] = self._seat(obs, i + 1, "vp")[:, 0]
        elif ph == Phase.ALCHEMY:
            short = obs[:, SL["seat0.hand_size"]][:, 0] * 10 < 4
            s[:, OPTION_A] = short
            s[:, OPTION_B] = ~short
        elif ph == Phase.PRAYER:
            few = obs[:, SL["seat0.hand_size"]][:, 0] * 10 <= 2
            s[:, OPTION_A] = ~few
            s[:, OPTION_B] = few
        elif ph == Phase.PILGRIMAGE:
            faith = self._seat(obs, 0, "faith")[:, 0] * 10
            s[:, OPTION_A] = faith >= 3
            s[:, OPTION_B] = faith < 3
        elif ph in (Phase.LEPRECHAUN, Phase.BELIAL):
            s[:, YES] = 1.0
            s[:, MANA_0] = 2.0  # Belial: a Lightning mana first
            s[:, STONE] = 1.0
        elif ph == Phase.DECLARE:
            mine = self._seat(obs, 0, "score")[:, 0]
            others = np.max([self._seat(obs, i, "score")[:, 0] for i in (1, 2, 3)], axis=0)
            ahead = mine > others
            s[:, YES] = ahead
            s[:, NO] = ~ahead
        return s

    def _assist_penalty(self, obs: np.ndarray, offer: np.ndarray) -> np.ndarray:
        """(n, K) penalty for keeping kind k: the other offered card goes to the right neighbour.

        With two cards on offer, keeping k assists the other one, whose number is
        the offer's total minus k's number.
        """
        cards = self.cards
        n = obs.shape[0]
        right = obs[:, SL["num_players"]].argmax(1) + 1  # the right neighbour is seat P-1
        rows = np.arange(n)
        icons = np.stack([self._seat(obs, i, "icons") for i in range(4)], axis=1)[rows, right] * 5
        faith = np.stack([self._seat(obs, i, "faith")[:, 0] for i in range(4)], axis=1)[rows, right] * 10
        conquest_player = icons[:, 0] + icons[:, 2]
        other_no = (offer @ cards.number)[:, None] - cards.number[None]  # (n, K)
        other_value = (offer @ self.value)[:, None] - self.value[None]
        helps_conquest = (other_no <= 2) * conquest_player[:, None] * 0.4
        helps_pilgrimage = (other_no >= 4) * faith[:, None] * 0.15
        return helps_conquest + helps_pilgrimage + 0.2 * other_value / 3
