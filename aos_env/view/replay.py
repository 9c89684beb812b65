"""Replays: a game as its seed, its players, its card set and its actions.

A replay file is JSON::

    {"format": "aos-replay", "version": 2,
     "env": {"num_players": 2, "max_turns": 200},
     "cards": {"hash": "sha256:...", "file": null},
     "seed": 42, "players": ["human", "greedy"],
     "actions": [[1, 12], [1, 36], ...],          # [player, action id] in order
     "weighed": [null, {"by": "policy", "value": 0.75, "actions": [[12, 0.949], [13, 0.051]]}, ...],
     "result": {"finished": true, "terminated": true, "truncated": false,
                "final_scores": [31, 24], "winner": 0, "turns": 40},
     "meta": {"source": "aos_env.apps.play", "created": "2026-11-01T12:00:00+00:00"}}

``weighed`` (version 2, optional) says, for each action, what the agent that chose it
weighed: its most likely legal actions with their probabilities (``"by": "policy"``) or
search values (``"by": "search"``) and its value estimate, or null (a human, an agent that
cannot say, a forced move); see :mod:`aos_env.view.explain`. Version 1 files (no
``weighed``) still load.

Loading it plays the game again with ``core.init(1, P, seed=...)`` and
``core.step``: the engine is deterministic per seed, so this gives back every
position exactly. The card hash (of the tables the engine plays by) must match
the card set loaded, and each recorded player must be the one the engine asks:
otherwise :class:`ReplayError` says what differs.

A replay is data, safe to load from anyone: every field is checked (type and
range) before anything is played, and a file that does not fit is a
:class:`ReplayError` naming the field. ``cards.file`` is only a note of the card
file the game was recorded with: it is shown in messages but never opened, so a
replay cannot make this module read a file of its choosing. A game on another
card set is replayed with the file the user names (``card_file=...`` or
``--card-file``), and its hash must match.

    python -m aos_env.view.replay game.json              # the game, action by action, in words
    python -m aos_env.view.replay game.json --step       # the table before each action; Enter steps on
    python -m aos_env.view.replay game.json --html g.html  # one self-contained page that steps through it

The HTML page and replay files are written atomically (a temporary file renamed
into place), so a full disk or a crash leaves an earlier file whole; ``--html``
refuses an existing file unless ``--overwrite`` is given, and never writes over
the replay it reads.

Replays are written by the AEC env (``raw_env(record_replay=True)``, then
``env.unwrapped.save_replay(path)``), by ``python -m agents.evaluation.evaluate --replays DIR``
and by ``python -m aos_env.apps.play``.
"""

from __future__ import annotations

import argparse
import base64
import datetime as _dt
import hashlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import numpy as np

from .. import core
from ..base.checks import MAX_SEED, ArgumentError, check_output_file, check_output_folder, int_arg, is_int
from ..base.files import write_text
from ..core.api import MAX_MAX_TURNS
from ..core.cards import CardSet, load_cards
from .explain import check_weighed
from .render import agent_name, describe_move, render_text, safe_terminal

FORMAT = "aos-replay"
VERSION = 2
#: The versions this module reads (1: no ``weighed``).
READ_VERSIONS = (1, 2)

#: The largest replay file read, in bytes: a long 4-player game is well under 1 MB, and a bigger
#: file is not a replay (reading it whole would only fill the memory).
MAX_REPLAY_BYTES = 64 * 2**20
#: The players a game may have.
MIN_PLAYERS, MAX_PLAYERS = 2, 4
#: How a card hash is written: "sha256:" and 64 hex digits.
_HASH_PREFIX, _HASH_DIGITS = "sha256:", 64
#: The longest file name a message shows whole.
_PATH_SHOWN = 300

#: The CardSet tables a card hash covers: everything the engine plays by, and the names it shows.
_HASHED_TEXT = ("ids", "names", "timings")
_HASHED_ARRAYS = (
    "colour",
    "copies",
    "cost",
    "cost_any",
    "icons",
    "points",
    "optional",
    "action_bonus",
    "summon_bonus",
    "score",
)


class ReplayError(ValueError):
    """A replay file that is not valid, or that does not reproduce with the card set given."""


