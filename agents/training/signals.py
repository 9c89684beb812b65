"""SIGINT and SIGTERM during a run: the run stops where it is and saves its model and summary."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived outside SB3's learn(): the run stops where it is (a BaseException,
    so that no ``except Exception`` on the way takes it for an error)."""


class StopSignal:
    """SIGINT and SIGTERM during a run. The first asks the run to stop: while SB3 or RLlib trains
    (inside :meth:`deferring`) it only sets :attr:`signum`, which the training loop reads after the
    current step; elsewhere it raises :class:`Interrupted` at once. Either way the run then saves
    its model and summary. A second signal aborts at once (SystemExit, 128 + its number): the files
    are as they were, every write being atomic. Outside the main thread (where Python cannot take
    signals) nothing is installed."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.signum: int | None = None
        self._deferred = False
        self._previous: dict = {}

    def __enter__(self) -> StopSignal:
        return self.install()

    def install(self) -> StopSignal:
        """Take the signals (again, after a library such as Ray has set handlers of its own)."""
        if threading.current_thread() is threading.main_thread():
            for s in self.SIGNALS:
                previous = signal.signal(s, self._handle)
                self._previous.setdefault(s, previous)
        return self

    def __exit__(self, *exc: Any) -> None:
        for s, handler in self._previous.items():
            signal.signal(s, handler)
        self._previous.clear()

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name if self.signum is not None else "signal"

    @property
    def exit_status(self) -> int:
        return 128 + (self.signum or signal.SIGINT)

    @contextmanager
    def deferring(self) -> Iterator[None]:
        """A signal only sets the flag here (the training loop stops at its next step)."""
        self._deferred = True
        try:
            yield
        finally:
            self._deferred = False

    def _handle(self, signum: int, frame: Any) -> None:
        name = signal.Signals(signum).name
        if self.signum is not None:
            print(
                f"\n{name} again: aborting at once, without saving (every file written so far is whole)",
                file=sys.stderr,
                flush=True,
            )
            raise SystemExit(128 + signum)
        self.signum = signum
        print(
            f"\n{name}: stopping; the model and the summary will be saved (press Ctrl-C again to abort at once)",
            file=sys.stderr,
            flush=True,
        )
        if not self._deferred:
            raise Interrupted
