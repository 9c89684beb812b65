"""Card data: load a card file (TOML) into validated numpy tables.

The 30 card kinds of Age of Summoners ship as ``aos_env/data/cards.toml``.
A user with other card texts may pass their own file of the same schema to
:func:`load_cards` (and to ``core.init(card_file=...)``).  Every field the
engine needs becomes a numpy table indexed by kind ``k`` (card ``AS{k+1:03d}``):
costs, icons, points, copies, the per-action bonus tables of the plain-bonus
abilities, the game-end scoring table and one count vector per special ability.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..base.checks import did_you_mean

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: Default card file shipped with the package.
DEFAULT_CARD_FILE = Path(__file__).resolve().parent.parent / "data" / "cards.toml"  # aos_env/data/

NUM_KINDS = 30
TOTAL_CARDS = 110  # R1.1 (docs/rules.md)

#: Colours in number order (R1.2): colour index c has number c + 1.
COLOURS = ("black", "green", "red", "yellow", "blue")
COLOUR_SYMBOLS = "KGRYU"  # cost symbols, same order as COLOURS
ANY_SYMBOL = "*"
MANA_NAMES = ("Lightning", "Tree of Life", "Foxfire", "Silica", "Holy Water")
#: Icons in colour order: a black spirit shows axes, a green one staves, ...
ICONS = ("axe", "staff", "sword", "shield", "armour")

#: The seven game actions of R6, in command-number order ("action" alone means an action id).
GAME_ACTIONS = ("conquest", "research", "alchemy", "prayer", "festival", "inquisition", "pilgrimage")
ACTIONS = GAME_ACTIONS  # the older name
TIMINGS = (
    "passive",
    "on_summon",
    "start_of_turn",
    "command",
    "summon",
    "assist",
    "end_of_turn",
    "game_end",
) + tuple(f"action:{a}" for a in ACTIONS)

#: Plain per-copy bonuses (the columns of the bonus tables).
BONUS_FIELDS = ("vp", "faith", "cards", "stones", "flips", "steal", "vp_per_gift")
BONUS_VP, BONUS_FAITH, BONUS_CARDS, BONUS_STONES, BONUS_FLIPS, BONUS_STEAL, BONUS_VP_PER_GIFT = range(len(BONUS_FIELDS))
#: Bonus fields that only make sense for one action.
_ACTION_ONLY_FIELDS = {"flips": "research", "steal": "conquest", "vp_per_gift": "inquisition"}
#: What a game-end ability can count (columns of the scoring table).
SCORE_SOURCES = ICONS + ("icon_set", "stone", "faith")
#: Rule-changing abilities, each with its own engine function, and their timing.
SPECIALS = {
    "asmodai": "command",
    "nightmare": "on_summon",
    "belial": "end_of_turn",
    "leprechaun": "start_of_turn",
    "baldanders": "summon",
    "treant": "action:festival",
    "cerberus": "assist",
    "gargoyle": "passive",
    "sphinx": "on_summon",
    "giant": "passive",
    "pegasus": "passive",
    "valkyrie": "passive",
    "baal": "action:conquest",
}

# ---- bounds on the card file's integers ------------------------------------------------------
# The engine adds them up in fixed-size integers: a player's totals over the spirits in play (icons,
# points, bonuses, game-end VP per unit) are int16 (core.state.STAT_DTYPE), a final score int32
# (VP chips + points + game-end VP per unit x units). Each bound keeps every such sum in range even
# if one player had all 110 cards in play; a file outside them is refused, naming card and field.
#: Largest per-copy value: an icon count, the points, every effect number (bonus or game-end VP).
MAX_PER_COPY = 99
#: Most copies of one kind: every other kind has at least one of the 110 cards.
MAX_COPIES = TOTAL_CARDS - (NUM_KINDS - 1)
#: Most symbols in a cost: more than every card of the game could never be paid.
MAX_COST_SYMBOLS = TOTAL_CARDS
_INT16_MAX = int(np.iinfo(np.int16).max)
_INT32_MAX = int(np.iinfo(np.int32).max)
#: The largest total of one column of a player's stats, and the largest card-made part of a final score:
#: printed points, plus VP per unit x units for the five icons and full icon sets (up to a total each),
#: stones (at most every card) and faith (at most 10, R1.4).
_MOST_TOTAL = TOTAL_CARDS * MAX_PER_COPY
_MOST_CARD_SCORE = _MOST_TOTAL + (len(ICONS) + 1) * _MOST_TOTAL**2 + _MOST_TOTAL * (TOTAL_CARDS + 10)
assert _MOST_TOTAL <= _INT16_MAX and _MOST_CARD_SCORE <= _INT32_MAX // 2, "the bounds must fit the engine's dtypes"

_REQUIRED = {
    "id": str,
    "name": str,
    "colour": str,
    "copies": int,
    "cost": str,
    "icons": dict,
    "points": int,
    "timing": str,
    "optional": bool,
    "text": str,
    "effect": dict,
}
_OPTIONAL = {"name_ja": str, "named": bool}


class CardDataError(ValueError):
    """A card file that does not follow the schema; the message names card and field."""


@dataclass(frozen=True)
class CardSet:
    """The card kinds as numpy tables (leading axis: kind ``k``, 0..29)."""

    ids: tuple[str, ...]
    names: tuple[str, ...]
    names_ja: tuple[str, ...]
    texts: tuple[str, ...]
    timings: tuple[str, ...]
    optional: np.ndarray  # (K,) bool
    named: np.ndarray  # (K,) bool
    colour: np.ndarray  # (K,) colour index 0..4
    number: np.ndarray  # (K,) 1..5
    copies: np.ndarray  # (K,)
    cost: np.ndarray  # (K, 5) coloured symbols
    cost_any: np.ndarray  # (K,) "any" symbols
    icons: np.ndarray  # (K, 5) icon counts in ICONS order
    colour_onehot: np.ndarray  # (K, 5) 1 where kind k has colour c
    points: np.ndarray  # (K,)
    #: (7, K, len(BONUS_FIELDS)): plain bonus per copy for each action of ACTIONS.
    action_bonus: np.ndarray
    #: (K, len(BONUS_FIELDS)): plain bonus per copy when that spirit is summoned.
    summon_bonus: np.ndarray
    #: (K, len(SCORE_SOURCES)): game-end VP per unit of each source, per copy.
    score: np.ndarray
    #: special name -> (K,) int vector, 1 for the kinds with that ability.
    special: dict[str, np.ndarray] = field(repr=False)
    #: (K, T) everything a spirit in play adds to its owner's per-player totals
    #: (``State.stats``): icons, special-ability counts, plain action bonuses.
    #: Columns: see the ``STAT_*`` layout in ``core/state.py``.
    stat_table: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type]
    # float32 copies for the engine's hot paths: numpy multiplies float32 matrices with
    # BLAS, several times faster than integer ones, and small counts stay exact.
    colour_onehot_f32: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type]  # (K, 5)
    cost_cf32: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type]  # (5, K): colour-first cost
    onehot_cf32: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type]  # (5, K): colour-first one-hot
    #: (K, K) float32: [j, k] = 1 where kinds j < k share a colour (lowest-kind-first mana choices)
    same_colour_below_f32: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type]
    source: str = ""

    @property
    def num_kinds(self) -> int:
        return len(self.ids)

    def kind(self, name_or_id: str) -> int:
        """Kind index of a card given its name (``"Sphinx"``) or id (``"AS018"``), any case.

        Raises ValueError for anything else, suggesting close names for a typo.
        """
        if not isinstance(name_or_id, str):
            raise ValueError(f"a card name or id must be a string, got {name_or_id!r}")
        key = name_or_id.strip().lower()
        for k, (cid, name) in enumerate(zip(self.ids, self.names, strict=True)):
            if key in (cid.lower(), name.lower()):
                return k
        hint = did_you_mean(name_or_id.strip(), self.names + self.ids) or "; known: " + ", ".join(self.names)
        raise ValueError(f"no card named or numbered {name_or_id!r}{hint}")

    def label(self, k: int) -> str:
        """``"Sphinx (AS018)"``: how a kind is shown to people."""
        return f"{self.names[k]} ({self.ids[k]})"

    def cost_text(self, k: int) -> str:
        """The cost in symbols, e.g. ``"YY*"``."""
        return cost_symbols(self.cost[k], self.cost_any[k])


def bonus_row(action_bonus: np.ndarray, summon_bonus: np.ndarray, timing: str, k: int) -> np.ndarray:
    """The plain-bonus row (BONUS_FIELDS order) of kind k for its timing: "on_summon" or
    "action:<name>" (a view: writing to it fills the table)."""
    result: np.ndarray = (
        summon_bonus[k] if timing == "on_summon" else action_bonus[ACTIONS.index(timing[len("action:") :]), k]
    )
    return result


def cost_symbols(need: Any, n_any: int) -> str:
    """A cost as symbols: ``need`` coloured symbols per colour (COLOURS order), then ``n_any`` "*"."""
    return "".join(s * int(n) for s, n in zip(COLOUR_SYMBOLS, need, strict=True)) + ANY_SYMBOL * int(n_any)


def _fail(where: str, fld: str, msg: str) -> CardDataError:
    return CardDataError(f"card {where}, field {fld!r}: {msg}")


def _check_card(i: int, card: Any) -> None:
    where = f"#{i + 1}"
    if not isinstance(card, dict):
        raise CardDataError(f"card {where}: expected a [[card]] table")
    if isinstance(card.get("id"), str):
        where = f"{card['id']} (#{i + 1})"
    for name, typ in _REQUIRED.items():
        if name not in card:
            raise _fail(where, name, "missing")
        if not isinstance(card[name], typ) or (typ is int and isinstance(card[name], bool)):
            raise _fail(where, name, f"expected {typ.__name__}, got {card[name]!r}")
    for name, typ in _OPTIONAL.items():
        if name in card and not isinstance(card[name], typ):
            raise _fail(where, name, f"expected {typ.__name__}, got {card[name]!r}")
    unknown = set(card) - set(_REQUIRED) - set(_OPTIONAL)
    if unknown:
        raise _fail(where, sorted(unknown)[0], f"unknown field; allowed: {sorted(_REQUIRED) + sorted(_OPTIONAL)}")
    if card["id"] != f"AS{i + 1:03d}":
        raise _fail(where, "id", f"expected 'AS{i + 1:03d}' (cards are listed in id order)")
    if card["colour"] not in COLOURS:
        raise _fail(where, "colour", f"unknown colour {card['colour']!r}; allowed: {', '.join(COLOURS)}")
    if len(card["cost"]) > MAX_COST_SYMBOLS:
        raise _fail(where, "cost", f"has {len(card['cost'])} symbols; allowed: at most {MAX_COST_SYMBOLS}")
    bad = [s for s in card["cost"] if s not in COLOUR_SYMBOLS + ANY_SYMBOL]
    if bad:
        raise _fail(where, "cost", f"bad symbol {bad[0]!r} in {card['cost']!r:.60}; allowed: K G R Y U *")
    for icon, n in card["icons"].items():
        if icon not in ICONS:
            raise _fail(where, "icons", f"unknown icon {icon!r}; allowed: {', '.join(ICONS)}")
        _check_count(where, "icons", n, 0, MAX_PER_COPY, what=f"count of {icon!r}")
    _check_count(where, "points", card["points"], 0, MAX_PER_COPY)
    _check_count(where, "copies", card["copies"], 1, MAX_COPIES)
    if card["timing"] not in TIMINGS:
        raise _fail(where, "timing", f"unknown timing {card['timing']!r}; allowed: {', '.join(TIMINGS)}")
    _check_effect(where, card["timing"], card["effect"])


def _check_effect(where: str, timing: str, effect: dict[str, Any]) -> None:
    """An effect must fit its timing: see the header of the shipped cards.toml."""
    keys = set(effect)
    if "special" in effect:
        name = effect["special"]
        if name not in SPECIALS:
            raise _fail(where, "effect", f"unknown special {name!r}; allowed: {', '.join(SPECIALS)}")
        if SPECIALS[name] != timing:
            raise _fail(where, "effect", f"special {name!r} needs timing {SPECIALS[name]!r}, not {timing!r}")
        if keys != {"special"}:
            raise _fail(where, "effect", f"a special takes no other keys, got {sorted(keys - {'special'})}")
        return
    if timing == "game_end":
        if keys != {"score_per", "vp"}:
            raise _fail(where, "effect", "a game_end effect is { score_per = ..., vp = n }")
        if effect["score_per"] not in SCORE_SOURCES:
            raise _fail(where, "effect", f"score_per {effect['score_per']!r}; allowed: {', '.join(SCORE_SOURCES)}")
    elif timing.startswith("action:") or timing == "on_summon":
        if not keys:
            raise _fail(where, "effect", "empty effect")
        for key in keys:
            if key not in BONUS_FIELDS:
                raise _fail(where, "effect", f"unknown bonus {key!r}; allowed: {', '.join(BONUS_FIELDS)}")
            only = _ACTION_ONLY_FIELDS.get(key)
            if only and timing != f"action:{only}":
                raise _fail(where, "effect", f"bonus {key!r} only works with timing 'action:{only}'")
    else:
        raise _fail(where, "effect", f"timing {timing!r} needs a special ability")
    for key, value in effect.items():
        if key != "score_per":
            _check_count(where, "effect", value, 0, MAX_PER_COPY, what=key)


def _check_count(where: str, fld: str, value: Any, low: int, high: int, what: str = "") -> None:
    """A whole number in ``low..high`` (the bounds that keep the engine's sums in their dtypes);
    ``what``: the part of the field it is (an icon's count, an effect's key)."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _fail(where, fld, f"{what + ' ' if what else ''}must be a whole number {low}..{high}, got {value!r:.40}")


def parse_cards(data: dict[str, Any], source: str = "<data>") -> CardSet:
    """Validate parsed TOML (``{"card": [...]}``) and build the tables."""
    cards = data.get("card") if isinstance(data, dict) else None
    if not isinstance(cards, list):
        raise CardDataError(f"{source}: expected a list of [[card]] tables")
    if len(cards) != NUM_KINDS:
        raise CardDataError(f"{source}: expected {NUM_KINDS} card kinds, found {len(cards)}")
    seen: dict[str, str] = {}
    try:
        for i, card in enumerate(cards):
            _check_card(i, card)
            key = card["name"].strip().lower()  # names are how people (and positions) refer to cards
            if key in seen:
                raise _fail(card["id"], "name", f"{card['name']!r} is also the name of {seen[key]}; names must differ")
            seen[key] = card["id"]
    except CardDataError as e:
        raise CardDataError(f"{source}: {e}") from None
    total = sum(c["copies"] for c in cards)
    if total != TOTAL_CARDS:
        raise CardDataError(f"{source}: field 'copies' adds up to {total} cards; the rules (R1.1) need {TOTAL_CARDS}")

    K = NUM_KINDS
    colour = np.array([COLOURS.index(c["colour"]) for c in cards], dtype=np.int64)
    cost = np.zeros((K, 5), dtype=np.int64)
    cost_any = np.zeros(K, dtype=np.int64)
    icons = np.zeros((K, 5), dtype=np.int64)
    action_bonus = np.zeros((len(ACTIONS), K, len(BONUS_FIELDS)), dtype=np.int64)
    summon_bonus = np.zeros((K, len(BONUS_FIELDS)), dtype=np.int64)
    score = np.zeros((K, len(SCORE_SOURCES)), dtype=np.int64)
    special = {name: np.zeros(K, dtype=np.int64) for name in SPECIALS}
    for k, c in enumerate(cards):
        for s in c["cost"]:
            if s == ANY_SYMBOL:
                cost_any[k] += 1
            else:
                cost[k, COLOUR_SYMBOLS.index(s)] += 1
        for icon, n in c["icons"].items():
            icons[k, ICONS.index(icon)] = n
        eff, timing = c["effect"], c["timing"]
        if "special" in eff:
            special[eff["special"]][k] = 1
        elif timing == "game_end":
            score[k, SCORE_SOURCES.index(eff["score_per"])] = eff["vp"]
        else:
            row = bonus_row(action_bonus, summon_bonus, timing, k)
            for key, value in eff.items():
                row[BONUS_FIELDS.index(key)] = value

    tables = dict(
        colour=colour,
        number=colour + 1,
        copies=np.array([c["copies"] for c in cards]),
        cost=cost,
        cost_any=cost_any,
        icons=icons,
        colour_onehot=np.eye(5, dtype=np.int64)[colour],
        points=np.array([c["points"] for c in cards]),
        action_bonus=action_bonus,
        summon_bonus=summon_bonus,
        score=score,
        optional=np.array([c["optional"] for c in cards]),
        named=np.array([c.get("named", False) for c in cards]),
    )
    tables["stat_table"] = np.concatenate(
        [
            icons,
            np.stack([special[name] for name in SPECIALS], axis=1),
            action_bonus.transpose(1, 0, 2).reshape(K, -1),
            tables["points"][:, None],
            score,
        ],
        axis=1,
    )
    tables["colour_onehot_f32"] = tables["colour_onehot"].astype(np.float32)
    tables["cost_cf32"] = np.ascontiguousarray(cost.T, dtype=np.float32)
    tables["onehot_cf32"] = np.ascontiguousarray(tables["colour_onehot"].T, dtype=np.float32)
    lower = np.arange(K)[:, None] < np.arange(K)[None, :]
    tables["same_colour_below_f32"] = ((colour[:, None] == colour[None, :]) & lower).astype(np.float32)
    for arr in list(tables.values()) + list(special.values()):
        arr.setflags(write=False)  # shared by every State: nobody may edit them
    return CardSet(
        ids=tuple(c["id"] for c in cards),
        names=tuple(c["name"] for c in cards),
        names_ja=tuple(c.get("name_ja", "") for c in cards),
        texts=tuple(c["text"] for c in cards),
        timings=tuple(c["timing"] for c in cards),
        special=special,
        source=source,
        **tables,
    )


@lru_cache(maxsize=8)
def _load_cached(path: str) -> CardSet:
    try:
        raw = Path(path).read_bytes()
    except OSError as e:  # a permission error, a file that vanished, ...
        raise CardDataError(f"{path}: cannot read the card file: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CardDataError(
            f"{path}: not valid UTF-8 (byte {e.start}: {raw[e.start : e.start + 1]!r}); "
            "card files are TOML, which is UTF-8"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CardDataError(f"{path}: not valid TOML: {e}") from None
    return parse_cards(data, source=path)


def load_cards(card_file: str | Path | None = None) -> CardSet:
    """Load and validate a card file (default: the shipped set). Cached per path.

    Raises ``FileNotFoundError`` for a missing file and :class:`CardDataError`
    (a ValueError naming the file, and the card and field) for a file that
    cannot be read or does not follow the schema.
    """
    if card_file is not None and not isinstance(card_file, (str, os.PathLike)):
        raise CardDataError(f"card_file must be a path (str or os.PathLike) or None, got {card_file!r}")
    path = Path(card_file) if card_file is not None else DEFAULT_CARD_FILE
    if not path.exists():
        raise FileNotFoundError(f"card file not found: {str(path)!r}")
    if not path.is_file():
        raise CardDataError(f"{path}: a card file must be a file, not a folder")
    return _load_cached(str(path.resolve()))


#: The shipped card set, loaded at import.
DEFAULT = load_cards()
