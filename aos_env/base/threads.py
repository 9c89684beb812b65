"""Threads of torch and of the numba engine in one process (a trainer's, or an RLlib env runner's)."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it, as under
    taskset or a container's cpuset; else all the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS and Windows have no sched_getaffinity
        return max(1, os.cpu_count() or 1)


def set_threads(threads: int) -> None:
    """Threads for torch and for the numba engine's parallel kernels. Between two engine calls the env
    runs Python (the opponents, the bookkeeping) and the network trains; numba's OpenMP workers spin
    meanwhile, and on 2 cores that made the training env about three times slower. Either library
    may be missing (torch without the train extra, numba with the numpy engine)."""
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.set_num_threads(threads)
    try:
        import numba
    except ImportError:  # the numpy engine needs no threads of its own
        return
    # numba.config sets its attributes at import, from the environment: no stub knows them
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
