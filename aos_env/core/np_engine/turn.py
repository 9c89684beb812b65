"""The turn (R3): start, command phase, summon-or-action, replenish and assist, end of turn,
the end declaration and the passing of the turn (R7).

Order of a turn (R3 [decision]): Leprechaun -> command card -> Asmodai -> summon or action ->
draw 2, keep 1, assist (Cerberus) -> Belial -> end declaration -> next player.
"""

from __future__ import annotations

import numpy as np

from ..cards import BONUS_CARDS, BONUS_FAITH, BONUS_STONES, BONUS_VP
from ..constants import ACT, DECLARE_SPIRITS, DECLARE_VP, PEND_HAND, PEND_STONE, PHASE3_DRAW, YES
from ..phases import PH
from ..state import State, ksum
from . import abilities, scoring
from .chips import gain_faith
from .draws import request_draws
from .summon import start_summon, summonable
from .zones import empty_mask


def run_turn_start(state: State, g: np.ndarray) -> None:
    """A new turn of ``active_player``: start-of-turn abilities (Leprechaun), then the command card."""
    p = state.active_player[g]
    state.current_player[g] = p
    state.cmd_card[g] = -1
    state.summon_kind[g] = -1
    state.command_number[g] = 0
    lep = abilities.leprechaun_count(state, g, p) > 0
    state.phase[g] = np.where(lep, PH.LEPRECHAUN, PH.COMMAND_START)


# ---- R3.1 Phase I: command number ------------------------------------------------


def run_command_start(state: State, g: np.ndarray) -> None:
    """Ask for a command card; with an empty hand the top card of the deck is played (R3.1.2, R8.2)."""
    empty = ksum(state.hand[g, state.active_player[g]]) == 0
    request_draws(state, g[empty], PH.COMMAND_DONE, cmd=1)
    state.phase[g[~empty]] = PH.COMMAND


def apply_command(state: State, g: np.ndarray, k: np.ndarray) -> None:
    """The card goes face up onto the right end of the mana row, next to the head (R3.1.1)."""
    p = state.active_player[g]
    state.hand[g, p, k] -= 1
    state.mana[g, p, k] += 1
    state.cmd_card[g] = k
    state.phase[g] = PH.COMMAND_DONE


def run_command_done(state: State, g: np.ndarray) -> None:
    """Command number = head + command card; both are ordinary mana from now on (R3.1.1, R4.5)."""
    p = state.active_player[g]
    number = state.cards.number
    head = state.head[g, p]
    card = state.cmd_card[g]
    state.head_number[g] = np.where(head >= 0, number[head], 0)  # R3.1.3 [decision]: no head counts 0
    state.command_number[g] = state.head_number[g] + np.where(card >= 0, number[card], 0)
    state.head[g, p] = -1
    asmodai = abilities.asmodai_count(state, g, p) > 0
    state.phase[g] = np.where(asmodai, PH.ASMODAI, PH.MAIN)


# ---- R3.2 Phase II: summon or action ---------------------------------------------


def main_mask(state: State, g: np.ndarray) -> np.ndarray:
    """CARD_k: summon a spirit that can be paid for (R5.1); ACT: the action (always allowed)."""
    mask = empty_mask(g.size)
    ok = summonable(state, g)
    mask[:, : ok.shape[1]] = ok
    mask[:, ACT] = True
    return mask


def apply_main(state: State, g: np.ndarray, action: np.ndarray) -> None:
    act = action == ACT
    state.phase[g[act]] = PH.ACTION
    start_summon(state, g[~act], action[~act])


