"""The phases of the engine's state machine, and the table both engines are wired from.

``state.phase`` says what each game waits for. A *decision* is a choice of the current player
(one action id); an *internal* phase is a step the engine runs by itself inside ``step``.
``PHASES`` has one row per phase: its kind, the rules clause, and for a decision the question
it asks, which actions its legal-action mask covers (``Mask``), whether the engine takes a
forced part on arrival, whether it is a repeated choice, and its place in the observation. Each
row also names the phase's handler functions in its topic module: a module of the same name
with functions of the same names in ``np_engine/`` (numpy, over a group of games) and in
``nb_engine/`` (numba, one game). ``np_engine/engine.py`` builds its dispatch tables from the
rows and ``nb_engine/engine.py`` generates its dispatch code from them, so a change to a phase is
a change to its row (and to its handlers).

The values are stable: a new phase gets the next free value, so nothing is renumbered. The
observation encodes the phase through ``OBS_PHASES`` (each decision row's ``obs`` slot), so saved
models keep their inputs whatever the enum's numbering.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum, IntEnum
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


class Kind(Enum):
    """What a phase is."""

    DECISION = "decision"  # the current player chooses one action id
    INTERNAL = "internal"  # a step the engine runs by itself inside ``step``
    GAME_OVER = "game over"  # finished: no legal action


class Mask(Enum):
    """Which action ids a decision's legal-action mask covers, and what its apply function is given.

    The fixed kinds need no function of the phase's own; the others name one in the row
    (``mask_fn``). In ``np_engine`` a mask function returns (n, width) bools for games g; in
    ``nb_engine`` it fills a row of that width (a view of the game's mask at that place).
    """

    YES_NO = "yes_no"  # YES and NO, both always legal; apply gets the action id
    OPTIONS = "options"  # OPTION_A and OPTION_B, both always legal; apply gets the action id
    HAND_CARDS = "hand_cards"  # CARD_k for each kind in the current player's hand (zones.hand_mask); apply gets k
    OFFER_CARDS = "offer_cards"  # CARD_k for each kind on offer (zones.offer_mask); apply gets k
    CARDS = "cards"  # CARD_k, over the K kinds, as the phase's mask function says; apply gets k
    UNITS = "units"  # MANA_<colour>, STONE (the 6 units), as the phase's mask function says; apply gets the unit
    ACTIONS = "actions"  # any action ids, over all of them, as the phase's mask function says; apply gets the id


#: The mask functions of the fixed card kinds: (module, function) in both engines.
MASK_FUNCTIONS: dict[Mask, tuple[str, str]] = {
    Mask.HAND_CARDS: ("zones", "hand_mask"),
    Mask.OFFER_CARDS: ("zones", "offer_mask"),
}
#: The kinds whose mask function is the phase's own (``PhaseInfo.mask_fn``).
OWN_MASK = (Mask.CARDS, Mask.UNITS, Mask.ACTIONS)


@dataclass(frozen=True)
class PhaseInfo:
    """One row of the phase table. Handler names are functions of the row's ``module``, with the
    same name in both engines."""

    clause: str  # the rules clause (docs/rules.md) or ability it belongs to
    kind: Kind = Kind.INTERNAL
    question: str = ""  # decisions: what the player is asked, in words
    #: a repeated choice: a multiset picked one unit at a time in ascending action order
    #: (``state.choice_left`` / ``state.choice_floor``, shown in the observation)
    repeated: bool = False
    obs: int = -1  # decisions and GAME_OVER: the position in the observation's phase one-hot (OBS_PHASES)
    module: str = ""  # the topic module holding the handlers (np_engine/<module>.py, nb_engine/<module>.py)
    run: str = ""  # internal steps: the function that runs the step
    mask: Mask | None = None  # decisions: which actions the legal-action mask covers
    mask_fn: str = ""  # Mask.CARDS, UNITS, ACTIONS: the phase's mask function
    apply: str = ""  # decisions: the function that applies the chosen action
    #: decisions with a forced part: the function the engine runs when games arrive at the
    #: decision, which takes the part of the choice that is forced (it may finish the choice)
    forced: str = ""

    @property
    def decision(self) -> bool:
        return self.kind is Kind.DECISION


def _decision(
    clause: str,
    question: str,
    obs: int,
    module: str,
    apply: str,
    mask: Mask,
    mask_fn: str = "",
    forced: str = "",
    repeated: bool = False,
) -> PhaseInfo:
    return PhaseInfo(
        clause, Kind.DECISION, question, repeated, obs, module, mask=mask, mask_fn=mask_fn, apply=apply, forced=forced
    )


def _internal(clause: str, module: str, run: str) -> PhaseInfo:
    return PhaseInfo(clause, Kind.INTERNAL, module=module, run=run)


_Y, _O, _HAND, _OFFER = Mask.YES_NO, Mask.OPTIONS, Mask.HAND_CARDS, Mask.OFFER_CARDS
_CARDS, _UNITS, _ACTIONS = Mask.CARDS, Mask.UNITS, Mask.ACTIONS

PHASES: dict[Phase, PhaseInfo] = {
    # -- decisions: clause, question, observation slot, module, apply, mask [, mask function, forced part] --
    Phase.COMMAND: _decision(
        "R3.1.1", "Phase I: play a command card from your hand", 0, "turn", "apply_command", _HAND
    ),
    Phase.LEPRECHAUN: _decision(
        "Leprechaun",
        "Start of turn: use Leprechaun (draw, then discard as many)?",
        1,
        "abilities",
        "apply_leprechaun",
        _Y,
    ),
    Phase.LEPRECHAUN_DISCARD: _decision(
        "Leprechaun",
        "Leprechaun: discard a card",
        2,
        "abilities",
        "apply_leprechaun_discard",
        _CARDS,
        "leprechaun_discard_mask",
        forced="leprechaun_discard_forced",
        repeated=True,
    ),
    Phase.ASMODAI: _decision("Asmodai", "Asmodai: count your command card as 0?", 3, "abilities", "apply_asmodai", _Y),
    Phase.MAIN: _decision(
        "R3.2", "Phase II: summon a spirit or perform the action", 4, "turn", "apply_main", _ACTIONS, "main_mask"
    ),
    Phase.BALDANDERS: _decision(
        "Baldanders",
        "Baldanders: place a card from your hand as mana before paying?",
        5,
        "summon",
        "apply_baldanders",
        _ACTIONS,
        "baldanders_mask",
        repeated=True,
    ),
    Phase.PAY: _decision(
        "R5.2",
        "Pay the summoning cost, one mana at a time",
        6,
        "summon",
        "apply_pay",
        _UNITS,
        "pay_mask",
        forced="pay_forced",
        repeated=True,
    ),
    Phase.NIGHTMARE: _decision(
        "Nightmare, R10.1",
        "Nightmare: make every player, you too, discard down to 6 cards and 7 mana?",
        23,
        "abilities",
        "apply_nightmare",
        _Y,
    ),
    Phase.NIGHTMARE_HAND: _decision(
        "Nightmare",
        "Nightmare: discard down to 6 cards in hand",
        7,
        "discards",
        "apply_discard_hand",
        _CARDS,
        "discard_hand_mask",
        forced="discard_forced",
        repeated=True,
    ),
    Phase.NIGHTMARE_MANA: _decision(
        "Nightmare",
        "Nightmare: discard down to 7 mana",
        8,
        "discards",
        "apply_discard_mana",
        _UNITS,
        "discard_mana_mask",
        forced="discard_forced",
        repeated=True,
    ),
    Phase.CONQUEST_TARGET: _decision(
        "R6.1",
        "Conquest: whom do you steal 1 VP from?",
        9,
        "actions",
        "apply_conquest_target",
        _ACTIONS,
        "conquest_target_mask",
    ),
    Phase.RESEARCH_FLIP: _decision(
        "R6.2",
        "Research: turn a face-up mana into a philosopher's stone",
        10,
        "actions",
        "apply_research_flip",
        _ACTIONS,
        "flip_mask",
        repeated=True,
    ),
    Phase.HOMUNCULUS_FLIP: _decision(
        "Homunculus, R10.1",
        "Homunculus: turn one more face-up mana into a stone? (NO stops)",
        24,
        "actions",
        "apply_research_flip",
        _ACTIONS,
        "homunculus_flip_mask",
        repeated=True,
    ),
    Phase.ALCHEMY: _decision("R6.3", "Alchemy: choose an option", 11, "actions", "apply_alchemy", _O),
    Phase.PRAYER: _decision("R6.4", "Prayer: choose an option", 12, "actions", "apply_prayer", _O),
    Phase.PRAYER_DISCARD: _decision(
        "R6.4",
        "Prayer: discard cards (any number), then draw up to 5",
        13,
        "actions",
        "apply_prayer_discard",
        _ACTIONS,
        "prayer_discard_mask",
        repeated=True,
    ),
    Phase.FESTIVAL_PICK: _decision(
        "R6.5", "Festival: which revealed card goes into your mana row?", 14, "actions", "apply_festival_pick", _OFFER
    ),
    Phase.INQUISITION_GIFT: _decision(
        "R6.6", "Inquisition: give a card to the active player", 15, "actions", "apply_gift", _HAND
    ),
    Phase.PILGRIMAGE: _decision("R6.7", "Pilgrimage: choose an option", 16, "actions", "apply_pilgrimage", _O),
    Phase.KEEP: _decision(
        "R3.3",
        "Phase III: keep one card; the other is assisted to your right neighbour",
        17,
        "turn",
        "apply_keep",
        _OFFER,
    ),
    Phase.BELIAL: _decision(
        "Belial",
        "Belial: discard a Lightning mana or a stone for 2 VP?",
        18,
        "abilities",
        "apply_belial",
        _ACTIONS,
        "belial_mask",
        repeated=True,
    ),
    Phase.DECLARE: _decision("R7.1", "Declare the end of the game?", 19, "turn", "apply_declare", _Y),
    Phase.SHORTAGE_HAND: _decision(
        "R8.3",
        "Nothing left to draw (R8.3): discard down to 9 cards in hand",
        20,
        "discards",
        "apply_discard_hand",
        _CARDS,
        "discard_hand_mask",
        forced="discard_forced",
        repeated=True,
    ),
    Phase.SHORTAGE_MANA: _decision(
        "R8.3",
        "Nothing left to draw (R8.3): discard down to 9 mana",
        21,
        "discards",
        "apply_discard_mana",
        _UNITS,
        "discard_mana_mask",
        forced="discard_forced",
        repeated=True,
    ),
    # -- finished --
    Phase.GAME_OVER: PhaseInfo("R7", Kind.GAME_OVER, obs=22),
    # -- internal steps: clause, module, the function that runs it --
    Phase.TURN_START: _internal("R3", "turn", "run_turn_start"),
    Phase.LEPRECHAUN_DRAWN: _internal("Leprechaun", "abilities", "run_leprechaun_drawn"),
    Phase.COMMAND_START: _internal("R3.1.2", "turn", "run_command_start"),
    Phase.COMMAND_DONE: _internal("R3.1.1", "turn", "run_command_done"),
    Phase.SUMMON_DONE: _internal("R5.3", "turn", "run_summon_done"),
    Phase.ACTION: _internal("R6", "actions", "run_action"),
    Phase.FESTIVAL_RESOLVE: _internal("R6.5", "actions", "run_festival_resolve"),
    Phase.INQUISITION_NEXT: _internal("R6.6", "actions", "run_inquisition_next"),
    Phase.INQUISITION_DECK_GIFT: _internal("R6.6, R8.2", "actions", "run_inquisition_deck_gift"),
    Phase.PHASE3: _internal("R3.3.1", "turn", "run_phase3"),
    Phase.KEEP_START: _internal("R3.3.1", "turn", "run_keep_start"),
    Phase.END_TURN: _internal("R3.3.3", "turn", "run_end_turn"),
    Phase.DECLARE_CHECK: _internal("R7.1", "turn", "run_declare_check"),
    Phase.NEXT_TURN: _internal("R7.2", "turn", "run_next_turn"),
    Phase.DRAW: _internal("R8.1-R8.3", "draws", "run_draw"),
    Phase.DISCARD_NEXT: _internal("Nightmare, R8.3", "discards", "run_discard_next"),
}
assert set(PHASES) == set(Phase)


def _check_row(p: Phase, info: PhaseInfo) -> None:
    """A row holds what its kind needs, and nothing else."""
    decision = info.kind is Kind.DECISION
    assert decision == bool(info.question) == bool(info.apply) == (info.mask is not None), p
    assert (info.kind is Kind.INTERNAL) == bool(info.run), p
    assert bool(info.module) == (info.kind is not Kind.GAME_OVER), p
    assert (info.obs >= 0) == (info.kind is not Kind.INTERNAL), p
    assert bool(info.mask_fn) == (info.mask in OWN_MASK), p
    assert not (info.forced or info.repeated) or decision, p


for _p, _info in PHASES.items():
    _check_row(_p, _info)

DECISIONS: tuple[Phase, ...] = tuple(p for p in Phase if PHASES[p].kind is Kind.DECISION)
INTERNAL: tuple[Phase, ...] = tuple(p for p in Phase if PHASES[p].kind is Kind.INTERNAL)
REPEATED: tuple[Phase, ...] = tuple(p for p in Phase if PHASES[p].repeated)
#: Decisions where the engine takes the forced part of the choice when games arrive.
FORCED_PART: tuple[Phase, ...] = tuple(p for p in Phase if PHASES[p].forced)

#: The observation's phase one-hot, in the order of the rows' ``obs`` slots: the first decisions,
#: GAME_OVER, then the decisions added with observation version 3 (never renumber: saved models
#: rely on it; a new decision takes the next slot, with a new observation version).
OBS_PHASES: tuple[Phase, ...] = tuple(sorted((p for p in Phase if PHASES[p].obs >= 0), key=lambda p: PHASES[p].obs))
assert [PHASES[p].obs for p in OBS_PHASES] == list(range(len(OBS_PHASES)))
assert set(OBS_PHASES) == set(DECISIONS) | {Phase.GAME_OVER}
NUM_DECISION_PHASES = len(DECISIONS)


def _lookup(phases: Iterable[Phase]) -> list[int]:
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
#: Phase value -> 1 for decisions with a forced part.
HAS_FORCED_PART: tuple[int, ...] = tuple(int(p in FORCED_PART) for p in Phase)
