"""The batched engine: ``init``, ``step``, ``refresh``.

Each game is a small state machine (``state.phase``). A step applies one
action per unfinished game, grouped by phase, then *advances*: internal
phases (drawing, passing the turn, ...) run by themselves, and decisions
with a single legal action are taken, until every game waits for a real
choice or is over. Games in different phases advance in the same call; the
work per call is a few numpy operations per phase present, never a Python
loop over games.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..cards import TOTAL_CARDS, CardSet, load_cards
from ..checks import check_batch_memory, check_int  # check_int: importable from here as before
from . import abilities, actions, payment, rng, turn, zones
from .constants import (
    ACTION_NAMES, CARD_0, MANA_0, NO, NUM_ACTIONS, NUM_PHASES, OPTION_A, OPTION_B, PH, YES, Phase,
)
from .state import State, empty_state, recompute_stats

DEFAULT_MAX_TURNS = 200
#: Memory one game may take in init/step/observe: the measured peak (tracemalloc, 4 players,
#: batch 4096, init + 30 steps + observe) is about 8 kB; twice that leaves room for temporaries.
BYTES_PER_GAME = 16 * 1024
INITIAL_HAND, INITIAL_MANA, INITIAL_FAITH = 6, 2, 1  # R2.3, R2.4

MaskFn = Callable[[State, np.ndarray], np.ndarray]
ApplyFn = Callable[[State, np.ndarray, np.ndarray], None]


def _fixed(*legal: int) -> MaskFn:
    row = np.zeros(NUM_ACTIONS, dtype=bool)
    row[list(legal)] = True

    def mask(state: State, g: np.ndarray) -> np.ndarray:
        return np.broadcast_to(row, (g.size, NUM_ACTIONS))

    return mask


def _on_cards(fn: MaskFn) -> MaskFn:
    """Place a (n, K) mask over the CARD_k actions."""

    def mask(state: State, g: np.ndarray) -> np.ndarray:
        out = np.zeros((g.size, NUM_ACTIONS), dtype=bool)
        m = fn(state, g)
        out[:, CARD_0 : CARD_0 + m.shape[1]] = m
        return out

    return mask


def _on_units(fn: MaskFn) -> MaskFn:
    """Place a (n, 6) mask over MANA_BLACK..MANA_BLUE, STONE."""

    def mask(state: State, g: np.ndarray) -> np.ndarray:
        out = np.zeros((g.size, NUM_ACTIONS), dtype=bool)
        out[:, MANA_0 : MANA_0 + 6] = fn(state, g)
        return out

    return mask


def _as_unit(fn: ApplyFn) -> ApplyFn:
    """Call fn with the unit index (0..4 colours, 5 stone) instead of the action id."""
    return lambda state, g, action: fn(state, g, action - MANA_0)


_YES_NO = _fixed(YES, NO)
_OPTIONS = _fixed(OPTION_A, OPTION_B)

#: Decision phases: (legal-action mask, apply the chosen action).
DECISIONS: dict[Phase, tuple[MaskFn, ApplyFn]] = {
    Phase.COMMAND: (zones.hand_mask, turn.apply_command),
    Phase.LEPRECHAUN: (_YES_NO, abilities.apply_leprechaun),
    Phase.LEPRECHAUN_DISCARD: (abilities.leprechaun_discard_mask, abilities.apply_leprechaun_discard),
    Phase.ASMODAI: (_YES_NO, abilities.apply_asmodai),
    Phase.MAIN: (turn.main_mask, turn.apply_main),
    Phase.BALDANDERS: (abilities.baldanders_mask, abilities.apply_baldanders),
    Phase.PAY: (_on_units(payment.pay_mask), _as_unit(payment.apply_pay)),
    Phase.NIGHTMARE_HAND: (_on_cards(zones.discard_hand_mask), zones.apply_discard_hand),
    Phase.NIGHTMARE_MANA: (_on_units(zones.discard_mana_mask), _as_unit(zones.apply_discard_mana)),
    Phase.CONQUEST_TARGET: (actions.conquest_target_mask, actions.apply_conquest_target),
    Phase.RESEARCH_FLIP: (actions.research_flip_mask, actions.apply_research_flip),
    Phase.ALCHEMY: (_OPTIONS, actions.apply_alchemy),
    Phase.PRAYER: (_OPTIONS, actions.apply_prayer),
    Phase.PRAYER_DISCARD: (actions.prayer_discard_mask, actions.apply_prayer_discard),
    Phase.FESTIVAL_PICK: (actions.offer_mask, actions.apply_festival_pick),
    Phase.INQUISITION_GIFT: (zones.hand_mask, actions.apply_gift),
    Phase.PILGRIMAGE: (_OPTIONS, actions.apply_pilgrimage),
    Phase.KEEP: (actions.offer_mask, turn.apply_keep),
    Phase.BELIAL: (abilities.belial_mask, abilities.apply_belial),
    Phase.DECLARE: (_YES_NO, turn.apply_declare),
    Phase.SHORTAGE_HAND: (_on_cards(zones.discard_hand_mask), zones.apply_discard_hand),
    Phase.SHORTAGE_MANA: (_on_units(zones.discard_mana_mask), _as_unit(zones.apply_discard_mana)),
}

#: Repeated choices (a multiset picked one unit at a time): when games arrive at one of
#: these decisions, the engine first takes the part of the choice that is forced (it may
#: finish the choice); the legal actions then cover what is left. Doing it on arrival
#: handles all the games that got there in a pass in one call, wherever they came from.
FORCED_PART: dict[Phase, Callable[[State, np.ndarray], None]] = {
    Phase.LEPRECHAUN_DISCARD: abilities.leprechaun_discard_forced,
    Phase.PAY: payment.pay_forced,
    Phase.NIGHTMARE_HAND: zones.discard_forced,
    Phase.NIGHTMARE_MANA: zones.discard_forced,
    Phase.RESEARCH_FLIP: actions.flip_forced,
    Phase.SHORTAGE_HAND: zones.discard_forced,
    Phase.SHORTAGE_MANA: zones.discard_forced,
}

#: Internal phases: run by the engine itself.
AUTOMATIC: dict[Phase, Callable[[State, np.ndarray], None]] = {
    Phase.TURN_START: turn.run_turn_start,
    Phase.LEPRECHAUN_DRAWN: abilities.run_leprechaun_drawn,
    Phase.COMMAND_START: turn.run_command_start,
    Phase.COMMAND_DONE: turn.run_command_done,
    Phase.SUMMON_DONE: turn.run_summon_done,
    Phase.ACTION: actions.run_action,
    Phase.FESTIVAL_RESOLVE: actions.run_festival_resolve,
    Phase.INQUISITION_NEXT: actions.run_inquisition_next,
    Phase.INQUISITION_DECK_GIFT: actions.run_inquisition_deck_gift,
    Phase.PHASE3: turn.run_phase3,
    Phase.KEEP_START: turn.run_keep_start,
    Phase.END_TURN: turn.run_end_turn,
    Phase.DECLARE_CHECK: turn.run_declare_check,
    Phase.NEXT_TURN: turn.run_next_turn,
    Phase.DRAW: zones.run_draw,
    Phase.DISCARD_NEXT: zones.run_discard_next,
}

assert set(DECISIONS) | set(AUTOMATIC) | {Phase.GAME_OVER} == set(Phase)

# Handlers as lists indexed by the phase value (faster than building Phase members).
_MASK: list = [None] * NUM_PHASES
_APPLY: list = [None] * NUM_PHASES
_RUN: list = [None] * NUM_PHASES
_FORCED: list = [None] * NUM_PHASES
for _p, (_m, _a) in DECISIONS.items():
    _MASK[_p], _APPLY[_p] = _m, _a
for _p, _f in FORCED_PART.items():
    _FORCED[_p] = _f
for _p, _r in AUTOMATIC.items():
    _RUN[_p] = _r
_IS_AUTO = np.array([r is not None for r in _RUN])

#: Every phase in the order a turn meets it, the internal ones and the decisions, DRAW
#: (and the phases a draw may return to) listed at each place it can come up. One pass
#: down this list takes a game through a whole chain of internal phases and decisions
#: with a single legal action (say KEEP -> END_TURN -> BELIAL -> DECLARE_CHECK -> ... ->
#: COMMAND), each phase's games together in one call, until it meets a real choice.
#: A game that reaches the end of the list goes on in another pass. The list starts
#: after KEEP because few chains cross that point (only when KEEP is forced), while
#: many go from a forced MAIN into ACTION.
_ORDER = [
    Phase.END_TURN, Phase.BELIAL, Phase.DECLARE_CHECK, Phase.DECLARE, Phase.NEXT_TURN, Phase.TURN_START,
    Phase.LEPRECHAUN, Phase.DRAW, Phase.LEPRECHAUN_DRAWN, Phase.LEPRECHAUN_DISCARD, Phase.COMMAND_START,
    Phase.COMMAND, Phase.DRAW, Phase.COMMAND_DONE, Phase.ASMODAI, Phase.MAIN, Phase.BALDANDERS, Phase.PAY,
    Phase.ACTION, Phase.CONQUEST_TARGET, Phase.RESEARCH_FLIP, Phase.ALCHEMY, Phase.PRAYER, Phase.PRAYER_DISCARD,
    Phase.PILGRIMAGE, Phase.SUMMON_DONE, Phase.FESTIVAL_RESOLVE, Phase.FESTIVAL_PICK, Phase.INQUISITION_NEXT,
    Phase.INQUISITION_GIFT, Phase.DISCARD_NEXT, Phase.NIGHTMARE_HAND, Phase.NIGHTMARE_MANA, Phase.SHORTAGE_HAND,
    Phase.SHORTAGE_MANA, Phase.DISCARD_NEXT, Phase.DRAW, Phase.FESTIVAL_RESOLVE, Phase.FESTIVAL_PICK,
    Phase.INQUISITION_NEXT, Phase.INQUISITION_GIFT, Phase.DRAW, Phase.INQUISITION_DECK_GIFT, Phase.PHASE3, Phase.DRAW, Phase.KEEP_START,
    Phase.KEEP,
]
_ORDER = [int(p) for p in _ORDER]
assert set(_ORDER) == set(range(NUM_PHASES)) - {int(Phase.GAME_OVER)}


def _groups(state: State, g: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Split games g by phase, up front: [(phase, positions into g), ...]."""
    ph = state.phase[g]
    if g.size == 1:
        return [(int(ph[0]), np.zeros(1, dtype=np.intp))]
    counts = np.bincount(ph, minlength=NUM_PHASES)
    present = np.nonzero(counts)[0]
    if present.size == 1:
        return [(int(present[0]), np.arange(g.size))]
    order = np.argsort(ph, kind="stable")
    ends = np.cumsum(counts)
    return [(int(p), order[ends[p] - counts[p] : ends[p]]) for p in present]


