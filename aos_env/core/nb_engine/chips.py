"""VP and faith chips (R1.4) for one game: unlimited and public; faith is capped at 10."""

from __future__ import annotations

from ..constants import FAITH_CAP
from ._jit import Record, jit


@jit
def gain_faith(r: Record, p: int, n: int) -> None:
    """Faith is capped at 10: any gain beyond is lost (R1.4)."""
    r.faith[p] = min(r.faith[p] + n, FAITH_CAP)
