"""Random self-play invariants (R1.1, R1.4, docs/api.md) for 2, 3 and 4 players.

Together these tests play well over 100,000 decisions.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_invariants, random_actions

from aos_env import core


@pytest.mark.parametrize("players,batch", [(2, 256), (3, 200), (4, 160)])  # ~135,000 decisions in all
def test_random_play_invariants(players: int, batch: int) -> None:
    rng = np.random.default_rng(players)
    state = core.init(batch, players, seed=1000 * players)
    check_invariants(state)
    decisions = 0
    final_rewards = np.zeros((batch, players))
    while True:
        live = ~(state.terminated | state.truncated)
        if not live.any():
            break
        decisions += int(live.sum())
        state = core.step(state, random_actions(state, rng))
        check_invariants(state)
        just = live & (state.terminated | state.truncated)
        assert np.allclose(state.rewards.sum(1), 0.0, atol=1e-6), "rewards sum to 0"
        assert (state.rewards[~just] == 0).all(), "rewards only at the end"
        won = just & state.terminated
        assert (np.sort(state.rewards[won], axis=1)[:, -1] == 1.0).all(), "one winner gets +1"
        assert np.allclose(state.rewards[won][state.rewards[won] != 1.0], -1.0 / (players - 1))
        assert (state.rewards[just & state.truncated] == 0).all(), "truncated: 0 for all (R7.5)"
        final_rewards[just] = state.rewards[just]
    assert (state.terminated | state.truncated).all(), "every game ends or is truncated"
    assert decisions > 38_000
    # the winner has the highest final score (R7.4)
    scores = core.final_scores(state)
    for b in np.nonzero(state.terminated)[0]:
        w = int(np.argmax(final_rewards[b]))
        assert scores[b, w] == scores[b].max()


def test_truncation_at_turn_limit() -> None:
    """A low turn limit truncates every game that nobody ended (R7.5)."""
    rng = np.random.default_rng(7)
    state = core.init(64, 3, seed=5, max_turns=6)
    while not (state.terminated | state.truncated).all():
        state = core.step(state, random_actions(state, rng))
    assert state.truncated.all() and (state.turn == 6).all()
    assert (state.rewards == 0).all()
