"""Player-relative observations (R9): public information plus the observer's own hand, laid
out as ``obs_layout`` says (each entry raw / scale, in float64, then float32)."""

from __future__ import annotations

import numpy as np

from ..constants import MAX_PLAYERS
from ..obs_layout import G, GLOBAL_DIM, OBS_DIM, S, SEAT_DIM
from ..phases import IS_REPEATED, OBS_PHASE_INDEX, Phase
from ..state import STAT_ICONS, State
from ..constants import game_action_of_number
from . import abilities
from .scoring import final_scores

_OBS_PHASE = np.array(OBS_PHASE_INDEX)
_REPEATED = np.array(IS_REPEATED, dtype=bool)


def _table(phases) -> np.ndarray:
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

    def __getattr__(self, name: str):
        value = getattr(self._state, name)[self._games]
        setattr(self, name, value)
        return value


def _count(x: np.ndarray) -> np.ndarray:
    """Sum over the kind axis, as int64."""
    return np.einsum("...k->...", x, dtype=np.int64)


def observe(state: State, player: np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
    """(n, OBS_DIM) float32 observation of ``player[i]`` (checked by the caller) in each game
    (all, or ``games``); seat 0 is that player."""
    if games is not None:
        state = _Rows(state, games)
    B, P = state.batch_size, state.num_players
    rows = np.arange(B)
    out = np.zeros((B, OBS_DIM), dtype=np.float32)  # filled slice by slice (no concatenations)

    out[:, G["num_players"].start + P - 2] = 1.0
    phase = state.phase
    out[rows, G["phase"].start + _OBS_PHASE[phase]] = 1.0
    played = ~(_BEFORE_COMMAND[phase] | (_SHORTAGE[phase] & _BEFORE_COMMAND_DRAW[state.draw_return]))
    out[rows, G["action"].start + game_action_of_number(state.command_number)] = played
    out[:, G["command_number"].start] = state.command_number / 10.0
    out[:, G["head_number"].start] = (state.head_number * played) / 10.0
    out[:, G["deck_size"].start] = _count(state.deck) / 110.0
    out[:, G["discard_size"].start] = _count(state.discard) / 110.0
    out[:, G["turn"].start] = state.turn / float(state.max_turns)
    declared = state.declarer >= 0
    out[:, G["declared"].start] = declared
    out[:, G["turns_left"].start] = np.where(declared, state.last_turn - state.turn + 1, 0) / float(P)
    repeated = _REPEATED[phase]
    out[:, G["count"].start] = (state.choice_left * repeated) / 10.0
    out[:, G["floor"].start] = (state.choice_floor * repeated) / 44.0
    summoning = state.summon_kind >= 0
    out[rows[summoning], G["summoning"].start + state.summon_kind[summoning]] = 1.0
    out[:, G["cost_need"]] = (state.pay_need * summoning[:, None]) / 5.0
    out[:, G["cost_any"].start] = (state.pay_any * summoning) / 5.0
    out[:, G["paid"]] = (state.paid * summoning[:, None]) / 5.0
    out[:, G["offer_size"].start] = _count(state.offer) / 2.0
    sees_offer = state.offer_public | (player == state.active_player)
    out[:, G["offer"]] = state.offer * sees_offer[:, None]
    out[:, G["hand"]] = state.hand[rows, player]

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
    t[..., S["vp"].start] = state.vp / 30.0
    t[..., S["faith"].start] = state.faith / 10.0
    t[..., S["compared_faith"].start] = abilities.compared_faith(state, rows) / 10.0
    stones = _count(state.stones)
    t[..., S["hand_size"].start] = _count(state.hand) / 10.0
    t[..., S["stones"].start] = stones / 10.0
    t[..., S["mana_total"].start] = (_count(state.mana) + stones) / 10.0
    t[..., S["spirit_count"].start] = _count(state.spirits) / 10.0
    t[..., S["score"].start] = final_scores(state) / 50.0
    colours = np.einsum("bpk,kc->bpc", state.mana, state.cards.colour_onehot, dtype=np.int64)
    t[..., S["mana_colours"]] = colours / 5.0
    t[..., S["icons"]] = state.stats[..., STAT_ICONS] / 5.0
    head = state.head
    has_head = head >= 0
    t[..., S["has_head"].start] = has_head
    r, p = np.nonzero(has_head)
    t[r, p, S["head"].start + head[r, p]] = 1.0
    t[..., S["mana"]] = state.mana
    t[..., S["spirits"]] = state.spirits
    seat_player = (player[:, None] + np.arange(MAX_PLAYERS)[None, :]) % P  # (B, 4)
    seats = t[rows[:, None], seat_player]  # (B, 4, SEAT_DIM)
    if P < MAX_PLAYERS:
        seats[:, P:] = 0.0
    out[:, GLOBAL_DIM:] = seats.reshape(B, -1)
    return out
