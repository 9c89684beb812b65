"""Decisions per second of OpenSpiel games (C++ engines driven from Python), random legal play.

Chance nodes are resolved by sampling; only player decisions are counted.
"""

from __future__ import annotations

import time

import numpy as np


def openspiel_decisions_per_second(game_name: str, seconds: float, seed: int = 0) -> float:
    import pyspiel

    game = pyspiel.load_game(game_name)
    rng = np.random.default_rng(seed)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                decisions += 1
    return decisions / (time.perf_counter() - start)