def _apply(state: State, g: np.ndarray, action: np.ndarray) -> None:
    """Apply one (legal) action per game g, each by its phase's handler."""
    for phase, pos in _groups(state, g):
        _APPLY[phase](state, g[pos], action[pos])


def _compute_masks(state: State, g: np.ndarray) -> np.ndarray:
    """Fill ``legal_action_mask`` for games g (all waiting for a decision)."""
    for phase, pos in _groups(state, g):
        state.legal_action_mask[g[pos]] = _MASK[phase](state, g[pos])
    return state.legal_action_mask[g]


def _advance(state: State, g: np.ndarray) -> None:
    """Run internal phases and single-choice decisions until games g wait for a real choice.

    Passes down ``_ORDER`` until every game is done: the games at an internal
    phase run it; at a decision, their legal actions are computed, a single
    legal action is taken at once, and the others wait (they leave the pass).
    Games are independent, so running each phase's games together gives
    every game the same play as running it alone.
    """
    if g.size == 1:
        return _advance_one(state, g)
    todo = g
    while todo.size:
        ph = state.phase[todo]  # (a copy) where each game is; GAME_OVER once done (over, or waiting)
        counts = np.bincount(ph, minlength=NUM_PHASES)
        for p in _ORDER:
            if not counts[p]:
                continue
            pos = np.flatnonzero(ph == p)
            sub = todo[pos]
            if _IS_AUTO[p]:
                _RUN[p](state, sub)
                new = state.phase[sub]
            else:
                new = _decide(state, p, sub)
            ph[pos] = new
            counts[p] = 0
            counts += np.bincount(new, minlength=NUM_PHASES)
        todo = todo[ph != PH.GAME_OVER]


