"""Final scores (R7.3), the winner with its tie-break (R7.4) and terminal rewards."""

from __future__ import annotations

import numpy as np

from .constants import PH
from .state import STAT_ICONS, STAT_POINTS, STAT_SCORE, State, ksum


def final_scores(state: State, g: np.ndarray | None = None) -> np.ndarray:
    """(B, P) VP chips + printed points + game-end abilities (Titania, Chimera, Ouroboros, Seraph);
    with ``g``, (n, P) for games g only.

    Defined at any moment (it is what the score would be if the game ended now).
    """
    sel = slice(None) if g is None else g
    stats = state.stats[sel]
    icons = stats[..., STAT_ICONS]
    # units of each game-end source (cards.SCORE_SOURCES order): 5 icons, full icon sets, stones, faith
    sources = np.concatenate(
        [icons, icons.min(axis=2, keepdims=True), ksum(state.stones[sel])[..., None], state.faith[sel][..., None]],
        axis=2,
    )
    game_end = np.einsum("bps,bps->bp", stats[..., STAT_SCORE], sources)  # per copy: VP per unit x units
    return state.vp[sel] + stats[..., STAT_POINTS] + game_end


def score_lead(state: State, g: np.ndarray, player: np.ndarray) -> np.ndarray:
    """(n,) player[i]'s current score minus the best other score in game g[i]."""
    scores = final_scores(state, g).astype(np.float64)
    rows = np.arange(g.size)
    mine = scores[rows, player]
    scores[rows, player] = -np.inf
    return mine - scores.max(1)


def winners(state: State, g: np.ndarray) -> np.ndarray:
    """(n,) the winner of each game: highest score; ties go to the tied player nearest
    the declarer's left, so the declarer never wins a tie (R7.4)."""
    P = state.num_players
    scores = final_scores(state, g)
    best = scores == scores.max(1, keepdims=True)
    declarer = np.maximum(state.declarer[g], 0)
    order = (np.arange(P)[None, :] - declarer[:, None] - 1) % P  # 0 = declarer's left, P-1 = declarer
    return np.argmin(np.where(best, order, P), axis=1)


def end_games(state: State, g: np.ndarray, truncated: bool) -> None:
    """Finish games g: winner +1, others -1/(P-1); a truncated game (R7.5) gives 0 to all."""
    if not g.size:
        return
    P = state.num_players
    if truncated:
        state.truncated[g] = True
    else:
        state.terminated[g] = True
        w = winners(state, g)
        rewards = np.full((g.size, P), -1.0 / (P - 1), dtype=np.float32)
        rewards[np.arange(g.size), w] = 1.0
        state.rewards[g] = rewards
    state.phase[g] = PH.GAME_OVER
    state.legal_action_mask[g] = False
