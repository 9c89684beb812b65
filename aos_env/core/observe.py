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
from .state import State

K = NUM_KINDS
_BEFORE_COMMAND = [Phase.LEPRECHAUN, Phase.LEPRECHAUN_DISCARD, Phase.COMMAND, Phase.GAME_OVER]
_SHORTAGE = [Phase.SHORTAGE_HAND, Phase.SHORTAGE_MANA]
_BEFORE_COMMAND_DRAWS = [Phase.LEPRECHAUN_DRAWN, Phase.COMMAND_DONE]
_REPEATED = [  # decisions that pick a multiset one unit at a time (count, floor)
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


def obs_slices() -> dict[str, slice]:
    """Name -> slice of the observation vector (seat fields as ``seat{i}.{name}``)."""
    out, i = {}, 0
    for name, n, _ in GLOBAL_LAYOUT:
        out[name] = slice(i, i + n)
        i += n
    for s in range(MAX_PLAYERS):
        for name, n, _ in SEAT_LAYOUT:
            out[f"seat{s}.{name}"] = slice(i, i + n)
            i += n
    return out


def observe(state: State, player) -> np.ndarray:
    """(B, OBS_DIM) float32 observation of ``player`` (an int or a (B,) array), seat 0 = that player."""
    B, P = state.batch_size, state.num_players
    player = np.broadcast_to(np.asarray(player), (B,)).astype(np.int64)
    if ((player < 0) | (player >= P)).any():
        raise ValueError(f"player must be in 0..{P - 1}, got {player[(player < 0) | (player >= P)][0]}")
    rows = np.arange(B)
    cards = state.cards
    parts: list[np.ndarray] = []
    add = parts.append

    add(np.eye(3, dtype=np.float32)[np.full(B, P - 2)])
    add(np.eye(NUM_DECISION_PHASES + 1, dtype=np.float32)[np.minimum(state.phase, NUM_DECISION_PHASES)])
    # a command number exists once Phase I is over (not while a start-of-turn draw or the
    # command card drawn from the deck is held up by an R8.3 discard round)
    before = np.isin(state.phase, _BEFORE_COMMAND) | (
        np.isin(state.phase, _SHORTAGE) & np.isin(state.after_draw, _BEFORE_COMMAND_DRAWS)
    )
    played = ~before
    add(np.eye(7, dtype=np.float32)[action_of_number(state.command_number)] * played[:, None])
    add((state.command_number / 10.0)[:, None])
    add((state.head_number * played / 10.0)[:, None])
    add((state.deck.sum(1) / 110.0)[:, None])
    add((state.discard.sum(1) / 110.0)[:, None])
    add((state.turn / state.max_turns)[:, None])
    declared = state.declarer >= 0
    add(declared[:, None])
    add((np.where(declared, state.last_turn - state.turn + 1, 0) / P)[:, None])
    repeated = np.isin(state.phase, _REPEATED)
    add((state.count * repeated / 10.0)[:, None])
    add((state.floor * repeated / NUM_ACTIONS)[:, None])
    summoning = state.summon_kind >= 0
    add(np.eye(K, dtype=np.float32)[np.maximum(state.summon_kind, 0)] * summoning[:, None])
    add(state.pay_need / 5.0 * summoning[:, None])
    add((state.pay_any / 5.0 * summoning)[:, None])
    add(state.paid / 5.0 * summoning[:, None])
    add((state.offer.sum(1) / 2.0)[:, None])
    sees_offer = state.offer_public | (player == state.active_player)
    add(state.offer * sees_offer[:, None])
    add(state.hand[rows, player])

    # seats: observer first, then to the left
    seat_player = (player[:, None] + np.arange(MAX_PLAYERS)[None, :]) % P  # (B, 4)
    present = np.arange(MAX_PLAYERS)[None, :] < P
    spirits = state.spirits.astype(np.int64)
    icons = spirits @ cards.icons
    mana_col = state.mana.astype(np.int64) @ cards.colour_onehot
    stones = state.stones.sum(2)
    head = state.head
    per_player = [  # each (B, P, n), in SEAT_LAYOUT order
        np.ones((B, P, 1)),
        (np.arange(P)[None, :] == state.active_player[:, None])[..., None],
        (np.arange(P)[None, :] == state.current_player[:, None])[..., None],
        (np.arange(P)[None, :] == state.declarer[:, None])[..., None],
        (state.vp / 30.0)[..., None],
        (state.faith / 10.0)[..., None],
        (abilities.compared_faith(state, rows) / 10.0)[..., None],
        (state.hand.sum(2) / 10.0)[..., None],
        (stones / 10.0)[..., None],
        ((state.mana.sum(2) + stones) / 10.0)[..., None],
        (spirits.sum(2) / 10.0)[..., None],
        (final_scores(state) / 50.0)[..., None],
        mana_col / 5.0,
        icons / 5.0,
        (head >= 0)[..., None],
        np.eye(K)[np.maximum(head, 0)] * (head >= 0)[..., None],
        state.mana,
        state.spirits,
    ]
    table = np.concatenate([x.astype(np.float32) for x in per_player], axis=2)  # (B, P, SEAT_DIM)
    seats = table[rows[:, None], seat_player] * present[..., None]  # (B, 4, SEAT_DIM)
    add(seats.reshape(B, -1))
    out = np.concatenate([x.astype(np.float32).reshape(B, -1) for x in parts], axis=1)
    assert out.shape[1] == OBS_DIM
    return out
