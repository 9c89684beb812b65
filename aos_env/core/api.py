"""The public entry points of the engine: ``init``, ``step``, ``observe``, ``refresh``, ``reset``,
``final_scores`` (and ``winners``, ``score_lead``, ``truncate``).

Each checks its arguments before it changes anything, then hands over to the engine the state
was made for: ``np_engine`` (the numpy-vectorised reference) or ``nb_engine`` (the compiled
numba kernels, the default). Both play exactly the same games.
"""

from __future__ import annotations

import os

import numpy as np

from .. import checks
from ..cards import TOTAL_CARDS, CardSet, load_cards
from . import scores as _scores
from .constants import (
    ACTION_NAMES, DEFAULT_MAX_TURNS, FAITH_CAP, MAX_PLAYERS, MIN_PLAYERS, NUM_ACTIONS,
)
from .obs_layout import OBS_DIM, STATE_DIM
from .phases import PH, Phase
from .state import BACKENDS, State, empty_state, recompute_stats
from . import np_engine

#: The environment variable that picks the default engine.
BACKEND_ENV = "AOS_BACKEND"
#: Memory one game may take in init/step/observe, temporaries included: the numpy engine's
#: measured peak (tracemalloc, 4 players, batch 4096, init + 30 steps + observe) is about 8 kB;
#: twice that leaves room. ``init`` refuses batches that would not fit (aos_env.checks).
PEAK_BYTES_PER_GAME = 16 * 1024


def default_backend() -> str:
    """The engine ``init`` uses when none is given: ``$AOS_BACKEND``, else "numba"."""
    name = os.environ.get(BACKEND_ENV, "numba")
    if name not in BACKENDS:
        raise ValueError(f"{BACKEND_ENV} must be one of {', '.join(BACKENDS)}, got {name!r}")
    return name


_NB = None  # the compiled engine's module, imported on first use (it loads numba)


def _nb():
    global _NB
    if _NB is None:
        from . import nb_engine  # compiled on first use (cached on disk)

        _NB = nb_engine
    return _NB


def _engine(state: State):
    return _nb() if state.backend == "numba" else np_engine


def _resolve_backend(backend) -> str:
    if backend is None:
        return default_backend()
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))} or None, got {backend!r}")
    return backend


def _check_state(state) -> State:
    if not isinstance(state, State):
        raise TypeError(f"state must be a core.State (from core.init), got {type(state).__name__}")
    return state


def init(
    num_envs: int = 1,
    num_players: int = 2,
    seed=0,
    max_turns: int = DEFAULT_MAX_TURNS,
    card_file=None,
    cards: CardSet | None = None,
    backend: str | None = None,
) -> State:
    """Set up ``num_envs`` games of ``num_players`` (R2) and advance each to its first decision.

    ``seed``: an int ``s`` (games get seeds ``s, s+1, ...``) or a (B,) integer array; seeds
    are 0..2**63-1. ``max_turns``: turns (all players together) after which a game with no end
    declaration is truncated (R7.5). ``card_file``: another card file of the same schema (or
    pass a loaded ``cards``). ``backend``: "numba" (compiled) or "numpy" (the reference);
    None reads ``$AOS_BACKEND`` (default "numba").
    """
    B = checks.check_int("num_envs", num_envs, 1)
    P = checks.check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
    max_turns = checks.check_int("max_turns", max_turns, 1)
    backend = _resolve_backend(backend)
    checks.check_batch_memory("num_envs", B, PEAK_BYTES_PER_GAME)
    seeds = checks.check_seeds("seed", seed, B)
    if cards is None:
        cards = load_cards(card_file)
    elif not isinstance(cards, CardSet):
        raise TypeError(f"cards must be a CardSet (aos_env.cards.load_cards), got {type(cards).__name__}")
    state = empty_state(B, P, max_turns, cards, backend)
    _engine(state).setup(state, seeds)
    return state


