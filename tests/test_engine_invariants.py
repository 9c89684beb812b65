"""Random self-play invariants (R1.1, R1.4, INTERFACE.md) for 2, 3 and 4 players.

Together these tests play well over 100,000 decisions.
"""

from __future__ import annotations

import numpy as np
import pytest

from aos_env import core
from aos_env.core import Phase

from helpers import total_cards


def random_actions(state: core.State, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per game (0 for finished games)."""
    scores = rng.random(state.legal_action_mask.shape) * state.legal_action_mask
    return scores.argmax(1)


def check_invariants(state: core.State) -> None:
    cards = state.cards
    per_kind = (
        state.hand.sum(1, dtype=np.int64) + state.spirits.sum(1) + state.mana.sum(1) + state.stones.sum(1)
        + state.deck + state.discard + state.offer
    )
    assert (per_kind == cards.copies[None]).all(), "every card is in exactly one zone"
    assert (total_cards(state) == 110).all()
    for name in ("hand", "spirits", "mana", "stones", "deck", "discard", "offer"):
        assert (getattr(state, name) >= 0).all(), name
    assert ((state.faith >= 0) & (state.faith <= 10)).all(), "faith 0..10 (R1.4)"
    assert (state.vp >= 0).all(), "chips never negative"
    live = ~(state.terminated | state.truncated)
    n_legal = state.legal_action_mask.sum(1)
    assert (n_legal[live] >= 2).all(), "an unfinished game waits for a real choice"
    assert (n_legal[~live] == 0).all(), "a finished game has an all-False mask"
    assert ((state.current_player >= 0) & (state.current_player < state.num_players)).all()
    assert (state.phase[live] < Phase.GAME_OVER).all() and (state.phase[~live] == Phase.GAME_OVER).all()
    rows, players = np.nonzero(state.head >= 0)
    assert (state.mana[rows, players, state.head[rows, players]] >= 1).all(), "a head is one of the mana cards"
    assert not (state.terminated & state.truncated).any()
    stats = state.spirits.astype(np.int64) @ cards.stat_table
    assert np.array_equal(state.stats, stats), "per-player spirit totals match the spirits in play"


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
