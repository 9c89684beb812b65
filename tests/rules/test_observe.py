"""core.observe shows public information and the observer's own private information only (R9)."""

from __future__ import annotations

import numpy as np
from helpers import phase, play

from aos_env import core
from aos_env.core import Phase
from aos_env.tools.positions import position

SL = core.obs_slices()


def _base(**kw):
    players = [
        {
            "hand": ["Imp", "Angel", "Sphinx"],
            "mana": ["Golem", "Golem"],
            "head": "Fairy",
            "stones": ["Imp", "Giant"],
            "spirits": ["Pegasus"],
            "vp": 4,
            "faith": 3,
        },
        {"hand": ["Unicorn", "Unicorn"], "head": "Imp", "stones": ["Baal"], "vp": 7, "faith": 2},
        {"hand": ["Dryad"], "head": "Angel", "spirits": ["Titania"], "vp": 1},
    ]
    return position(3, players, **kw)


def test_layout_covers_vector() -> None:
    state = _base()
    obs = core.observe(state, 0)
    assert obs.shape == (1, core.OBS_DIM)
    assert max(s.stop for s in SL.values()) == core.OBS_DIM


def test_seats_are_player_relative() -> None:
    state = _base()
    for player in range(3):
        obs = core.observe(state, player)[0]
        for seat in range(3):
            p = (player + seat) % 3
            assert np.isclose(obs[SL[f"seat{seat}.vp"]][0], state.vp[0, p] / 30)
            assert np.array_equal(obs[SL[f"seat{seat}.spirits"]], state.spirits[0, p])
            assert np.array_equal(obs[SL[f"seat{seat}.mana"]], state.mana[0, p])
        assert not obs[SL["seat3.present"]].any() and not obs[SL["seat3.mana"]].any()
        assert np.array_equal(obs[SL["hand"]], state.hand[0, player])
    # Pegasus: compared faith counts 2 more
    assert np.isclose(core.observe(state, 0)[0, SL["seat0.compared_faith"]][0], 0.5)


def test_hidden_information_does_not_leak() -> None:
    """Other hands, stone faces and the deck/discard content are not observable (R9.2)."""
    a = _base(deck=["Angel", "Fairy", "Imp"])
    b = _base(deck=["Unicorn", "Unicorn", "Golem"])
    obs_a, obs_b = core.observe(a, 0), core.observe(b, 0)
    assert np.array_equal(obs_a, obs_b), "deck and discard composition are hidden"
    c = _base()
    c.hand[0, 1] = 0
    c.hand[0, 1, c.cards.kind("Seraph")] = 2  # same hand size, other cards
    c.hand[0, 0, c.cards.kind("Seraph")] = 0
    c.deck[0, c.cards.kind("Seraph")] = 0
    c.deck[0, c.cards.kind("Unicorn")] += 2
    c.stones[0, 0] = 0
    c.stones[0, 0, c.cards.kind("Ouroboros")] = 2  # same number of stones, other faces
    c.deck[0, c.cards.kind("Ouroboros")] -= 2
    c.deck[0, c.cards.kind("Imp")] += 1
    c.deck[0, c.cards.kind("Giant")] += 1
    core.refresh(c)
    base = _base()
    assert np.array_equal(core.observe(c, 2), core.observe(base, 2)), "opponents' hands and stones are hidden"
    assert not np.array_equal(core.observe(c, 1), core.observe(base, 1)), "the owner sees their own hand"


def test_phase3_cards_are_private() -> None:
    """Only the drawing player sees the two Phase III cards; everyone sees how many there are."""
    state = position(
        2,
        [{"hand": ["Golem", "Fairy"], "head": "Angel"}, {"head": "Imp", "hand": ["Fairy"]}],
        deck=["Unicorn", "Gargoyle"],
    )
    state = play(state, "Golem", "OPTION_A")  # 5 + 4 = 9: Pilgrimage (a), then draw 2
    assert phase(state) == Phase.KEEP
    mine, theirs = core.observe(state, 0)[0], core.observe(state, 1)[0]
    assert mine[SL["offer"]].sum() == 2 and theirs[SL["offer"]].sum() == 0
    assert mine[SL["offer_size"]] == theirs[SL["offer_size"]] == 1.0


def test_festival_reveal_is_public() -> None:
    state = position(
        2,
        [
            {"hand": ["Salamander", "Fairy"], "head": "Golem", "faith": 1},
            {"head": "Imp", "faith": 5, "hand": ["Fairy"]},
        ],
        deck=["Unicorn", "Gargoyle"],
    )
    state = play(state, "Salamander")  # 4 + 3 = 7 Festival; nothing affordable: ACT is forced
    assert phase(state) == Phase.FESTIVAL_PICK
    assert np.array_equal(core.observe(state, 1)[0, SL["offer"]], state.offer[0])
    assert core.observe(state, 1)[0, SL["offer"]].sum() == 2
    assert core.observe(state, 0)[0, SL["action"]].argmax() == 4  # Festival
