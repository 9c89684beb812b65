"""``python -m agents.tournament``: the same command as ``python -m agents.evaluate``.

The functions that play and score the games live in ``agents.matches``; they are importable from
here too (``agents.tournament.play_games``), as before.
"""

from __future__ import annotations

from .evaluate import main
from .matches import (
    MAX_GAMES,
    RESULT_BYTES_PER_GAME,
    Results,
    elo_ratings,
    format_table,
    lineups_for,
    play_games,
    replays_of,
    summarise,
    wilson,
)

__all__ = [
    "MAX_GAMES",
    "RESULT_BYTES_PER_GAME",
    "Results",
    "elo_ratings",
    "format_table",
    "lineups_for",
    "play_games",
    "replays_of",
    "summarise",
    "wilson",
    "main",
]

if __name__ == "__main__":
    main(prog="python -m agents.tournament")
