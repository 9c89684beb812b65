"""The batched game state: a struct of arrays with leading dimension B, stored one record per game.

Every field of ``State`` is a numpy array whose first axis is the game (``state.hand[b, p, k]``).
The fields are views into one structured array, ``state.records``: record b holds game b's
fields side by side (per-player fields sized for four players; a smaller game uses the first
P rows). The compiled engine gets that one array in a call instead of some forty (numba unboxes
each array argument, which would cost more than a step of one game) and works on one game's
record at a time; the numpy engine works on the field views. Both engines see the same
fields, with the same dtypes and meanings; ``FIELDS`` lists them.

Assigning to a field writes into its view (``state.vp = 0`` sets every VP to 0), so the fields
always stay in the records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from ..base.checks import ArgumentError, check_choice, check_indices
from .cards import BONUS_FIELDS, GAME_ACTIONS, ICONS, SCORE_SOURCES, SPECIALS, CardSet
from .constants import MAX_PLAYERS, NUM_ACTIONS, NUM_COLOURS, NUM_PEND, NUM_UNITS, K
from .phases import Phase

# Columns of State.stats (the same as CardSet.stat_table): per-player totals over the spirits in play.
STAT_ICONS = slice(0, len(ICONS))  # axe, staff, sword, shield, armour
STAT_SPECIAL = {name: len(ICONS) + i for i, name in enumerate(SPECIALS)}  # copies with that ability
STAT_BONUS0 = len(ICONS) + len(SPECIALS)  # first plain-bonus column


def stat_bonus(action: int) -> slice:
    """Columns of the plain bonuses (cards.BONUS_FIELDS order) for game action ``action``."""
    start = STAT_BONUS0 + action * len(BONUS_FIELDS)
    return slice(start, start + len(BONUS_FIELDS))


STAT_POINTS = STAT_BONUS0 + len(GAME_ACTIONS) * len(BONUS_FIELDS)  # printed points (R7.3)
STAT_SCORE = slice(STAT_POINTS + 1, STAT_POINTS + 1 + len(SCORE_SOURCES))  # game-end VP per unit of each source
NUM_STATS = STAT_SCORE.stop

ZONE_DTYPE = np.int8  # at most 4 copies of a kind in one zone (cards.py checks the card file)
INT = np.int32
STAT_DTYPE = np.int16  # totals over at most 110 spirits of small per-copy values (cards.py checks)


@dataclass(frozen=True)
class Field:
    """One array of the State: its dtype and its shape per game (a function of P)."""

    name: str
    dtype: type
    shape: Callable[[int], tuple[int, ...]]
    doc: str
    public: bool = False  # part of the public API (docs/api.md)


def _scalar(_p: int) -> tuple[int, ...]:
    return ()


def _per_player(p: int) -> tuple[int, ...]:
    return (p,)


def _per_player_kind(p: int) -> tuple[int, ...]:
    return (p, K)


def _per_kind(_p: int) -> tuple[int, ...]:
    return (K,)


def _fixed(*shape: int) -> Callable[[int], tuple[int, ...]]:
    return lambda _p: shape


#: Every field, in record order. The owner of each internal field is named in its doc: only
#: that part of the engine writes it, so nested sequences cannot overwrite each other (a draw
#: may run an R8.3 discard round inside an Inquisition, for instance).
FIELDS: tuple[Field, ...] = (
    # -- public --
    Field("current_player", INT, _scalar, "who must choose now (Inquisition givers and discarders too)", True),
    Field("active_player", INT, _scalar, "whose turn it is", True),
    Field("legal_action_mask", np.bool_, _fixed(NUM_ACTIONS), "legal actions of the current player", True),
    Field("rewards", np.float32, _per_player, "rewards produced by the last step", True),
    Field("terminated", np.bool_, _scalar, "game over by the rules", True),
    Field("truncated", np.bool_, _scalar, "game over by the turn limit (R7.5)", True),
    Field("hand", ZONE_DTYPE, _per_player_kind, "cards in hand, by kind", True),
    Field("spirits", ZONE_DTYPE, _per_player_kind, "spirits in play, by kind", True),
    Field("mana", ZONE_DTYPE, _per_player_kind, "face-up mana, by kind, the waiting head included", True),
    Field("head", INT, _per_player, "kind of the row's waiting head (assisted card), -1 if none", True),
    Field("stones", ZONE_DTYPE, _per_player_kind, "philosopher's stones, by their hidden kind", True),
    Field("vp", INT, _per_player, "VP chips", True),
    Field("faith", INT, _per_player, "faith, 0..10", True),
    Field("deck", ZONE_DTYPE, _per_kind, "draw pile, by kind", True),
    Field("discard", ZONE_DTYPE, _per_kind, "discard pile, by kind", True),
    Field("offer", ZONE_DTYPE, _per_kind, "cards on offer (Phase III draws, Festival reveal), in no other zone", True),
    Field("phase", INT, _scalar, "what is being decided: a core.Phase value", True),
    Field("command_number", INT, _scalar, "this turn's command number (after Phase I)", True),
    Field("declarer", INT, _scalar, "player who declared the end, -1 if none", True),
    Field("turn", INT, _scalar, "turns played so far", True),
    # -- the turn (turn.py) --
    Field("rng_key", np.uint64, _scalar, "rng: the game's key, from its seed"),
    Field("rng_counter", np.uint64, _scalar, "rng: random numbers used so far"),
    Field("cmd_card", INT, _scalar, "turn: kind of this turn's command card, -1 if none"),
    Field("head_number", INT, _scalar, "turn: number of the head the command card went onto (0 if none)"),
    Field("offer_public", np.bool_, _scalar, "turn: the offer is seen by all (Festival) or by the active player"),
    Field("last_turn", INT, _scalar, "turn: index of the final turn once the end is declared"),
    # -- a summon (summon.py) --
    Field("summon_kind", INT, _scalar, "summon: spirit being summoned, -1 if none"),
    Field("pay_need", INT, _fixed(NUM_COLOURS), "summon: coloured symbols of the cost being paid"),
    Field("pay_any", INT, _scalar, "summon: 'any' symbols of the cost being paid"),
    Field("paid", INT, _fixed(NUM_UNITS), "summon: units paid so far (5 colours, then stones)"),
    # -- the repeated choice in progress (choice.py); never alive across a draw --
    Field("choice_left", INT, _scalar, "choice: units still to choose (discards, flips, placements, Belial)"),
    Field("choice_floor", INT, _scalar, "choice: lowest action id allowed next (units come in ascending order)"),
    # -- a draw (draws.py) --
    Field("draw_pend", INT, _fixed(NUM_PEND), "draw: cards still to draw per destination (PEND_*)"),
    Field("draw_return", INT, _scalar, "draw: phase to continue with once the draw is done"),
    Field("drawn", INT, _scalar, "draw: cards the draw in progress (or the last one) delivered"),
    Field("draw_round_done", np.bool_, _scalar, "draw: an R8.3 discard round already took place in this draw"),
    # -- a discard round: Nightmare or R8.3 (discards.py) --
    Field("discard_seat", INT, _scalar, "discards: seat offset (from the active player) of the player discarding"),
    Field("discard_shortage", np.bool_, _scalar, "discards: the round is R8.3's (limits 9/9), else Nightmare's"),
    Field("discard_return", INT, _scalar, "discards: phase to continue with after the round"),
    # -- the Inquisition (actions.py) --
    Field("giver_seat", INT, _scalar, "Inquisition: seat offset of the next player who may give"),
    # -- derived: per-player totals over the spirits in play --
    Field(
        "stats",
        STAT_DTYPE,
        lambda p: (p, NUM_STATS),
        "icons, special counts, plain bonuses, points, game-end scoring of the spirits in play",
    ),
)
FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in FIELDS)
PUBLIC_FIELDS: tuple[str, ...] = tuple(f.name for f in FIELDS if f.public)
_FIELD_SET = frozenset(FIELD_NAMES)
BACKENDS = ("numba", "numpy")


def _storage(f: Field) -> tuple[str, type, tuple[int, ...]]:
    """How a field is stored in a game's record: per-player dims sized for MAX_PLAYERS; bool arrays
    as uint8 (numba cannot compile nested bool arrays; the field's view is bool again)."""
    shape = f.shape(MAX_PLAYERS)
    dtype = np.uint8 if (f.dtype is np.bool_ and shape) else f.dtype
    return (f.name, dtype, shape)


#: One game's record: every field, in FIELDS order, C-aligned.
GAME_DTYPE = np.dtype([_storage(f) for f in FIELDS], align=True)


def bytes_per_game(num_players: int = MAX_PLAYERS) -> int:
    """Bytes of State per game (one record; the same for 2, 3 and 4 players)."""
    return GAME_DTYPE.itemsize


class State:
    """A batch of B games of P players: the fields of ``FIELDS`` (numpy arrays, first axis B),
    ``num_players``, ``max_turns``, ``cards`` (the card set) and ``backend`` ("numba" or
    "numpy": which engine ``core.step`` uses for it)."""

    # -- the fields (FIELDS, in its order; tests hold the two together), so that readers and type
    # checkers see them: __init__ attaches each as a view into the records --
    current_player: npt.NDArray[np.int32]
    active_player: npt.NDArray[np.int32]
    legal_action_mask: npt.NDArray[np.bool_]
    rewards: npt.NDArray[np.float32]
    terminated: npt.NDArray[np.bool_]
    truncated: npt.NDArray[np.bool_]
    hand: npt.NDArray[np.int8]
    spirits: npt.NDArray[np.int8]
    mana: npt.NDArray[np.int8]
    head: npt.NDArray[np.int32]
    stones: npt.NDArray[np.int8]
    vp: npt.NDArray[np.int32]
    faith: npt.NDArray[np.int32]
    deck: npt.NDArray[np.int8]
    discard: npt.NDArray[np.int8]
    offer: npt.NDArray[np.int8]
    phase: npt.NDArray[np.int32]
    command_number: npt.NDArray[np.int32]
    declarer: npt.NDArray[np.int32]
    turn: npt.NDArray[np.int32]
    rng_key: npt.NDArray[np.uint64]
    rng_counter: npt.NDArray[np.uint64]
    cmd_card: npt.NDArray[np.int32]
    head_number: npt.NDArray[np.int32]
    offer_public: npt.NDArray[np.bool_]
    last_turn: npt.NDArray[np.int32]
    summon_kind: npt.NDArray[np.int32]
    pay_need: npt.NDArray[np.int32]
    pay_any: npt.NDArray[np.int32]
    paid: npt.NDArray[np.int32]
    choice_left: npt.NDArray[np.int32]
    choice_floor: npt.NDArray[np.int32]
    draw_pend: npt.NDArray[np.int32]
    draw_return: npt.NDArray[np.int32]
    drawn: npt.NDArray[np.int32]
    draw_round_done: npt.NDArray[np.bool_]
    discard_seat: npt.NDArray[np.int32]
    discard_shortage: npt.NDArray[np.bool_]
    discard_return: npt.NDArray[np.int32]
    giver_seat: npt.NDArray[np.int32]
    stats: npt.NDArray[np.int16]
    # -- the rest: set once in __init__ --
    num_players: int
    max_turns: int
    cards: CardSet
    backend: str
    records: np.ndarray
    _every: npt.NDArray[np.int64]
    _batch: int
    _tables: np.ndarray | None

    def __init__(
        self,
        batch: int,
        num_players: int,
        max_turns: int,
        cards: CardSet,
        backend: str,
        records: np.ndarray | None = None,
    ) -> None:
        if records is None:
            records = np.zeros(batch, dtype=GAME_DTYPE)
        elif records.dtype != GAME_DTYPE or records.shape != (batch,) or not records.flags.c_contiguous:
            raise ValueError(f"records must be a contiguous array of {batch} GAME_DTYPE records")
        object.__setattr__(self, "num_players", num_players)
        object.__setattr__(self, "max_turns", max_turns)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "backend", backend)
        object.__setattr__(self, "records", records)
        object.__setattr__(self, "_every", np.arange(batch, dtype=np.int64))  # all game indices, made once
        object.__setattr__(self, "_batch", int(batch))
        object.__setattr__(self, "_tables", None)  # the compiled engine's card tables, made on first use
        for f in FIELDS:
            view = records[f.name]
            if f.shape(MAX_PLAYERS) != f.shape(num_players):  # per-player: the first P rows
                view = view[:, :num_players]
            if f.dtype is np.bool_ and view.dtype != np.bool_:
                view = view.view(np.bool_)
            object.__setattr__(self, f.name, view)

    # -- the fields stay views into the records ------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FIELD_SET:
            view = getattr(self, name)
            if view.dtype.kind in "iu":  # numpy would wrap what does not fit (2**40 into int32 is 0)
                _check_fits(name, value, view.dtype)
            view[...] = value
        elif name in ("num_players", "max_turns", "cards", "records", "_every", "_batch"):
            raise AttributeError(f"State.{name} cannot be changed; make a new state (core.init)")
        else:
            object.__setattr__(self, name, value)

    #: The module whose ``render_svg(state, game, seat)`` draws a game. It is imported only when a
    #: picture is asked for: core imports no wrapper, and nothing patches this class from outside.
    PICTURE_MODULE = "aos_env.view.svg"

    def _repr_svg_(self) -> str | None:
        """Jupyter shows game 0 as a picture, from the seat of the player who must choose."""
        import importlib

        render_svg = importlib.import_module(self.PICTURE_MODULE).render_svg
        result: str | None = render_svg(self, 0, int(self.current_player[0]))
        return result

    @property
    def batch_size(self) -> int:
        return self._batch

    @property
    def nbytes(self) -> int:
        """Bytes of the state's arrays (the records)."""
        return int(self.records.nbytes)

    def _like(self, records: np.ndarray, backend: str | None = None) -> State:
        return State(records.shape[0], self.num_players, self.max_turns, self.cards, backend or self.backend, records)

    def copy(self) -> State:
        """A deep copy (the card tables are shared: they are read-only)."""
        return self._like(self.records.copy())

    def take(self, idx: ArrayLike) -> State:
        """A new batch made of games ``idx`` of this one (copies; repeats allowed). ``idx``: a game
        index or a 1-d integer array of them, 0..B-1 (ArgumentError otherwise)."""
        return self._like(self.records[check_indices("idx", idx, self._batch, distinct=False)])

    def put(self, idx: ArrayLike, other: State) -> None:
        """Write the games of ``other`` into positions ``idx`` of this batch: one distinct position
        per game of ``other``, which must hold games like this batch's (players, max_turns, cards).
        TypeError if ``other`` is no State; ArgumentError for the rest; nothing is written then."""
        if not isinstance(other, State):
            raise TypeError(f"other must be a core.State, got {type(other).__name__}")
        if (other.num_players, other.max_turns) != (self.num_players, self.max_turns) or not same_cards(
            other.cards, self.cards
        ):
            raise ArgumentError(
                f"other must hold games like this batch's ({self.num_players} players, max_turns {self.max_turns}, "
                f"the same card set), got {other.num_players} players, max_turns {other.max_turns}"
                + ("" if same_cards(other.cards, self.cards) else f", cards from {other.cards.source or 'elsewhere'}")
            )
        g = check_indices("idx", idx, self._batch)
        if g.size != other.batch_size:
            raise ArgumentError(f"idx must hold one position per game of other ({other.batch_size}), got {g.size}")
        self.records[g] = other.records

    def with_backend(self, backend: str) -> State:
        """The same games (a copy) for the other engine."""
        return self._like(self.records.copy(), str(check_choice("backend", backend, BACKENDS)))

    # -- pickling (multiprocessing, Ray, copy.deepcopy) -----------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        return {
            "num_players": self.num_players,
            "max_turns": self.max_turns,
            "cards": self.cards,
            "backend": self.backend,
            "records": self.records,
        }

    def __setstate__(self, d: dict[str, Any]) -> None:
        records = np.ascontiguousarray(d["records"])
        State.__init__(self, records.shape[0], d["num_players"], d["max_turns"], d["cards"], d["backend"], records)

    def __deepcopy__(self, memo: object) -> State:
        return self.copy()

    def __repr__(self) -> str:
        return (
            f"State({self.batch_size} games, {self.num_players} players, backend={self.backend!r}, "
            f"max_turns={self.max_turns})"
        )


