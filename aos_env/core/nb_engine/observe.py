"""Player-relative observations (R9) for one game, laid out as ``obs_layout`` says, with its
scales; the scalar twin of ``np_engine/observe.py`` (every entry raw / scale in float64, then
float32, so both engines give the same bits). The scales are module constants, so numba compiles
them in (a scale of 1 costs nothing)."""

from __future__ import annotations

import numpy as np

from ..constants import MAX_PLAYERS, NUM_COLOURS, NUM_ICONS, NUM_UNITS, K
from ..obs_layout import GLOBAL_DIM, OBS_DIM, SCALE, SEAT_DIM, G, S
from ..phases import IS_REPEATED, OBS_PHASE_INDEX, Phase
from ..state import STAT_ICONS
from . import abilities
from ._jit import Array, Record, Tables, jit
from .actions import game_action_of_number
from .scoring import final_score
from .zones import zone_size

_OBS_PHASE = np.array(OBS_PHASE_INDEX, dtype=np.int64)
_REPEATED = np.array(IS_REPEATED, dtype=np.bool_)
_ICON0 = STAT_ICONS.start
# global slices: start offsets
_NUM_PLAYERS, _PHASE, _ACTION = G["num_players"].start, G["phase"].start, G["action"].start
_COMMAND_NUMBER, _HEAD_NUMBER = G["command_number"].start, G["head_number"].start
_DECK, _DISCARD, _TURN, _DECLARED = G["deck_size"].start, G["discard_size"].start, G["turn"].start, G["declared"].start
_TURNS_LEFT, _COUNT, _FLOOR = G["turns_left"].start, G["count"].start, G["floor"].start
_SUMMONING, _COST_NEED, _COST_ANY, _PAID = (
    G["summoning"].start,
    G["cost_need"].start,
    G["cost_any"].start,
    G["paid"].start,
)
_OFFER_SIZE, _OFFER, _HAND = G["offer_size"].start, G["offer"].start, G["hand"].start
# seat slices: offsets inside a seat block
_PRESENT, _IS_ACTIVE, _IS_CURRENT, _IS_DECLARER = (
    S["present"].start,
    S["is_active"].start,
    S["is_current"].start,
    S["is_declarer"].start,
)
_IS_FIRST = S["is_first"].start
_VP, _FAITH, _CMP_FAITH, _HAND_SIZE = S["vp"].start, S["faith"].start, S["compared_faith"].start, S["hand_size"].start
_STONES, _MANA_TOTAL, _SPIRIT_COUNT, _SCORE = (
    S["stones"].start,
    S["mana_total"].start,
    S["spirit_count"].start,
    S["score"].start,
)
_MANA_COLOURS, _ICONS, _HAS_HEAD, _HEAD = (
    S["mana_colours"].start,
    S["icons"].start,
    S["has_head"].start,
    S["head"].start,
)
_MANA, _SPIRITS = S["mana"].start, S["spirits"].start
# the scales (obs_layout.SCALE), by slot
_COMMAND_NUMBER_SC, _HEAD_NUMBER_SC = SCALE["command_number"], SCALE["head_number"]
_DECK_SC, _DISCARD_SC, _COUNT_SC, _FLOOR_SC = SCALE["deck_size"], SCALE["discard_size"], SCALE["count"], SCALE["floor"]
_COST_NEED_SC, _COST_ANY_SC, _PAID_SC = SCALE["cost_need"], SCALE["cost_any"], SCALE["paid"]
_OFFER_SIZE_SC, _OFFER_SC, _HAND_SC = SCALE["offer_size"], SCALE["offer"], SCALE["hand"]
_VP_SC, _FAITH_SC, _CMP_FAITH_SC = SCALE["vp"], SCALE["faith"], SCALE["compared_faith"]
_HAND_SIZE_SC = SCALE["hand_size"]
_STONES_SC, _MANA_TOTAL_SC, _SPIRIT_COUNT_SC = SCALE["stones"], SCALE["mana_total"], SCALE["spirit_count"]
_SCORE_SC, _MANA_COLOURS_SC, _ICONS_SC = SCALE["score"], SCALE["mana_colours"], SCALE["icons"]
_MANA_SC, _SPIRITS_SC = SCALE["mana"], SCALE["spirits"]


@jit
def _f(x: float, scale: float) -> np.float32:
    """An entry: raw / scale, divided in float64, stored as float32."""
    return np.float32(np.float64(x) / scale)


@jit
def _no_command_number_yet(r: Record) -> bool:
    """Before Phase I, or while a draw of it (a start-of-turn or command-card draw) is held up by
    an R8.3 discard round."""
    ph = r.phase
    if ph == Phase.LEPRECHAUN or ph == Phase.LEPRECHAUN_DISCARD or ph == Phase.COMMAND or ph == Phase.GAME_OVER:
        return True
    if ph == Phase.SHORTAGE_HAND or ph == Phase.SHORTAGE_MANA:
        back = r.draw_return
        return back == Phase.LEPRECHAUN_DRAWN or back == Phase.COMMAND_DONE
    return False


