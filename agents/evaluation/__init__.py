"""Evaluating agents against each other.

- ``matches``: play many games on the batched engine (``play_games``) and summarise them
  (win rates with 95% intervals, head-to-head, Elo).
- ``evaluate``: the tournament command, ``python -m agents.evaluation.evaluate``.
- ``leaderboard``: results pooled over tournaments (``evaluate --leaderboard FILE``).

This package imports no module of its own, so that ``python -m`` runs each command's module once.
"""
