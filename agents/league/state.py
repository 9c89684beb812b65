"""The league's state: its members, the learner's results against each, the schedule of snapshots
and exploiters, and the draw weights (``agents.league.pfsp``). Pure bookkeeping, no network:
the trainer makes the agents and applies the weights to its ``OpponentPool``.

Members are of four kinds: ``baseline`` (an agent of ``--opponents``), ``file`` (a bot file or
model given in ``--opponents``), ``snapshot`` (a frozen copy of the learner) and ``exploiter`` (a
policy trained against a frozen learner that beat it). A member's draw weight is its *mix*
weight times its PFSP weight: given agents keep their ``--opponents`` weight; the snapshots and
exploiters share the weight of ``self`` evenly.

Results: every game that ends counts once for each member that played in it (a 3- or 4-player
table may seat several); the learner wins if it takes first place (the rules break ties, R7,
and a game stopped at the turn limit is no win). ``games`` and ``wins`` count every game; the win
rate that PFSP and the Elo figures use is the mean of the member's last ``window`` games.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from aos_env.base.checks import ArgumentError, check_choice, check_float, check_int, check_string, fail

from .elo import elo_interval
from .pfsp import DEFAULT_FLOOR, DEFAULT_POWER, MODES, pfsp_weights

KINDS = ("baseline", "file", "snapshot", "exploiter")
#: Members that the league makes itself (and may drop); the others stay for the whole run.
LEARNED = ("snapshot", "exploiter")
#: Recent games per member behind its win rate, by default.
DEFAULT_WINDOW = 500
#: league.json's format.
VERSION = 1


@dataclass
class Member:
    """One member: ``added`` is the learner's steps when it joined; ``mix`` its weight before PFSP
    (given agents: their ``--opponents`` weight; learned ones: set by the league); ``file``: where
    a learned member's weights are saved, relative to the run folder."""

    name: str
    kind: str
    added: int
    mix: float = 1.0
    file: str | None = None
    games: int = 0
    wins: float = 0.0
    recent: deque = field(default_factory=deque)

    def win_rate(self) -> float | None:
        """The learner's win rate over the recent games (None before the first)."""
        return sum(self.recent) / len(self.recent) if self.recent else None