def run_summon_done(state: State, g: np.ndarray) -> None:
    """The paid spirit enters play; its "when summoned" ability works at once (R5.3)."""
    p = state.active_player[g]
    k = state.summon_kind[g]
    state.hand[g, p, k] -= 1
    state.spirits[g, p, k] += 1
    state.stats[g, p] += state.cards.stat_table[k].astype(state.stats.dtype)
    state.summon_kind[g] = -1
    cards = state.cards
    bonus = cards.summon_bonus[k]  # (n, fields): Phoenix, Angel
    state.vp[g, p] += bonus[:, BONUS_VP]
    gain_faith(state, g, p, bonus[:, BONUS_FAITH])
    state.draw_pend[g, PEND_HAND] += bonus[:, BONUS_CARDS]
    state.draw_pend[g, PEND_STONE] += bonus[:, BONUS_STONES]
    sphinx = cards.special["sphinx"][k] > 0
    abilities.sphinx_on_summon(state, g[sphinx], p[sphinx], k[sphinx])
    nightmare = cards.special["nightmare"][k] > 0
    abilities.nightmare_on_summon(state, g[nightmare])
    request_draws(state, g[~nightmare], PH.PHASE3)


# ---- R3.3 Phase III: replenish and assist ------------------------------------------


def run_phase3(state: State, g: np.ndarray) -> None:
    """Draw 2 cards, privately (R3.3.1)."""
    state.offer_public[g] = False
    state.current_player[g] = state.active_player[g]
    request_draws(state, g, PH.KEEP_START, offer=PHASE3_DRAW)


def run_keep_start(state: State, g: np.ndarray) -> None:
    empty = ksum(state.offer[g]) == 0  # only if nothing at all could be drawn
    state.phase[g] = np.where(empty, PH.END_TURN, PH.KEEP)


def apply_keep(state: State, g: np.ndarray, k: np.ndarray) -> None:
    """Keep one card; the other becomes the right neighbour's new head (R3.3.2, R4.5).

    [decision] If only one card could be drawn (R8.3), it is kept and nothing is assisted.
    """
    P = state.num_players
    p = state.active_player[g]
    state.hand[g, p, k] += 1
    state.offer[g, k] -= 1
    rest = ksum(state.offer[g]) > 0
    a, pa = g[rest], p[rest]
    assisted = np.argmax(state.offer[a] > 0, axis=1)
    right = (pa - 1) % P
    state.offer[a, assisted] -= 1
    state.mana[a, right, assisted] += 1
    state.head[a, right] = assisted  # the old head stays as ordinary mana
    state.vp[a, pa] += abilities.cerberus_bonus(state, a, pa, assisted)
    state.phase[g] = PH.END_TURN


# ---- end of turn: Belial, the end declaration (R7.1), the next player ---------------


def run_end_turn(state: State, g: np.ndarray) -> None:
    """End-of-turn abilities: Belial (one use per copy, optional)."""
    abilities.start_belial(state, g)


def run_declare_check(state: State, g: np.ndarray) -> None:
    """The end may be declared with 10+ spirits or 30+ VP; only the first declaration counts."""
    p = state.active_player[g]
    may = (state.declarer[g] < 0) & ((ksum(state.spirits[g, p]) >= DECLARE_SPIRITS) | (state.vp[g, p] >= DECLARE_VP))
    state.phase[g] = np.where(may, PH.DECLARE, PH.NEXT_TURN)


def apply_declare(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """YES: one more round follows, the declarer's turn last (R7.2)."""
    yes = g[action == YES]
    state.declarer[yes] = state.active_player[yes]
    state.last_turn[yes] = state.turn[yes] + state.num_players
    state.phase[g] = PH.NEXT_TURN


def run_next_turn(state: State, g: np.ndarray) -> None:
    """Pass the turn to the left; end the game after the extra round (R7.2) or at the turn limit (R7.5)."""
    state.turn[g] += 1
    declared = state.declarer[g] >= 0
    over = declared & (state.turn[g] > state.last_turn[g])
    limit = ~declared & (state.turn[g] >= state.max_turns)
    scoring.end_games(state, g[over], truncated=False)
    scoring.end_games(state, g[limit], truncated=True)
    go = g[~over & ~limit]
    state.active_player[go] = (state.active_player[go] + 1) % state.num_players
    state.phase[go] = PH.TURN_START
