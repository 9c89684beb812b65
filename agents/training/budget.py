"""``--budget``: a run that ends on time. :func:`parse_duration` reads ``90s``, ``15m``, ``2h`` or
``1h30m``; :class:`Clock` tells the training loops (SB3's callback after every step, RLlib's loop
after every iteration) when the budget is spent, and why a run stopped."""

from __future__ import annotations

import math
import re
import time

from aos_env.base.checks import ArgumentError

#: The units of a duration, in seconds.
UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}
#: The forms a duration takes, for messages.
DURATION_FORMS = "a positive duration such as 90s, 15m, 2h or 1h30m (units s, m, h)"
#: The longest budget: a year (a longer one is a typo, and the clock's arithmetic stays exact).
MAX_BUDGET_SECONDS = 366 * 24 * 3600.0
#: --timesteps when only --budget is given: more learner steps than any run can take, so the clock ends it.
UNBOUNDED_TIMESTEPS = 10**15
_PIECE = re.compile(r"([0-9]+(?:\.[0-9]+)?)([smh])")

#: ``summary.json``'s ``stopped_by``: the run's end came from the clock, the step count or a signal.
STOPPED_BY_BUDGET, STOPPED_BY_TIMESTEPS, STOPPED_BY_SIGNAL = "budget", "timesteps", "signal"


def rounding_note(asked: int | None, n_steps: int, games: int | None) -> str | None:
    """What a run of ``asked`` learner steps really trains, if that differs: PPO learns from whole
    rollouts (``--n-steps`` x the games at once), so both trainers go on to the end of the rollout
    that reaches ``asked``. None when ``asked`` is a whole number of rollouts or unbounded (--budget),
    or not known yet (a config before ``check_config``)."""
    if asked is None or games is None:
        return None
    rollout = n_steps * games
    if asked >= UNBOUNDED_TIMESTEPS or asked % rollout == 0:
        return None
    whole = -(-asked // rollout) * rollout
    return (
        f"note: --timesteps {asked:,} is not a whole number of rollouts of {rollout:,} steps (--n-steps x the "
        f"games at once): this run trains {whole:,} steps"
    )


def parse_duration(text: str) -> float:
    """Seconds of a duration written ``<number><unit>``, one or more pieces (``90s``, ``15m``,
    ``1.5h``, ``1h30m``). Raises ``ArgumentError("value must be ...")`` naming the forms allowed."""
    s = text.strip().lower() if isinstance(text, str) else ""
    pieces = _PIECE.findall(s)
    if not s or "".join(n + u for n, u in pieces) != s:
        raise ArgumentError(f"value must be {DURATION_FORMS}, got {text!r}")
    return check_seconds("value", sum(float(n) * UNITS[u] for n, u in pieces), text)


def check_seconds(option: str, seconds: float, shown: object = None) -> float:
    """``seconds`` as a budget: finite, > 0, at most ``MAX_BUDGET_SECONDS``."""
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_BUDGET_SECONDS):
        given = shown if shown is not None else seconds
        raise ArgumentError(f"{option} must be {DURATION_FORMS}, more than 0 and at most 366 days, got {given!r}")
    return float(seconds)


def format_duration(seconds: float) -> str:
    """``5400`` -> ``'1h30m'``, ``90`` -> ``'1m30s'``, ``2.5`` -> ``'2.5s'``."""
    whole = int(seconds)
    h, rest = divmod(whole, 3600)
    m, whole_s = divmod(rest, 60)
    s = whole_s + seconds - whole
    parts = [f"{h}h"] * bool(h) + [f"{m}m"] * bool(m) + [f"{s:g}s"] * bool(s or not (h or m))
    return "".join(parts)


class Clock:
    """A run's budget: ``expired()`` once ``budget`` seconds have passed since ``start`` (never
    without a budget). ``fired`` records that the clock, and not the step count, ended training."""

    def __init__(self, budget: float | None, start: float | None = None) -> None:
        self.budget = budget
        self.start = time.time() if start is None else start
        self.fired = False

    @property
    def deadline(self) -> float | None:
        return None if self.budget is None else self.start + self.budget

    def left(self) -> float | None:
        """Seconds of budget left (None: no budget)."""
        return None if self.budget is None else max(0.0, self.start + self.budget - time.time())

    def expired(self) -> bool:
        """Whether the budget is spent; the first True also sets ``fired``."""
        if self.budget is None or time.time() < self.start + self.budget:
            return False
        self.fired = True
        return True

    def stopped_by(self, steps: int, limit: int) -> str:
        """Why training ended: the step count if this run's ``steps`` reached ``limit``, else the clock."""
        return STOPPED_BY_TIMESTEPS if steps >= limit or not self.fired else STOPPED_BY_BUDGET