def _check_games(state: State, games, name: str = "games") -> np.ndarray:
    """``games`` as an int64 index array: distinct game indices 0..B-1."""
    B = state.batch_size
    arr = np.asarray(games)
    if arr.ndim == 0 and arr.dtype != object:
        arr = arr.reshape(1)
    if arr.ndim != 1 or (arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer))):
        raise ValueError(f"{name} must be a 1-d array of game indices 0..{B - 1}, got {games!r}")
    arr = arr.astype(np.int64)
    if arr.size and ((arr < 0) | (arr >= B)).any():
        bad = arr[(arr < 0) | (arr >= B)][0]
        raise ValueError(f"{name} must be game indices 0..{B - 1}, got {bad}")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{name} must not repeat a game, got {games!r}")
    return arr


def reset(state: State, games, seed) -> State:
    """Start new games in positions ``games`` of the batch (in place), e.g. the finished ones.

    ``seed``: an int (the games get ``seed, seed+1, ...``) or one seed per game. Game
    ``games[i]`` then plays exactly like ``init(1, P, seed=seeds[i])``.
    """
    _check_state(state)
    g = _check_games(state, games)
    seeds = checks.check_seeds("seed", seed, g.size)
    if g.size:
        fresh = empty_state(g.size, state.num_players, state.max_turns, state.cards, state.backend)
        _engine(state).setup(fresh, seeds)
        state.put(g, fresh)
    return state


def describe_illegal(state: State, b: int, a: int) -> str:
    """Words for an illegal action in game b: the action, the phase and what is allowed."""
    name = ACTION_NAMES[a] if 0 <= a < NUM_ACTIONS else "not an action id"
    legal = [ACTION_NAMES[i] for i in np.nonzero(state.legal_action_mask[b])[0]]
    return (
        f"game {b}: action {a} ({name}) is not legal for player {int(state.current_player[b])} "
        f"in phase {Phase(int(state.phase[b])).name}; legal actions: {', '.join(legal)}"
    )


def _check_actions(state: State, actions, games) -> tuple[np.ndarray, np.ndarray]:
    """Validate the actions; returns (unfinished games stepped, their actions). Raises ValueError."""
    B = state.batch_size
    g = np.arange(B) if games is None else _check_games(state, games)
    n = g.size
    a = np.asarray(actions)
    if a.shape != (n,):
        raise ValueError(f"actions must have shape ({n},): one action id per game stepped; got shape {a.shape}")
    if a.dtype == bool or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"actions must be integers (action ids 0..{NUM_ACTIONS - 1}); got dtype {a.dtype}")
    a = a.astype(np.int64)
    live = ~(state.terminated[g] | state.truncated[g])
    in_range = (a >= 0) & (a < NUM_ACTIONS)
    legal = in_range & state.legal_action_mask[g, np.where(in_range, a, 0)]
    bad = np.nonzero(live & ~legal)[0]
    if bad.size:
        lines = [describe_illegal(state, int(g[i]), int(a[i])) for i in bad[:5]]
        more = f" (and {bad.size - 5} more games)" if bad.size > 5 else ""
        raise ValueError("illegal action: " + "; ".join(lines) + more)
    return g[live], a[live]


def _action_ids(actions, n: int) -> np.ndarray:
    """``actions`` as a contiguous int64 array of shape (n,); ValueError for a wrong shape or dtype."""
    a = actions if type(actions) is np.ndarray else np.asarray(actions)
    if a.shape != (n,):
        raise ValueError(f"actions must have shape ({n},): one action id per game stepped; got shape {a.shape}")
    if a.dtype.kind not in "iu":
        raise ValueError(f"actions must be integers (action ids 0..{NUM_ACTIONS - 1}); got dtype {a.dtype}")
    if a.dtype != np.int64 or not a.flags.c_contiguous:
        a = np.ascontiguousarray(a, dtype=np.int64)  # an id beyond int64 wraps to a negative, illegal id
    return a


def step(state: State, actions, games=None) -> State:
    """Apply one action per game (ignored for finished games) and advance to the next decisions.

    ``games``: optionally, the indices of the games to step (``actions`` then has one entry per
    index); the other games are left as they are. Updates ``state`` in place and returns it.
    Raises ``ValueError`` (state unchanged) if an action has the wrong shape/dtype or is illegal.
    """
    if type(state) is not State:
        _check_state(state)
    g = state._every if games is None else _check_games(state, games)
    if state.backend == "numba":
        # the kernel checks every action before it changes anything
        if _nb().try_step(state, g, _action_ids(actions, g.size)) < 0:
            return state
        _check_actions(state, actions, games)  # raises with the words for every illegal action
        raise AssertionError("the compiled engine refused an action the reference accepts")
    live, a = _check_actions(state, actions, games)
    state.rewards[g] = 0.0
    np_engine.step(state, live, a)
    return state


