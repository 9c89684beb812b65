"""Player-relative observations (R9): public information plus the observer's own hand.

The vector has the same size for 2, 3 and 4 players: seats are listed from
the observer (seat 0) to the left (seats 1..3), and seats a smaller game
does not have are zero. ``OBS_LAYOUT`` names every slice; docs/observation.md
is generated from it.
"""

from __future__ import annotations

import numpy as np

from ..cards import NUM_KINDS
from . import abilities
from .constants import MAX_PLAYERS, NUM_ACTIONS, NUM_DECISION_PHASES, Phase, action_of_number
from .scoring import final_scores
from .state import STAT_ICONS, State

K = NUM_KINDS
_BEFORE_COMMAND_PHASES = [Phase.LEPRECHAUN, Phase.LEPRECHAUN_DISCARD, Phase.COMMAND, Phase.GAME_OVER]
_SHORTAGE_PHASES = [Phase.SHORTAGE_HAND, Phase.SHORTAGE_MANA]
_BEFORE_COMMAND_DRAWS = [Phase.LEPRECHAUN_DRAWN, Phase.COMMAND_DONE]
_REPEATED_PHASES = [  # decisions that pick a multiset one unit at a time (count, floor)
    Phase.LEPRECHAUN_DISCARD, Phase.BALDANDERS, Phase.PAY, Phase.NIGHTMARE_HAND, Phase.NIGHTMARE_MANA,
    Phase.RESEARCH_FLIP, Phase.PRAYER_DISCARD, Phase.BELIAL, Phase.SHORTAGE_HAND, Phase.SHORTAGE_MANA,
]

#: (name, size, meaning) of each slice, in order. Seat blocks repeat for seats 0..3.
GLOBAL_LAYOUT: list[tuple[str, int, str]] = [
    ("num_players", 3, "one-hot: 2, 3 or 4 players"),
    ("phase", NUM_DECISION_PHASES + 1, "one-hot of `state.phase` (the decisions of `core.Phase`, then GAME_OVER)"),
    ("action", 7, "one-hot of the action the command number gives (Conquest .. Pilgrimage; R6)"),
    ("command_number", 1, "this turn's command number / 10 (0 before Phase I)"),
    ("head_number", 1, "number of the head the command card went onto / 10: the number Asmodai would give"),
    ("deck_size", 1, "cards in the deck / 110"),
    ("discard_size", 1, "cards in the discard pile / 110"),
    ("turn", 1, "turns played / the turn limit"),
    ("declared", 1, "1 once the end is declared (R7.1)"),
    ("turns_left", 1, "after a declaration: turns still to play / number of players, else 0"),
    ("count", 1, "choices left in a repeated decision (discards, flips, Baldanders, Belial) / 10"),
    ("floor", 1, "lowest action id allowed next in a repeated decision / 44 (multisets are chosen in ascending order)"),
    ("summoning", K, "one-hot: the spirit being summoned (Baldanders, payment)"),
    ("cost_need", 5, "coloured symbols of the cost being paid, by colour / 5"),
    ("cost_any", 1, "'any' symbols of the cost being paid / 5"),
    ("paid", 6, "units paid so far: 5 colours, then stones / 5"),
    ("offer_size", 1, "cards on offer (Festival reveal, Phase III draws) / 2"),
    ("offer", K, "the offered cards by kind: seen by everyone for Festival, only by the drawing player in Phase III"),
    ("hand", K, "the observer's own hand, by kind"),
]
SEAT_LAYOUT: list[tuple[str, int, str]] = [
    ("present", 1, "1 if the game has this seat"),
    ("is_active", 1, "1 if it is this player's turn"),
    ("is_current", 1, "1 if this player must choose now"),
    ("is_declarer", 1, "1 if this player declared the end"),
    ("vp", 1, "VP chips / 30"),
    ("faith", 1, "faith / 10"),
    ("compared_faith", 1, "faith as compared by Festival and Inquisition (Pegasus +2 each) / 10"),
    ("hand_size", 1, "cards in hand / 10"),
    ("stones", 1, "philosopher's stones / 10 (their faces are hidden)"),
    ("mana_total", 1, "face-up mana plus stones / 10"),
    ("spirit_count", 1, "spirits in play / 10"),
    ("score", 1, "current final score if the game ended now (R7.3) / 50"),
    ("mana_colours", 5, "face-up mana by colour / 5"),
    ("icons", 5, "icons on spirits in play: axe, staff, sword, shield, armour / 5"),
    ("has_head", 1, "1 if the row has a waiting head (assisted card)"),
    ("head", K, "one-hot: kind of the head"),
    ("mana", K, "face-up mana by kind (the head included)"),
    ("spirits", K, "spirits in play by kind"),
]
SEAT_DIM = sum(n for _, n, _ in SEAT_LAYOUT)
GLOBAL_DIM = sum(n for _, n, _ in GLOBAL_LAYOUT)
OBS_DIM = GLOBAL_DIM + MAX_PLAYERS * SEAT_DIM


def layout_slices(layout: list[tuple[str, int, str]], offset: int = 0) -> dict[str, slice]:
    """Name -> slice for a layout of (name, size, meaning), starting at ``offset``."""
    out, i = {}, offset
    for name, n, _ in layout:
        out[name] = slice(i, i + n)
        i += n
    return out


def obs_slices() -> dict[str, slice]:
    """Name -> slice of the observation vector (seat fields as ``seat{i}.{name}``)."""
    out = layout_slices(GLOBAL_LAYOUT)
    for s in range(MAX_PLAYERS):
        seat = layout_slices(SEAT_LAYOUT, GLOBAL_DIM + s * SEAT_DIM)
        out.update({f"seat{s}.{name}": sl for name, sl in seat.items()})
    return out


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


