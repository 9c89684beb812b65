"""The observation vector's layout: every slice's name, size, scale and meaning.

Both engines fill the vector from this table (``np_engine/observe.py``, ``nb_engine/observe.py``)
and docs/observation.md is generated from it. An entry is ``raw / scale`` as float32 (the
division done in float64), where raw is the count or number the meaning names; one-hots and
flags are 0 or 1. ``obs_value`` undoes the scale, so agents read raw numbers without repeating
the scales.

The vector has the same size for 2, 3 and 4 players: seats are listed from the observer (seat 0)
to the left (seats 1..3), and seats a smaller game does not have are zero.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .cards import ACTIONS, BONUS_FIELDS, SCORE_SOURCES, load_cards
from .constants import (
    AXE,
    BELIAL_VP,
    CERBERUS_VP,
    DEFAULT_MAX_TURNS,
    FAITH_CAP,
    FESTIVAL_REVEAL,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUM_COLOURS,
    NUM_GAME_ACTIONS,
    NUM_ICONS,
    NUM_UNITS,
    PEGASUS_FAITH,
    PHASE3_DRAW,
    SWORD,
    K,
)
from .phases import OBS_PHASES, Phase

#: Bumped whenever the layout or a scale changes: saved models record the version they need.
#: 1: 597 entries (aos-env 0.1). 2: seats gain ``is_first`` (601 entries). 3: the phase one-hot
#: gains the decisions NIGHTMARE and HOMUNCULUS_FLIP (603 entries; aos-env 0.3).
OBS_VERSION = 3
#: Observation versions an observation of this version can be written down to (``to_version``).
OLDER_VERSIONS = (2,)


class Slot(NamedTuple):
    name: str
    size: int
    scale: float  # the entry is raw / scale (GAME_SCALE: a number of the game, see GAME_SCALED)
    meaning: str


#: The scale of a slot divided by a number of the game rather than a constant (``GAME_SCALED``).
GAME_SCALE = 0.0


GLOBAL_LAYOUT: tuple[Slot, ...] = (
    Slot("num_players", 3, 1.0, "one-hot: 2, 3 or 4 players"),
    Slot(
        "phase",
        len(OBS_PHASES),
        1.0,
        "one-hot of `state.phase` in the order of `core.OBS_PHASES` (the decisions, then GAME_OVER)",
    ),
    Slot(
        "action",
        NUM_GAME_ACTIONS,
        1.0,
        "one-hot of the game action the command number gives (Conquest .. Pilgrimage; R6), once Phase I is over",
    ),
    Slot("command_number", 1, 10.0, "this turn's command number / 10 (0 before Phase I)"),
    Slot("head_number", 1, 10.0, "number of the head the command card went onto / 10: the number Asmodai would give"),
    Slot("deck_size", 1, 110.0, "cards in the deck / 110"),
    Slot("discard_size", 1, 110.0, "cards in the discard pile / 110"),
    Slot("turn", 1, GAME_SCALE, "turns played / the turn limit"),
    Slot("declared", 1, 1.0, "1 once the end is declared (R7.1)"),
    Slot("turns_left", 1, GAME_SCALE, "after a declaration: turns still to play / number of players, else 0"),
    Slot("count", 1, 10.0, "choices left in a repeated decision (discards, flips, Baldanders, Belial) / 10"),
    Slot(
        "floor",
        1,
        44.0,
        "lowest action id allowed next in a repeated decision / 44 (multisets are chosen in ascending order)",
    ),
    Slot("summoning", K, 1.0, "one-hot: the spirit being summoned (Baldanders, payment)"),
    Slot("cost_need", NUM_COLOURS, 5.0, "coloured symbols of the cost being paid, by colour / 5"),
    Slot("cost_any", 1, 5.0, "'any' symbols of the cost being paid / 5"),
    Slot("paid", NUM_UNITS, 5.0, "units paid so far: 5 colours, then stones / 5"),
    Slot("offer_size", 1, 2.0, "cards on offer (Festival reveal, Phase III draws) / 2"),
    Slot(
        "offer",
        K,
        1.0,
        "the offered cards by kind: seen by everyone for Festival, only by the drawing player in Phase III",
    ),
    Slot("hand", K, 1.0, "the observer's own hand, by kind"),
)
SEAT_LAYOUT: tuple[Slot, ...] = (
    Slot("present", 1, 1.0, "1 if the game has this seat"),
    Slot("is_active", 1, 1.0, "1 if it is this player's turn"),
    Slot("is_current", 1, 1.0, "1 if this player must choose now"),
    Slot("is_declarer", 1, 1.0, "1 if this player declared the end"),
    Slot(
        "is_first", 1, 1.0, "1 if this player took the game's first turn (R2.5): where each seat sits in the turn order"
    ),
    Slot("vp", 1, 30.0, "VP chips / 30"),
    Slot("faith", 1, 10.0, "faith / 10"),
    Slot("compared_faith", 1, 10.0, "faith as compared by Festival and Inquisition (Pegasus +2 each) / 10"),
    Slot("hand_size", 1, 10.0, "cards in hand / 10"),
    Slot("stones", 1, 10.0, "philosopher's stones / 10 (their faces are hidden)"),
    Slot("mana_total", 1, 10.0, "face-up mana plus stones / 10"),
    Slot("spirit_count", 1, 10.0, "spirits in play / 10"),
    Slot("score", 1, 50.0, "current final score if the game ended now (R7.3) / 50"),
    Slot("mana_colours", NUM_COLOURS, 5.0, "face-up mana by colour / 5"),
    Slot("icons", NUM_ICONS, 5.0, "icons on spirits in play: axe, staff, sword, shield, armour / 5"),
    Slot("has_head", 1, 1.0, "1 if the row has a waiting head (assisted card)"),
    Slot("head", K, 1.0, "one-hot: kind of the head"),
    Slot("mana", K, 1.0, "face-up mana by kind (the head included)"),
    Slot("spirits", K, 1.0, "spirits in play by kind"),
)
SEAT_DIM = sum(s.size for s in SEAT_LAYOUT)
GLOBAL_DIM = sum(s.size for s in GLOBAL_LAYOUT)
OBS_DIM = GLOBAL_DIM + MAX_PLAYERS * SEAT_DIM


def layout_slices(layout, offset: int = 0) -> dict[str, slice]:
    """Name -> slice for a layout of slots, starting at ``offset``."""
    out, i = {}, offset
    for slot in layout:
        out[slot.name] = slice(i, i + slot.size)
        i += slot.size
    return out


def obs_slices() -> dict[str, slice]:
    """Name -> slice of the observation vector (seat fields as ``seat{i}.{name}``)."""
    out = layout_slices(GLOBAL_LAYOUT)
    for s in range(MAX_PLAYERS):
        seat = layout_slices(SEAT_LAYOUT, GLOBAL_DIM + s * SEAT_DIM)
        out.update({f"seat{s}.{name}": sl for name, sl in seat.items()})
    return out


G = layout_slices(GLOBAL_LAYOUT)  # global slices
S = layout_slices(SEAT_LAYOUT)  # offsets inside a seat block
#: Slot name (a seat slot by its name inside a seat block) -> its scale: both engines divide by these.
SCALE: dict[str, float] = {s.name: s.scale for s in GLOBAL_LAYOUT + SEAT_LAYOUT}
#: The slots scaled by a number of the game: the name of that number.
GAME_SCALED: dict[str, str] = {"turn": "max_turns", "turns_left": "num_players"}
#: One-hots and flags: 0 or 1 by their meaning, so their scale is 1.
ONE_HOT = frozenset(
    {
        "num_players",
        "phase",
        "action",
        "declared",
        "summoning",
        "present",
        "is_active",
        "is_current",
        "is_declarer",
        "is_first",
        "has_head",
        "head",
    }
)
assert {n for n, sc in SCALE.items() if sc == GAME_SCALE} == set(GAME_SCALED)
assert all(SCALE[n] == 1.0 for n in ONE_HOT)
_SLICES = obs_slices()


def obs_value(obs: np.ndarray, name: str, max_turns: int | None = None, num_players: int | None = None) -> np.ndarray:
    """The raw numbers of slice ``name`` (e.g. ``"seat0.faith"``) of observations (..., OBS_DIM):
    the entries times their scale, rounded (the raw numbers are counts: float32 scaling leaves
    1.00000001 for 1). ``turn`` needs the game's ``max_turns`` and ``turns_left``
    its number of players."""
    base = name.split(".")[-1]
    scale = SCALE[base]
    if base in GAME_SCALED:
        number = {"max_turns": max_turns, "num_players": num_players}[GAME_SCALED[base]]
        scale = float(number) if number else np.nan
    return np.rint(obs[..., _SLICES[name]].astype(np.float64) * scale)  # every raw number is a whole number


#: The global state (``core.global_state``, PettingZoo's ``state()``), for centralised critics: every
#: seat's observation by absolute seat (player 0 first; absent seats zero), then what no observation
#: shows: each player's stones by their hidden kind, the deck and the discard pile by kind, and the
#: cards on offer (all raw counts).
STATE_LAYOUT: tuple[Slot, ...] = (
    Slot(
        "observations",
        MAX_PLAYERS * OBS_DIM,
        1.0,
        "core.observe of players 0..3, in that order (zero for absent seats)",
    ),
    Slot("stones", MAX_PLAYERS * K, 1.0, "each player's philosopher's stones by their hidden kind (players 0..3)"),
    Slot("deck", K, 1.0, "the deck by kind"),
    Slot("discard", K, 1.0, "the discard pile by kind"),
    Slot("offer", K, 1.0, "the cards on offer by kind, whoever may see them"),
)
STATE_DIM = sum(s.size for s in STATE_LAYOUT)


# ---- bounds: the most each entry can hold -----------------------------------------------------
#: Where each bound comes from, for docs/observation.md (``aos_env.tools.docs``). The raw numbers
#: are counts the rules or the card set cap, except VP chips, which never run out (R1.4): those
#: are bounded by the VP the supply can give in one turn times the most turns a game can last.
BOUND_SOURCES = {
    "command_number": "two card numbers (the head's and the command card's)",
    "head_number": "the highest card number",
    "deck_size": "every card",
    "discard_size": "every card",
    "turn": "max_turns + 4 turns: a declaration at the limit adds a round (R7.2, R7.5)",
    "turns_left": "one round (P turns) after the declaration",
    "count": "every card: no repeated choice has more units",
    "floor": "the action ids",
    "cost_need": "the highest cost of a kind, by colour",
    "cost_any": "the highest 'any' cost of a kind",
    "paid": "the highest cost a colour (or stones) can pay",
    "offer_size": "two cards (Festival, Phase III)",
    "offer": "the kind's copies, at most two",
    "hand": "the kind's copies",
    "vp": "(max_turns + 4) turns of the most VP the supply gives in one turn (`core.obs_layout.vp_per_turn`)",
    "faith": "the faith cap (R1.4)",
    "compared_faith": "the faith cap, plus 2 per Pegasus",
    "hand_size": "every card",
    "stones": "every card",
    "mana_total": "every card",
    "spirit_count": "every card",
    "score": "the VP bound, every printed point and every game-end bonus at its most",
    "mana_colours": "the cards of the colour",
    "icons": "the icons of all cards",
    "mana": "the kind's copies",
    "spirits": "the kind's copies",
}


def vp_per_turn(cards) -> int:
    """The most VP the supply can give in one turn (to the active player; the others gain none,
    and Conquest's thefts only move chips): one summon or one action (R3.2) with every bonus of
    the card set, then Cerberus (Phase III) and every Belial (end of turn)."""
    vp, per_gift = BONUS_FIELDS.index("vp"), BONUS_FIELDS.index("vp_per_gift")
    n_cards = int(cards.copies.sum())
    bonus = (cards.copies[None, :] * cards.action_bonus[:, :, vp]).sum(1)  # (7,) every copy's bonus
    icons = (cards.copies[:, None] * cards.icons).sum(0)
    own = {  # what each action scores itself, at its most
        "conquest": int(icons[AXE] + icons[SWORD]) + 1,  # icons, then 1 from the supply
        "research": n_cards,  # 1 per stone: at most every card
        "pilgrimage": FAITH_CAP,  # VP equal to faith
        "inquisition": (MAX_PLAYERS - 1) * int((cards.copies * cards.action_bonus[:, :, per_gift].max(0)).sum()),
    }
    action = max(int(bonus[i]) + own.get(name, 0) for i, name in enumerate(ACTIONS))
    summon = int(cards.summon_bonus[:, vp].max())
    cerberus = CERBERUS_VP * int((cards.copies * cards.special["cerberus"]).sum())
    belial = BELIAL_VP * int((cards.copies * cards.special["belial"]).sum())
    return max(action, summon) + cerberus + belial


def raw_bounds(cards=None, max_turns: int | None = None) -> dict[str, np.ndarray]:
    """Slot name -> the most its raw numbers (before the scale) can be, one per entry, in any game
    dealt by ``core.init`` with this card set and turn limit and played by the rules (a position
    set up by hand can hold more). ``cards``: a CardSet (default: the shipped one); ``max_turns``:
    default ``DEFAULT_MAX_TURNS``. ``turns_left`` counts at most P turns in a game of P players,
    its scale."""
    cards = load_cards() if cards is None else cards
    max_turns = DEFAULT_MAX_TURNS if max_turns is None else int(max_turns)
    copies = cards.copies.astype(np.float64)
    n_cards = float(copies.sum())
    turns = max_turns + MAX_PLAYERS  # the limit, then the round after a declaration made at it
    icons = (copies[:, None] * cards.icons).sum(0)
    cost_total = cards.cost.sum(1) + cards.cost_any
    offer = max(FESTIVAL_REVEAL, PHASE3_DRAW)
    vp = float(turns * vp_per_turn(cards))
    # the most units of each game-end source (SCORE_SOURCES: five icons, full icon sets, stones, faith)
    units = np.concatenate([icons, [icons.min(), n_cards, FAITH_CAP]])[: len(SCORE_SOURCES)]
    game_end = float(((copies[:, None] * cards.score).sum(0) * units).sum())
    raw = {
        "command_number": 2.0 * cards.number.max(),
        "head_number": float(cards.number.max()),
        "deck_size": n_cards,
        "discard_size": n_cards,
        "turn": float(turns),
        "count": n_cards,
        "turns_left": float(MAX_PLAYERS),  # with P players at most P: the scale
        "floor": float(NUM_ACTIONS),
        "cost_need": cards.cost.max(0),
        "cost_any": float(cards.cost_any.max()),
        "paid": np.append((cards.cost + cards.cost_any[:, None]).max(0), cost_total.max()),
        "offer_size": float(offer),
        "offer": np.minimum(copies, offer),
        "hand": copies,
        "vp": vp,
        "faith": float(FAITH_CAP),
        "compared_faith": FAITH_CAP + PEGASUS_FAITH * float((copies * cards.special["pegasus"]).sum()),
        "hand_size": n_cards,
        "stones": n_cards,
        "mana_total": n_cards,
        "spirit_count": n_cards,
        "score": vp + float((copies * cards.points).sum()) + game_end,
        "mana_colours": (copies[:, None] * cards.colour_onehot).sum(0),
        "icons": icons,
        "mana": copies,
        "spirits": copies,
    }
    out = {}
    for slot in GLOBAL_LAYOUT + SEAT_LAYOUT:
        value = raw.get(slot.name, 1.0)  # one-hots and flags
        out[slot.name] = np.broadcast_to(np.asarray(value, dtype=np.float64), (slot.size,)).copy()
    return out


def observation_bounds(cards=None, max_turns: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) float32 bounds of every entry, all finite: 0, and the raw bound of
    ``raw_bounds(cards, max_turns)`` divided by the slot's scale (``turn``: by ``max_turns``;
    ``turns_left`` is at most 1). The observations of every game with this card set and turn
    limit lie within them. The highs are safe limits, far above what real games reach for VP
    and scores (a few hundred turns of the most VP a turn can give)."""
    max_turns = DEFAULT_MAX_TURNS if max_turns is None else int(max_turns)
    raw = raw_bounds(cards, max_turns)
    # the two scales of the game: turns_left is at most P / P (raw_bounds gives the most for 4 players)
    scale = {**SCALE, "turn": float(max_turns), "turns_left": float(MAX_PLAYERS)}

    def highs(layout) -> list[np.ndarray]:
        return [(raw[s.name] / scale[s.name]).astype(np.float32) for s in layout]

    high = np.concatenate(highs(GLOBAL_LAYOUT) + highs(SEAT_LAYOUT) * MAX_PLAYERS)
    return np.zeros(OBS_DIM, dtype=np.float32), high


# ---- older observation versions: what a bot trained on one reads ---------------------------------
#: The phase one-hot of each version is a prefix of ``OBS_PHASES`` (new decisions go at its end).
_PHASES_OF_VERSION = {2: OBS_PHASES.index(Phase.GAME_OVER) + 1, OBS_VERSION: len(OBS_PHASES)}
#: A decision that an older version does not have, shown to it as the decision it knew in its
#: place: a Homunculus flip was, before version 3, one more Research flip (not declinable).
#: Nightmare's question has no counterpart: a player of an older version always takes the
#: effect (``agents.players.bot`` answers YES for it).
SHOWN_AS = {Phase.HOMUNCULUS_FLIP: Phase.RESEARCH_FLIP}


def obs_dim_of_version(version: int) -> int:
    """The length of an observation of ``version`` (this one or one of ``OLDER_VERSIONS``)."""
    return OBS_DIM - (len(OBS_PHASES) - _PHASES_OF_VERSION[version])


def to_version(obs: np.ndarray, version: int) -> np.ndarray:
    """Observations (n, OBS_DIM) written in the layout of an older ``version`` (n, its dim): the
    phase one-hot loses the decisions that version did not have, and a decision in ``SHOWN_AS``
    is shown as the one it stands for. Everything else is the same numbers in the same order."""
    if version == OBS_VERSION:
        return obs
    if version not in OLDER_VERSIONS:
        raise ValueError(
            f"version must be one of {OBS_VERSION}, {', '.join(map(str, OLDER_VERSIONS))}, got {version!r}"
        )
    start = G["phase"].start
    keep = _PHASES_OF_VERSION[version]
    phase = obs[:, start : start + len(OBS_PHASES)].copy()
    for new, old in SHOWN_AS.items():
        at, to = OBS_PHASES.index(new), OBS_PHASES.index(old)
        phase[:, to] += phase[:, at]
    return np.concatenate([obs[:, :start], phase[:, :keep], obs[:, start + len(OBS_PHASES) :]], axis=1)