def _decide(state: State, p: int, g: np.ndarray) -> np.ndarray:
    """Games g arrived at decision p: take its forced part, then the action if it is the only
    legal one. Returns where each game is now (GAME_OVER for those waiting for a player)."""
    if _FORCED[p] is not None:
        _FORCED[p](state, g)
        new = state.phase[g]
        still = new == p
        if not still.all():
            if still.any():
                new[still] = _decide_now(state, p, g[still])
            return new
    return _decide_now(state, p, g)


def _decide_now(state: State, p: int, g: np.ndarray) -> np.ndarray:
    """The legal actions of games g at decision p; the action is taken where it is the only one."""
    mask = _MASK[p](state, g)
    state.legal_action_mask[g] = mask
    n_legal = mask.sum(1)
    if not n_legal.all():
        b = g[n_legal == 0][0]
        raise RuntimeError(f"engine bug: game {b} has no legal action in phase {Phase(p).name}")
    forced = n_legal == 1
    new = np.full(g.size, PH.GAME_OVER)  # a real choice: wait for the player
    if forced.any():
        f = g[forced]
        _APPLY[p](state, f, mask[forced].argmax(1))
        new[forced] = state.phase[f]
    return new


def _advance_one(state: State, g: np.ndarray) -> None:
    """``_advance`` for one game (g of size 1): follow its phases one by one (the AEC env's
    case, where the bookkeeping of the batched passes would cost more than the handlers)."""
    while True:
        p = int(state.phase[g[0]])
        if p == PH.GAME_OVER:
            return
        if _IS_AUTO[p]:
            _RUN[p](state, g)
        elif _decide(state, p, g)[0] == PH.GAME_OVER:  # waiting for a player (or over)
            return


