"""Small helpers for tests: name actions, step a single game, read zones; random play and the
invariants it must keep."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from aos_env import core
from aos_env.core import Phase
from aos_env.core.cards import COLOURS
from aos_env.core.cards import DEFAULT as CARDS
from aos_env.core.phases import DECISIONS
from aos_env.tools.positions import position  # noqa: F401  (re-exported for tests)

_NAMED = {n: i for i, n in enumerate(core.ACTION_NAMES)}


def action_id(a) -> int:
    """An action as an id: an int, an action name ("ACT", "MANA_RED", "TARGET_1"), or a card name ("Sphinx")."""
    if isinstance(a, (int, np.integer)):
        return int(a)
    if a in _NAMED:
        return _NAMED[a]
    return CARDS.kind(a)  # CARD_k


def legal(state: core.State, b: int = 0) -> list[str]:
    """Names of the legal actions of game b (cards by card name)."""
    out = []
    for i in np.nonzero(state.legal_action_mask[b])[0]:
        out.append(CARDS.names[i] if i < 30 else core.ACTION_NAMES[i])
    return out


def play(state: core.State, *actions) -> core.State:
    """Step game 0 of a batch (all games get the same action) through the given actions."""
    for a in actions:
        state = core.step(state, np.full(state.batch_size, action_id(a)))
    return state


def phase(state: core.State, b: int = 0) -> Phase:
    return Phase(int(state.phase[b]))


def cards_of(counts: np.ndarray) -> dict[str, int]:
    """Counts by kind -> {card name: count} (zero counts left out)."""
    return {CARDS.names[k]: int(n) for k, n in enumerate(counts) if n}


def zone(state: core.State, name: str, player: int | None = None, b: int = 0) -> dict[str, int]:
    """A zone of game b as {card name: count}: hand/spirits/mana/stones need a player."""
    arr = getattr(state, name)[b]
    return cards_of(arr[player] if player is not None else arr)


def total_cards(state: core.State) -> np.ndarray:
    """(B,) cards over all zones: always 110."""
    return (
        state.hand.sum((1, 2), dtype=np.int64)
        + state.spirits.sum((1, 2), dtype=np.int64)
        + state.mana.sum((1, 2), dtype=np.int64)
        + state.stones.sum((1, 2), dtype=np.int64)
        + state.deck.sum(1, dtype=np.int64)
        + state.discard.sum(1, dtype=np.int64)
        + state.offer.sum(1, dtype=np.int64)
    )


MANA = {c: f"MANA_{c.upper()}" for c in COLOURS}


def random_actions(state: core.State, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per game (0 for finished games)."""
    scores = rng.random(state.legal_action_mask.shape) * state.legal_action_mask
    return scores.argmax(1)


def random_positions(players: int, games: int, steps: int, seed: int):
    """(observations of the players to move, their legal masks) along random play of ``games`` games
    from ``seed``, one pair per step (the masks copied)."""
    state = core.init(games, players, seed=seed)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        yield core.observe(state, state.current_player), state.legal_action_mask.copy()
        core.step(state, random_actions(state, rng))


def check_invariants(state: core.State) -> None:
    """What must hold after every step of every game: each kind's copies add up over the zones
    (R1.1), counts, faith (R1.4) and VP in range, a real choice (>= 2 legal actions) in an
    unfinished game and none in a finished one, valid players and heads, and the spirit totals."""
    cards = state.cards
    per_kind = (
        state.hand.sum(1, dtype=np.int64)
        + state.spirits.sum(1)
        + state.mana.sum(1)
        + state.stones.sum(1)
        + state.deck
        + state.discard
        + state.offer
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
    assert np.isin(state.phase[live], DECISIONS).all() and (state.phase[~live] == Phase.GAME_OVER).all()
    rows, players = np.nonzero(state.head >= 0)
    assert (state.mana[rows, players, state.head[rows, players]] >= 1).all(), "a head is one of the mana cards"
    assert not (state.terminated & state.truncated).any()
    stats = state.spirits.astype(np.int64) @ cards.stat_table
    assert np.array_equal(state.stats, stats), "per-player spirit totals match the spirits in play"


#: The repository's root (tests/ is one folder below it).
ROOT = Path(__file__).resolve().parent.parent


def doc_code(section: str) -> list[str]:
    """The python code blocks of a ``## section`` of docs/ecosystem.md (the tests that run the docs' examples)."""
    text = (ROOT / "docs" / "ecosystem.md").read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [block.split("```", 1)[0] for block in body.split("```python\n")[1:]]
