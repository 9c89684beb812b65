"""What final scores decide: the winner with its tie-break (R7.4), the terminal rewards and a
player's score lead. Pure functions of the scores.

``tie_rank`` and ``loss_reward`` are the rules' one home: plain arithmetic that works on numpy
arrays (``winners_of``, ``rewards_for``, the numpy engine) and that the compiled engine compiles
as it is (``nb_engine/scoring.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

WIN_REWARD = 1.0


def tie_rank(player: Any, declarer: Any, num_players: int) -> Any:
    """R7.4: a player's place in the tie-break: 0 for the declarer's left neighbour, then on round
    the table to num_players - 1 for the declarer, who so never wins a tie (no declarer: player
    0 comes last). Ints or arrays of them."""
    return (player - np.maximum(declarer, 0) - 1) % num_players


def loss_reward(num_players: int) -> float:
    """The terminal reward of every player but the winner, so that the rewards add up to zero."""
    return -WIN_REWARD / (num_players - 1)


def winners_of(scores: np.ndarray, declarer: np.ndarray) -> np.ndarray:
    """(n,) the winner of each game from its scores (n, P): highest score; ties go to the tied
    player with the lowest ``tie_rank``, the one nearest the declarer's left (R7.4)."""
    P = scores.shape[1]
    best = scores == scores.max(1, keepdims=True)
    rank = tie_rank(np.arange(P)[None, :], declarer[:, None], P)
    winners: np.ndarray = np.argmin(np.where(best, rank, P), axis=1)
    return winners


def rewards_for(winners: np.ndarray, num_players: int) -> np.ndarray:
    """(n, P) float32 terminal rewards: the winner ``WIN_REWARD`` (+1), every other player
    ``loss_reward`` (-1/(P-1))."""
    rewards = np.full((winners.size, num_players), loss_reward(num_players), dtype=np.float32)
    rewards[np.arange(winners.size), winners] = WIN_REWARD
    return rewards


def score_lead(scores: np.ndarray, player: np.ndarray) -> np.ndarray:
    """(n,) player[i]'s score minus the best other score, from scores (n, P)."""
    s = scores.astype(np.float64)
    rows = np.arange(s.shape[0])
    mine = s[rows, player]
    s[rows, player] = -np.inf
    lead: np.ndarray = mine - s.max(1)
    return lead