@jit
def observe_one(r: Record, t: Tables, P: int, max_turns: int, player: int, out: Array) -> None:
    """Write player ``player``'s observation of the game in record ``r`` into ``out`` (OBS_DIM,), which is zero."""
    out[_NUM_PLAYERS + P - 2] = 1.0
    ph = r.phase
    out[_PHASE + _OBS_PHASE[ph]] = 1.0
    played = not _no_command_number_yet(r)
    if played:
        out[_ACTION + game_action_of_number(r.command_number)] = 1.0
    out[_COMMAND_NUMBER] = _f(r.command_number, _COMMAND_NUMBER_SC)
    out[_HEAD_NUMBER] = _f(r.head_number if played else 0, _HEAD_NUMBER_SC)
    out[_DECK] = _f(zone_size(r.deck), _DECK_SC)
    out[_DISCARD] = _f(zone_size(r.discard), _DISCARD_SC)
    out[_TURN] = _f(r.turn, np.float64(max_turns))  # obs_layout.GAME_SCALED
    if r.declarer >= 0:
        out[_DECLARED] = 1.0
        out[_TURNS_LEFT] = _f(r.last_turn - r.turn + 1, np.float64(P))
    if _REPEATED[ph]:
        out[_COUNT] = _f(r.choice_left, _COUNT_SC)
        out[_FLOOR] = _f(r.choice_floor, _FLOOR_SC)
    if r.summon_kind >= 0:
        out[_SUMMONING + r.summon_kind] = 1.0
        for c in range(NUM_COLOURS):
            out[_COST_NEED + c] = _f(r.pay_need[c], _COST_NEED_SC)
        out[_COST_ANY] = _f(r.pay_any, _COST_ANY_SC)
        for u in range(NUM_UNITS):
            out[_PAID + u] = _f(r.paid[u], _PAID_SC)
    out[_OFFER_SIZE] = _f(zone_size(r.offer), _OFFER_SIZE_SC)
    if r.offer_public or player == r.active_player:
        for k in range(K):
            out[_OFFER + k] = _f(r.offer[k], _OFFER_SC)
    for k in range(K):
        out[_HAND + k] = _f(r.hand[player, k], _HAND_SC)
    # turns go round from the first player (R2.5, R3.3.3); a finished game counted its last turn
    first = (r.active_player - r.turn + (1 if ph == Phase.GAME_OVER else 0)) % P
    for seat in range(P):
        q = (player + seat) % P
        o = GLOBAL_DIM + seat * SEAT_DIM
        out[o + _PRESENT] = 1.0
        out[o + _IS_ACTIVE] = q == r.active_player
        out[o + _IS_CURRENT] = q == r.current_player
        out[o + _IS_DECLARER] = q == r.declarer
        out[o + _IS_FIRST] = q == first
        out[o + _VP] = _f(r.vp[q], _VP_SC)
        out[o + _FAITH] = _f(r.faith[q], _FAITH_SC)
        out[o + _CMP_FAITH] = _f(abilities.compared_faith(r, q), _CMP_FAITH_SC)
        # one pass over the kinds: zone sizes, mana by colour (counted in the output, exact in
        # float32), and the mana and spirits by kind
        hand_n, mana_n, spirit_n, stones_n = 0, 0, 0, 0
        for k in range(K):
            m = r.mana[q, k]
            sp = r.spirits[q, k]
            hand_n += r.hand[q, k]
            mana_n += m
            spirit_n += sp
            stones_n += r.stones[q, k]
            out[o + _MANA + k] = _f(m, _MANA_SC)
            out[o + _SPIRITS + k] = _f(sp, _SPIRITS_SC)
            out[o + _MANA_COLOURS + t.colour[k]] += m
        for c in range(NUM_COLOURS):
            out[o + _MANA_COLOURS + c] = _f(out[o + _MANA_COLOURS + c], _MANA_COLOURS_SC)
        out[o + _HAND_SIZE] = _f(hand_n, _HAND_SIZE_SC)
        out[o + _STONES] = _f(stones_n, _STONES_SC)
        out[o + _MANA_TOTAL] = _f(mana_n + stones_n, _MANA_TOTAL_SC)
        out[o + _SPIRIT_COUNT] = _f(spirit_n, _SPIRIT_COUNT_SC)
        out[o + _SCORE] = _f(final_score(r, q), _SCORE_SC)
        for i in range(NUM_ICONS):
            out[o + _ICONS + i] = _f(r.stats[q, _ICON0 + i], _ICONS_SC)
        h = r.head[q]
        if h >= 0:
            out[o + _HAS_HEAD] = 1.0
            out[o + _HEAD + h] = 1.0


assert OBS_DIM == GLOBAL_DIM + MAX_PLAYERS * SEAT_DIM
