"""The league: ``train.py``'s opponents chosen by prioritised fictitious self-play (docs/league.md).

A pool of members (the agents of ``--opponents``, frozen snapshots of the learner, exploiters
trained against it), the learner's results against each, and the draw weights that follow
from them. The rooms: ``pfsp`` (the weightings), ``elo`` (Elo differences with intervals),
``state`` (:class:`League`: members, results, bounds, schedule, its JSON), ``exploiters``
(when one joins, how it is trained and played), ``records`` (league.json, league.png, the
members' files) and ``trainer`` (:class:`~agents.league.trainer.LeagueRun`, the league in a run,
and :class:`~agents.league.trainer.SB3Learner`, the SB3 trainer's side; RLlib's is
``agents.training.rllib_league``: they import torch, SB3 or Ray when used).
"""

from .elo import elo_interval, elo_of, wilson
from .pfsp import MODES, PRIOR, pfsp_weights, priority
from .state import KINDS, League, Member

__all__ = [
    "KINDS",
    "MODES",
    "PRIOR",
    "League",
    "Member",
    "elo_interval",
    "elo_of",
    "pfsp_weights",
    "priority",
    "wilson",
]
