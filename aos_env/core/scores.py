"""What final scores decide, for both engines' callers: the winner with its tie-break (R7.4),
the terminal rewards and a player's score lead. Pure functions of the scores."""

from __future__ import annotations

import numpy as np


def winners_of(scores: np.ndarray, declarer: np.ndarray) -> np.ndarray:
    """(n,) the winner of each game from its scores (n, P): highest score; ties go to the tied
    player nearest the declarer's left, so the declarer never wins a tie (R7.4)."""
    P = scores.shape[1]
    best = scores == scores.max(1, keepdims=True)
    d = np.maximum(declarer, 0)
    order = (np.arange(P)[None, :] - d[:, None] - 1) % P  # 0 = declarer's left, P-1 = declarer
    return np.argmin(np.where(best, order, P), axis=1)


def rewards_for(winners: np.ndarray, num_players: int) -> np.ndarray:
    """(n, P) float32 terminal rewards: the winner +1, every other player -1/(P-1) (zero-sum)."""
    rewards = np.full((winners.size, num_players), -1.0 / (num_players - 1), dtype=np.float32)
    rewards[np.arange(winners.size), winners] = 1.0
    return rewards


def score_lead(scores: np.ndarray, player: np.ndarray) -> np.ndarray:
    """(n,) player[i]'s score minus the best other score, from scores (n, P)."""
    s = scores.astype(np.float64)
    rows = np.arange(s.shape[0])
    mine = s[rows, player]
    s[rows, player] = -np.inf
    return mine - s.max(1)
