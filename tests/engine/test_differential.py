"""Differential tests (issue 12): the compiled engine (numba) and the numpy reference must play
exactly the same games.

Two states, one per engine, start from the same seeds; both get the same actions (drawn from
the numpy state) and after every step every State field (``core.FIELD_NAMES``, the internal
ones included), every player's observation and the final scores must be equal, bit for bit.
Finished games are restarted with ``core.reset`` on both, with the same seeds.

The cases: random and greedy play from the start of a game, for 2, 3 and 4 players; positions
that push play into the rare paths (R8.3 shortages, Nightmare discard rounds, Inquisitions with
empty hands and lower faith, end declarations, R7.4 tie-breaks, truncation at small turn
limits); steps of only some games (``games=``) and resets in the middle of a batch; a batch of
one game (the engines' one-game paths) and a large batch (the compiled engine's threads). Each
case asserts that the rare paths it is there for actually came up, so it cannot silently stop
covering them. Last, illegal actions and actions of the wrong shape or dtype must raise
ValueError on both engines and leave every field as it was.

A mismatch is reported with the case, the step, the field (or the observation entries), the
first games that differ with their seeds, both engines' phases, the action just taken and both
values, so that it can be replayed on its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

from agents import GreedyAgent, act_on_state
from aos_env import core
from aos_env.core import Phase, nb_engine
from aos_env.core.cards import DEFAULT as CARDS
from aos_env.core.constants import PEGASUS_FAITH
from aos_env.core.state import STAT_SPECIAL

# Every case passes its engines explicitly: running it once per $AOS_BACKEND would repeat it.
pytestmark = pytest.mark.one_backend

K = CARDS.num_kinds
#: Phases whose decisions the rare-path cases must reach (counted per game and step).
RARE = {
    "shortage": (Phase.SHORTAGE_HAND, Phase.SHORTAGE_MANA),
    "nightmare": (Phase.NIGHTMARE, Phase.NIGHTMARE_HAND, Phase.NIGHTMARE_MANA),
    "gift": (Phase.INQUISITION_GIFT,),
    "declare": (Phase.DECLARE,),
}
_OBS_NAMES: list[str] = [""] * core.OBS_DIM  # the name of each observation entry, for reports
for _name, _sl in core.obs_slices().items():
    for _i in range(_sl.start, _sl.stop):
        _OBS_NAMES[_i] = _name if _sl.stop - _sl.start == 1 else f"{_name}[{_i - _sl.start}]"
_SHOWN_GAMES = 3  # games described in a mismatch report


# ---- the two engines side by side -----------------------------------------------------------


def _bits(x: np.ndarray) -> np.ndarray:
    """(B, bytes) the raw bytes of each game's row of an array (B, ...): equality bit for bit."""
    x = np.ascontiguousarray(x)
    return x.reshape(x.shape[0], -1).view(np.uint8)