# ---- public API ---------------------------------------------------------------------


def _seeds(seed, batch: int) -> np.ndarray:
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        return np.int64(seed) + np.arange(batch, dtype=np.int64)
    arr = np.asarray(seed)
    if arr.shape != (batch,) or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"seed must be an int or an integer array of shape ({batch},), got {seed!r}")
    return arr.astype(np.int64)


def init(
    num_envs: int = 1,
    num_players: int = 2,
    seed=0,
    max_turns: int = DEFAULT_MAX_TURNS,
    card_file=None,
    cards: CardSet | None = None,
) -> State:
    """Set up ``num_envs`` games of ``num_players`` (R2) and advance each to its first decision.

    ``seed``: an int ``s`` (games get seeds ``s, s+1, ...``) or a (B,) int array.
    ``max_turns``: turns (all players together) after which a game with no end
    declaration is truncated (R7.5). ``card_file``: another card file of the
    same schema (or pass a loaded ``cards``).
    """
    B = check_int("num_envs", num_envs, 1)
    P = check_int("num_players", num_players, 2, 4)
    max_turns = check_int("max_turns", max_turns, 1)
    check_batch_memory("num_envs", B, BYTES_PER_GAME)
    seeds = _seeds(seed, B)
    if cards is None:
        cards = load_cards(card_file)
    state = empty_state(B, P, max_turns, cards)
    state.rng_key[:] = rng.seed_keys(seeds)
    state.deck[:] = cards.copies  # R2.2
    state.faith[:] = INITIAL_FAITH
    every = np.arange(B)
    for p in range(P):  # R2.3: 6 cards each
        for _ in range(INITIAL_HAND):
            state.hand[every, p, zones.draw_from_deck(state, every)] += 1
    for p in range(P):  # R2.4: 2 mana each, the second is the head
        for _ in range(INITIAL_MANA):
            k = zones.draw_from_deck(state, every)
            state.mana[every, p, k] += 1
        state.head[:, p] = k
    state.active_player[:] = rng.randint(state.rng_key, state.rng_counter, every, np.full(B, P))  # R2.5
    state.phase[:] = Phase.TURN_START
    _advance(state, every)
    return state


def reset(state: State, games: np.ndarray, seed) -> State:
    """Start new games in positions ``games`` of the batch (in place), e.g. the finished ones.

    ``seed``: an int (the games get ``seed, seed+1, ...``) or one seed per game.
    Game ``games[i]`` then plays exactly like ``init(1, P, seed=seeds[i])``.
    """
    games = np.asarray(games, dtype=np.int64)
    if games.size:
        fresh = init(games.size, state.num_players, seed=seed, max_turns=state.max_turns, cards=state.cards)
        state.put(games, fresh)
    return state