def observe(state: State, player, games: np.ndarray | None = None) -> np.ndarray:
    """(B, OBS_DIM) float32 observation of ``player`` (an int or a (B,) array), seat 0 = that player.

    ``games``: observe only these games (then ``player`` has one entry per game).
    """
    if games is not None:
        state = _Rows(state, np.asarray(games))
    B, P = state.batch_size, state.num_players
    player = np.asarray(player, dtype=np.int64)
    if player.ndim == 0:
        player = np.full(B, player)
    elif player.shape != (B,):
        raise ValueError(f"player must be an int or an array of shape ({B},), got shape {player.shape}")
    if player.min() < 0 or player.max() >= P:
        bad = player[(player < 0) | (player >= P)][0]
        raise ValueError(f"player must be in 0..{P - 1}, got {bad}")
    rows = np.arange(B)
    cards = state.cards
    out = np.zeros((B, OBS_DIM), dtype=np.float32)  # filled slice by slice (no concatenations)
    o = _GLOBAL

    out[:, o["num_players"].start + P - 2] = 1.0
    phase = state.phase
    out[rows, o["phase"].start + np.minimum(phase, NUM_DECISION_PHASES)] = 1.0
    # a command number exists once Phase I is over (not while a start-of-turn draw or the
    # command card drawn from the deck is held up by an R8.3 discard round)
    played = ~(_BEFORE_COMMAND[phase] | (_SHORTAGE[phase] & _BEFORE_COMMAND_DRAW[state.after_draw]))
    out[rows, o["action"].start + action_of_number(state.command_number)] = played
    out[:, o["command_number"].start] = state.command_number / 10.0
    out[:, o["head_number"].start] = state.head_number * played / 10.0
    out[:, o["deck_size"].start] = _count(state.deck) / 110.0
    out[:, o["discard_size"].start] = _count(state.discard) / 110.0
    out[:, o["turn"].start] = state.turn / state.max_turns
    declared = state.declarer >= 0
    out[:, o["declared"].start] = declared
    out[:, o["turns_left"].start] = np.where(declared, state.last_turn - state.turn + 1, 0) / P
    repeated = _REPEATED[phase]
    out[:, o["count"].start] = state.count * repeated / 10.0
    out[:, o["floor"].start] = state.floor * repeated / NUM_ACTIONS
    summoning = state.summon_kind >= 0
    out[rows[summoning], o["summoning"].start + state.summon_kind[summoning]] = 1.0
    out[:, o["cost_need"]] = state.pay_need * (summoning / 5.0)[:, None]
    out[:, o["cost_any"].start] = state.pay_any * summoning / 5.0
    out[:, o["paid"]] = state.paid * (summoning / 5.0)[:, None]
    out[:, o["offer_size"].start] = _count(state.offer) / 2.0
    sees_offer = state.offer_public | (player == state.active_player)
    out[:, o["offer"]] = state.offer * sees_offer[:, None]
    out[:, o["hand"]] = state.hand[rows, player]

    # per player (B, P, SEAT_DIM), then gathered by seat: observer first, then to the left
    t = np.zeros((B, P, SEAT_DIM), dtype=np.float32)
    q = _SEAT
    players = np.arange(P)[None, :]
    t[..., q["present"].start] = 1.0
    t[..., q["is_active"].start] = players == state.active_player[:, None]
    t[..., q["is_current"].start] = players == state.current_player[:, None]
    t[..., q["is_declarer"].start] = players == state.declarer[:, None]
    t[..., q["vp"].start] = state.vp / 30.0
    t[..., q["faith"].start] = state.faith / 10.0
    t[..., q["compared_faith"].start] = abilities.compared_faith(state, rows) / 10.0
    stones = _count(state.stones)
    mana_n = _count(state.mana)
    t[..., q["hand_size"].start] = _count(state.hand) / 10.0
    t[..., q["stones"].start] = stones / 10.0
    t[..., q["mana_total"].start] = (mana_n + stones) / 10.0
    t[..., q["spirit_count"].start] = _count(state.spirits) / 10.0
    t[..., q["score"].start] = final_scores(state) / 50.0
    t[..., q["mana_colours"]] = (state.mana.astype(np.float32) @ cards.colour_onehot_f32) / 5.0
    t[..., q["icons"]] = state.stats[..., STAT_ICONS] / 5.0
    head = state.head
    has_head = head >= 0
    t[..., q["has_head"].start] = has_head
    r, p = np.nonzero(has_head)
    t[r, p, q["head"].start + head[r, p]] = 1.0
    t[..., q["mana"]] = state.mana
    t[..., q["spirits"]] = state.spirits
    seat_player = (player[:, None] + np.arange(MAX_PLAYERS)[None, :]) % P  # (B, 4)
    seats = t[rows[:, None], seat_player]  # (B, 4, SEAT_DIM)
    if P < MAX_PLAYERS:
        seats[:, P:] = 0.0
    out[:, GLOBAL_DIM:] = seats.reshape(B, -1)
    return out


def _count(x: np.ndarray) -> np.ndarray:
    """Sum over the kind axis (see state.ksum)."""
    return np.einsum("...k->...", x)


def _table(phases) -> np.ndarray:
    out = np.zeros(max(Phase) + 1, dtype=bool)
    out[[int(p) for p in phases]] = True
    return out


_GLOBAL = layout_slices(GLOBAL_LAYOUT)
_SEAT = layout_slices(SEAT_LAYOUT)  # offsets inside a seat block
_BEFORE_COMMAND = _table(_BEFORE_COMMAND_PHASES)
_SHORTAGE = _table(_SHORTAGE_PHASES)
_BEFORE_COMMAND_DRAW = _table(_BEFORE_COMMAND_DRAWS)
_REPEATED = _table(_REPEATED_PHASES)
