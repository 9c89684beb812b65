"""Recorded fingerprints of seeded random games (tests/engine/trajectories.py): a change that alters any
game, on either engine, fails here. Rule changes re-record them (``python tests/engine/trajectories.py
--write``) and say so in their commit."""

from __future__ import annotations

import json

import pytest
from trajectories import CASES, FILE, fingerprint


@pytest.mark.parametrize("players,games,steps", CASES)
def test_games_are_exactly_as_recorded(players: int, games: int, steps: int) -> None:
    stored = json.loads(FILE.read_text())[f"{players}p_{games}g_{steps}s"]
    state_hash, obs_hash = fingerprint(players, games, steps).split(":")
    assert state_hash == stored.split(":")[0], "a game played differently: the public state changed"
    assert obs_hash == stored.split(":")[1], "the observations changed"
