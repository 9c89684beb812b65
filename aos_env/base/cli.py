"""One entry for every command (``python -m ...``): an expected error or Ctrl-C ends it with one line
on stderr and an exit code, never a traceback.

    if __name__ == "__main__":
        run_cli(main, "python -m agents.evaluation.evaluate")

Expected errors are the ones a user can cause and fix: an ``ArgumentError`` (a bad value, a file
that does not fit: exit 2, as argparse's usage errors), an ``OSError`` (a full disk, a read-only
folder, a file that vanished: exit 1), and whatever else the command names in ``expected``. Ctrl-C
exits 130 (files are written atomically, so what was written is whole). Anything else is a bug in
aos-env and keeps its traceback, so that it can be reported.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from .checks import ArgumentError

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE
#: The most characters of a message printed (a file name or a value can be any length).
MAX_MESSAGE = 2000
#: What a terminal must never be sent from data (names in a replay or a tournament, a card file, a
#: message quoting a file): C0 controls but tab (and newline, which ``printable`` keeps), DEL, C1
#: controls (ESC and CSI start escape sequences: window titles, a cleared screen, OSC 52 clipboard
#: writes) and the bidirectional overrides that reorder what is shown.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_text(text: Any, limit: int = MAX_MESSAGE) -> str:
    """``text`` as one line safe to print to a terminal: newlines become spaces, other control
    characters (escape sequences) are shown as ``?``, and at most ``limit`` characters are kept."""
    s = str(text).replace("\r\n", " ").replace("\n", " ")
    s = _CONTROL.sub("?", s)
    return s if len(s) <= limit else s[: limit - 3] + "..."


#: The same but newline: what ``printable`` shows as ``?``.
_CONTROL_BUT_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: Any) -> str:
    """``text`` safe to print to a terminal, lines kept: every other control character (an escape
    sequence from a file's names: a window title, a cleared screen, a clipboard write) is ``?``."""
    return _CONTROL_BUT_LINES.sub("?", str(text).replace("\r\n", "\n"))


def _say(prog: str, message: str) -> None:
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    print(f"{prog}: error: {terminal_text(message)}", file=sys.stderr)


def describe_error(err: BaseException) -> str:
    """An exception as a message: its text, or for an OSError its strerror and file name."""
    if isinstance(err, OSError) and not isinstance(err, ArgumentError) and err.strerror:
        where = f": {err.filename!r}" if err.filename else ""
        return f"{err.strerror}{where}"
    text = str(err)
    return text if text else type(err).__name__


def run_cli(
    main: Callable[..., Any],
    prog: str,
    argv: list[str] | None = None,
    expected: tuple[type[BaseException], ...] = (),
) -> NoReturn:
    """Run ``main(argv)`` (``main()`` when ``argv`` is None) and exit: with its int return value (0
    for anything else), 2 for an ArgumentError, 1 for an OSError or an ``expected`` error, 130 for
    Ctrl-C, each with one line ``PROG: error: ...`` on stderr."""
    try:
        result = main(argv) if argv is not None else main()
    except KeyboardInterrupt:
        _say(prog, "interrupted (Ctrl-C); the files written so far are whole")
        sys.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:  # the reader of our output went away (| head): nothing to say to anyone
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        sys.exit(EXIT_BROKEN_PIPE)
    except ArgumentError as e:
        _say(prog, describe_error(e))
        sys.exit(EXIT_USAGE)
    except (OSError, MemoryError, *expected) as e:  # type: ignore[misc]  # mypy cannot see a starred tuple of classes
        _say(prog, f"{describe_error(e)} ({type(e).__name__})")
        sys.exit(EXIT_FAILED)
    sys.exit(result if isinstance(result, int) and not isinstance(result, bool) else 0)
