"""What the greedy agent's compiled scoring stands on: the cache, the card tables, the observation.

``agents.players._greedy_kernel`` holds the scoring itself (a function per decision phase and the
batch loop); this module holds what it reads. The card values that do not depend on the position
(a spirit's worth, a held card's worth, each action's base worth) come from
``agents/players/greedy.py``, which computes them once per card set with numpy, in the record of
``greedy_tables``; ``SCRATCH_DTYPE`` is the scratch space of one row; the section "quantities
several phases use" computes what more than one phase's scoring needs.

The observation is read through its layout: each entry times its slot's scale (``Slot.scale`` of
``core/obs_layout.py``), in float64, as ``core.obs_value`` reads it; the phase is the position of
the phase one-hot in ``core.OBS_PHASES``.

Compiled on first use and cached on disk, like the engine (``aos_env/core/_numba.py``): both
modules in one folder, named after a hash of both files and of the core modules whose constants
they compile in.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

import aos_env
from aos_env.core import OBS_PHASES, _numba, obs_slices
from aos_env.core.cards import BONUS_VP, NUM_KINDS
from aos_env.core.constants import (
    AXE,
    CONQUEST,
    NUM_COLOURS,
    NUM_GAME_ACTIONS,
    PILGRIMAGE,
    RESEARCH,
    SWORD,
    game_action_of_number,
)
from aos_env.core.obs_layout import GLOBAL_LAYOUT, SEAT_DIM, SEAT_LAYOUT

K = NUM_KINDS

# ---- compiling and caching ---------------------------------------------------------------------

_CORE = Path(aos_env.__file__).resolve().parent / "core"
#: The kernel's files: this one and the scoring (``_greedy_kernel``), cached in one folder.
_FILES = [Path(__file__).resolve(), Path(__file__).resolve().with_name("_greedy_kernel.py")]
_SOURCES = (
    _FILES
    + [_CORE / name for name in ("constants.py", "phases.py", "obs_layout.py", "_numba.py")]
    + [_CORE / "cards.py"]
)
_TAG = _numba.sources_tag(_SOURCES)
CACHE_DIR = _numba.cache_folder("greedy", _TAG)
_numba.register(_FILES, CACHE_DIR, _TAG)
_CACHE = _numba.cacheable(CACHE_DIR)


def jit(fn):
    """Compile ``fn`` with the engine's options, cached in ``CACHE_DIR`` (``aos_env.core._numba``
    points numba there for this file only; ``numba.config`` is left alone)."""
    return njit(cache=_CACHE, nogil=True, error_model="numpy")(fn)


# ---- the card tables ---------------------------------------------------------------------------

#: (name, dtype, shape) of each table of the record ``greedy_tables`` makes.
TABLES = (
    ("number", np.int64, (K,)),  # printed number of each kind
    ("colour", np.int64, (K,)),  # colour index of each kind
    ("cost", np.float64, (K, NUM_COLOURS)),  # coloured symbols of each kind's cost
    ("axes_swords", np.float64, (K,)),  # axe plus sword icons of each kind
    ("vp_bonus", np.float64, (NUM_GAME_ACTIONS, K)),  # VP each spirit adds to each action
    ("value", np.float64, (K,)),  # a summoned spirit's worth (greedy.spirit_values)
    ("hold_value", np.float64, (K,)),  # worth of holding a card, before synergy: value / sqrt(cost)
    ("action_base", np.float64, (NUM_GAME_ACTIONS,)),  # each action's base worth
    ("action_of_number", np.int64, (32,)),  # command number (0..31) -> game action
)
TABLE_DTYPE = np.dtype([(name, dtype, shape) for name, dtype, shape in TABLES], align=True)


def greedy_tables(cards, value: np.ndarray, hold_value: np.ndarray, action_base: np.ndarray) -> np.ndarray:
    """The one-record array of tables the kernel reads, for a card set and its values."""
    parts = {
        "number": cards.number,
        "colour": cards.colour,
        "cost": cards.cost,
        "axes_swords": cards.icons[:, AXE] + cards.icons[:, SWORD],
        "vp_bonus": cards.action_bonus[:, :, BONUS_VP],
        "value": value,
        "hold_value": hold_value,
        "action_base": action_base,
        "action_of_number": game_action_of_number(np.arange(32)),
    }
    tb = np.zeros(1, dtype=TABLE_DTYPE)
    for name, dtype, shape in TABLES:
        arr = np.asarray(parts[name], dtype=dtype)
        if arr.shape != shape:
            raise ValueError(f"greedy table {name} has shape {arr.shape}, the kernel needs {shape}")
        tb[name][0] = arr
    tb.setflags(write=False)
    return tb


#: Scratch space of one row: each action's worth, each kind's worth in hand, spirits in play and
#: mana beyond the hand's needs, by colour.
SCRATCH_DTYPE = np.dtype(
    [
        ("per_action", np.float64, (NUM_GAME_ACTIONS,)),
        ("hold", np.float64, (K,)),
        ("spirit_colours", np.float64, (NUM_COLOURS,)),
        ("surplus", np.float64, (NUM_COLOURS,)),
    ],
    align=True,
)

# ---- the observation ---------------------------------------------------------------------------

_SL = obs_slices()
_SCALE = {slot.name: slot.scale for slot in GLOBAL_LAYOUT + SEAT_LAYOUT}
_PHASE, _NUM_PHASES = _SL["phase"].start, len(OBS_PHASES)
_PHASE_AT = np.array([int(p) for p in OBS_PHASES], dtype=np.int64)  # one-hot position -> Phase value
_NUM_PLAYERS = _SL["num_players"].start  # one-hot of 2, 3, 4 players
_COMMAND_NUMBER, _COMMAND_NUMBER_SCALE = _SL["command_number"].start, _SCALE["command_number"]
_HEAD_NUMBER, _HEAD_NUMBER_SCALE = _SL["head_number"].start, _SCALE["head_number"]
_OFFER, _HAND = _SL["offer"].start, _SL["hand"].start
# seat fields: offsets of seat 0 (the observer); seat s is SEAT_DIM * s further on
_VP, _VP_SCALE = _SL["seat0.vp"].start, _SCALE["vp"]
_FAITH, _FAITH_SCALE = _SL["seat0.faith"].start, _SCALE["faith"]
_HAND_SIZE, _HAND_SIZE_SCALE = _SL["seat0.hand_size"].start, _SCALE["hand_size"]
_STONES, _STONES_SCALE = _SL["seat0.stones"].start, _SCALE["stones"]
_SCORE, _SCORE_SCALE = _SL["seat0.score"].start, _SCALE["score"]
_ICONS, _ICONS_SCALE = _SL["seat0.icons"].start, _SCALE["icons"]
_HEAD, _MANA, _SPIRITS = _SL["seat0.head"].start, _SL["seat0.mana"].start, _SL["seat0.spirits"].start
_SEAT = SEAT_DIM
for _name in ("num_players", "phase", "offer", "hand", "head", "mana", "spirits"):
    assert _SCALE[_name] == 1.0, f"{_name} is read as counts (scale 1)"


@jit
def _read(o, at, scale):
    """Raw number of entry ``at`` of observation row ``o`` (as ``core.obs_value``)."""
    return np.float64(o[at]) * scale


@jit
def _count(o, at, scale):
    """The whole number entry ``at`` stands for: an entry is raw / scale stored as float32, so
    raw / scale * scale can miss it by a little (2 cards in hand read as 2.00000003), which a
    threshold on the count must not see."""
    return np.rint(_read(o, at, scale))


@jit
def _argmax(o, start, n):
    """Position of the first largest of entries start..start+n-1."""
    best = 0
    for j in range(1, n):
        if o[start + j] > o[start + best]:
            best = j
    return best


# ---- quantities several phases use ---------------------------------------------------------------

#: Conquest, Research and Pilgrimage: what the action gives now, besides its base worth.
PILGRIMAGE_FLOOR = 1.2  # Pilgrimage is worth at least this, whatever the faith
#: Spirits in play of a kind's colour make the kind worth this much more each (icon sets, R7.3).
SYNERGY = 0.3


@jit
def action_worths(o, t, w):
    """``w.per_action``: each game action's worth now (base + the spirits' VP bonuses; Conquest
    adds the axes and swords in play, Research the stones, Pilgrimage the faith)."""
    axes_swords = 0.0
    for a in range(NUM_GAME_ACTIONS):
        w.per_action[a] = 0.0
    for k in range(K):
        n = np.float64(o[_SPIRITS + k])
        if n != 0.0:
            axes_swords += n * t.axes_swords[k]
            for a in range(NUM_GAME_ACTIONS):
                w.per_action[a] += n * t.vp_bonus[a, k]
    for a in range(NUM_GAME_ACTIONS):
        w.per_action[a] = t.action_base[a] + w.per_action[a]
    w.per_action[CONQUEST] += axes_swords
    w.per_action[RESEARCH] += _read(o, _STONES, _STONES_SCALE)
    w.per_action[PILGRIMAGE] += max(_read(o, _FAITH, _FAITH_SCALE), PILGRIMAGE_FLOOR)


@jit
def worth_of_number(t, w, number):
    """Worth of the action of a command number (after ``action_worths``)."""
    return w.per_action[t.action_of_number[min(number, 31)]]


@jit
def spirit_colours(o, t, w):
    """``w.spirit_colours``: the observer's spirits in play, by colour."""
    for c in range(NUM_COLOURS):
        w.spirit_colours[c] = 0.0
    for k in range(K):
        w.spirit_colours[t.colour[k]] += np.float64(o[_SPIRITS + k])


@jit
def hold_worths(o, t, w):
    """``w.hold``: how much the observer wants to hold a card of each kind (its worth per cost,
    plus synergy with the spirits in play)."""
    spirit_colours(o, t, w)
    for k in range(K):
        w.hold[k] = t.hold_value[k] + SYNERGY * w.spirit_colours[t.colour[k]]


@jit
def mana_surplus(o, t, w):
    """``w.surplus``: face-up mana of each colour beyond what the spirits in hand would cost."""
    for c in range(NUM_COLOURS):
        mana, need = 0.0, 0.0
        for k in range(K):
            if t.colour[k] == c:
                mana += np.float64(o[_MANA + k])
            need += np.float64(o[_HAND + k]) * t.cost[k, c]
        w.surplus[c] = mana - need