def _check_player(state: State, player, n: int) -> np.ndarray:
    P = state.num_players
    if isinstance(player, (bool, np.bool_)):
        raise ValueError(f"player must be an int 0..{P - 1} or an integer array of shape ({n},), got {player!r}")
    arr = np.asarray(player)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"player must be an int 0..{P - 1} or an integer array of shape ({n},), got {player!r}")
    if arr.ndim == 0:
        arr = np.full(n, int(arr), dtype=np.int64)
    elif arr.shape != (n,):
        raise ValueError(f"player must be an int or an array of shape ({n},), got shape {arr.shape}")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= P):
        bad = arr[(arr < 0) | (arr >= P)][0]
        raise ValueError(f"player must be in 0..{P - 1}, got {bad}")
    return arr


def observe(state: State, player, games=None) -> np.ndarray:
    """(B, OBS_DIM) float32 observation of ``player`` (an int or a (B,) array), seat 0 = that player.

    ``games``: observe only these games (then ``player`` has one entry per game, or is an int).
    """
    if type(state) is not State:
        _check_state(state)
    if (games is None and state._batch == 1 and type(player) is int and state.backend == "numba"
            and 0 <= player < state.num_players):
        return _nb().observe_one(state, player)  # the one-game case, without the batch bookkeeping
    g = None if games is None else _check_games(state, games)
    n = state.batch_size if g is None else g.size
    p = _check_player(state, player, n)
    if n == 0:
        return np.zeros((0, OBS_DIM), dtype=np.float32)
    return _engine(state).observe(state, p, g)


def global_state(state: State, games=None) -> np.ndarray:
    """(B, STATE_DIM) float32: everything about each game, hidden information included, for
    centralised critics (obs_layout.STATE_LAYOUT): every player's observation by absolute seat,
    then the stones by kind, the deck, the discard pile and the offer."""
    if type(state) is not State:
        _check_state(state)
    g = state._every if games is None else _check_games(state, games)
    n, P, K = g.size, state.num_players, state.cards.num_kinds
    out = np.zeros((n, STATE_DIM), dtype=np.float32)
    if n == 0:
        return out
    eng = _engine(state)
    for p in range(P):
        out[:, p * OBS_DIM : (p + 1) * OBS_DIM] = eng.observe(state, np.full(n, p, dtype=np.int64), g)
    at = MAX_PLAYERS * OBS_DIM
    out[:, at : at + P * K] = state.stones[g].reshape(n, P * K)
    at += MAX_PLAYERS * K
    for zone in (state.deck, state.discard, state.offer):
        out[:, at : at + K] = zone[g]
        at += K
    return out


def final_scores(state: State, games=None) -> np.ndarray:
    """(B, P) int: VP chips + printed points + game-end abilities (R7.3); with ``games``, (n, P)
    for those games. Defined at any moment: the score if the game ended now."""
    _check_state(state)
    g = None if games is None else _check_games(state, games)
    return _engine(state).final_scores(state, g)


def winners(state: State, games=None) -> np.ndarray:
    """(n,) the winner of each game as its scores stand (R7.4 tie-break)."""
    _check_state(state)
    g = np.arange(state.batch_size) if games is None else _check_games(state, games)
    return _scores.winners_of(final_scores(state, g), state.declarer[g])


def score_lead(state: State, games, player) -> np.ndarray:
    """(n,) player[i]'s current score minus the best other score in game games[i]."""
    _check_state(state)
    g = _check_games(state, games)
    return _scores.score_lead(final_scores(state, g), _check_player(state, player, g.size))


def truncate(state: State, games) -> State:
    """End games ``games`` now as truncated (nobody wins, rewards 0; R7.5), e.g. to cut a
    rollout short. Finished games are left as they are."""
    _check_state(state)
    g = _check_games(state, games)
    g = g[~(state.terminated[g] | state.truncated[g])]
    state.truncated[g] = True
    state.rewards[g] = 0.0
    state.phase[g] = PH.GAME_OVER
    state.legal_action_mask[g] = False
    return state


