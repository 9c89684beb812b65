"""Final scores (R7.3), the end of a game and its terminal rewards (R7.4, R7.5)."""

from __future__ import annotations

import numpy as np

from ..phases import PH
from ..scores import rewards_for, winners_of
from ..state import STAT_ICONS, STAT_POINTS, STAT_SCORE, State, ksum


def final_scores(state: State, g: np.ndarray | None = None) -> np.ndarray:
    """(B, P) VP chips + printed points + game-end abilities (Titania, Chimera, Ouroboros,
    Seraph); with ``g``, (n, P) for games g only. Defined at any moment: the score if the game
    ended now."""
    sel = slice(None) if g is None else g
    stats = state.stats[sel].astype(np.int64)
    icons = stats[..., STAT_ICONS]
    # units of each game-end source (cards.SCORE_SOURCES order): 5 icons, full icon sets, stones, faith
    sources = np.concatenate(
        [icons, icons.min(axis=2, keepdims=True), ksum(state.stones[sel])[..., None], state.faith[sel][..., None]],
        axis=2,
    )
    game_end = np.einsum("bps,bps->bp", stats[..., STAT_SCORE], sources)  # per copy: VP per unit x units
    result: np.ndarray = (state.vp[sel] + stats[..., STAT_POINTS] + game_end).astype(np.int32)
    return result


def end_games(state: State, g: np.ndarray, truncated: bool) -> None:
    """Finish games g: the winner +1, the others -1/(P-1) (``scores.rewards_for``); a truncated
    game (R7.5, or ``core.truncate``) gives 0 to all."""
    if not g.size:
        return
    if truncated:
        state.truncated[g] = True
        state.rewards[g] = 0.0
    else:
        state.terminated[g] = True
        state.rewards[g] = rewards_for(winners_of(final_scores(state, g), state.declarer[g]), state.num_players)
    state.phase[g] = PH.GAME_OVER
    state.legal_action_mask[g] = False


def truncate(state: State, g: np.ndarray) -> None:
    """``core.truncate``: end games ``g`` (unfinished ones, checked by the caller) as truncated (R7.5)."""
    end_games(state, g, truncated=True)
