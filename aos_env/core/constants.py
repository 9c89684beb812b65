"""Action ids (INTERFACE.md) and the phases of the engine's state machine."""

from __future__ import annotations

from enum import IntEnum
from types import SimpleNamespace

import numpy as np

from ..cards import COLOURS, NUM_KINDS

K = NUM_KINDS  # 30 card kinds
MAX_PLAYERS = 4

# ---- actions (INTERFACE.md "Actions") -------------------------------------
CARD_0 = 0  # CARD_k = k: a card of kind k (hand or offer)
MANA_BLACK, MANA_GREEN, MANA_RED, MANA_YELLOW, MANA_BLUE = 30, 31, 32, 33, 34
MANA_0 = MANA_BLACK  # MANA_BLACK + colour index
STONE = 35
ACT = 36
OPTION_A = 37
OPTION_B = 38
YES = 39
NO = 40
TARGET_1, TARGET_2, TARGET_3 = 41, 42, 43
NUM_ACTIONS = 44

ACTION_NAMES: tuple[str, ...] = (
    tuple(f"CARD_{k}" for k in range(K))
    + tuple(f"MANA_{c.upper()}" for c in COLOURS)
    + ("STONE", "ACT", "OPTION_A", "OPTION_B", "YES", "NO", "TARGET_1", "TARGET_2", "TARGET_3")
)
assert len(ACTION_NAMES) == NUM_ACTIONS


class Phase(IntEnum):
    """What a game is waiting for.

    Values below ``GAME_OVER`` are decisions a player makes (``state.phase`` of a
    game returned by ``init``/``step`` is one of them, or ``GAME_OVER``). The
    values above are internal steps the engine runs by itself inside ``step``.
    """

    # -- decisions (RULES clause in brackets) --
    COMMAND = 0  # play a command card from hand: CARD_k (R3.1.1)
    LEPRECHAUN = 1  # use Leprechaun at the start of the turn: YES / NO
    LEPRECHAUN_DISCARD = 2  # discard after Leprechaun's draw: CARD_k
    ASMODAI = 3  # count the command card as 0: YES / NO
    MAIN = 4  # summon a spirit (CARD_k) or perform the action (ACT) (R3.2)
    BALDANDERS = 5  # place a hand card as mana before paying: CARD_k / NO
    PAY = 6  # pay one symbol of the cost: MANA_c / STONE (R5.2)
    NIGHTMARE_HAND = 7  # Nightmare: discard a card down to 6: CARD_k
    NIGHTMARE_MANA = 8  # Nightmare: discard mana down to 7: MANA_c / STONE
    CONQUEST_TARGET = 9  # whom to steal from: TARGET_i (R6.1)
    RESEARCH_FLIP = 10  # mana to turn into a stone: MANA_c (R6.2)
    ALCHEMY = 11  # OPTION_A draw+stone / OPTION_B faith+stone (R6.3)
    PRAYER = 12  # OPTION_A draw 2 / OPTION_B discard then refill to 5 (R6.4)
    PRAYER_DISCARD = 13  # Prayer (b): discard CARD_k, or NO to stop
    FESTIVAL_PICK = 14  # Festival: the revealed card to keep as mana: CARD_k (R6.5)
    INQUISITION_GIFT = 15  # Inquisition: the card to give: CARD_k (R6.6)
    PILGRIMAGE = 16  # OPTION_A VP = faith / OPTION_B draw + faith (R6.7)
    KEEP = 17  # Phase III: the drawn card to keep: CARD_k; the other is assisted (R3.3)
    BELIAL = 18  # Belial: MANA_BLACK / STONE for 2 VP, or NO
    DECLARE = 19  # declare the end: YES / NO (R7.1)
    SHORTAGE_HAND = 20  # R8.3: discard a card down to 9: CARD_k
    SHORTAGE_MANA = 21  # R8.3: discard mana down to 9: MANA_c / STONE
    GAME_OVER = 22  # finished (terminated or truncated): no legal action
    # -- internal steps, never visible after init/step --
    TURN_START = 23
    LEPRECHAUN_DRAWN = 24
    COMMAND_START = 25
    COMMAND_DONE = 26
    SUMMON_DONE = 27
    ACTION = 28
    FESTIVAL_RESOLVE = 29
    INQUISITION_NEXT = 30
    PHASE3 = 31
    KEEP_START = 32
    END_TURN = 33
    NEXT_TURN = 34
    DRAW = 35
    DISCARD_NEXT = 36
    DECLARE_CHECK = 37
    INQUISITION_DECK_GIFT = 38  # after the draw of a gift from the deck (R8.2): Succubus


NUM_PHASES = len(Phase)

#: The Phase values as plain ints. Looking up an IntEnum member costs about a
#: microsecond (EnumType.__getattr__), a namespace attribute a few tens of
#: nanoseconds; the engine's hot code uses these.
PH = SimpleNamespace(**{p.name: int(p) for p in Phase})
NUM_DECISION_PHASES = int(Phase.GAME_OVER)  # decisions are 0 .. GAME_OVER-1

#: Action of each command number (R6 table): index into cards.ACTIONS.
CONQUEST, RESEARCH, ALCHEMY, PRAYER, FESTIVAL, INQUISITION, PILGRIMAGE = range(7)


_ACTION_OF_NUMBER = np.clip(np.arange(32), 3, 9) - 3  # a table: np.clip is slow on small arrays


def action_of_number(number: np.ndarray) -> np.ndarray:
    """Command number -> action index (R6, R10.3: <=3 Conquest, >=9 Pilgrimage)."""
    return _ACTION_OF_NUMBER[np.minimum(number, 31)]