def _differing_games(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype != b.dtype or a.shape != b.shape:
        return np.arange(min(a.shape[0], b.shape[0]) if a.ndim and b.ndim else 1)
    return np.nonzero((_bits(a) != _bits(b)).any(1))[0]


def _phase_name(v: int) -> str:
    try:
        return Phase(int(v)).name
    except ValueError:
        return f"phase {int(v)}?"


NOT_STEPPED = np.iinfo(np.int64).min
_ZONE_FIELDS = ("hand", "spirits", "mana", "stones", "deck", "discard", "offer")


def _index_label(what: str, idx: tuple) -> str:
    """An entry of a game's row, with the card name of a zone's kind or the name of an action."""
    label = ", ".join(map(str, idx))
    if any(f"'{name}'" in what for name in _ZONE_FIELDS):
        label += f" ({CARDS.names[idx[-1]]})"
    elif "'legal_action_mask'" in what:
        label += f" ({core.ACTION_NAMES[idx[-1]]})"
    return f"[{label}]"


def _action_name(a: int) -> str:
    if a == NOT_STEPPED:
        return "none (not stepped)"
    return f"{a} ({core.ACTION_NAMES[a] if 0 <= a < core.NUM_ACTIONS else 'out of range'})"


@dataclass
class Coverage:
    """What a group of games went through: decisions reached by phase, how games ended."""

    phases: Counter = field(default_factory=Counter)  # (game, step) pairs arriving at each phase
    game_steps: int = 0  # unfinished games stepped, summed over the steps
    games: int = 0  # games started (init and every reset)
    terminated: int = 0
    truncated: int = 0
    ties: int = 0  # terminated games whose top score was shared (R7.4 decides)
    past_limit: int = 0  # terminated games whose extra round (R7.2) went past max_turns (R7.5)
    declared_yes: int = 0
    inquisitions: int = 0  # games that had an Inquisition (R6.6; their first one is counted)
    empty_givers: int = 0  # ... in which a lower-faith player with an empty hand gave (R8.2)
    resets_mid_game: int = 0

    def rare(self, name: str) -> int:
        return sum(self.phases[p] for p in RARE[name])

    def add(self, other: Coverage) -> None:
        for name in (
            "game_steps",
            "games",
            "terminated",
            "truncated",
            "ties",
            "past_limit",
            "declared_yes",
            "inquisitions",
            "empty_givers",
            "resets_mid_game",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.phases.update(other.phases)

    def summary(self) -> str:
        rare = ", ".join(f"{name} {self.rare(name)}" for name in RARE)
        return (
            f"{self.games} games, {self.game_steps} game-steps; ended: {self.terminated} terminated "
            f"({self.ties} with a tied top score, {self.past_limit} past the turn limit), {self.truncated} "
            f"truncated; decisions reached: {rare}; "
            f"declared YES {self.declared_yes}; games with an Inquisition {self.inquisitions} ({self.empty_givers} "
            f"with an empty-handed giver); mid-game resets {self.resets_mid_game}"
        )


#: Totals over the cases run in this module, printed at its end (pytest -s).
TOTAL = Coverage()
TOTAL_STEPS = Counter()


@pytest.fixture(scope="module", autouse=True)
def _print_totals():
    yield
    print(f"\nall differential cases: {TOTAL_STEPS['steps']} steps per backend, {TOTAL.summary()}")
    print("decisions reached, by phase: " + ", ".join(f"{Phase(p).name} {n}" for p, n in sorted(TOTAL.phases.items())))


Policy = Callable[[core.State, np.random.Generator, np.ndarray], np.ndarray]
Position = Callable[[core.State, np.random.Generator], None]


def random_policy(declare_yes: float | None = None) -> Policy:
    """A uniformly random legal action (0 for finished games); at DECLARE, YES with probability
    ``declare_yes`` if given (random play declares half of the time, which ends games early)."""

    def act(state: core.State, rng: np.random.Generator, g: np.ndarray) -> np.ndarray:
        mask = state.legal_action_mask[g]
        actions = (rng.random(mask.shape) * mask).argmax(1)
        if declare_yes is not None:
            declare = state.phase[g] == Phase.DECLARE
            actions[declare] = np.where(rng.random(int(declare.sum())) < declare_yes, core.YES, core.NO)
        return actions

    return act


def greedy_policy() -> Policy:
    """agents.GreedyAgent on the reference state's observations (act_on_state)."""
    agent = GreedyAgent(seed=0)

    def act(state: core.State, rng: np.random.Generator, g: np.ndarray) -> np.ndarray:
        return act_on_state(agent, state, g)

    return act


@dataclass(frozen=True)
class Group:
    """Games of a batch that share a purpose: how many, the position they start from (None: a
    new game) and the policy that plays them."""

    name: str
    games: int
    position: Position | None = None
    policy: Policy = field(default_factory=random_policy)


class Pair:
    """The same batch of games on both engines: ``ref`` (numpy) and ``fast`` (numba). The batch
    is made of groups (positions of one kind, one policy), whose coverage is counted apart."""

    def __init__(
        self,
        label: str,
        groups: list[Group],
        num_players: int,
        seed: int,
        max_turns: int = core.DEFAULT_MAX_TURNS,
        one_game_kernel: bool = False,
    ) -> None:
        B = sum(gr.games for gr in groups)
        self.label, self.P, self.B, self.groups = label, num_players, B, groups
        self.group_of = np.repeat(np.arange(len(groups)), [gr.games for gr in groups])
        self.where = f"case {label!r} ({B} games, {num_players} players, max_turns {max_turns})"
        self.ref = core.init(B, num_players, seed=seed, max_turns=max_turns, backend="numpy")
        self.fast = core.init(B, num_players, seed=seed, max_turns=max_turns, backend="numba")
        self.seed = seed
        self.one_game_kernel = one_game_kernel  # step the numba game with its GameHandle (B == 1)
        self.seeds = seed + np.arange(B, dtype=np.int64)  # each game's seed, for reports
        self.since = np.zeros(B, dtype=np.int64)  # steps of each game since its (re)start
        self.next_seed = seed + B
        self.steps = 0
        self.cov = [Coverage(games=gr.games) for gr in groups]
        self.last_action = np.full(B, NOT_STEPPED)
        self.phase_before = self.ref.phase.copy()
        self.check("init")
        if self._place(np.arange(B)):
            self.check("core.refresh of the positions")

    # -- positions ---------------------------------------------------------------------------

    def _place(self, games: np.ndarray) -> bool:
        """Edit fresh games into their groups' positions (on a copy of the reference's games),
        copy them to the other engine, refresh both copies (each engine re-derives its turn-start
        decision itself; ``refresh`` needs every game of its batch at a turn's start, hence the
        copies) and put them back. False if no game of ``games`` starts from a position."""
        games = games[[self.groups[i].position is not None for i in self.group_of[games]]]
        if not games.size:
            return False
        sub = self.ref.take(games)
        for i, gr in enumerate(self.groups):
            at = np.nonzero(self.group_of[games] == i)[0]
            if at.size:
                part = sub.take(at)
                gr.position(part, np.random.default_rng([self.seed, int(self.seeds[games[at[0]]]), at.size]))
                sub.put(at, part)
        sub_fast = sub.with_backend("numba")
        core.refresh(sub)
        core.refresh(sub_fast)
        self.ref.put(games, sub)
        self.fast.put(games, sub_fast)
        return True

    # -- comparing -----------------------------------------------------------------------------

    def check_fields(self, when: str, games: np.ndarray | None = None) -> None:
        """Every field must be equal (of games ``games`` only, if given)."""
        if games is None:
            same = np.array_equal(self.ref.records.view(np.uint8), self.fast.records.view(np.uint8))
        else:
            same = self.ref.records[games].tobytes() == self.fast.records[games].tobytes()
        for name in () if same else core.FIELD_NAMES:  # (equal records: every field is equal)
            a, b = getattr(self.ref, name), getattr(self.fast, name)
            if games is not None:
                a, b = a[games], b[games]
            bad = _differing_games(a, b)
            if bad.size:
                raise AssertionError(self._report(when, f"field {name!r}", bad, a, b, games))

    def check(self, when: str, games: np.ndarray | None = None) -> None:
        """Every field, every player's observation and the final scores must be equal (of games
        ``games`` only, if given: the games a reset or a new position changed)."""
        self.check_fields(when, games)
        for p in range(self.P):
            a, b = core.observe(self.ref, p, games=games), core.observe(self.fast, p, games=games)
            bad = _differing_games(a, b)
            if bad.size:
                raise AssertionError(self._report(when, f"observe(state, {p})", bad, a, b, games, names=_OBS_NAMES))
        a, b = core.final_scores(self.ref, games), core.final_scores(self.fast, games)
        bad = _differing_games(a, b)
        if bad.size:
            raise AssertionError(self._report(when, "core.final_scores", bad, a, b, games))

    def _report(
        self,
        when: str,
        what: str,
        bad: np.ndarray,
        a: np.ndarray,
        b: np.ndarray,
        games: np.ndarray | None = None,
        names: list[str] | None = None,
    ) -> str:
        """Words for a mismatch: rows ``bad`` of a and b (rows of games ``games``, default all)."""
        at = bad if games is None else np.asarray(games)[bad]
        head = (
            f"numpy and numba engines disagree on {what} after {when} in {self.where}; "
            f"{bad.size} game(s) differ: {at[:10].tolist()}"
        )
        lines = [head]
        if a.dtype != b.dtype or a.shape != b.shape:
            lines.append(f"  numpy: {a.dtype} {a.shape}, numba: {b.dtype} {b.shape}")
            return "\n".join(lines)
        for row, g in zip(bad[:_SHOWN_GAMES], at[:_SHOWN_GAMES], strict=True):
            g = int(g)
            group = self.groups[self.group_of[g]]
            start = f"position {group.name!r}" if group.position else "new game"
            lines.append(
                f"  game {g} (group {group.name!r}, {start} from seed {int(self.seeds[g])}, "
                f"{int(self.since[g])} steps since): before the step {_phase_name(self.phase_before[g])}, action "
                f"{_action_name(int(self.last_action[g]))}; now numpy {_phase_name(self.ref.phase[g])} "
                f"(player {int(self.ref.current_player[g])}), numba {_phase_name(self.fast.phase[g])} "
                f"(player {int(self.fast.current_player[g])})"
            )
            x, y = a[row], b[row]
            if x.size <= 8:
                lines.append(f"    numpy {x.tolist()}, numba {y.tolist()}")
                continue
            xb, yb = _bits(x[None])[0].reshape(x.size, -1), _bits(y[None])[0].reshape(y.size, -1)
            where = np.nonzero((xb != yb).any(1))[0]
            for i in where[:8]:
                idx = np.unravel_index(i, x.shape)
                lines.append(
                    f"    at {names[i] if names else _index_label(what, idx)}: numpy {x[idx].item()!r}, "
                    f"numba {y[idx].item()!r}"
                )
            if where.size > 8:
                lines.append(f"    ... and {where.size - 8} more entries")
        return "\n".join(lines)

    # -- stepping ------------------------------------------------------------------------------

    def actions(self, rng: np.random.Generator, g: np.ndarray | None = None) -> np.ndarray:
        """Each group's policy's actions for games g (default: all), from the reference state."""
        g = np.arange(self.B) if g is None else g
        out = np.zeros(g.size, dtype=np.int64)
        for i, gr in enumerate(self.groups):
            at = np.nonzero(self.group_of[g] == i)[0]
            if at.size:
                out[at] = gr.policy(self.ref, rng, g[at])
        return out

    def step(self, actions: np.ndarray, games: np.ndarray | None = None, restart: bool = True) -> None:
        """Step both engines with the same actions, check, count, then restart the finished games."""
        g = np.arange(self.B) if games is None else games
        self.phase_before = self.ref.phase.copy()
        live = ~(self.ref.terminated[g] | self.ref.truncated[g])
        # a game's first Inquisition sets giver_seat (0 until then): counted when it happens
        seat_before, empty_giver = self.ref.giver_seat[g].copy(), self._empty_handed_giver(g)
        self.last_action[:] = NOT_STEPPED
        self.last_action[g] = actions
        core.step(self.ref, actions, games)
        if self.one_game_kernel:
            assert core.game_handle(self.fast, 0).step(int(actions[0])).legal, (
                "the one-game kernel refused a legal action"
            )
        else:
            core.step(self.fast, actions, games)
        self.since[g] += 1
        self.steps += 1
        self.check(f"step {self.steps}")
        # count, per group, what the games stepped arrived at
        yes = (self.phase_before[g] == Phase.DECLARE) & (actions == core.YES) & live
        ended = live & (self.ref.terminated[g] | self.ref.truncated[g])
        term = ended & self.ref.terminated[g]
        scores = core.final_scores(self.ref, g)
        tie = term & ((scores == scores.max(1, keepdims=True)).sum(1) >= 2)
        inq = live & (seat_before == 0) & (self.ref.giver_seat[g] > 0)
        past = term & (self.ref.turn[g] > self.ref.max_turns)
        for i, cov in enumerate(self.cov):
            mine = self.group_of[g] == i
            m = mine & live
            cov.game_steps += int(m.sum())
            cov.phases.update(self.ref.phase[g[m]].tolist())
            cov.declared_yes += int((yes & mine).sum())
            cov.terminated += int((term & mine).sum())
            cov.truncated += int((ended & ~term & mine).sum())
            cov.ties += int((tie & mine).sum())
            cov.past_limit += int((past & mine).sum())
            cov.inquisitions += int((inq & mine).sum())
            cov.empty_givers += int((inq & empty_giver & mine).sum())
        if restart:
            self.restart(np.nonzero(self.ref.terminated | self.ref.truncated)[0])

    def _empty_handed_giver(self, g: np.ndarray) -> np.ndarray:
        """(n,) games g where a player with lower (compared) faith than the active player has an
        empty hand: an Inquisition now makes them give the top card of the deck (R6.6, R8.2)."""
        s = self.ref
        faith = s.faith[g] + PEGASUS_FAITH * s.stats[g][:, :, STAT_SPECIAL["pegasus"]]
        mine = faith[np.arange(g.size), s.active_player[g]]
        return ((faith < mine[:, None]) & (s.hand[g].sum(2) == 0)).any(1)

    def restart(self, games: np.ndarray, mid_game: bool = False) -> None:
        """``core.reset`` games on both engines with the same (new) seeds, check, and make the
        positions of their groups. ``mid_game``: the games were not finished (counted)."""
        if not games.size:
            return
        seeds = self.next_seed + np.arange(games.size, dtype=np.int64)
        self.next_seed += games.size
        core.reset(self.ref, games, seeds)
        core.reset(self.fast, games, seeds)
        self.seeds[games], self.since[games] = seeds, 0
        for i, cov in enumerate(self.cov):
            n = int((self.group_of[games] == i).sum())
            cov.games += n
            cov.resets_mid_game += n if mid_game else 0
        when = f"core.reset of {games.size} game(s) after step {self.steps}"
        self.check_fields(when, games)
        if self._place(games):
            when += " and core.refresh of their positions"
        self.check(when, games)

    def group(self, name: str) -> Coverage:
        return self.cov[[gr.name for gr in self.groups].index(name)]

    def finish(self) -> Coverage:
        """Print each group's coverage and return the batch's (also added to the module's totals)."""
        total = Coverage()
        for gr, cov in zip(self.groups, self.cov, strict=True):
            total.add(cov)
            if len(self.groups) > 1:
                print(f"\n{self.label} / {gr.name}: {cov.summary()}")
        print(f"\n{self.label}: {self.steps} steps per backend, {total.summary()}")
        TOTAL.add(total)
        TOTAL_STEPS["steps"] += self.steps
        return total


def play(pair: Pair, steps: int, seed: int) -> Coverage:
    """``steps`` steps of every game with its group's policy; returns the coverage."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        pair.step(pair.actions(rng))
    return pair.finish()


# ---- positions: editing the zone arrays of fresh games (then core.refresh) --------------------

_ZONES = ("hand", "mana", "stones", "spirits")


def deal(
    s: core.State,
    rng: np.random.Generator,
    weights,
    pile: tuple[int, int],
    head: float = 0.8,
    faith: tuple[int, int] = (0, 10),
    vp: tuple[int, int] = (0, 19),
) -> None:
    """Random positions at the start of a turn: the deck and the discard pile hold ``pile``
    (lo, hi) cards each, every other card goes to a player's hand, mana row, stones or spirits
    in random shares (Dirichlet ``weights`` per zone, in _ZONES order); a random mana card is the
    waiting head of a row with probability ``head``; faith and VP uniform in the ranges."""
    B, P = s.batch_size, s.num_players
    games = np.arange(B)
    cards = rng.permuted(np.tile(np.repeat(np.arange(K), CARDS.copies), (B, 1)), axis=1)  # (B, 110)
    shares = np.cumsum(rng.dirichlet(np.tile(np.asarray(weights, dtype=float), P), B), axis=1)
    zone = np.minimum((rng.random((B, cards.shape[1], 1)) > shares[:, None, :]).sum(2), 4 * P - 1)
    n_deck, n_discard = rng.integers(pile[0], pile[1] + 1, B), rng.integers(pile[0], pile[1] + 1, B)
    place = np.arange(cards.shape[1])[None, :]
    zone = np.where(place < n_deck[:, None], 4 * P, zone)
    zone = np.where((place >= n_deck[:, None]) & (place < (n_deck + n_discard)[:, None]), 4 * P + 1, zone)
    zone[games, n_deck + n_discard] = 4 * s.active_player  # the active player holds a card (refresh)
    counts = np.zeros((B, 4 * P + 2, K), dtype=np.int64)
    np.add.at(counts, (games[:, None], zone, cards), 1)
    per_player = counts[:, : 4 * P].reshape(B, P, 4, K)
    for i, name in enumerate(_ZONES):
        getattr(s, name)[:] = per_player[:, :, i]
    s.deck[:], s.discard[:] = counts[:, 4 * P], counts[:, 4 * P + 1]
    mana = s.mana.reshape(B * P, K).astype(np.int64)
    cum = np.cumsum(mana, axis=1)
    pick = (cum > (rng.random(B * P) * cum[:, -1])[:, None]).argmax(1)
    s.head[:] = np.where((cum[:, -1] > 0) & (rng.random(B * P) < head), pick, -1).reshape(B, P)
    s.faith[:] = rng.integers(faith[0], faith[1] + 1, (B, P))
    s.vp[:] = rng.integers(vp[0], vp[1] + 1, (B, P))


def move_card(s: core.State, b: int, kind: int, zone: str, player: int) -> bool:
    """Move one card of ``kind`` from wherever one lies (deck, discard pile, spirits, stones,
    other players' hands and rows; never a waiting head, never the active player's last card in
    hand) into ``zone`` of ``player`` in game b. False if no copy can be moved."""
    if s.deck[b, kind] > 0:
        s.deck[b, kind] -= 1
    elif s.discard[b, kind] > 0:
        s.discard[b, kind] -= 1
    else:
        for src in ("spirits", "stones", "hand", "mana"):
            arr = getattr(s, src)
            for q in range(s.num_players):
                if (src, q) == (zone, player) or arr[b, q, kind] == 0:
                    continue
                if src == "mana" and arr[b, q, kind] == 1 and s.head[b, q] == kind:
                    continue
                if src == "hand" and q == s.active_player[b] and arr[b, q].sum() == 1:
                    continue
                arr[b, q, kind] -= 1
                break
            else:
                continue
            break
        else:
            return False
    getattr(s, zone)[b, player, kind] += 1
    return True


def kinds_of_number(n: int) -> np.ndarray:
    return np.nonzero(CARDS.number == n)[0]


def crowded(s: core.State, rng: np.random.Generator) -> None:
    """R8.3: deck and discard pile 0-5 cards each, most cards spirits (few circulate), hands and
    rows still often over 9."""
    deal(s, rng, weights=(1.0, 1.0, 0.3, 4.0), pile=(0, 5))


_NIGHTMARE = CARDS.kind("Nightmare")
_BLACK = np.nonzero(CARDS.colour == 0)[0]


def nightmare_heavy(s: core.State, rng: np.random.Generator) -> None:
    """Nightmare discard rounds: big hands and mana rows (over 6 and 7), every Nightmare in the
    players' hands, with black mana to pay for it (KK*)."""
    deal(s, rng, weights=(3.0, 3.0, 0.5, 3.0), pile=(5, 25))
    for b in range(s.batch_size):
        for _ in range(int(CARDS.copies[_NIGHTMARE])):
            p = int(rng.integers(s.num_players))
            if move_card(s, b, _NIGHTMARE, "hand", p):
                for _ in range(2):
                    move_card(s, b, int(rng.choice(_BLACK)), "mana", p)
    _fix_heads(s)


def inquisition_likely(s: core.State, rng: np.random.Generator) -> None:
    """Inquisitions with empty hands and lower faith: the active player's head and the card in
    their hand (often the only one: then the command card and the action are forced) make 8
    (3+5, 4+4, 5+3), their faith is high and the others' spread out, a third of the other hands
    are empty (R8.2: the gift is the top card of the deck), and the deck and discard pile are
    short (R8.3 during the draws of the gifts)."""
    deal(s, rng, weights=(1.0, 1.5, 0.3, 3.0), pile=(0, 8), faith=(0, 10))
    P = s.num_players
    for b in range(s.batch_size):
        act = int(s.active_player[b])
        s.faith[b, act] = rng.integers(4, 11)
        for p in range(P):
            if p != act and rng.random() < 0.35:  # an empty hand: its cards become spirits
                s.spirits[b, p] += s.hand[b, p]
                s.hand[b, p] = 0
        h = int(rng.integers(3, 6))
        head = int(rng.choice(kinds_of_number(h)))
        if move_card(s, b, head, "mana", act):
            s.head[b, act] = head
        card = int(rng.choice(kinds_of_number(8 - h)))
        if move_card(s, b, card, "hand", act):
            kept = np.zeros_like(s.hand[b, act])
            kept[card] = 1
            if rng.random() < 0.3:  # sometimes one more card: the command card is a choice
                other = np.repeat(np.arange(K), s.hand[b, act])[rng.integers(s.hand[b, act].sum())]
                kept[other] += 1
            kept = np.minimum(kept, s.hand[b, act])
            s.spirits[b, act] += s.hand[b, act] - kept  # the rest of the hand becomes spirits
            s.hand[b, act] = kept
    _fix_heads(s)


#: Kinds with an ability that changes the rules or a bonus, for the "abilities" positions.
_ABILITY_KINDS = np.array(
    sorted(
        {int(k) for v in CARDS.special.values() for k in np.nonzero(v)[0]}
        | {CARDS.kind(n) for n in ("Succubus", "Ifrit", "Phoenix", "Angel", "Homunculus", "Dryad", "Fairy", "Undine")}
    )
)


def abilities(s: core.State, rng: np.random.Generator) -> None:
    """Many spirits with abilities in play and in hand at once (Leprechaun, Asmodai, Baldanders,
    Belial, Sphinx, Giant, Baal with Ifrit, Valkyrie, Pegasus, Treant, Cerberus, Gargoyle, the
    bonus spirits), short piles: the abilities meet each other and R8.3."""
    deal(s, rng, weights=(1.5, 1.5, 0.5, 3.0), pile=(0, 12), vp=(0, 29))
    for b in range(s.batch_size):
        for _ in range(25):
            zone = "spirits" if rng.random() < 0.6 else "hand"
            move_card(s, b, int(rng.choice(_ABILITY_KINDS)), zone, int(rng.integers(s.num_players)))
    _fix_heads(s)


def declarations(s: core.State, rng: np.random.Generator) -> None:
    """End declarations: many players at 30+ VP or with 10+ spirits from the start (R7.1)."""
    deal(s, rng, weights=(1.0, 1.0, 0.3, 2.5), pile=(10, 30), vp=(15, 40))


def tied_scores(s: core.State, rng: np.random.Generator) -> None:
    """R7.4 tie-breaks: the end is already declared and at most one round is left, nobody has a
    spirit (no printed points, no game-end scoring) and every player has the same VP: many games
    end with a shared top score, which the seat to the declarer's left decides."""
    deal(s, rng, weights=(1.0, 0.4, 0.2, 0.05), pile=(20, 40))
    B, P = s.batch_size, s.num_players
    s.deck[:] += s.spirits.sum(1)
    s.spirits[:] = 0
    s.vp[:] = rng.integers(0, 40, B)[:, None]
    s.declarer[:] = rng.integers(0, P, B)
    s.turn[:] = rng.integers(0, 30, B)
    s.last_turn[:] = s.turn + (s.declarer - s.active_player) % P  # the declarer's turn is the last (R7.2)


def _fix_heads(s: core.State) -> None:
    """A head must be one of its row's mana cards (moving cards may have taken it)."""
    b, p = np.nonzero(s.head >= 0)
    gone = s.mana[b, p, s.head[b, p]] < 1
    s.head[b[gone], p[gone]] = -1


# ---- the cases ---------------------------------------------------------------------------------

PLAYERS = [2, 3, 4]
#: Play from the start: (turn limit, steps). Random play ends by a declaration after about 35,
#: 51 and 69 turns (medians with 2, 3 and 4 players; 156, 225 and 306 steps), GreedyAgent a
#: little earlier; the limits cut the longer games short (R7.5), so that every game ends and the
#: next one starts within the steps.
PLAY = {2: (core.DEFAULT_MAX_TURNS, 340), 3: (44, 380), 4: (50, 440)}


@pytest.mark.parametrize("num_players", PLAYERS)
def test_random_and_greedy_play_agree(num_players: int) -> None:
    """Play from the start of new games: uniformly random legal actions in one group, GreedyAgent
    (on the numpy state's observations) in the other. Games end by a declaration or at the turn
    limit, and restart, several times."""
    groups = [Group("random", 96), Group("greedy", 48, policy=greedy_policy())]
    max_turns, steps = PLAY[num_players]
    pair = Pair(f"play-{num_players}p", groups, num_players, seed=1000 * num_players, max_turns=max_turns)
    play(pair, steps=steps, seed=num_players)
    for group, cov in zip(groups, pair.cov, strict=True):
        ended = cov.terminated + cov.truncated
        assert ended >= 1.5 * group.games and cov.terminated, f"{group.name}: {cov.summary()}"
        assert cov.rare("declare") and cov.declared_yes, f"{group.name}: {cov.summary()}"


#: Groups of positions, one per rare path: (position, chance to declare at DECLARE, coverage
#: minimums per 32 games: a RARE name, a decision phase, or a Coverage field).
_OPTIONAL_ABILITIES = {
    p: 10
    for p in (
        Phase.LEPRECHAUN,
        Phase.LEPRECHAUN_DISCARD,
        Phase.ASMODAI,
        Phase.BALDANDERS,
        Phase.BELIAL,
        Phase.HOMUNCULUS_FLIP,
    )
}
RARE_GROUPS = {
    "shortage": (crowded, 0.25, {"shortage": 60}),
    "nightmare": (nightmare_heavy, 0.3, {"nightmare": 40, Phase.NIGHTMARE: 10}),
    "inquisition": (inquisition_likely, 0.25, {"gift": 20, "inquisitions": 60, "empty_givers": 15}),
    "declare": (declarations, 0.3, {"declare": 40, "declared_yes": 15}),
    "tie": (tied_scores, None, {"ties": 15}),
    "abilities": (abilities, 0.15, {**_OPTIONAL_ABILITIES, "shortage": 30}),
}


@pytest.mark.parametrize("num_players", PLAYERS)
def test_rare_paths_agree(num_players: int) -> None:
    """Random play from positions made for one rare path per group (32 games each, in one batch):
    R8.3 shortages, Nightmare rounds, Inquisition gifts (empty hands, lower faith), end
    declarations, R7.4 tie-breaks, and the optional abilities together. Finished games restart
    on new positions of their group. Each path must come up often, and games must run to their
    end."""
    groups = [Group(name, 32, position, random_policy(yes)) for name, (position, yes, _) in RARE_GROUPS.items()]
    pair = Pair(f"rare-{num_players}p", groups, num_players, seed=10_000 * num_players, max_turns=40)
    play(pair, steps=200, seed=num_players)
    for name, (_, _, expect) in RARE_GROUPS.items():
        cov = pair.group(name)
        for what, least in expect.items():
            if isinstance(what, Phase):
                got = cov.phases[what]
            else:  # (per group of 32 games)
                got = cov.rare(what) if what in RARE else getattr(cov, what)
            assert got >= least, (
                f"{name}: {getattr(what, 'name', what)} came up {got} times, fewer than {least}: {cov.summary()}"
            )
        assert cov.terminated + cov.truncated >= 1.5 * 32, f"{name}: {cov.summary()}"


@pytest.mark.parametrize("num_players,max_turns", [(2, 6), (3, 11), (4, 16)])
def test_truncation_agrees(num_players: int, max_turns: int) -> None:
    """Small turn limits (R7.5): new games are truncated; games from positions where the end may
    be declared at once end by a declaration, some of them after the limit (the extra round of
    R7.2 is always played out)."""
    groups = [Group("new", 48, policy=random_policy(0.3)), Group("declare", 32, declarations, random_policy(0.15))]
    pair = Pair(f"truncation-{num_players}p", groups, num_players, seed=30_000 + num_players, max_turns=max_turns)
    cov = play(pair, steps=120, seed=num_players)
    assert pair.group("new").truncated >= 1.5 * 48, cov.summary()
    assert cov.terminated and cov.past_limit, cov.summary()


@pytest.mark.parametrize("num_players", PLAYERS)
def test_subsets_and_resets_agree(num_players: int) -> None:
    """Steps of only some games (``games=``, in any order, sometimes none), finished games kept
    for a while (their actions are ignored, even out-of-range ones, and their rewards zeroed),
    ``core.reset`` of unfinished games in the middle of the batch, and observations and scores
    of some games (``games=``)."""
    groups = [Group("new", 32, policy=random_policy(0.3)), Group("shortage", 16, crowded, random_policy(0.1))]
    pair = Pair(f"subsets-{num_players}p", groups, num_players, seed=40_000 + num_players, max_turns=12)
    B, both = pair.B, (pair.ref, pair.fast)
    rng = np.random.default_rng(num_players)
    resets = 0
    for _ in range(250):
        games = rng.permutation(B)[: rng.integers(0, B + 1)]
        actions = pair.actions(rng, games)
        over = pair.ref.terminated[games] | pair.ref.truncated[games]
        actions[over] = rng.choice([0, 43, 99, -7], int(over.sum()))  # ignored for finished games
        pair.step(actions, games, restart=False)
        done = np.nonzero(pair.ref.terminated | pair.ref.truncated)[0]
        pair.restart(done[rng.random(done.size) < 0.3])
        if rng.random() < 0.1:  # new games over some unfinished ones
            live = np.nonzero(~(pair.ref.terminated | pair.ref.truncated))[0]
            chosen = rng.permutation(live)[: rng.integers(1, 6)]
            resets += chosen.size
            pair.restart(chosen, mid_game=True)
        if rng.random() < 0.2:
            g = rng.permutation(B)[: rng.integers(1, B + 1)]
            players = rng.integers(0, num_players, g.size)
            pairs = {
                "observe(state, players, games=...)": [core.observe(s, players, games=g) for s in both],
                "core.final_scores(state, games=...)": [core.final_scores(s, g) for s in both],
            }
            for what, (a, b) in pairs.items():
                bad = _differing_games(a, b)
                assert not bad.size, pair._report(f"step {pair.steps}", what, bad, a, b, g)
    cov = pair.finish()
    assert resets >= 10 and cov.terminated + cov.truncated >= B, cov.summary()
    assert pair.group("shortage").rare("shortage"), cov.summary()


@pytest.mark.parametrize("num_players", PLAYERS)
def test_one_game_agrees(num_players: int) -> None:
    """A batch of one game: the numpy engine's one-game advance and the compiled one-game
    observation (an int player); new games through core.step, then crowded positions through
    the compiled one-game step kernel (core.GameHandle.step)."""
    cases = [
        (Group("new", 1, policy=random_policy(0.3)), False),
        (Group("shortage", 1, crowded, random_policy(0.2)), True),
    ]
    for i, (group, kernel) in enumerate(cases):
        pair = Pair(
            f"one-game-{num_players}p-{group.name}",
            [group],
            num_players,
            seed=50_000 + 10 * num_players + i,
            max_turns=30,
            one_game_kernel=kernel,
        )
        cov = play(pair, steps=450, seed=num_players + 10 * i)
        assert cov.terminated + cov.truncated >= 3, cov.summary()


def test_large_batch_agrees(monkeypatch) -> None:
    """520 games on the compiled engine's threaded kernels (from 512 games here; the default
    threshold, nb_engine.PARALLEL_MIN_GAMES, is larger), crowded positions so that games end
    within the steps; every other step steps all games through ``games=`` in a shuffled order;
    at the end a reset of all of them."""
    B = 520
    monkeypatch.setattr(nb_engine, "PARALLEL_MIN_GAMES", 512)
    groups = [Group("tie", B // 2, tied_scores), Group("shortage", B // 2, crowded, random_policy(0.25))]
    pair = Pair("large-batch-3p", groups, 3, seed=60_000, max_turns=40)
    rng = np.random.default_rng(6)
    for i in range(40):
        games = rng.permutation(B) if i % 2 else None
        pair.step(pair.actions(rng, games), games)
    pair.restart(np.arange(B))  # a reset of 512+ games: the threaded set-up
    cov = pair.finish()
    assert cov.terminated + cov.truncated >= B and cov.ties and cov.rare("shortage"), cov.summary()


# ---- bad actions: ValueError on both engines, every field unchanged ----------------------------


def _fields(state: core.State) -> dict[str, bytes]:
    return {name: _bits(getattr(state, name)).tobytes() for name in core.FIELD_NAMES}


@pytest.mark.parametrize("num_players", PLAYERS)
def test_bad_actions_raise_and_change_nothing(num_players: int) -> None:
    """An illegal action (or one out of range), actions of the wrong shape or dtype, or bad
    ``games`` raise ValueError on both engines and leave every field exactly as it was; the
    compiled one-game kernel refuses an illegal action the same way. Between the tries the
    games go on (legal random actions), so the tries meet many phases."""
    pair = Pair(
        f"bad-actions-{num_players}p",
        [Group("new", 12, policy=random_policy(0.3))],
        num_players,
        seed=70_000 + num_players,
        max_turns=60,
    )
    B = pair.B
    rng = np.random.default_rng(num_players)
    phases = Counter()
    for _ in range(60):
        legal = pair.actions(rng)
        live = np.nonzero(~(pair.ref.terminated | pair.ref.truncated))[0]
        b = int(rng.choice(live))
        phases[Phase(int(pair.ref.phase[b])).name] += 1
        illegal, out_of_range = legal.copy(), legal.copy()
        illegal[b] = int(rng.choice(np.nonzero(~pair.ref.legal_action_mask[b])[0]))
        out_of_range[b] = rng.choice([-1, core.NUM_ACTIONS, 2**40])
        sub = np.append(rng.permutation(np.delete(np.arange(B), b))[:4], b)  # includes game b
        twice = np.append(sub, sub[0])
        bad_calls = [
            (illegal, None),
            (out_of_range, None),
            (illegal[sub], sub),  # illegal
            (legal[:-1], None),
            (np.append(legal, 0), None),
            (legal[:, None], None),
            (int(legal[0]), None),
            (legal[sub][:-1], sub),  # shapes
            (legal.astype(np.float64), None),
            (legal.astype(bool), None),
            (legal.astype(str), None),
            (legal[sub].astype(np.float32), sub),  # dtypes
            (legal[twice], twice),
            (legal[sub], np.append(sub[:-1], B)),
            (legal[sub], sub.astype(float)),  # games
        ]
        for actions, games in bad_calls:
            for state in (pair.ref, pair.fast):
                before = _fields(state)
                with pytest.raises(ValueError):
                    core.step(state, actions, games)
                assert _fields(state) == before, f"{state.backend}: a refused step changed the state"
        pair.check(f"the refused steps before step {pair.steps + 1}")
        pair.step(legal)
    one = Pair(f"bad-actions-one-game-{num_players}p", [Group("new", 1)], num_players, seed=71_000 + num_players)
    one.fast.rewards[0] = 1.0  # a refused step leaves the rewards too
    before = _fields(one.fast)
    assert not core.game_handle(one.fast, 0).step(int(np.nonzero(~one.fast.legal_action_mask[0])[0][0])).legal
    for bad in (int(np.nonzero(~one.fast.legal_action_mask[0])[0][0]), core.NUM_ACTIONS):  # the kernel's own check
        assert nb_engine.step(one.fast, one.fast._every, np.array([bad], dtype=np.int64)) == 0
    assert _fields(one.fast) == before, "the one-game kernel changed a state it refused"
    pair.finish()
    print(f"bad actions tried in phases: {dict(phases)}")
