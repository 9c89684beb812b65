"""Card data: the shipped set, its numpy tables, validation errors, and user card files."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from helpers import play, zone

from aos_env import cards as C
from aos_env import core
from aos_env.core.cards import CardDataError, load_cards
from aos_env.tools.positions import position

SHIPPED = Path(C.DEFAULT_CARD_FILE).read_text(encoding="utf-8")


def test_shipped_set_R1() -> None:
    """R1.1/R1.2: 30 kinds, 110 cards, AS026-AS030 rare (2 copies); colour fixes the number."""
    cs = C.DEFAULT
    assert cs.num_kinds == 30 and int(cs.copies.sum()) == 110
    assert cs.copies[25:].tolist() == [2] * 5 and (cs.copies[:25] == 4).all()
    assert (cs.number == cs.colour + 1).all()
    assert cs.ids[17] == "AS018" and cs.names[17] == "Sphinx"


def test_tables_from_data() -> None:
    cs = C.DEFAULT
    sphinx, giant, imp, unicorn, chimera = (cs.kind(n) for n in ("Sphinx", "Giant", "Imp", "Unicorn", "Chimera"))
    assert cs.cost_text(sphinx) == "YY*" and cs.cost_text(giant) == "YYY**"
    assert cs.cost[giant].tolist() == [0, 0, 0, 3, 0] and cs.cost_any[giant] == 2
    assert cs.icons[giant].tolist() == [0, 0, 0, 2, 0] and cs.points[giant] == 3
    conquest, pilgrimage = C.ACTIONS.index("conquest"), C.ACTIONS.index("pilgrimage")
    assert cs.action_bonus[conquest, imp, C.BONUS_FIELDS.index("vp")] == 1
    assert cs.action_bonus[pilgrimage, unicorn, C.BONUS_FIELDS.index("vp")] == 2
    assert cs.score[chimera, C.SCORE_SOURCES.index("icon_set")] == 7
    assert cs.special["sphinx"].tolist() == [int(k == sphinx) for k in range(30)]
    with pytest.raises(ValueError):
        cs.cost.__setitem__((0, 0), 9)  # tables are read-only


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "cards.toml"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize(
    "old,new,message",
    [
        ('colour = "black"', 'colour = "purple"', r"AS001.*'colour'.*purple"),
        ('cost = "K*"', 'cost = "KX"', r"AS001.*'cost'.*'X'"),
        ('points = 1\ntiming = "action:conquest"', 'timing = "action:conquest"', r"AS001.*'points'.*missing"),
        ("copies = 4", "copies = 3", r"'copies'.*109.*110"),
        ("effect = { vp = 1 }", 'effect = { special = "dragon" }', r"AS001.*'effect'.*dragon"),
        ("effect = { vp = 1 }", "effect = { flips = 1 }", r"AS001.*'effect'.*research"),
        ("icons = { axe = 1 }", "icons = { horn = 1 }", r"AS001.*'icons'.*horn"),
        ('timing = "action:conquest"', 'timing = "action:dance"', r"AS001.*'timing'.*dance"),
    ],
)
def test_invalid_card_files_name_card_and_field(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in SHIPPED
    with pytest.raises(CardDataError, match=message):
        load_cards(_write(tmp_path, SHIPPED.replace(old, new, 1)))


def test_not_toml(tmp_path: Path) -> None:
    with pytest.raises(CardDataError, match="TOML"):
        load_cards(_write(tmp_path, "[[card]\nid ="))


def test_missing_file() -> None:
    with pytest.raises(FileNotFoundError):
        load_cards("/nonexistent/cards.toml")


def test_user_card_file_changes_the_game(tmp_path: Path) -> None:
    """A card file with other texts drives the engine: here Imp gives 3 more VP in Conquest."""
    text = re.sub(r'(id = "AS001"(?:.|\n)*?effect = )\{ vp = 1 \}', r"\1{ vp = 3 }", SHIPPED, count=1)
    custom = load_cards(_write(tmp_path, text))
    assert custom.action_bonus[0, 0, 0] == 3
    players = [{"hand": ["Imp", "Fairy"], "head": "Imp", "spirits": ["Imp"]}, {"vp": 2}]
    # 1 + 1 = 2: Conquest; with nothing affordable the whole turn is forced
    base = play(position(2, players, deck=["Angel", "Angel"]), "Imp")
    mine = play(position(2, players, deck=["Angel", "Angel"], cards=custom), "Imp")
    # icons: 1 axe; Imp bonus 1 (or 3); steal 1
    assert base.vp[0, 0] == 1 + 1 + 1
    assert mine.vp[0, 0] == 1 + 3 + 1
    assert zone(mine, "hand", 0) == zone(base, "hand", 0)


def test_init_with_card_file(tmp_path: Path) -> None:
    state = core.init(2, 2, seed=0, card_file=_write(tmp_path, SHIPPED))
    assert state.cards.num_kinds == 30 and np.array_equal(state.cards.cost, C.DEFAULT.cost)
