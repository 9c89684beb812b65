"""The numpy engine: the readable reference. numpy operations over groups of games (all the games
at one phase together), never a Python loop over games. Its topic modules have the names of the
compiled engine's (``nb_engine``), and each phase's handlers are the functions the phase table
names (``phases.PHASES``) in both."""

from .engine import refresh_turn_start, setup, step
from .observe import observe
from .scoring import final_scores, truncate

__all__ = ["setup", "step", "observe", "final_scores", "refresh_turn_start", "truncate"]
