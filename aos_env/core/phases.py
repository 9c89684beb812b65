"""The phases of the engine's state machine: each phase's one home.

``state.phase`` says what each game waits for. A *decision* is a choice of the current player
(one action id); an *internal* phase is a step the engine runs by itself inside ``step``. This
module holds what is known about each phase: its kind, the question it asks, whether it is a
repeated choice, the rules clause, and its place in the observation. Each engine has the
phase's behaviour in one function of one topic module (the same module name in
``np_engine/`` and ``nb_engine/``); ``engine.py`` of each engine dispatches on the phase.

The values are stable: a new phase gets the next free value, so nothing is renumbered. The
observation encodes the phase through ``OBS_PHASES``, an explicit list, so saved models keep
their inputs whatever the enum's numbering.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from types import SimpleNamespace


class Phase(IntEnum):
    """What a game is waiting for: a decision (``DECISIONS``), ``GAME_OVER``, or an internal step
    (``INTERNAL``), never visible after ``init``/``step``. The first decisions have values below
    ``GAME_OVER`` and the first internal steps values above it; phases added later take the next
    free value, whatever their kind (``IS_INTERNAL`` tells them apart)."""

    # -- decisions --
    COMMAND = 0
    LEPRECHAUN = 1
    LEPRECHAUN_DISCARD = 2
    ASMODAI = 3
    MAIN = 4
    BALDANDERS = 5
    PAY = 6
    NIGHTMARE_HAND = 7
    NIGHTMARE_MANA = 8
    CONQUEST_TARGET = 9
    RESEARCH_FLIP = 10
    ALCHEMY = 11
    PRAYER = 12
    PRAYER_DISCARD = 13
    FESTIVAL_PICK = 14
    INQUISITION_GIFT = 15
    PILGRIMAGE = 16
    KEEP = 17
    BELIAL = 18
    DECLARE = 19
    SHORTAGE_HAND = 20
    SHORTAGE_MANA = 21
    # -- finished (terminated or truncated): no legal action --
    GAME_OVER = 22
    # -- internal steps --
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
    INQUISITION_DECK_GIFT = 38
    # -- decisions added with observation version 3 (R10.1: Nightmare and Homunculus are optional) --
    NIGHTMARE = 39
    HOMUNCULUS_FLIP = 40


NUM_PHASES = len(Phase)
#: The phase values as plain ints. Looking up an IntEnum member costs about a microsecond
#: (EnumType.__getattr__), a namespace attribute a few tens of nanoseconds: hot code uses these.
PH = SimpleNamespace(**{p.name: int(p) for p in Phase})
#: Pass bookkeeping (np_engine): a game that waits for a player (not a phase value).
WAITING = -1


@dataclass(frozen=True)
class PhaseInfo:
    """What is known about a phase besides its behaviour."""

    clause: str  # the rules clause (docs/rules.md) or ability it belongs to
    question: str = ""  # decisions: what the player is asked, in words
    #: a repeated choice: a multiset picked one unit at a time in ascending action order
    #: (``state.choice_left`` / ``state.choice_floor``, shown in the observation)
    repeated: bool = False

    @property
    def decision(self) -> bool:
        return bool(self.question)


PHASES: dict[Phase, PhaseInfo] = {
    Phase.COMMAND: PhaseInfo("R3.1.1", "Phase I: play a command card from your hand"),
    Phase.LEPRECHAUN: PhaseInfo("Leprechaun", "Start of turn: use Leprechaun (draw, then discard as many)?"),
    Phase.LEPRECHAUN_DISCARD: PhaseInfo("Leprechaun", "Leprechaun: discard a card", repeated=True),
    Phase.ASMODAI: PhaseInfo("Asmodai", "Asmodai: count your command card as 0?"),
    Phase.MAIN: PhaseInfo("R3.2", "Phase II: summon a spirit or perform the action"),
    Phase.BALDANDERS: PhaseInfo("Baldanders", "Baldanders: place a card from your hand as mana before paying?",
                                repeated=True),
    Phase.PAY: PhaseInfo("R5.2", "Pay the summoning cost, one mana at a time", repeated=True),
    Phase.NIGHTMARE: PhaseInfo("Nightmare, R10.1",
                               "Nightmare: make every player, you too, discard down to 6 cards and 7 mana?"),
    Phase.NIGHTMARE_HAND: PhaseInfo("Nightmare", "Nightmare: discard down to 6 cards in hand", repeated=True),
    Phase.NIGHTMARE_MANA: PhaseInfo("Nightmare", "Nightmare: discard down to 7 mana", repeated=True),
    Phase.CONQUEST_TARGET: PhaseInfo("R6.1", "Conquest: whom do you steal 1 VP from?"),
    Phase.RESEARCH_FLIP: PhaseInfo("R6.2", "Research: turn a face-up mana into a philosopher's stone",
                                   repeated=True),
    Phase.HOMUNCULUS_FLIP: PhaseInfo("Homunculus, R10.1",
                                     "Homunculus: turn one more face-up mana into a stone? (NO stops)", repeated=True),
    Phase.ALCHEMY: PhaseInfo("R6.3", "Alchemy: choose an option"),
    Phase.PRAYER: PhaseInfo("R6.4", "Prayer: choose an option"),
    Phase.PRAYER_DISCARD: PhaseInfo("R6.4", "Prayer: discard cards (any number), then draw up to 5", repeated=True),
    Phase.FESTIVAL_PICK: PhaseInfo("R6.5", "Festival: which revealed card goes into your mana row?"),
    Phase.INQUISITION_GIFT: PhaseInfo("R6.6", "Inquisition: give a card to the active player"),
    Phase.PILGRIMAGE: PhaseInfo("R6.7", "Pilgrimage: choose an option"),
    Phase.KEEP: PhaseInfo("R3.3", "Phase III: keep one card; the other is assisted to your right neighbour"),
    Phase.BELIAL: PhaseInfo("Belial", "Belial: discard a Lightning mana or a stone for 2 VP?", repeated=True),
    Phase.DECLARE: PhaseInfo("R7.1", "Declare the end of the game?"),
    Phase.SHORTAGE_HAND: PhaseInfo("R8.3", "Nothing left to draw (R8.3): discard down to 9 cards in hand",
                                   repeated=True),
    Phase.SHORTAGE_MANA: PhaseInfo("R8.3", "Nothing left to draw (R8.3): discard down to 9 mana", repeated=True),
    Phase.GAME_OVER: PhaseInfo("R7"),
    Phase.TURN_START: PhaseInfo("R3"),
    Phase.LEPRECHAUN_DRAWN: PhaseInfo("Leprechaun"),
    Phase.COMMAND_START: PhaseInfo("R3.1.2"),
    Phase.COMMAND_DONE: PhaseInfo("R3.1.1"),
    Phase.SUMMON_DONE: PhaseInfo("R5.3"),
    Phase.ACTION: PhaseInfo("R6"),
    Phase.FESTIVAL_RESOLVE: PhaseInfo("R6.5"),
    Phase.INQUISITION_NEXT: PhaseInfo("R6.6"),
    Phase.INQUISITION_DECK_GIFT: PhaseInfo("R6.6, R8.2"),
    Phase.PHASE3: PhaseInfo("R3.3.1"),
    Phase.KEEP_START: PhaseInfo("R3.3.1"),
    Phase.END_TURN: PhaseInfo("R3.3.3"),
    Phase.DECLARE_CHECK: PhaseInfo("R7.1"),
    Phase.NEXT_TURN: PhaseInfo("R7.2"),
    Phase.DRAW: PhaseInfo("R8.1-R8.3"),
    Phase.DISCARD_NEXT: PhaseInfo("Nightmare, R8.3"),
}
assert set(PHASES) == set(Phase)

DECISIONS: tuple[Phase, ...] = tuple(p for p in Phase if PHASES[p].decision)
INTERNAL: tuple[Phase, ...] = tuple(p for p in Phase if not PHASES[p].decision and p != Phase.GAME_OVER)
REPEATED: tuple[Phase, ...] = tuple(p for p in Phase if PHASES[p].repeated)

#: The observation's phase one-hot, in this order (never renumber: saved models rely on it;
#: a new decision goes at the end, with a new observation version).
OBS_PHASES: tuple[Phase, ...] = (
    Phase.COMMAND, Phase.LEPRECHAUN, Phase.LEPRECHAUN_DISCARD, Phase.ASMODAI, Phase.MAIN, Phase.BALDANDERS,
    Phase.PAY, Phase.NIGHTMARE_HAND, Phase.NIGHTMARE_MANA, Phase.CONQUEST_TARGET, Phase.RESEARCH_FLIP,
    Phase.ALCHEMY, Phase.PRAYER, Phase.PRAYER_DISCARD, Phase.FESTIVAL_PICK, Phase.INQUISITION_GIFT,
    Phase.PILGRIMAGE, Phase.KEEP, Phase.BELIAL, Phase.DECLARE, Phase.SHORTAGE_HAND, Phase.SHORTAGE_MANA,
    Phase.GAME_OVER,
    # observation version 3
    Phase.NIGHTMARE, Phase.HOMUNCULUS_FLIP,
)
assert set(OBS_PHASES) == set(DECISIONS) | {Phase.GAME_OVER}
NUM_DECISION_PHASES = len(DECISIONS)


def _lookup(phases) -> list[int]:
    table = [-1] * NUM_PHASES
    for i, p in enumerate(phases):
        table[int(p)] = i
    return table


#: Phase value -> position in OBS_PHASES (-1 for internal phases), for the engines.
OBS_PHASE_INDEX: tuple[int, ...] = tuple(_lookup(OBS_PHASES))
#: Phase value -> 1 for repeated choices.
IS_REPEATED: tuple[int, ...] = tuple(int(PHASES[p].repeated) for p in Phase)
#: Phase value -> 1 for internal steps (the engine runs them itself).
IS_INTERNAL: tuple[int, ...] = tuple(int(p in INTERNAL) for p in Phase)