def _check_actions(state: State, actions, games: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Validate the actions; returns (games stepped, their actions). Raises ValueError."""
    B = state.batch_size
    if games is None:
        games = np.arange(B)
    else:
        games = np.asarray(games)
        if games.ndim != 1 or not np.issubdtype(games.dtype, np.integer) or ((games < 0) | (games >= B)).any():
            raise ValueError(f"games must be a 1-d array of game indices in 0..{B - 1}")
        if np.unique(games).size != games.size:
            raise ValueError("games must not repeat a game")
    n = games.size
    a = np.asarray(actions)
    if a.shape != (n,):
        raise ValueError(f"actions must have shape ({n},): one action id per game stepped; got shape {a.shape}")
    if not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"actions must be integers (action ids 0..{NUM_ACTIONS - 1}); got dtype {a.dtype}")
    a = a.astype(np.int64)
    live = ~(state.terminated[games] | state.truncated[games])
    in_range = (a >= 0) & (a < NUM_ACTIONS)
    legal = in_range & state.legal_action_mask[games, np.where(in_range, a, 0)]
    bad = np.nonzero(live & ~legal)[0]
    if bad.size:
        lines = [describe_illegal(state, int(games[i]), int(a[i])) for i in bad[:5]]
        more = f" (and {bad.size - 5} more games)" if bad.size > 5 else ""
        raise ValueError("illegal action: " + "; ".join(lines) + more)
    return games[live], a[live]


def describe_illegal(state: State, b: int, a: int) -> str:
    """Words for an illegal action in game b: the action, the phase and what is allowed."""
    name = ACTION_NAMES[a] if 0 <= a < NUM_ACTIONS else "not an action id"
    legal = [ACTION_NAMES[i] for i in np.nonzero(state.legal_action_mask[b])[0]]
    return (
        f"game {b}: action {a} ({name}) is not legal for player {int(state.current_player[b])} "
        f"in phase {Phase(int(state.phase[b])).name}; legal actions: {', '.join(legal)}"
    )


def step(state: State, actions, games: np.ndarray | None = None) -> State:
    """Apply one action per game (ignored for finished games) and advance to the next decisions.

    ``games``: optionally, the indices of the games to step (``actions`` then
    has one entry per index); the other games are left as they are.
    Updates ``state`` in place and returns it. Raises ``ValueError`` (state
    unchanged) if an action has the wrong shape/dtype or is illegal.
    """
    live, a = _check_actions(state, actions, games)
    if games is None:
        state.rewards[:] = 0.0
    else:
        state.rewards[games] = 0.0
    if live.size:
        _apply(state, live, a)
        _advance(state, live)
    return state


def step_one_legal(state: State, action: int) -> State:
    """``step`` for a batch of one unfinished game, with an action the caller has already
    checked against ``legal_action_mask`` (the AEC env does; this skips the batch checks)."""
    state.rewards[:] = 0.0
    g = np.zeros(1, dtype=np.int64)
    _APPLY[state.phase[0]](state, g, np.array([action], dtype=np.int64))
    _advance_one(state, g)
    return state


def refresh(state: State) -> State:
    """Recompute the derived data after zone arrays were edited by hand.

    Allowed for games waiting for their command card (after ``init`` or at a
    turn's start). Checks that every kind's copies add up and that faith, VP
    and heads are valid, then re-derives the turn-start decision (Leprechaun
    or command) and the legal actions. Never advances a game.
    """
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
    p = state.active_player[live]
    no_lep = abilities.leprechaun_count(state, live, p) == 0
    empty = no_lep & (state.hand[live, p].sum(1) == 0)
    if empty.any():
        raise ValueError(
            f"refresh: in game {live[empty][0]} the active player has no card in hand; the command card "
            "would come from the deck, which refresh does not do. Give the player a card."
        )
    state.pend[live] = 0
    state.phase[live] = Phase.TURN_START
    turn.run_turn_start(state, live)
    state.phase[live[state.phase[live] == Phase.COMMAND_START]] = Phase.COMMAND
    state.legal_action_mask[:] = False
    _compute_masks(state, live)
    return state


def _check_position(state: State, g: np.ndarray) -> None:
    cards = state.cards
    zones_ = {
        "hand": state.hand[g].sum(1), "spirits": state.spirits[g].sum(1), "mana": state.mana[g].sum(1),
        "stones": state.stones[g].sum(1), "deck": state.deck[g], "discard": state.discard[g], "offer": state.offer[g],
    }
    for name, z in zones_.items():
        if (z < 0).any() or (getattr(state, name)[g] < 0).any():
            raise ValueError(f"refresh: negative card count in {name}")
    if (state.offer[g] != 0).any():
        raise ValueError("refresh: offer must be empty at a turn's start")
    per_kind = sum(z.astype(np.int64) for z in zones_.values())
    wrong = per_kind != cards.copies[None]
    if wrong.any():
        i, k = np.argwhere(wrong)[0]
        raise ValueError(
            f"refresh: game {g[i]} has {per_kind[i, k]} cards of {cards.label(k)} over all zones; "
            f"it must be {cards.copies[k]} (110 cards in all, R1.1)"
        )
    assert per_kind.sum(1).max(initial=TOTAL_CARDS) == TOTAL_CARDS
    if ((state.faith[g] < 0) | (state.faith[g] > 10)).any():
        raise ValueError("refresh: faith must be 0..10 (R1.4)")
    if (state.vp[g] < 0).any():
        raise ValueError("refresh: VP chips cannot be negative")
    head = state.head[g]
    if ((head < -1) | (head >= cards.num_kinds)).any():
        raise ValueError("refresh: head must be a kind 0..29 or -1")
    rows, players = np.nonzero(head >= 0)
    if (state.mana[g[rows], players, head[rows, players]] < 1).any():
        raise ValueError("refresh: a head must be one of its owner's mana cards")
