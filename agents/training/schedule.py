"""``--lr-schedule``: the learning rate over a run. ``constant`` keeps ``--learning-rate``;
``linear`` brings it down in a straight line to 0 at the run's end, as CleanRL's PPO does by
default (``anneal_lr``): the last updates take small steps, so the final policy settles instead of
jumping around the last rollouts' noise. The end is the step count or, with ``--budget``, the
clock, whichever comes first."""

from __future__ import annotations

from .budget import UNBOUNDED_TIMESTEPS, Clock

#: The choices of --lr-schedule.
LR_SCHEDULES = ("constant", "linear")


class LinearLR:
    """SB3's learning-rate schedule for ``linear``: called with the part of ``learn()``'s steps
    still to run (1 at the start, 0 at the end), it returns ``lr`` times the smaller of that and
    the part of the budget left. A plain object, so SB3 can save it with the model."""

    def __init__(self, lr: float, clock: Clock | None = None) -> None:
        self.lr = lr
        self.clock = clock

    def left(self, progress_remaining: float) -> float:
        """The part of the run still to go, 0..1."""
        left = progress_remaining
        if self.clock is not None and self.clock.budget is not None:
            left = min(left, (self.clock.left() or 0.0) / self.clock.budget)
        return min(1.0, max(0.0, left))

    def __call__(self, progress_remaining: float) -> float:
        return self.lr * self.left(progress_remaining)


def sb3_learning_rate(schedule: str, lr: float, clock: Clock | None = None) -> float | LinearLR:
    """What to give SB3 as ``learning_rate`` for ``--lr-schedule schedule``."""
    return LinearLR(lr, clock) if schedule == "linear" else lr


def rllib_learning_rate(schedule: str, lr: float, timesteps: int | None) -> float | list[list[float]]:
    """RLlib's ``lr``: a number, or for ``linear`` the piecewise-linear ``[[step, lr], ...]`` from
    ``lr`` at step 0 to 0 at ``timesteps`` (RLlib's schedules are in steps only: with ``--budget``
    alone the rate stays constant)."""
    if schedule != "linear" or timesteps is None or timesteps >= UNBOUNDED_TIMESTEPS:
        return lr
    return [[0, lr], [timesteps, 0.0]]
