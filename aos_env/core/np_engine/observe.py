"""Player-relative observations (R9): public information plus the observer's own hand, laid
out as ``obs_layout`` says, with its scales (each entry raw / scale, in float64, then float32;
one-hots and flags are 0 or 1)."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..constants import MAX_PLAYERS, game_action_of_number
from ..obs_layout import GLOBAL_DIM, OBS_DIM, SCALE, SEAT_DIM, G, S
from ..phases import IS_REPEATED, OBS_PHASE_INDEX, Phase
from ..state import STAT_ICONS, State
from . import abilities
from .scoring import final_scores

_OBS_PHASE = np.array(OBS_PHASE_INDEX)
_REPEATED = np.array(IS_REPEATED, dtype=bool)


def _table(phases: list[Phase]) -> np.ndarray:
    out = np.zeros(len(Phase), dtype=bool)
    out[[int(p) for p in phases]] = True
    return out


#: No command number yet: before Phase I, or while a draw of it (a start-of-turn or command-card
#: draw) is held up by an R8.3 discard round.
_BEFORE_COMMAND = _table([Phase.LEPRECHAUN, Phase.LEPRECHAUN_DISCARD, Phase.COMMAND, Phase.GAME_OVER])
_SHORTAGE = _table([Phase.SHORTAGE_HAND, Phase.SHORTAGE_MANA])
_BEFORE_COMMAND_DRAW = _table([Phase.LEPRECHAUN_DRAWN, Phase.COMMAND_DONE])


class _Rows:
    """Read-only view of some games of a State: fields are indexed on first use."""

    def __init__(self, state: State, games: np.ndarray) -> None:
        self._state, self._games = state, games
        self.num_players, self.max_turns, self.cards = state.num_players, state.max_turns, state.cards
        self.batch_size = games.size

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._state, name)[self._games]
        setattr(self, name, value)
        return value


def _count(x: np.ndarray) -> np.ndarray:
    """Sum over the kind axis, as int64."""
    result: np.ndarray = np.einsum("...k->...", x, dtype=np.int64)
    return result


def _scaled(raw: np.ndarray, name: str) -> np.ndarray:
    """Slot ``name``'s entries: raw / its scale (obs_layout.SCALE; a scale of 1 leaves raw as it is)."""
    scale = SCALE[name]
    return raw if scale == 1.0 else raw / scale


def observe(state: State, player: np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
    """(n, OBS_DIM) float32 observation of ``player[i]`` (checked by the caller) in each game
    (all, or ``games``); seat 0 is that player."""
    if games is not None:
        # the games' rows, read like a State (the fields this function reads)
        state = cast(State, _Rows(state, games))
    B, P = state.batch_size, state.num_players
    rows = np.arange(B)
    out = np.zeros((B, OBS_DIM), dtype=np.float32)  # filled slice by slice (no concatenations)

    out[:, G["num_players"].start + P - 2] = 1.0
    phase = state.phase
    out[rows, G["phase"].start + _OBS_PHASE[phase]] = 1.0
    played = ~(_BEFORE_COMMAND[phase] | (_SHORTAGE[phase] & _BEFORE_COMMAND_DRAW[state.draw_return]))
    out[rows, G["action"].start + game_action_of_number(state.command_number)] = played
    out[:, G["command_number"].start] = _scaled(state.command_number, "command_number")
    out[:, G["head_number"].start] = _scaled(state.head_number * played, "head_number")
    out[:, G["deck_size"].start] = _scaled(_count(state.deck), "deck_size")
    out[:, G["discard_size"].start] = _scaled(_count(state.discard), "discard_size")
    out[:, G["turn"].start] = state.turn / float(state.max_turns)  # obs_layout.GAME_SCALED
    declared = state.declarer >= 0
    out[:, G["declared"].start] = declared
    out[:, G["turns_left"].start] = np.where(declared, state.last_turn - state.turn + 1, 0) / float(P)
    repeated = _REPEATED[phase]
    out[:, G["count"].start] = _scaled(state.choice_left * repeated, "count")
    out[:, G["floor"].start] = _scaled(state.choice_floor * repeated, "floor")
    summoning = state.summon_kind >= 0
    out[rows[summoning], G["summoning"].start + state.summon_kind[summoning]] = 1.0
    out[:, G["cost_need"]] = _scaled(state.pay_need * summoning[:, None], "cost_need")
    out[:, G["cost_any"].start] = _scaled(state.pay_any * summoning, "cost_any")
    out[:, G["paid"]] = _scaled(state.paid * summoning[:, None], "paid")
    out[:, G["offer_size"].start] = _scaled(_count(state.offer), "offer_size")
    sees_offer = state.offer_public | (player == state.active_player)
    out[:, G["offer"]] = _scaled(state.offer * sees_offer[:, None], "offer")
    out[:, G["hand"]] = _scaled(state.hand[rows, player], "hand")

    # per player (B, P, SEAT_DIM), then gathered by seat: observer first, then to the left
    t = np.zeros((B, P, SEAT_DIM), dtype=np.float32)
    players = np.arange(P)[None, :]
    t[..., S["present"].start] = 1.0
    t[..., S["is_active"].start] = players == state.active_player[:, None]
    t[..., S["is_current"].start] = players == state.current_player[:, None]
    t[..., S["is_declarer"].start] = players == state.declarer[:, None]
    # turns go round from the first player (R2.5, R3.3.3); a finished game counted its last turn
    first = (state.active_player - state.turn + (phase == Phase.GAME_OVER)) % P
    t[..., S["is_first"].start] = players == first[:, None]
    t[..., S["vp"].start] = _scaled(state.vp, "vp")
    t[..., S["faith"].start] = _scaled(state.faith, "faith")
    t[..., S["compared_faith"].start] = _scaled(abilities.compared_faith(state, rows), "compared_faith")
    stones = _count(state.stones)
    t[..., S["hand_size"].start] = _scaled(_count(state.hand), "hand_size")
    t[..., S["stones"].start] = _scaled(stones, "stones")
    t[..., S["mana_total"].start] = _scaled(_count(state.mana) + stones, "mana_total")
    t[..., S["spirit_count"].start] = _scaled(_count(state.spirits), "spirit_count")
    t[..., S["score"].start] = _scaled(final_scores(state), "score")
    colours = np.einsum("bpk,kc->bpc", state.mana, state.cards.colour_onehot, dtype=np.int64)
    t[..., S["mana_colours"]] = _scaled(colours, "mana_colours")
    t[..., S["icons"]] = _scaled(state.stats[..., STAT_ICONS], "icons")
    head = state.head
    has_head = head >= 0
    t[..., S["has_head"].start] = has_head
    r, p = np.nonzero(has_head)
    t[r, p, S["head"].start + head[r, p]] = 1.0
    t[..., S["mana"]] = _scaled(state.mana, "mana")
    t[..., S["spirits"]] = _scaled(state.spirits, "spirits")
    seat_player = (player[:, None] + np.arange(MAX_PLAYERS)[None, :]) % P  # (B, 4)
    seats = t[rows[:, None], seat_player]  # (B, 4, SEAT_DIM)
    if P < MAX_PLAYERS:
        seats[:, P:] = 0.0
    out[:, GLOBAL_DIM:] = seats.reshape(B, -1)
    return out
