"""Set up a game position by hand, for tests, notebooks and analysis.

>>> from aos_env.positions import position
>>> state = position(2, players=[
...     {"hand": ["Sphinx", "Imp"], "mana": ["Golem", "Golem", "Imp"], "spirits": ["Giant"]},
...     {"hand": ["Angel"], "head": "Imp", "vp": 5},
... ], deck=["Angel", "Fairy"])
>>> state.phase[0] == 0  # Phase.COMMAND: player 0 chooses a command card
True

Cards are named (``"Sphinx"``) or numbered (``"AS018"`` or the kind index).
Whatever the position does not place goes to the deck, or to the discard pile
when ``deck`` is given: so ``deck=[...]`` fixes exactly which cards will be
drawn (the deck is a multiset, R8.1 refills it from the discard pile). The
position is checked and derived data recomputed with ``core.refresh``.
"""

from __future__ import annotations

from typing import Iterable, Sequence, Union

import numpy as np

from . import core
from .cards import CardSet, load_cards

CardRef = Union[str, int]


def _counts(cards: CardSet, refs: Iterable[CardRef], what: str) -> np.ndarray:
    out = np.zeros(cards.num_kinds, dtype=np.int64)
    for ref in refs:
        k = ref if isinstance(ref, (int, np.integer)) else cards.kind(ref)
        if not 0 <= k < cards.num_kinds:
            raise ValueError(f"{what}: no card kind {ref!r}")
        out[k] += 1
    return out


def position(
    num_players: int = 2,
    players: Sequence[dict] | None = None,
    *,
    active: int = 0,
    deck: Sequence[CardRef] | None = None,
    discard: Sequence[CardRef] | None = None,
    turn: int = 0,
    declarer: int = -1,
    last_turn: int | None = None,
    seed: int = 0,
    num_envs: int = 1,
    max_turns: int = core.DEFAULT_MAX_TURNS,
    cards: CardSet | None = None,
) -> core.State:
    """A batch of ``num_envs`` identical games at the start of ``active``'s turn.

    ``players[p]`` may hold: ``hand``, ``mana`` (face-up, without the head),
    ``head`` (one card, added to the mana row as its waiting head),
    ``spirits``, ``stones`` (cards placed face down), ``vp`` (default 0),
    ``faith`` (default 1). ``deck``/``discard`` list their cards exactly; the
    cards left over go to the deck if it is not given, else to the discard
    pile. The games differ only in their random seeds (``seed``, ``seed+1``...).
    """
    cards = cards or load_cards()
    P = num_players
    players = list(players or [{} for _ in range(P)])
    if len(players) != P:
        raise ValueError(f"players: expected {P} entries, got {len(players)}")
    state = core.init(num_envs, P, seed=seed, max_turns=max_turns, cards=cards)
    K = cards.num_kinds
    used = np.zeros(K, dtype=np.int64)
    for name in ("hand", "spirits", "mana", "stones"):
        getattr(state, name)[:] = 0
    state.head[:] = -1
    for p, spec in enumerate(players):
        unknown = set(spec) - {"hand", "mana", "head", "spirits", "stones", "vp", "faith"}
        if unknown:
            raise ValueError(f"players[{p}]: unknown key(s) {sorted(unknown)}")
        for name in ("hand", "mana", "spirits", "stones"):
            c = _counts(cards, spec.get(name, ()), f"players[{p}].{name}")
            getattr(state, name)[:, p] = c
            used += c
        if spec.get("head") is not None:
            h = _counts(cards, [spec["head"]], f"players[{p}].head")
            state.mana[:, p] += h
            state.head[:, p] = int(np.argmax(h))
            used += h
        state.vp[:, p] = spec.get("vp", 0)
        state.faith[:, p] = spec.get("faith", 1)
    zones = {}
    for name, refs in (("deck", deck), ("discard", discard)):
        if refs is not None:
            zones[name] = _counts(cards, refs, name)
            used += zones[name]
    rest = cards.copies - used
    if (rest < 0).any():
        k = int(np.argmin(rest))
        raise ValueError(f"position uses {used[k]} cards of {cards.label(k)}; there are only {cards.copies[k]}")
    if deck is None:
        zones["deck"] = rest
    elif discard is None:
        zones["discard"] = rest
    elif rest.any():
        raise ValueError(f"{int(rest.sum())} cards are in no zone; leave deck or discard unset to take them")
    for name in ("deck", "discard"):
        getattr(state, name)[:] = zones.get(name, 0)
    state.offer[:] = 0
    state.active_player[:] = active
    state.current_player[:] = active
    state.turn[:] = turn
    state.declarer[:] = declarer
    state.last_turn[:] = last_turn if last_turn is not None else (turn + P if declarer >= 0 else 0)
    state.phase[:] = core.Phase.COMMAND
    return core.refresh(state)
