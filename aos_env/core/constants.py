"""Named numbers of the game and of the engine: action ids, colours, mana units, icons, and
the numbers the rules fix (hand sizes, limits, thresholds). Both engines read them from here.

Action ids (docs/api.md "Actions"):

    0-29  CARD_k        a card of kind k (from hand, or among the cards on offer)
    30-34 MANA_<colour> a face-up mana of that colour (pay, discard, flip, Belial)
    35    STONE         a philosopher's stone
    36    ACT           Phase II: perform the command number's action instead of summoning
    37-38 OPTION_A/B    the first / second option of Alchemy, Prayer, Pilgrimage
    39-40 YES / NO      use an optional ability, declare the end / decline, stop, skip
    41-43 TARGET_1..3   the player 1, 2 or 3 seats to your left (Conquest)
"""

from __future__ import annotations

from typing import overload

import numpy as np

from .cards import COLOURS, ICONS, NUM_KINDS

K = NUM_KINDS  # 30 card kinds
MAX_PLAYERS = 4
MIN_PLAYERS = 2

# ---- colours, mana units, icons (R1.2) ---------------------------------------------------
NUM_COLOURS = len(COLOURS)  # 5; colour index c has number c + 1
BLACK, GREEN, RED, YELLOW, BLUE = range(NUM_COLOURS)
#: A unit of mana to give up (pay, discard, flip, Belial): the five colours, then a stone.
NUM_UNITS = NUM_COLOURS + 1
STONE_UNIT = NUM_COLOURS
NUM_ICONS = len(ICONS)  # a spirit of colour c shows icon c
AXE, STAFF, SWORD, SHIELD, ARMOUR = range(NUM_ICONS)

# ---- action ids ------------------------------------------------------------------------------
CARD_0 = 0  # CARD_k = k
MANA_BLACK, MANA_GREEN, MANA_RED, MANA_YELLOW, MANA_BLUE = range(30, 30 + NUM_COLOURS)
MANA_0 = MANA_BLACK  # MANA_<colour c> = MANA_0 + c; unit u (STONE_UNIT too) is action MANA_0 + u
STONE = MANA_0 + STONE_UNIT
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
assert len(ACTION_NAMES) == NUM_ACTIONS and STONE == 35

# ---- the seven game actions (R6), by command number -------------------------------------------
CONQUEST, RESEARCH, ALCHEMY, PRAYER, FESTIVAL, INQUISITION, PILGRIMAGE = range(7)
NUM_GAME_ACTIONS = 7
LOWEST_ACTION_NUMBER, HIGHEST_ACTION_NUMBER = 3, 9  # "3 or less": Conquest, "9 or more": Pilgrimage
MAX_COMMAND_NUMBER = 10  # two cards of number 5

#: The R6 table: command number 0..31 (a number above 31 reads row 31) -> game action (R10.3: 3 or
#: less Conquest, 9 or more Pilgrimage). Both engines read it (np.clip is slow on small arrays; the
#: compiled engine looks it up too, ``nb_engine.actions.game_action_of_number``).
GAME_ACTION_OF_NUMBER = np.clip(np.arange(32), LOWEST_ACTION_NUMBER, HIGHEST_ACTION_NUMBER) - LOWEST_ACTION_NUMBER
GAME_ACTION_OF_NUMBER.setflags(write=False)
LAST_NUMBER_ROW = GAME_ACTION_OF_NUMBER.size - 1


@overload
def game_action_of_number(number: int) -> int: ...
@overload
def game_action_of_number(number: np.ndarray) -> np.ndarray: ...
def game_action_of_number(number: int | np.ndarray) -> int | np.ndarray:
    """Command number(s) -> game action(s), from the R6 table ``GAME_ACTION_OF_NUMBER``."""
    if isinstance(number, (int, np.integer)):
        return int(GAME_ACTION_OF_NUMBER[min(int(number), LAST_NUMBER_ROW)])
    result: np.ndarray = GAME_ACTION_OF_NUMBER[np.minimum(number, LAST_NUMBER_ROW)]
    return result


# ---- numbers the rules fix ---------------------------------------------------------------------
INITIAL_HAND, INITIAL_MANA, INITIAL_FAITH = 6, 2, 1  # R2.3, R2.4
FAITH_CAP = 10  # R1.4
PHASE3_DRAW = 2  # R3.3.1
DECLARE_SPIRITS, DECLARE_VP = 10, 30  # R7.1
SHORTAGE_LIMIT = 9  # R8.3: hand and mana limits when nothing is left to draw
NIGHTMARE_HAND_LIMIT, NIGHTMARE_MANA_LIMIT = 6, 7
PRAYER_DRAW = 2  # R6.4 (a)
PRAYER_HAND_SIZE = 5  # R6.4 (b)
FESTIVAL_REVEAL = 2  # R6.5
INQUISITION_DRAW, INQUISITION_DRAW_4P = 3, 2  # R6.6
SPHINX_TO_HAND = 3
BELIAL_COLOUR, BELIAL_VP = BLACK, 2
PEGASUS_FAITH = 2
CERBERUS_NUMBERS, CERBERUS_VP = (4, 5), 1
DEFAULT_MAX_TURNS = 200  # R7.5 [decision]

# ---- columns of State.draw_pend: where pending draws go, in the order they are drawn -------------
PEND_CMD, PEND_HAND, PEND_MANA, PEND_STONE, PEND_OFFER = range(5)
NUM_PEND = 5

# ---- how the Python side talks to the compiled engine's kernels (nb_engine.engine) ---------------
# Here, not in nb_engine, because ``core.GameHandle`` calls the one-game kernel itself (the AEC env's
# every step) and api.py must not import numba before a numba state exists.
#: A kernel's status: done; an illegal action (the one-game kernel; nothing changed; the batch
#: kernels return the position of the first illegal action, >= 0); a decision with no legal action.
KERNEL_OK, KERNEL_ILLEGAL, KERNEL_BUG = -1, 0, -2
#: What the one-game kernel (``engine.one_game``) does: set its game up, or step it.
KERNEL_SETUP, KERNEL_STEP = 0, 1