class League:
    """Members, results and schedule. ``players``: seats per game (chance is ``1 / players``);
    ``self_share``: the weight of 'self' in ``--opponents`` (0: no snapshots, no exploiters);
    ``snapshot_every`` / ``exploiter_every``: learner steps between them (``exploiter_every``
    0: none); ``start``: the learner's steps now."""

    def __init__(
        self,
        players: int = 2,
        *,
        mode: str = "hard",
        power: float = DEFAULT_POWER,
        floor: float = DEFAULT_FLOOR,
        window: int = DEFAULT_WINDOW,
        max_snapshots: int = 5,
        max_exploiters: int = 3,
        self_share: float = 0.0,
        snapshot_every: int = 250_000,
        exploiter_every: int = 0,
        start: int = 0,
    ) -> None:
        self.players = check_int("players", players, 2, 4)
        self.mode = check_choice("mode", mode, MODES)
        self.power = check_float("power", power, 0, low_open=True)
        self.floor = check_float("floor", floor, 0, 1)
        self.window = check_int("window", window, 1)
        self.max_snapshots = check_int("max_snapshots", max_snapshots, 1)
        self.max_exploiters = check_int("max_exploiters", max_exploiters, 1)
        self.self_share = check_float("self_share", self_share, 0)
        self.snapshot_every = check_int("snapshot_every", snapshot_every, 1)
        self.exploiter_every = check_int("exploiter_every", exploiter_every, 0)
        start = check_int("start", start, 0)
        self.next_snapshot = start + self.snapshot_every
        self.next_exploiter = start + self.exploiter_every
        self.members: dict[str, Member] = {}
        #: Exploiters trained so far (joined or not): their results, for summary.json.
        self.exploiters: list[dict] = []
        #: (steps, {name: win rate}, learner's Elo vs the anchor) at each update, for the picture.
        self.history: list[dict] = []

    # -- members ---------------------------------------------------------------------------------------

    def add(self, name: str, kind: str, t: int, mix: float = 1.0, file: str | None = None) -> Member:
        """A new member (its name not taken yet)."""
        check_string("name", name)
        kind = check_choice("kind", kind, KINDS)
        t = check_int("t", t, 0)
        mix = check_float("mix", mix, 0)
        if name in self.members:
            raise ArgumentError(f"name: {name!r} is a member already")
        m = Member(name, kind, t, mix, file, recent=deque(maxlen=self.window))
        self.members[name] = m
        return m

    def of_kind(self, kind: str) -> list[str]:
        """The members of a kind, oldest first."""
        return [n for n, m in self.members.items() if m.kind == kind]

    def add_learned(self, name: str, kind: str, t: int, file: str | None = None) -> list[Member]:
        """A snapshot or an exploiter joins; the oldest of its kind leave beyond the bound
        (``max_snapshots``, ``max_exploiters``; given agents never leave). Returns the members
        that left; the learned members' mix weights are split again."""
        kind = check_choice("kind", kind, LEARNED)
        self.add(name, kind, t, 0.0, file)
        bound = self.max_snapshots if kind == "snapshot" else self.max_exploiters
        names = self.of_kind(kind)
        removed = [self.members.pop(n) for n in names[: max(0, len(names) - bound)]]
        self.split_share()
        return removed

    def split_share(self) -> None:
        """The learned members share ``self_share`` evenly."""
        learned = [m for m in self.members.values() if m.kind in LEARNED]
        for m in learned:
            m.mix = self.self_share / len(learned)

    # -- schedule --------------------------------------------------------------------------------------

    def snapshot_due(self, t: int) -> bool:
        """Whether a snapshot is due at ``t`` steps (the next is then planned)."""
        if self.self_share <= 0 or t < self.next_snapshot:
            return False
        self.next_snapshot += self.snapshot_every * (1 + (t - self.next_snapshot) // self.snapshot_every)
        return True

    def exploiter_due(self, t: int) -> bool:
        """Whether an exploiter is due at ``t`` steps (the next is then planned)."""
        if self.exploiter_every <= 0 or self.self_share <= 0 or t < self.next_exploiter:
            return False
        self.next_exploiter += self.exploiter_every * (1 + (t - self.next_exploiter) // self.exploiter_every)
        return True

    # -- results ----------------------------------------------------------------------------------------

    def record_game(self, names: Iterable[str], outcome: float) -> None:
        """One ended game: ``outcome`` 1 (the learner took first place), 0.5 (a shared first
        place, if an env reports one) or 0, against each distinct member in ``names``. Names that
        are no members (any more) are skipped: a dropped member's last games."""
        for name in set(names):
            m = self.members.get(name)
            if m is not None:
                m.games += 1
                m.wins += outcome
                m.recent.append(outcome)

    def win_rates(self) -> dict[str, float | None]:
        return {n: m.win_rate() for n, m in self.members.items()}

    def weights(self) -> dict[str, float]:
        """``{name: draw weight}``: mix weight times PFSP weight, for ``OpponentPool.set_weights``."""
        if not self.members:
            return {}
        pfsp = pfsp_weights(self.win_rates(), self.mode, self.power, self.floor)
        return {n: m.mix * pfsp[n] for n, m in self.members.items()}

    @property
    def anchor(self) -> str | None:
        """The member the learner's single Elo figure is measured against: the first given agent
        (``--opponents``' first), else the oldest snapshot."""
        given = [n for n, m in self.members.items() if m.kind not in LEARNED]
        learned = self.of_kind("snapshot")
        first = given or learned
        return first[0] if first else None

    def elo(self) -> dict[str, dict]:
        """``{name: {"elo", "ci95", "games"}}``: the learner's Elo minus each member's, over its
        recent games (``agents.league.elo``)."""
        return {n: elo_interval(sum(m.recent), len(m.recent), self.players) for n, m in self.members.items()}

    def learner_elo(self) -> dict:
        """``{"elo", "ci95", "games"}`` of the learner against the anchor (elo None without one)."""
        a = self.anchor
        return elo_interval(0, 0, self.players) if a is None else self.elo()[a]

    def mark(self, t: int) -> None:
        """A point of the history (the picture's): the win rates and the learner's Elo now."""
        e = self.learner_elo()
        self.history.append({"t": int(t), "win_rates": self.win_rates(), "elo": e["elo"], "elo_ci95": e["ci95"]})

    # -- records ----------------------------------------------------------------------------------------

    def summary(self) -> dict:
        """summary.json's ``league`` section."""
        weights, elo = self.weights(), self.elo()
        return {
            "pfsp": {"mode": self.mode, "power": self.power, "floor": self.floor, "window": self.window},
            "anchor": self.anchor,
            "learner_elo_vs_anchor": self.learner_elo(),
            "members": [
                {
                    "name": n,
                    "kind": m.kind,
                    "added": m.added,
                    "games": m.games,
                    "wins": m.wins,
                    "recent_win_rate": m.win_rate(),
                    "weight": weights[n],
                    "elo": elo[n]["elo"],
                    "elo_ci95": elo[n]["ci95"],
                }
                for n, m in self.members.items()
            ],
            "exploiters": self.exploiters,
        }

    def to_dict(self) -> dict:
        """Everything to continue the league (league.json)."""
        return {
            "version": VERSION,
            "players": self.players,
            "next_snapshot": self.next_snapshot,
            "next_exploiter": self.next_exploiter,
            "members": [
                {
                    "name": m.name,
                    "kind": m.kind,
                    "added": m.added,
                    "mix": m.mix,
                    "file": m.file,
                    "games": m.games,
                    "wins": m.wins,
                    "recent": list(m.recent),
                }
                for m in self.members.values()
            ],
            "exploiters": self.exploiters,
            "history": self.history,
        }

    def restore(self, data: Any, up_to: int | None = None) -> None:
        """Take back a saved state (``to_dict``) into this league, whose settings are this run's.
        ``up_to``: the steps of the model resumed (history and members after it are dropped).
        The caller rebuilds the learned members' agents from their files."""
        if not isinstance(data, dict) or data.get("version") != VERSION:
            raise fail("league state", f"a dict of version {VERSION} (league.json)", data)
        if data.get("players") != self.players:
            raise ArgumentError(f"league state: it is for {data.get('players')} players, this run {self.players}")
        try:
            members = [
                Member(
                    str(d["name"]),
                    check_choice("kind", d["kind"], KINDS),
                    int(d["added"]),
                    float(d["mix"]),
                    None if d["file"] is None else str(d["file"]),
                    int(d["games"]),
                    float(d["wins"]),
                    deque((float(x) for x in d["recent"]), maxlen=self.window),
                )
                for d in data["members"]
            ]
            next_snapshot, next_exploiter = int(data["next_snapshot"]), int(data["next_exploiter"])
        except (KeyError, TypeError, ValueError) as e:
            raise ArgumentError(f"league state: a broken entry ({type(e).__name__}: {e})") from None
        if up_to is not None:
            members = [m for m in members if m.added <= up_to]
        self.members = {m.name: m for m in members}
        self.next_snapshot, self.next_exploiter = next_snapshot, next_exploiter
        self.exploiters = [e for e in data.get("exploiters", []) if up_to is None or e.get("t", 0) <= up_to]
        self.history = [h for h in data.get("history", []) if up_to is None or h.get("t", 0) <= up_to]
