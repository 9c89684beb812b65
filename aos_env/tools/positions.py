"""Set up a game position by hand, for tests, notebooks and analysis.

>>> from aos_env.tools.positions import position
>>> state = position(2, players=[
...     {"hand": ["Sphinx", "Imp"], "mana": ["Golem", "Golem", "Imp"], "spirits": ["Giant"]},
...     {"hand": ["Angel"], "head": "Imp", "vp": 5},
... ], deck=["Angel", "Fairy"])
>>> bool(state.phase[0] == 0)  # Phase.COMMAND: player 0 chooses a command card
True

Cards are named (``"Sphinx"``) or numbered (``"AS018"`` or the kind index
0..29), in any case; an unknown name is a ValueError suggesting close ones.
Whatever the position does not place goes to the deck, or to the discard pile
when ``deck`` is given: so ``deck=[...]`` fixes exactly which cards will be
drawn (the deck is a multiset, R8.1 refills it from the discard pile). The
position is checked and derived data recomputed with ``core.refresh``.

Every argument is checked before anything is built: a bad one raises a
ValueError naming it (``players[1].vp``, ``deck[3]``, ``declarer``) and what
is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import core
from ..base.checks import ArgumentError, check_batch_memory, check_int, check_seeds, check_sequence, fail, is_int
from ..core import PEAK_BYTES_PER_GAME as BYTES_PER_GAME
from ..core.api import MAX_MAX_TURNS, MAX_VP, last_turn_of, turn_limit
from ..core.cards import CardSet, load_cards
from ..core.constants import FAITH_CAP, INITIAL_FAITH, MAX_PLAYERS, MIN_PLAYERS

CardRef = str | int

#: Keys of a player's dict.
PLAYER_KEYS = ("hand", "mana", "head", "spirits", "stones", "vp", "faith")
_ZONES = ("hand", "mana", "spirits", "stones")
# The bounds are core.refresh's (core/api.py), which checks the position again: faith 0..FAITH_CAP
# (R1.4), VP 0..MAX_VP, the turn and last turn as turn_limit and last_turn_of say.


def _kind(cards: CardSet, ref: Any, what: str) -> int:
    """The kind index of one card reference (a name, an id or a kind 0..K-1); ValueError naming ``what``."""
    K = cards.num_kinds
    if is_int(ref):
        return check_int(what, ref, 0, K - 1)
    if isinstance(ref, str):
        try:
            return cards.kind(ref)
        except ValueError as e:
            raise ArgumentError(f"{what}: {e}") from None
    raise fail(what, f"a card name (e.g. 'Sphinx'), an id ('AS018') or a kind 0..{K - 1}", ref)


def _counts(cards: CardSet, refs: Any, what: str) -> np.ndarray:
    """(K,) copies of each kind in a list of card references."""
    out = np.zeros(cards.num_kinds, dtype=np.int64)
    for i, ref in enumerate(check_sequence(what, refs)):
        out[_kind(cards, ref, f"{what}[{i}]")] += 1
    return out


def _player(cards: CardSet, p: int, spec: Any) -> dict[str, Any]:
    """One entry of ``players``, checked: zone counts, head kind (-1 if none), vp, faith."""
    where = f"players[{p}]"
    if not isinstance(spec, Mapping):
        raise fail(where, f"a dict with keys among {', '.join(PLAYER_KEYS)}", spec)
    unknown = [k for k in spec if k not in PLAYER_KEYS]
    if unknown:
        raise ArgumentError(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(PLAYER_KEYS)}"
        )
    # zones are count arrays; head, vp and faith are ints
    out: dict[str, Any] = {name: _counts(cards, spec.get(name, ()), f"{where}.{name}") for name in _ZONES}
    head = spec.get("head")
    out["head"] = -1 if head is None else _kind(cards, head, f"{where}.head")
    out["vp"] = check_int(f"{where}.vp", spec.get("vp", 0), 0, MAX_VP)
    out["faith"] = check_int(f"{where}.faith", spec.get("faith", INITIAL_FAITH), 0, FAITH_CAP)
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
    ``spirits``, ``stones`` (cards placed face down), ``vp`` (an int >= 0,
    default 0), ``faith`` (0..10, default 1). ``deck``/``discard`` list their
    cards exactly; the cards left over go to the deck if it is not given, else
    to the discard pile. The games differ only in their random seeds
    (``seed``, ``seed+1``...).

    ``turn``: turns played so far, 0..max_turns-1. ``declarer``: the player
    who declared the end (R7.1), or -1. In a declared game the current turn is
    part of the last round (R7.2), which ends with the declarer's turn; that
    turn's index ``last_turn`` follows from ``turn``, ``active`` and
    ``declarer`` (it is the declarer's next turn, or this one), so it may be
    left out; if given it must be that value.
    """
    if cards is not None and not isinstance(cards, CardSet):
        raise fail("cards", "a CardSet (from aos_env.cards.load_cards) or None", cards)
    cards = cards or load_cards()
    P = check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
    B = check_int("num_envs", num_envs, 1)
    check_batch_memory("num_envs", B, BYTES_PER_GAME)  # before check_seeds allocates B seeds
    max_turns = check_int("max_turns", max_turns, 1, MAX_MAX_TURNS)
    check_seeds("seed", seed, B)
    active = check_int("active", active, 0, P - 1)
    declarer = check_int("declarer", declarer, -1, P - 1)
    turn = check_int("turn", turn, 0, int(turn_limit(declarer >= 0, max_turns, P)))
    if declarer < 0:
        if last_turn is not None:
            raise ArgumentError(
                f"last_turn is only for a declared game (declarer >= 0), got last_turn={last_turn!r} with declarer=-1"
            )
        final = 0
    else:
        final = last_turn_of(turn, active, declarer, P)
        if last_turn is not None and check_int("last_turn", last_turn, 0) != final:
            raise ArgumentError(
                f"last_turn must be {final} (the declarer's last turn: player {declarer}'s next turn from turn "
                f"{turn}, where player {active} is active), got {last_turn!r}"
            )
    if players is None:
        players = [{} for _ in range(P)]
    players = check_sequence("players", players)
    if len(players) != P:
        raise ArgumentError(f"players must have one entry per player ({P}), got {len(players)}")
    specs = [_player(cards, p, spec) for p, spec in enumerate(players)]
    K = cards.num_kinds
    used = np.zeros(K, dtype=np.int64)
    for spec in specs:
        used += sum(spec[name] for name in _ZONES)
        if spec["head"] >= 0:
            used[spec["head"]] += 1
    zones = {}
    for name, refs in (("deck", deck), ("discard", discard)):
        if refs is not None:
            zones[name] = _counts(cards, refs, name)
            used += zones[name]
    rest = cards.copies - used
    if (rest < 0).any():
        k = int(np.argmin(rest))
        raise ArgumentError(f"position uses {used[k]} cards of {cards.label(k)}; there are only {cards.copies[k]}")
    if deck is None:
        zones["deck"] = rest
    elif discard is None:
        zones["discard"] = rest
    elif rest.any():
        raise ArgumentError(f"{int(rest.sum())} cards are in no zone; leave deck or discard unset to take them")

    state = core.init(B, P, seed=seed, max_turns=max_turns, cards=cards)
    for p, spec in enumerate(specs):
        for name in _ZONES:
            getattr(state, name)[:, p] = spec[name]
        state.head[:, p] = spec["head"]
        if spec["head"] >= 0:
            state.mana[:, p, spec["head"]] += 1
        state.vp[:, p] = spec["vp"]
        state.faith[:, p] = spec["faith"]
    for name in ("deck", "discard"):
        getattr(state, name)[:] = zones.get(name, 0)
    state.offer[:] = 0
    state.active_player[:] = active
    state.current_player[:] = active
    state.turn[:] = turn
    state.declarer[:] = declarer
    state.last_turn[:] = final
    state.phase[:] = core.Phase.COMMAND
    return core.refresh(state)