def _check_fits(name: str, value: Any, dtype: np.dtype[Any]) -> None:
    """Refuse a value for an integer field that the field cannot hold exactly: a number out of its
    dtype's range, a fraction, NaN, text. ArgumentError naming the field; nothing is written."""
    info = np.iinfo(dtype)
    arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    allowed = f"whole numbers {info.min}..{info.max} (state.{name} is {dtype})"
    if arr.dtype.kind == "b" or not arr.size or np.can_cast(arr.dtype, dtype):
        return
    if arr.dtype.kind in "iuf":
        if arr.dtype.kind == "f" and not (np.isfinite(arr).all() and (arr == np.trunc(arr)).all()):
            raise ArgumentError(f"state.{name} must hold {allowed}, got a fraction, NaN or an infinity")
        low, high = arr.min(), arr.max()
    elif arr.dtype.kind == "O" and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in arr.flat):
        low, high = min(arr.flat), max(arr.flat)  # Python ints too large for int64
    else:
        raise ArgumentError(f"state.{name} must hold {allowed}, got values of dtype {arr.dtype}")
    if low < info.min or high > info.max:
        raise ArgumentError(f"state.{name} must hold {allowed}, got {high if high > info.max else low}")


def same_cards(a: CardSet, b: CardSet) -> bool:
    """True if two card sets are the same card data (the same object, or equal tables: e.g. one unpickled)."""
    if a is b:
        return True
    if not isinstance(a, CardSet) or not isinstance(b, CardSet):
        return False
    for f in fields(CardSet):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "source":
            continue
        if isinstance(x, dict):
            if x.keys() != y.keys() or not all(np.array_equal(x[k], y[k]) for k in x):
                return False
        elif isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not np.array_equal(x, y):
                return False
        elif x != y:
            return False
    return True


def empty_state(batch: int, num_players: int, max_turns: int, cards: CardSet, backend: str) -> State:
    """A state of the right shapes, all fields zero but the 'none' markers (init fills it)."""
    state = State(batch, num_players, max_turns, cards, backend)
    state.head[...] = -1
    state.declarer[...] = -1
    state.cmd_card[...] = -1
    state.summon_kind[...] = -1
    state.phase[...] = int(Phase.TURN_START)
    return state


def ksum(x: np.ndarray) -> np.ndarray:
    """Cards in a zone: the sum over the last (kind) axis, as int32.

    ``einsum`` sums int8 rows several times faster than ``ndarray.sum`` (which is slow on a
    short last axis); int8 cannot overflow here, a zone holds at most 110 cards.
    """
    result: np.ndarray = np.einsum("...k->...", x).astype(np.int32)
    return result


def recompute_stats(state: State, g: np.ndarray | slice = slice(None)) -> None:
    """Recompute ``state.stats`` from the spirits in play (after editing zones by hand)."""
    state.stats[g] = state.spirits[g].astype(np.int64) @ state.cards.stat_table