# ---- refresh: positions set up by hand -------------------------------------------------------


def refresh(state: State) -> State:
    """Recompute the derived data after zone arrays were edited by hand.

    Allowed for games waiting for their command card (after ``init`` or at a turn's start).
    Checks everything first (every kind's copies add up to the card set, faith 0..10, VP >= 0,
    heads, players, turn, declarer), then re-derives the per-player totals, the turn-start
    decision (Leprechaun or command) and the legal actions. Never advances a game; on an error
    nothing is changed.
    """
    _check_state(state)
    live = np.nonzero(~(state.terminated | state.truncated))[0]
    at_start = np.isin(state.phase[live], [Phase.COMMAND, Phase.LEPRECHAUN])
    if not at_start.all():
        b = live[~at_start][0]
        raise ValueError(
            f"refresh: game {b} is in phase {Phase(int(state.phase[b])).name}; positions can only be "
            "set up while a game waits for its command card (after init or at a turn's start)"
        )
    _check_position(state, live)
    recompute_stats(state)
    _engine(state).refresh_turn_start(state, live)
    return state


def _check_position(state: State, g: np.ndarray) -> None:
    cards, P = state.cards, state.num_players
    zones_ = {
        "hand": state.hand[g].sum(1, dtype=np.int64), "spirits": state.spirits[g].sum(1, dtype=np.int64),
        "mana": state.mana[g].sum(1, dtype=np.int64), "stones": state.stones[g].sum(1, dtype=np.int64),
        "deck": state.deck[g].astype(np.int64), "discard": state.discard[g].astype(np.int64),
        "offer": state.offer[g].astype(np.int64),
    }
    for name in zones_:
        if (getattr(state, name)[g] < 0).any():
            raise ValueError(f"refresh: negative card count in {name}")
    if (state.offer[g] != 0).any():
        raise ValueError("refresh: offer must be empty at a turn's start")
    per_kind = sum(zones_.values())
    wrong = per_kind != cards.copies[None]
    if wrong.any():
        i, k = np.argwhere(wrong)[0]
        raise ValueError(
            f"refresh: game {g[i]} has {per_kind[i, k]} cards of {cards.label(k)} over all zones; "
            f"it must be {cards.copies[k]} ({TOTAL_CARDS} cards in all, R1.1)"
        )
    if ((state.faith[g] < 0) | (state.faith[g] > FAITH_CAP)).any():
        raise ValueError(f"refresh: faith must be 0..{FAITH_CAP} (R1.4)")
    if (state.vp[g] < 0).any():
        raise ValueError("refresh: VP chips cannot be negative")
    head = state.head[g]
    if ((head < -1) | (head >= cards.num_kinds)).any():
        raise ValueError(f"refresh: head must be a kind 0..{cards.num_kinds - 1} or -1")
    rows, players = np.nonzero(head >= 0)
    if (state.mana[g[rows], players, head[rows, players]] < 1).any():
        raise ValueError("refresh: a head must be one of its owner's mana cards")
    for name in ("active_player", "current_player"):
        v = getattr(state, name)[g]
        if ((v < 0) | (v >= P)).any():
            raise ValueError(f"refresh: {name} must be 0..{P - 1}")
    if (state.turn[g] < 0).any():
        raise ValueError("refresh: turn must be >= 0")
    d = state.declarer[g]
    if ((d < -1) | (d >= P)).any():
        raise ValueError(f"refresh: declarer must be -1 (none) or 0..{P - 1}")
    if ((d >= 0) & (state.last_turn[g] < state.turn[g])).any():
        raise ValueError("refresh: after a declaration, last_turn must be >= turn")
    p = state.active_player[g]
    leprechauns = state.spirits[g, p].astype(np.int64) @ cards.special["leprechaun"]
    empty = (leprechauns == 0) & (state.hand[g, p].sum(1, dtype=np.int64) == 0)
    if empty.any():
        raise ValueError(
            f"refresh: in game {g[empty][0]} the active player has no card in hand; the command card "
            "would come from the deck, which refresh does not do. Give the player a card."
        )
