"""The numpy engine: the readable reference. numpy operations over groups of games (all the games
at one phase together), never a Python loop over games. Same phases in the same modules as the
compiled engine (``nb_engine``)."""

from .engine import refresh_turn_start, setup, step
from .observe import observe
from .scoring import final_scores

__all__ = ["setup", "step", "observe", "final_scores", "refresh_turn_start"]
