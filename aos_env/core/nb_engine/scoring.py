"""Final scores (R7.3), the end of a game and its terminal rewards (R7.4, R7.5) for one game;
the scalar twin of ``np_engine/scoring.py``."""

from __future__ import annotations

from .. import scores
from ..constants import NUM_ACTIONS, NUM_ICONS
from ..phases import Phase
from ..scores import WIN_REWARD
from ..state import STAT_ICONS, STAT_POINTS, STAT_SCORE
from ._jit import Record, Tables, jit
from .zones import zone_size

_ICON0 = STAT_ICONS.start
_SCORE0 = STAT_SCORE.start  # game-end VP per unit of: the 5 icons, full icon sets, stones, faith
_SET, _STONE, _FAITH = NUM_ICONS, NUM_ICONS + 1, NUM_ICONS + 2


@jit
def final_score(r: Record, p: int) -> int:
    """VP chips + printed points + game-end abilities (Titania, Chimera, Ouroboros, Seraph)."""
    score = r.vp[p] + r.stats[p, STAT_POINTS]
    full_sets = r.stats[p, _ICON0]
    for i in range(NUM_ICONS):
        icons = r.stats[p, _ICON0 + i]
        score += r.stats[p, _SCORE0 + i] * icons
        full_sets = min(full_sets, icons)
    score += r.stats[p, _SCORE0 + _SET] * full_sets
    score += r.stats[p, _SCORE0 + _STONE] * zone_size(r.stones[p])
    score += r.stats[p, _SCORE0 + _FAITH] * r.faith[p]
    return score


_tie_rank = jit(scores.tie_rank)
_loss_reward = jit(scores.loss_reward)


@jit
def winner(r: Record, P: int) -> int:
    """Highest score; ties go to the tied player with the lowest ``scores.tie_rank`` (R7.4)."""
    best, w, w_rank = final_score(r, 0), 0, _tie_rank(0, r.declarer, P)
    for p in range(1, P):
        s = final_score(r, p)
        rank = _tie_rank(p, r.declarer, P)
        if s > best or (s == best and rank < w_rank):
            best, w, w_rank = s, p, rank
    return w


@jit
def end_game(r: Record, t: Tables, P: int, truncated: bool) -> None:
    """Finish the game: the winner ``scores.WIN_REWARD``, the others ``scores.loss_reward``; a
    truncated game (R7.5) gives 0 to all."""
    if truncated:
        r.truncated = True
        for p in range(P):
            r.rewards[p] = 0.0
    else:
        r.terminated = True
        w = winner(r, P)
        for p in range(P):
            r.rewards[p] = WIN_REWARD if p == w else _loss_reward(P)
    r.phase = Phase.GAME_OVER
    for a in range(NUM_ACTIONS):
        r.legal_action_mask[a] = False
