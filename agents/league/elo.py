"""Elo differences from win rates, with 95% intervals.

In a game of ``P`` players where the learner (strength ``a``) meets ``P - 1`` copies of a member
(strength ``b``), a Plackett-Luce (Bradley-Terry for two players) model gives the learner first
place with probability ``p = a / (a + (P - 1) b)``. With Elo's scale (``a / b = 10 ** (d / 400)``)
the learner's rating minus the member's is::

    d = 400 * log10((P - 1) * p / (1 - p))

which for two players is the usual Elo difference, and 0 at chance (``p = 1 / P``). The 95%
interval of ``d`` is the Wilson score interval of ``p`` mapped through the same formula (the map
is increasing). A win rate of 0 or 1 would be infinitely far: ``p`` is taken as
``(wins + 0.5) / (games + 1)`` for the point estimate, and every value is clipped to
``+-MAX_ELO``. In a league the learner's games with several members at one table count for each
of them, so the figures are per member and approximate there.
"""

from __future__ import annotations

import math

from aos_env.base.checks import check_float, check_int

#: The largest Elo difference reported (a member never beaten or never lost to).
MAX_ELO = 1000.0
_Z95 = 1.959963984540054


def wilson(wins: float, games: float, z: float = _Z95) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate (``(0, 1)`` without games)."""
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo_of(p: float, players: int = 2) -> float:
    """The learner's Elo minus the member's, for a first-place rate ``p`` at a table of ``players``."""
    p = check_float("p", p, 0, 1)
    players = check_int("players", players, 2, 4)
    if p <= 0:
        return -MAX_ELO
    if p >= 1:
        return MAX_ELO
    d = 400.0 * math.log10((players - 1) * p / (1 - p))
    return max(-MAX_ELO, min(MAX_ELO, d))


def elo_interval(wins: float, games: float, players: int = 2) -> dict:
    """``{"elo", "ci95", "games"}``: the Elo difference of ``wins`` first places in ``games`` games
    (None without games) and its 95% interval (Wilson's, mapped to Elo)."""
    wins = check_float("wins", wins, 0)
    games = check_float("games", games, wins)
    if games <= 0:
        return {"elo": None, "ci95": [-MAX_ELO, MAX_ELO], "games": 0}
    lo, hi = wilson(wins, games)
    return {
        "elo": elo_of((wins + 0.5) / (games + 1), players),
        "ci95": [elo_of(lo, players), elo_of(hi, players)],
        "games": int(games),
    }
