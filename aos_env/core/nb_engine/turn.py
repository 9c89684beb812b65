"""The turn (R3) for one game: start, command phase, summon-or-action, replenish and assist,
end of turn, the end declaration and the passing of the turn (R7); the scalar twin of
``np_engine/turn.py``.

Order of a turn (R3 [decision]): Leprechaun -> command card -> Asmodai -> summon or action ->
draw 2, keep 1, assist (Cerberus) -> Belial -> end declaration -> next player.
"""

from __future__ import annotations

from ..cards import BONUS_CARDS, BONUS_FAITH, BONUS_STONES, BONUS_VP
from ..constants import ACT, DECLARE_SPIRITS, DECLARE_VP, PEND_HAND, PEND_STONE, PHASE3_DRAW, YES, K
from ..phases import Phase
from ..state import NUM_STATS
from . import abilities, scoring
from ._jit import Array, Record, Tables, jit
from .chips import gain_faith
from .draws import request_draws
from .summon import start_summon, summonable
from .zones import zone_size


@jit
def run_turn_start(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """A new turn of ``active_player``: start-of-turn abilities (Leprechaun), then the command card."""
    p = r.active_player
    r.current_player = p
    r.cmd_card = -1
    r.summon_kind = -1
    r.command_number = 0
    r.phase = Phase.LEPRECHAUN if abilities.leprechaun_count(r, p) > 0 else Phase.COMMAND_START


# ---- R3.1 Phase I: command number ------------------------------------------------


@jit
def run_command_start(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """Ask for a command card; with an empty hand the top card of the deck is played (R3.1.2, R8.2)."""
    if zone_size(r.hand[r.active_player]) == 0:
        request_draws(r, Phase.COMMAND_DONE, 1, 0, 0, 0, 0)
    else:
        r.phase = Phase.COMMAND


@jit
def apply_command(r: Record, t: Tables, P: int, k: int) -> None:
    """The card goes face up onto the right end of the mana row, next to the head (R3.1.1)."""
    p = r.active_player
    r.hand[p, k] -= 1
    r.mana[p, k] += 1
    r.cmd_card = k
    r.phase = Phase.COMMAND_DONE


@jit
def run_command_done(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """Command number = head + command card; both are ordinary mana from now on (R3.1.1, R4.5)."""
    p = r.active_player
    head = r.head[p]
    card = r.cmd_card
    r.head_number = t.number[head] if head >= 0 else 0  # R3.1.3 [decision]: no head counts 0
    r.command_number = r.head_number + (t.number[card] if card >= 0 else 0)
    r.head[p] = -1
    r.phase = Phase.ASMODAI if abilities.asmodai_count(r, p) > 0 else Phase.MAIN


# ---- R3.2 Phase II: summon or action ---------------------------------------------


@jit
def main_mask(r: Record, t: Tables, P: int, mask: Array) -> None:
    """CARD_k: summon a spirit that can be paid for (R5.1); ACT: the action (always allowed)."""
    summonable(r, t, mask)
    mask[ACT] = True


@jit
def apply_main(r: Record, t: Tables, P: int, action: int) -> None:
    if action == ACT:
        r.phase = Phase.ACTION
    else:
        start_summon(r, t, action)


@jit
def run_summon_done(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """The paid spirit enters play; its "when summoned" ability works at once (R5.3)."""
    p = r.active_player
    k = r.summon_kind
    r.hand[p, k] -= 1
    r.spirits[p, k] += 1
    for j in range(NUM_STATS):
        r.stats[p, j] += t.stat_table[k, j]
    r.summon_kind = -1
    r.vp[p] += t.summon_bonus[k, BONUS_VP]  # Phoenix, Angel
    gain_faith(r, p, t.summon_bonus[k, BONUS_FAITH])
    r.draw_pend[PEND_HAND] += t.summon_bonus[k, BONUS_CARDS]
    r.draw_pend[PEND_STONE] += t.summon_bonus[k, BONUS_STONES]
    if t.special[abilities.SPECIAL_SPHINX, k] > 0:
        abilities.sphinx_on_summon(r, t, p, k)
    if t.special[abilities.SPECIAL_NIGHTMARE, k] > 0:
        abilities.nightmare_on_summon(r, P)
    else:
        request_draws(r, Phase.PHASE3, 0, 0, 0, 0, 0)


# ---- R3.3 Phase III: replenish and assist ------------------------------------------


@jit
def run_phase3(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """Draw 2 cards, privately (R3.3.1)."""
    r.offer_public = False
    r.current_player = r.active_player
    request_draws(r, Phase.KEEP_START, 0, 0, 0, 0, PHASE3_DRAW)


@jit
def run_keep_start(r: Record, t: Tables, P: int, max_turns: int) -> None:
    r.phase = Phase.END_TURN if zone_size(r.offer) == 0 else Phase.KEEP  # empty only if nothing was drawn


@jit
def apply_keep(r: Record, t: Tables, P: int, k: int) -> None:
    """Keep one card; the other becomes the right neighbour's new head (R3.3.2, R4.5).

    [decision] If only one card could be drawn (R8.3), it is kept and nothing is assisted.
    """
    p = r.active_player
    r.hand[p, k] += 1
    r.offer[k] -= 1
    if zone_size(r.offer) > 0:
        assisted = 0
        for j in range(K):
            if r.offer[j] > 0:
                assisted = j
                break
        right = (p - 1) % P
        r.offer[assisted] -= 1
        r.mana[right, assisted] += 1
        r.head[right] = assisted  # the old head stays as ordinary mana
        r.vp[p] += abilities.cerberus_bonus(r, t, p, assisted)
    r.phase = Phase.END_TURN


# ---- end of turn: Belial, the end declaration (R7.1), the next player ---------------


@jit
def run_end_turn(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """End-of-turn abilities: Belial (one use per copy, optional)."""
    abilities.start_belial(r)


@jit
def run_declare_check(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """The end may be declared with 10+ spirits or 30+ VP; only the first declaration counts."""
    p = r.active_player
    may = r.declarer < 0 and (zone_size(r.spirits[p]) >= DECLARE_SPIRITS or r.vp[p] >= DECLARE_VP)
    r.phase = Phase.DECLARE if may else Phase.NEXT_TURN


@jit
def apply_declare(r: Record, t: Tables, P: int, action: int) -> None:
    """YES: one more round follows, the declarer's turn last (R7.2)."""
    if action == YES:
        r.declarer = r.active_player
        r.last_turn = r.turn + P
    r.phase = Phase.NEXT_TURN


@jit
def run_next_turn(r: Record, t: Tables, P: int, max_turns: int) -> None:
    """Pass the turn to the left; end the game after the extra round (R7.2) or at the turn limit (R7.5)."""
    r.turn += 1
    if r.declarer >= 0:
        if r.turn > r.last_turn:
            scoring.end_game(r, t, P, False)
            return
    elif r.turn >= max_turns:
        scoring.end_game(r, t, P, True)
        return
    r.active_player = (r.active_player + 1) % P
    r.phase = Phase.TURN_START
