"""Self-play: the learner's frozen snapshots in the opponent pool, the same in both trainers.

A snapshot joins every ``--snapshot-every`` steps; the newest ``--max-snapshots`` are kept (the
oldest leaves the pool, the games it plays keep it until they end), and the self-play share of
the opponent mix (the weight of ``self``) is split evenly over them. The trainer makes the
snapshot (SB3: a sampling ``PolicyAgent``; RLlib: a bot sent to every env runner) and applies
the :class:`Change` this class decides; a league would decide other weights here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Change:
    """One snapshot's change to the pool: ``name`` joins, ``removed`` leave, ``weights`` are the
    snapshots' new weights (the new one's included)."""

    name: str
    removed: tuple[str, ...]
    weights: dict[str, float]


class SelfPlay:
    """Which snapshots are in the pool, when the next one is due, and their weights.

    ``share``: the weight of 'self' in the mix (0: no self-play); ``every``: steps between
    snapshots; ``keep``: snapshots kept; ``start``: the learner's steps now.
    """

    def __init__(self, share: float, every: int, keep: int, start: int) -> None:
        self.share, self.every, self.keep = share, every, keep
        self.next = start + every
        self.names: list[str] = []

    @property
    def active(self) -> bool:
        return self.share > 0

    def due(self, t: int) -> bool:
        """Whether a snapshot is due at ``t`` steps (then :meth:`snapshot`, and the next is planned)."""
        if not self.active or t < self.next:
            return False
        self.next += self.every
        return True

    def snapshot(self, t: int) -> Change:
        """A snapshot of the learner at ``t`` steps joins: the pool's change."""
        name = f"self@{t}"
        self.names.append(name)
        removed = (self.names.pop(0),) if len(self.names) > self.keep else ()
        return Change(name, removed, {s: self.share / len(self.names) for s in self.names})
