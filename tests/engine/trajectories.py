"""Fingerprints of seeded random games: a hash of everything a player can see, after every step.

Used by ``tests/engine/test_trajectories.py`` to check that a change of the engine's internals leaves
every game exactly as it was: the public ``State`` fields, the rewards and every player's
observation are hashed after each step of seeded random play. Rule changes re-record the
hashes (``python tests/engine/trajectories.py --write``) and say so in the commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

from aos_env import core

PUBLIC = (
    "current_player",
    "active_player",
    "legal_action_mask",
    "rewards",
    "terminated",
    "truncated",
    "hand",
    "spirits",
    "mana",
    "head",
    "stones",
    "vp",
    "faith",
    "deck",
    "discard",
    "offer",
    "phase",
    "command_number",
    "declarer",
    "turn",
)
#: (players, games, steps): batches of games played together, and one game alone.
CASES = [(2, 160, 800), (3, 160, 800), (4, 160, 800), (2, 1, 300), (3, 1, 300), (4, 1, 300)]
FILE = Path(__file__).with_name("trajectories.json")


def fingerprint(players: int, games: int, steps: int, seed: int = 12345, **init_kwargs) -> str:
    """Hashes of a seeded random-play run (finished games restart with fresh seeds): of the
    public state and the scores, and of the observations, as "state:obs"."""
    rng = np.random.default_rng(seed)
    state = core.init(games, players, seed=seed, **init_kwargs)
    h, ho = hashlib.sha256(), hashlib.sha256()
    next_seed = seed + games
    for _ in range(steps):
        mask = state.legal_action_mask
        actions = (rng.random(mask.shape) * mask).argmax(1)
        core.step(state, actions)
        for name in PUBLIC:
            h.update(np.ascontiguousarray(getattr(state, name)).tobytes())
        for p in range(players):
            ho.update(core.observe(state, p).tobytes())
        h.update(core.final_scores(state).astype(np.int64).tobytes())
        done = np.nonzero(state.terminated | state.truncated)[0]
        if done.size:
            core.reset(state, done, seed=next_seed)
            next_seed += done.size
    return f"{h.hexdigest()[:32]}:{ho.hexdigest()[:32]}"


def all_fingerprints(**init_kwargs) -> dict[str, str]:
    return {f"{p}p_{g}g_{s}s": fingerprint(p, g, s, **init_kwargs) for p, g, s in CASES}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help=f"record the fingerprints into {FILE.name}")
    args = ap.parse_args()
    fps = all_fingerprints()
    if args.write:
        FILE.write_text(json.dumps(fps, indent=1) + "\n")
        print(f"wrote {FILE}")
    else:
        stored = json.loads(FILE.read_text()) if FILE.exists() else {}
        for k, v in fps.items():
            old = stored.get(k, ":").split(":")
            new = v.split(":")
            print(
                k,
                "state",
                "same" if old[0] == new[0] else "DIFFERENT",
                "obs",
                "same" if old[1] == new[1] else "DIFFERENT",
            )
