"""The batched game state: a struct of numpy arrays, leading dimension B."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ..cards import ACTIONS, BONUS_FIELDS, ICONS, SCORE_SOURCES, SPECIALS, CardSet
from .constants import NUM_ACTIONS, Phase

K = 30

# Columns of State.pend, in the order pending draws are resolved (zones.run_draw).
PEND_CMD, PEND_HAND, PEND_MANA, PEND_STONE, PEND_OFFER = range(5)

# Columns of State.stats (the same as CardSet.stat_table): per-player totals over the spirits in play.
STAT_ICONS = slice(0, len(ICONS))  # axe, staff, sword, shield, armour
STAT_SPECIAL = {name: len(ICONS) + i for i, name in enumerate(SPECIALS)}  # copies with that ability
_BONUS0 = len(ICONS) + len(SPECIALS)


def stat_bonus(action: int) -> slice:
    """Columns of the plain bonuses (cards.BONUS_FIELDS order) for action index ``action``."""
    start = _BONUS0 + action * len(BONUS_FIELDS)
    return slice(start, start + len(BONUS_FIELDS))


STAT_POINTS = _BONUS0 + len(ACTIONS) * len(BONUS_FIELDS)  # printed points (R7.3)
STAT_SCORE = slice(STAT_POINTS + 1, STAT_POINTS + 1 + len(SCORE_SOURCES))  # game-end VP per unit of each source
NUM_STATS = STAT_SCORE.stop

ZONE_DTYPE = np.int8  # at most 4 copies of a kind in any zone
INT = np.int32


@dataclass
class State:
    """A batch of B games of P players.

    The public fields are described in INTERFACE.md; the ones after
    ``turn`` are the engine's bookkeeping for decisions in progress.
    """

    num_players: int
    max_turns: int
    cards: CardSet = field(repr=False)
    # -- public (INTERFACE.md) --
    current_player: np.ndarray  # (B,)
    active_player: np.ndarray  # (B,)
    legal_action_mask: np.ndarray  # (B, A) bool
    rewards: np.ndarray  # (B, P) float32
    terminated: np.ndarray  # (B,) bool
    truncated: np.ndarray  # (B,) bool
    hand: np.ndarray  # (B, P, K)
    spirits: np.ndarray  # (B, P, K)
    mana: np.ndarray  # (B, P, K) face-up mana, the waiting head included
    head: np.ndarray  # (B, P) kind of the waiting head, -1 if none
    stones: np.ndarray  # (B, P, K) by hidden kind
    vp: np.ndarray  # (B, P)
    faith: np.ndarray  # (B, P)
    deck: np.ndarray  # (B, K)
    discard: np.ndarray  # (B, K)
    offer: np.ndarray  # (B, K)
    phase: np.ndarray  # (B,) Phase values
    command_number: np.ndarray  # (B,)
    declarer: np.ndarray  # (B,) -1 if none
    turn: np.ndarray  # (B,) turns played so far
    # -- internal --
    rng_key: np.ndarray  # (B,) uint64
    rng_counter: np.ndarray  # (B,) uint64
    cmd_card: np.ndarray  # (B,) kind of this turn's command card, -1 if none
    head_number: np.ndarray  # (B,) number of the head the command card went onto (0 if none)
    summon_kind: np.ndarray  # (B,) spirit being summoned, -1 if none
    pay_need: np.ndarray  # (B, 5) coloured symbols of the cost being paid
    pay_any: np.ndarray  # (B,) "any" symbols of the cost being paid
    paid: np.ndarray  # (B, 6) units paid so far: 5 colours, then stones
    count: np.ndarray  # (B,) choices left in a repeated decision
    floor: np.ndarray  # (B,) lowest action id allowed next in a repeated decision
    pend: np.ndarray  # (B, 5) pending draws per destination (PEND_*)
    after_draw: np.ndarray  # (B,) phase to continue with once the draws are done
    offer_public: np.ndarray  # (B,) bool: offer revealed to all (Festival) or only to the active player
    giver_seat: np.ndarray  # (B,) Inquisition: seat offset (from the active player) of the next possible giver
    discard_seat: np.ndarray  # (B,) discard round: seat offset of the player discarding now
    drawn: np.ndarray  # (B,) cards the draw in progress (or the last one) has delivered
    disc_shortage: np.ndarray  # (B,) bool: the discard round is R8.3's (else Nightmare's)
    disc_return: np.ndarray  # (B,) phase to continue with after a discard round
    short_done: np.ndarray  # (B,) bool: an R8.3 discard round already took place during this draw
    last_turn: np.ndarray  # (B,) index of the final turn once the end is declared
    stats: np.ndarray  # (B, P, NUM_STATS) totals over spirits in play (icons, specials, bonuses);
    #                    kept up to date at each summon, recomputed by refresh

    def _repr_svg_(self) -> str:
        """Jupyter shows game 0 as a picture, from the seat of the player who must choose."""
        from ..svg import render_svg  # a wrapper module: imported only when a notebook asks (core imports no wrapper)

        return render_svg(self, 0, int(self.current_player[0]))

    @property
    def batch_size(self) -> int:
        return int(self.phase.shape[0])

    def copy(self) -> "State":
        """A deep copy (the card tables are shared: they are read-only)."""
        return dataclasses.replace(
            self,
            **{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self) if _is_array(self, f.name)},
        )

    def take(self, idx: np.ndarray) -> "State":
        """A new batch made of games ``idx`` of this one (copies; repeats allowed)."""
        idx = np.asarray(idx)
        return dataclasses.replace(
            self, **{f.name: getattr(self, f.name)[idx] for f in dataclasses.fields(self) if _is_array(self, f.name)}
        )

    def put(self, idx: np.ndarray, other: "State") -> None:
        """Write the games of ``other`` into positions ``idx`` of this batch."""
        for f in dataclasses.fields(self):
            if _is_array(self, f.name):
                getattr(self, f.name)[idx] = getattr(other, f.name)


def _is_array(state: State, name: str) -> bool:
    return isinstance(getattr(state, name), np.ndarray)


def empty_state(batch: int, num_players: int, max_turns: int, cards: CardSet) -> State:
    """All-zero state of the right shapes (init fills it)."""
    B, P = batch, num_players

    def z(*shape, dtype=INT):
        return np.zeros(shape, dtype=dtype)

    return State(
        num_players=P, max_turns=max_turns, cards=cards,
        current_player=z(B), active_player=z(B),
        legal_action_mask=z(B, NUM_ACTIONS, dtype=bool), rewards=z(B, P, dtype=np.float32),
        terminated=z(B, dtype=bool), truncated=z(B, dtype=bool),
        hand=z(B, P, K, dtype=ZONE_DTYPE), spirits=z(B, P, K, dtype=ZONE_DTYPE),
        mana=z(B, P, K, dtype=ZONE_DTYPE), head=np.full((B, P), -1, INT),
        stones=z(B, P, K, dtype=ZONE_DTYPE), vp=z(B, P), faith=z(B, P),
        deck=z(B, K, dtype=ZONE_DTYPE), discard=z(B, K, dtype=ZONE_DTYPE), offer=z(B, K, dtype=ZONE_DTYPE),
        phase=np.full(B, int(Phase.TURN_START), INT), command_number=z(B), declarer=np.full(B, -1, INT),
        turn=z(B),
        rng_key=z(B, dtype=np.uint64), rng_counter=z(B, dtype=np.uint64),
        cmd_card=np.full(B, -1, INT), head_number=z(B), summon_kind=np.full(B, -1, INT),
        pay_need=z(B, 5), pay_any=z(B), paid=z(B, 6), count=z(B), floor=z(B), pend=z(B, 5),
        after_draw=z(B), offer_public=z(B, dtype=bool), giver_seat=z(B), discard_seat=z(B), drawn=z(B), disc_shortage=z(B, dtype=bool),
        disc_return=z(B), short_done=z(B, dtype=bool), last_turn=z(B), stats=z(B, P, NUM_STATS),
    )


def ksum(x: np.ndarray) -> np.ndarray:
    """Cards in a zone: the sum over the last (kind) axis, as int32.

    ``einsum`` sums int8 rows several times faster than ``ndarray.sum`` (which is
    slow on a short last axis); int8 cannot overflow here, a zone holds at most
    110 cards.
    """
    return np.einsum("...k->...", x).astype(np.int32)


def recompute_stats(state: State) -> None:
    """Recompute ``state.stats`` from the spirits in play (after editing zones by hand)."""
    state.stats[:] = state.spirits.astype(np.int64) @ state.cards.stat_table


def add_spirit(state: State, g: np.ndarray, p: np.ndarray, k: np.ndarray) -> None:
    """Put a spirit of kind k into play for player p, keeping ``stats`` up to date."""
    state.spirits[g, p, k] += 1
    state.stats[g, p] += state.cards.stat_table[k]