def _short(value, limit: int = 80) -> str:
    """A value as a message shows it: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_hash(text: str) -> bool:
    digits = text[len(_HASH_PREFIX) :]
    return (
        text.startswith(_HASH_PREFIX) and len(digits) == _HASH_DIGITS and all(c in "0123456789abcdef" for c in digits)
    )


def _result_problem(result, num_players: int) -> str | None:
    """What is wrong with a replay's ``result`` field (None if nothing): an object whose known
    keys have the types :func:`result_of` writes."""
    if not isinstance(result, dict):
        return f"field 'result' must be a JSON object or null, got {_short(result)}"
    for key in ("finished", "terminated", "truncated"):
        if key in result and not isinstance(result[key], bool):
            return f"result.{key} must be true or false, got {_short(result[key])}"
    scores = result.get("final_scores", [0] * num_players)
    if not isinstance(scores, list) or len(scores) != num_players or not all(is_int(s) for s in scores):
        return f"result.final_scores must list {num_players} ints (one per seat), got {_short(scores)}"
    winner = result.get("winner")
    if winner is not None and (not is_int(winner) or not 0 <= winner < num_players):
        return f"result.winner must be null or a seat 0..{num_players - 1}, got {_short(winner)}"
    turns = result.get("turns", 0)
    if not is_int(turns) or turns < 0:
        return f"result.turns must be an int >= 0, got {_short(turns)}"
    return None


def card_hash(cards: CardSet) -> str:
    """``"sha256:<hex>"`` of a card set's tables (ids, names, timings, costs, icons, points,
    copies, bonus and scoring tables, special abilities); the free card texts are left out."""
    h = hashlib.sha256()
    for name in _HASHED_TEXT:
        h.update(json.dumps([name, list(getattr(cards, name))]).encode())
    arrays = [(name, getattr(cards, name)) for name in _HASHED_ARRAYS]
    arrays += [(f"special.{name}", cards.special[name]) for name in sorted(cards.special)]
    for name, arr in arrays:
        arr = np.ascontiguousarray(arr, dtype="<i8")
        h.update(json.dumps([name, list(arr.shape)]).encode())
        h.update(arr.tobytes())
    return "sha256:" + h.hexdigest()


def result_of(state: core.State, b: int = 0) -> dict:
    """The outcome of game ``b`` as a replay stores it (``finished`` False for a game still going)."""
    finished = bool(state.terminated[b] or state.truncated[b])
    winner = int(np.argmax(state.rewards[b])) if state.terminated[b] else None
    return {
        "finished": finished,
        "terminated": bool(state.terminated[b]),
        "truncated": bool(state.truncated[b]),
        "final_scores": [int(s) for s in core.final_scores(state)[b]],
        "winner": winner,
        "turns": int(state.turn[b]),
    }


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


@dataclass
class Replay:
    """One game: who played, on which cards and settings, from which seed, and every action."""

    seed: int
    num_players: int
    max_turns: int
    players: list[str]  # who sat in each seat: an agent spec, "human", ...
    card_hash: str
    actions: list[tuple[int, int]] = field(default_factory=list)  # (player, action id), in order
    card_file: str | None = None  # None: the shipped card set
    result: dict | None = None  # result_of(final state); None until the game is finished or saved
    meta: dict = field(default_factory=dict)  # free-form: source, created, ...
    weighed: list | None = None  # per action: what its agent weighed (explain.weigh) or None

    # -- building ---------------------------------------------------------------

    @classmethod
    def start(
        cls,
        seed: int,
        num_players: int,
        max_turns: int = core.DEFAULT_MAX_TURNS,
        players: Sequence[str] | None = None,
        cards: CardSet | None = None,
        card_file: str | None = None,
        **meta,
    ) -> Replay:
        """An empty replay for the game ``core.init(1, num_players, seed=seed, ...)``."""
        cards = cards or load_cards(card_file)
        players = list(players) if players is not None else [agent_name(p) for p in range(num_players)]
        if len(players) != num_players:
            raise ValueError(f"players: expected {num_players} names (one per seat), got {len(players)}")
        return cls(
            seed=int(seed),
            num_players=int(num_players),
            max_turns=int(max_turns),
            players=players,
            card_hash=card_hash(cards),
            card_file=None if card_file is None else str(card_file),
            meta={"created": _now(), **meta},
        )

    def record(self, player: int, action: int, weighed: dict | None = None) -> None:
        if weighed is not None and self.weighed is None:
            self.weighed = [None] * len(self.actions)
        self.actions.append((int(player), int(action)))
        if self.weighed is not None:
            self.weighed.append(weighed)

    def weighing(self, i: int) -> dict | None:
        """What the agent weighed at action ``i`` (None if nothing is recorded)."""
        return self.weighed[i] if self.weighed is not None and i < len(self.weighed) else None

    def finish(self, state: core.State, b: int = 0) -> None:
        """Store the outcome of game ``b`` of ``state`` (the position after the last action)."""
        self.result = result_of(state, b)

    # -- files -------------------------------------------------------------------

    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "env": {"num_players": self.num_players, "max_turns": self.max_turns},
            "cards": {"hash": self.card_hash, "file": self.card_file},
            "seed": self.seed,
            "players": list(self.players),
            "actions": [[p, a] for p, a in self.actions],
            **({"weighed": self._weighed_list()} if self.weighed is not None and any(self.weighed) else {}),
            "result": self.result,
            "meta": dict(self.meta),
        }

    def _weighed_list(self) -> list:
        """``weighed`` with one entry per action (None where nothing was recorded)."""
        n = len(self.actions)
        return (list(self.weighed or []) + [None] * n)[:n]

    @classmethod
    def from_dict(cls, data, source: str = "<replay>") -> Replay:
        """Check a parsed replay file and build the Replay (ReplayError names what is wrong).

        Every field is checked, type and range, before the Replay is built; ``cards.file``
        is kept as a note and never opened (see the module docstring)."""

        def fail(msg: str) -> ReplayError:
            return ReplayError(f"{source}: {msg}")

        if not isinstance(data, dict):
            raise fail(f"not a replay: expected a JSON object, got {_short(data)}")
        if data.get("format") != FORMAT:
            raise fail(f"not a replay: field 'format' must be {FORMAT!r}, got {_short(data.get('format'))}")
        version = data.get("version")
        if not is_int(version) or version not in READ_VERSIONS:
            raise fail(
                f"replay version {_short(version)} is not supported (this aos_env reads versions "
                f"{', '.join(map(str, READ_VERSIONS))})"
            )
        for name, typ, what in (
            ("env", dict, "object"),
            ("cards", dict, "object"),
            ("seed", int, "int"),
            ("players", list, "list"),
            ("actions", list, "list"),
        ):
            value = data.get(name)
            if not isinstance(value, typ) or isinstance(value, bool):
                raise fail(f"field {name!r} must be a JSON {what}, got {_short(value)}")
        seed = data["seed"]
        if not 0 <= seed <= MAX_SEED:
            raise fail(f"field 'seed' must be an int 0..2**63-1, got {_short(seed)}")
        env = data["env"]
        P, max_turns = env.get("num_players"), env.get("max_turns")
        if not is_int(P) or not MIN_PLAYERS <= P <= MAX_PLAYERS:
            raise fail(f"env.num_players must be 2, 3 or 4, got {_short(P)}")
        if not is_int(max_turns) or not 1 <= max_turns <= MAX_MAX_TURNS:
            raise fail(f"env.max_turns must be an int 1..{MAX_MAX_TURNS}, got {_short(max_turns)}")
        players = data["players"]
        if len(players) != P or not all(isinstance(s, str) for s in players):
            raise fail(f"field 'players' must list {P} names (one per seat), got {_short(players)}")
        cards = data["cards"]
        h = cards.get("hash")
        if not isinstance(h, str) or not _is_hash(h):
            raise fail(f"cards.hash must be a 'sha256:' string of {_HASH_DIGITS} hex digits, got {_short(h)}")
        card_file = cards.get("file")
        if card_file is not None and (not isinstance(card_file, str) or not card_file.strip() or "\0" in card_file):
            raise fail(f"cards.file must be null or the name of a card file (a string), got {_short(card_file)}")
        actions = []
        for i, item in enumerate(data["actions"]):
            ok = isinstance(item, list) and len(item) == 2 and all(is_int(v) for v in item)
            if not ok or not 0 <= item[0] < P or not 0 <= item[1] < core.NUM_ACTIONS:
                raise fail(
                    f"actions[{i}] must be [player 0..{P - 1}, action id 0..{core.NUM_ACTIONS - 1}], got {_short(item)}"
                )
            actions.append((item[0], item[1]))
        weighed = data.get("weighed")
        if weighed is not None:
            if not isinstance(weighed, list) or len(weighed) != len(actions):
                raise fail(f"field 'weighed' must be null or a list of {len(actions)} entries (one per action)")
            for i, item in enumerate(weighed):
                problem = check_weighed(item)
                if problem:
                    raise fail(f"weighed[{i}] {problem}")
        result = data.get("result")
        if result is not None:
            problem = _result_problem(result, P)
            if problem:
                raise fail(problem)
        meta = data.get("meta")
        if meta is not None and not isinstance(meta, dict):
            raise fail(f"field 'meta' must be a JSON object or null, got {_short(meta)}")
        return cls(
            seed=seed,
            num_players=P,
            max_turns=max_turns,
            players=list(players),
            card_hash=h,
            actions=actions,
            card_file=card_file,
            result=result,
            meta=dict(meta or {}),
            weighed=None if weighed is None else list(weighed),
        )

    def save(self, path: str | Path) -> Path:
        """Write the replay as JSON (the folders are made if needed; atomically: a failed write
        leaves an earlier file at ``path`` whole); returns the path."""
        return write_text(path, json.dumps(self.to_dict(), separators=(",", ":")) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        """Read and check a replay file: FileNotFoundError if there is none, ReplayError for a file
        that cannot be read or is not a valid replay (both name the file)."""
        path = Path(path)
        if not path.is_file():
            if path.exists():
                raise ReplayError(f"{path}: not a replay: a folder or a device, not a file")
            raise FileNotFoundError(f"replay file not found: {path}")
        try:
            size = path.stat().st_size
            if size > MAX_REPLAY_BYTES:
                raise ReplayError(
                    f"{path}: not a replay: {size:,} bytes, over the {MAX_REPLAY_BYTES:,} a replay may have"
                )
            data = json.loads(path.read_bytes().decode("utf-8"))
        except OSError as e:
            raise ReplayError(f"{path}: cannot read the replay: {e.strerror or e}") from None
        except RecursionError:
            raise ReplayError(f"{path}: not a replay: JSON nested too deeply") from None
        except ValueError as e:  # invalid JSON, not UTF-8, an int of too many digits
            raise ReplayError(f"{path}: not a replay: not valid JSON ({e})") from None
        return cls.from_dict(data, source=str(path))

    # -- playing it again ------------------------------------------------------------

    def load_cards(self, cards: CardSet | None = None, card_file: str | Path | None = None) -> CardSet:
        """The card set to replay with (``cards``, else ``card_file``, else the shipped set), checked
        against the recorded hash. The file the replay names (``card_file`` attribute) is never
        opened: a replay is data from anyone, and only the caller decides which files are read."""
        if cards is None:
            try:
                cards = load_cards(card_file)
            except (ValueError, OSError, OverflowError) as e:
                raise ReplayError(f"cannot use the card file {str(card_file)!r}: {e}") from None
        got = card_hash(cards)
        if got != self.card_hash:
            recorded = (
                f"the card file {_short(self.card_file, _PATH_SHOWN)}"
                if self.card_file is not None
                else "the shipped card set or another card file"
            )
            raise ReplayError(
                f"card set mismatch: the replay was recorded with cards {self.card_hash} ({recorded}), but "
                f"the card set loaded ({cards.source or 'given'}) has {got}; replay it with the card file it was "
                f"recorded with (--card-file FILE / card_file=...), if you trust that file"
            )
        return cards

    def states(self, cards: CardSet | None = None, card_file: str | Path | None = None) -> Iterator[core.State]:
        """Every position of the game, as batches of one: the start, then the position after each action.

        Checks, step by step, that each recorded player is the one the engine asks and
        that each action is legal; at the end, that the stored result is what happened.
        """
        cards = self.load_cards(cards, card_file)
        state = core.init(1, self.num_players, seed=self.seed, max_turns=self.max_turns, cards=cards)
        yield state.copy()
        for i, (p, a) in enumerate(self.actions):
            if state.terminated[0] or state.truncated[0]:
                raise ReplayError(
                    f"action {i} ({p}, {a}): the game was already over; the replay does not "
                    f"reproduce (another engine version or card set?)"
                )
            if p != int(state.current_player[0]) or not state.legal_action_mask[0, a]:
                raise ReplayError(
                    f"action {i}: recorded {agent_name(p)} playing {core.ACTION_NAMES[a]}, but the engine asks "
                    f"{agent_name(int(state.current_player[0]))} (legal: "
                    f"{', '.join(core.ACTION_NAMES[j] for j in np.flatnonzero(state.legal_action_mask[0]))}); "
                    f"the replay does not reproduce"
                )
            state = core.step(state, np.array([a]))
            yield state.copy()
        if self.result is not None:
            got = result_of(state)
            differ = [k for k in got if k in self.result and self.result[k] != got[k]]
            if differ:
                raise ReplayError(
                    f"the replayed game ends with {got}, but the replay recorded {self.result} "
                    f"(differs in {', '.join(differ)})"
                )

    def final_state(self, cards: CardSet | None = None, card_file: str | Path | None = None) -> core.State:
        """The position after the last action (the whole game replayed and checked)."""
        for state in self.states(cards, card_file):  # noqa: B007 (the last one is returned)
            pass
        return state

    def player_label(self, p: int) -> str:
        spec = self.players[p]
        return agent_name(p) if spec == agent_name(p) else f"{agent_name(p)} ({spec})"


def new_replay_path(folder: str | Path, seed: int, stem: str = "game") -> Path:
    """A file name not yet taken in ``folder``: ``game-20261101-120000-seed42.json`` (then ``-2``, ``-3``...)."""
    folder = Path(folder)
    base = f"{stem}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}-seed{seed}"
    path, n = folder / f"{base}.json", 1
    while path.exists():
        n += 1
        path = folder / f"{base}-{n}.json"
    return path


def check_replay_folder(name: str, folder: str | Path) -> Path:
    """``folder`` ready for replays: created if need be, and a file can be written in it (a probe
    file is created and removed). ArgumentError naming ``name`` and the folder otherwise, so that
    a game is not played only to find that its replay cannot be saved."""
    folder = check_output_folder(name, folder)
    if folder.exists() and not folder.is_dir():
        raise ArgumentError(f"{name} must be a folder, got {str(folder)!r} (a file)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".aos-write-probe-"):
            pass
    except OSError as e:
        raise ArgumentError(
            f"{name} must be a folder replays can be written to, got {str(folder)!r} ({e.strerror or e})"
        ) from None
    return folder


def load_replay(path: str | Path) -> Replay:
    """Read and check a replay file (see the module docstring for the format)."""
    return Replay.load(path)


# ---- showing a replay -------------------------------------------------------------------


def summary_line(replay: Replay) -> str:
    seats = ", ".join(replay.player_label(p) for p in range(replay.num_players))
    return (
        f"Age of Summoners replay: seed {replay.seed}, {replay.num_players} players ({seats}), "
        f"turn limit {replay.max_turns}, {len(replay.actions)} decisions, cards {replay.card_hash[:19]}…"
    )


def result_line(state: core.State, replay: Replay) -> str:
    scores = core.final_scores(state)[0]
    text = ", ".join(f"{agent_name(p)} {int(scores[p])}" for p in range(replay.num_players))
    if state.terminated[0]:
        return f"Game over: {replay.player_label(int(np.argmax(state.rewards[0])))} wins. Final scores: {text}"
    if state.truncated[0]:
        return f"Game over at the turn limit: nobody wins. Scores: {text}"
    return f"The replay ends before the game does. Scores so far: {text}"


def moves(replay: Replay, states: list[core.State]) -> list[tuple[int, str, str]]:
    """(turn, who, what) for each action: (3, "player_1 (greedy)", "summon Sphinx (AS018)")."""
    return [
        (int(states[i].turn[0]) + 1, replay.player_label(p), describe_move(states[i], 0, a))
        for i, (p, a) in enumerate(replay.actions)
    ]


def move_lines(replay: Replay, states: list[core.State]) -> list[str]:
    """Each action in words: "12. turn 3, player_1 (greedy): summon Sphinx (AS018)"."""
    return [f"{i + 1}. turn {turn}, {who}: {what}" for i, (turn, who, what) in enumerate(moves(replay, states))]


def to_html(replay: Replay, states: list[core.State] | None = None, seat: int | None = None) -> str:
    """One self-contained HTML page (inline SVGs, no external assets) that steps through the game
    (see :mod:`aos_env.view.replay_html`).

    Each position is shown from ``seat`` (default: the player who chooses there, so
    that the cards they chose from are visible).
    """
    from . import replay_html

    states = states if states is not None else list(replay.states())
    title = summary_line(replay).split(": ", 1)[1]
    page = replay_html.build(replay, states, seat, title, result_line(states[-1], replay))
    return page.replace(_CSP_MARK, replay_html.esc(page_policy(page)), 1)


def _view_seat(replay: Replay, i: int, seat: int | None) -> int:
    """The seat position ``i`` is shown from: ``seat``, else whoever chooses there (the last chooser at the end)."""
    from .replay_html import view_seat

    return view_seat(replay, i, seat)


#: Stands for the policy in the page until the page is whole (the policy holds hashes of its parts).
_CSP_MARK = "@@content-security-policy@@"


def _inline_hash(page: str, tag: str) -> str:
    """The CSP source ``'sha256-...'`` of the one inline ``<tag>`` element of ``page``."""
    found = re.findall(rf"<{tag}>(.*?)</{tag}>", page, flags=re.S)
    if len(found) != 1:
        raise AssertionError(f"the page must have exactly one inline <{tag}>, found {len(found)}")
    return "'sha256-" + base64.b64encode(hashlib.sha256(found[0].encode("utf-8")).digest()).decode() + "'"


def page_policy(page: str, *, server: bool = False) -> str:
    """A strict Content-Security-Policy for one of our pages: nothing may load or run but the page's
    own inline script and style (by hash), so text from a replay or a request can never run as code.
    ``server``: the policy of the play page as an HTTP header (it may also call its own API, and no
    other site may frame it); without, the policy a saved page carries in a ``<meta>`` tag."""
    parts = [
        "default-src 'none'",
        f"script-src {_inline_hash(page, 'script')}",
        f"style-src {_inline_hash(page, 'style')}",
        "base-uri 'none'",
        "form-action 'none'",
    ]
    if server:
        parts += ["connect-src 'self'", "frame-ancestors 'none'"]
    return "; ".join(parts)


# ---- command line --------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m aos_env.view.replay",
        description="Show a replay file: each action in words, the table step by step, or an HTML page.",
        epilog="Replays come from aos_env.apps.play, from 'python -m agents.evaluation.evaluate --replays DIR' "
        "and from the AEC env (raw_env(record_replay=True), then env.unwrapped.save_replay(path)). "
        "A replay file is data: it is checked field by field, and the card file it names is never opened "
        "(give --card-file to use one).",
    )
    p.add_argument("file", type=Path, help="the replay file (JSON)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--step", action="store_true", help="show the table before each action and wait for Enter (q then Enter quits)"
    )
    mode.add_argument(
        "--html",
        type=Path,
        metavar="OUT",
        help="write one self-contained HTML page that steps through every position "
        "(buttons and arrow keys) to OUT; an existing OUT is refused unless --overwrite is given, "
        "and OUT may never be the replay file itself",
    )
    p.add_argument("--overwrite", action="store_true", help="with --html: replace OUT if it already exists")
    p.add_argument(
        "--seat",
        type=int_arg(0),
        default=None,
        help="show hands from this seat (0..players-1); default: the player who chooses at each position",
    )
    p.add_argument(
        "--card-file",
        type=Path,
        default=None,
        help="the card file the replay was recorded with, if not the shipped one (its card hash must "
        "match; the file a replay names is only read when given here)",
    )
    return p


def html_output_problem(out: Path, inputs: Sequence[Path], overwrite: bool) -> str | None:
    """Why the page cannot be written to ``out`` (None if it can), checked before the game is replayed:
    a folder, a device, one of the files read (``inputs``: the replay, the card file), an existing
    file (or link) without ``overwrite``, or a folder that cannot be written."""
    try:
        check_output_file("--html", out)
    except ArgumentError as e:
        return str(e).removeprefix("--html ")
    if out.exists():
        if not out.is_file():
            return f"{str(out)!r} is a device or another special file, not a file a page can be written to"
        for source in inputs:
            if source.exists() and os.path.samefile(out, source):
                return (
                    f"{str(out)!r} is a file being read ({source}): writing the page there would destroy it; "
                    "choose another name"
                )
    if os.path.lexists(out) and not overwrite:
        return f"{str(out)!r} already exists: give --overwrite to replace it, or choose another name"
    folder = out.parent
    if folder.is_dir():
        try:
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".aos-write-probe-"):
                pass
        except OSError as e:
            return f"cannot write in the folder {str(folder)!r} ({e.strerror or e})"
    return None


def main(argv: list[str] | None = None, inp: TextIO | None = None, out: TextIO | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    inp, out = inp or sys.stdin, safe_terminal(out or sys.stdout)  # names from the file are data, never escapes
    if args.overwrite and args.html is None:
        parser.error("argument --overwrite: only goes with --html OUT")
    try:
        replay = load_replay(args.file)
    except (FileNotFoundError, ReplayError) as e:
        parser.error(str(e))
    if args.seat is not None and not 0 <= args.seat < replay.num_players:
        parser.error(
            f"--seat must be between 0 and {replay.num_players - 1} for this {replay.num_players}-player "
            f"replay, got {args.seat}"
        )
    if args.card_file is not None and not args.card_file.is_file():
        parser.error(f"--card-file: {'not a file' if args.card_file.exists() else 'no such file'}: {args.card_file}")
    if args.html is not None:
        inputs = [args.file] + ([args.card_file] if args.card_file is not None else [])
        problem = html_output_problem(args.html, inputs, args.overwrite)
        if problem:
            parser.error(f"argument --html: {problem}")
    try:
        states = list(replay.states(card_file=args.card_file))
    except ReplayError as e:
        parser.error(str(e))
    print(summary_line(replay), file=out)
    if args.html is not None:
        try:
            write_text(args.html, to_html(replay, states, args.seat))
        except OSError as e:
            parser.error(
                f"argument --html: cannot write {args.html} ({e.strerror or e}); any file there is left as it was"
            )
        print(f"wrote {args.html} ({len(states)} positions); open it in a browser", file=out)
        return 0
    try:
        return _show(replay, states, args.step, args.seat, inp, out)
    except KeyboardInterrupt:
        print("\nStopped.", file=out)
        return INTERRUPTED


#: Exit status after Ctrl-C (the shell's 128 + SIGINT).
INTERRUPTED = 130


def _show(replay: Replay, states: list[core.State], step: bool, seat: int | None, inp: TextIO, out: TextIO) -> int:
    """Print the game in words (with ``step``, the table before each action, waiting for Enter)."""
    for i, line in enumerate(move_lines(replay, states)):
        if step:
            print("\n" + render_text(states[i], 0, _view_seat(replay, i, seat)), file=out)
            print(f"Next: {line}", file=out)
            print("[Enter: next move, q: quit] ", end="", file=out, flush=True)
            answer = inp.readline()
            if not answer or answer.strip().lower() in ("q", "quit", "exit"):
                print("\nStopped.", file=out)
                return 0
        else:
            print(line, file=out)
    if step:
        print("\n" + render_text(states[-1], 0, _view_seat(replay, len(states) - 1, seat)), file=out)
    print(result_line(states[-1], replay), file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
