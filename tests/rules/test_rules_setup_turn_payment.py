"""Scenario tests for docs/rules.md: R2 (set-up), R3 (a turn), R4 (the mana row), R5 (summoning and
payment), R10.2 (cost reductions) and R10.3 (the command-number table at its ends).

Each test is named after the clause it checks and quotes it. Positions come from
``aos_env.tools.positions.position``; ``deck=[...]`` fixes exactly which cards will be drawn.

Reminders of the engine conventions used below (see docs/api.md and docs/rules.md):

* a decision with a single legal action is taken by the engine itself, so a step
  ends at the next *real* choice (several tests check the outcome of such forced steps);
* a cost is paid one unit at a time, in ascending action order (MANA_BLACK .. MANA_BLUE,
  STONE); paying MANA_c gives up the lowest kind of that colour;
* with 2 players the right neighbour (who receives the assisted card) is the other player.

Card numbers (colour): black 1 = Imp, Asmodai, Nightmare, Belial, Succubus, Baal;
green 2 = Leprechaun, Baldanders, Dryad, Treant, Fairy, Titania; red 3 = Salamander, Cerberus,
Ifrit, Will-o'-wisp, Phoenix, Chimera; yellow 4 = Gargoyle, Golem, Sphinx, Homunculus, Giant,
Ouroboros; blue 5 = Undine, Angel, Unicorn, Pegasus, Valkyrie, Seraph.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import legal, phase, play, position, total_cards, zone

from aos_env import core
from aos_env.core import Phase
from aos_env.core.cards import DEFAULT as CARDS

# ---- small helpers -------------------------------------------------------------------------


def kind(name: str) -> int:
    return CARDS.kind(name)


def diff(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    """Cards added to a zone (after - before), as {name: count}; removals are negative."""
    out = {n: after.get(n, 0) - before.get(n, 0) for n in set(after) | set(before)}
    return {n: c for n, c in out.items() if c}


def n_cards(state: core.State, name: str, player: int | None = None) -> int:
    return sum(zone(state, name, player).values())


PUBLIC_FIELDS = (
    "current_player",
    "active_player",
    "legal_action_mask",
    "terminated",
    "truncated",
    "hand",
    "spirits",
    "mana",
    "head",
    "stones",
    "vp",
    "faith",
    "deck",
    "discard",
    "offer",
    "phase",
    "command_number",
    "declarer",
    "turn",
)


def first_legal(state: core.State) -> np.ndarray:
    """(B,) the lowest legal action of each game (0 for a finished game)."""
    return np.argmax(state.legal_action_mask, axis=1)


def play_turn(state: core.State) -> core.State:
    """Play game 0 to the start of the next turn: ACT whenever allowed, else the lowest legal action."""
    start = int(state.turn[0])
    for _ in range(200):
        if int(state.turn[0]) != start or state.terminated[0] or state.truncated[0]:
            return state
        mask = state.legal_action_mask[0]
        a = core.ACT if mask[core.ACT] else int(np.argmax(mask))
        state = core.step(state, np.array([a]))
    raise AssertionError("the turn did not end")


# ======================================================================================
# R2 Set-up
# ======================================================================================


def test_R2_1_turns_pass_to_the_left_and_the_right_neighbour_played_before():
    """R2.1: "Turns pass clockwise, to the left. The player on your right is the one who played
    just before you." Player p+1 plays after p; p's assisted card goes to p-1 (its right)."""
    P = 4
    state = core.init(1, P, seed=11)
    first = int(state.active_player[0])
    for t in range(2 * P):  # two full rounds
        p = int(state.active_player[0])
        assert p == (first + t) % P
        right = (p - 1) % P
        mana_before = state.mana[0].astype(int).copy()
        heads_before = state.head[0].copy()
        state = play_turn(state)
        assert int(state.active_player[0]) == (p + 1) % P
        assert int(state.turn[0]) == t + 1
        # exactly one card, the new head, arrived in the right neighbour's row
        added = state.mana[0, right].astype(int) - mana_before[right]
        assert added.sum() == 1 and added.min() >= 0
        assert int(state.head[0, right]) == int(np.argmax(added))
        assert int(state.head[0, p]) == -1  # p played its command card onto its head
        for q in range(P):
            if q not in (p, right):
                np.testing.assert_array_equal(state.mana[0, q], mana_before[q])
                assert state.head[0, q] == heads_before[q]


@pytest.mark.parametrize("P", [2, 3, 4])
def test_R2_2_all_110_cards_start_in_the_deck(P):
    """R2.2: "Shuffle all 110 cards into the deck." After set-up every card not dealt (6 in hand
    and 2 mana per player) is in the deck; nothing is in play, discarded, a stone or on offer."""
    B = 20
    state = core.init(B, P, seed=3)
    np.testing.assert_array_equal(total_cards(state), 110)
    per_kind = state.deck.astype(int) + state.hand.sum(1) + state.mana.sum(1)
    np.testing.assert_array_equal(per_kind, np.broadcast_to(CARDS.copies, (B, 30)))
    np.testing.assert_array_equal(state.deck.sum(1), 110 - 8 * P)
    assert state.spirits.sum() == 0 and state.stones.sum() == 0
    assert state.discard.sum() == 0 and state.offer.sum() == 0


def test_R2_2_the_deck_is_shuffled():
    """R2.2: "Shuffle all 110 cards." The dealt cards are a uniform sample: over many games each
    kind is dealt in proportion to its copies (4 for common kinds, 2 for AS026-AS030)."""
    B, P = 400, 4
    state = core.init(B, P, seed=1000)
    dealt = (state.hand.sum((0, 1)) + state.mana.sum((0, 1))).astype(float)  # (30,)
    expected = B * 8 * P * CARDS.copies / 110
    assert np.all(np.abs(dealt - expected) < 0.25 * expected), dealt / expected
    # and the games differ from one another
    hands = state.hand.reshape(B, -1)
    assert len({h.tobytes() for h in hands}) == B


@pytest.mark.parametrize("P", [2, 3, 4])
def test_R2_3_each_player_gets_1_faith_0_vp_6_cards(P):
    """R2.3: "Each player gets 1 faith, 0 VP and 6 cards in hand." """
    state = core.init(16, P, seed=7)
    np.testing.assert_array_equal(state.hand.sum(2), 6)
    np.testing.assert_array_equal(state.faith, 1)
    np.testing.assert_array_equal(state.vp, 0)
    np.testing.assert_array_equal(state.spirits.sum(2), 0)


@pytest.mark.parametrize("P", [2, 3, 4])
def test_R2_4_two_initial_mana_the_second_is_the_head(P):
    """R2.4: "Each player gets 2 initial mana: two cards from the deck, placed face up in their
    mana row ... The second one is the row's head." Each row holds 2 face-up cards, one of
    them is the head, and the first command number is head + command card (R3.1.1)."""
    B = 40
    state = core.init(B, P, seed=21)
    np.testing.assert_array_equal(state.mana.sum(2), 2)
    np.testing.assert_array_equal(state.stones.sum(2), 0)
    rows = np.arange(B)
    for p in range(P):
        h = state.head[:, p]
        assert (h >= 0).all()
        assert (state.mana[rows, p, h] >= 1).all()  # the head is one of the two mana cards
    # the first command card goes onto the head
    active = state.active_player.copy()
    head_number = CARDS.number[state.head[rows, active]]
    card = first_legal(state)
    state = core.step(state, card)
    still = state.turn == 0  # games whose first turn has not run to its end by forced steps
    assert still.sum() > B // 2
    np.testing.assert_array_equal(state.command_number[still], (head_number + CARDS.number[card])[still])


def test_R2_5_the_start_player_is_random():
    """R2.5: "The start player is chosen at random." Over many seeds every seat starts about
    equally often; the start player is the first to choose, at turn 0, in the command phase."""
    B, P = 900, 3
    state = core.init(B, P, seed=0)
    counts = np.bincount(state.active_player, minlength=P)
    assert counts.min() > 240 and counts.max() < 360, counts
    np.testing.assert_array_equal(state.current_player, state.active_player)
    np.testing.assert_array_equal(state.turn, 0)
    assert set(np.unique(state.phase)) == {Phase.COMMAND}  # nobody has a Leprechaun yet


def test_R2_per_game_seeding():
    """Set-up is seeded per game (docs/api.md): game b of init(B, seed=s) equals init(1, seed=s+b),
    at set-up and after the same actions; the same seed gives the same game."""
    B, P, s = 5, 3, 100
    batch = core.init(B, P, seed=s)
    singles = [core.init(1, P, seed=s + b) for b in range(B)]
    for _ in range(12):
        for b in range(B):
            for f in PUBLIC_FIELDS:
                np.testing.assert_array_equal(getattr(batch, f)[b], getattr(singles[b], f)[0], err_msg=f)
        actions = first_legal(batch)
        batch = core.step(batch, actions)
        singles = [core.step(sg, actions[b : b + 1]) for b, sg in enumerate(singles)]
    again = core.init(1, P, seed=s + 2)
    np.testing.assert_array_equal(again.hand[0], core.init(1, P, seed=s + 2).hand[0])
    assert len({core.init(1, P, seed=s + b).hand.tobytes() for b in range(B)}) == B


# ======================================================================================
# R3 A turn
# ======================================================================================


def test_R3_a_turn_is_command_then_summon_or_action_then_replenish():
    """R3: "Each turn has three phases, in order: I command, II summon or action, III replenish and
    assist", then the next player. A plain turn: command card, ACT (Pilgrimage), keep a card."""
    state = position(
        2,
        players=[
            {"hand": ["Golem", "Undine"], "head": "Angel"},
            {"hand": ["Fairy", "Imp"], "head": "Imp"},
        ],
        deck=["Salamander", "Fairy"],
    )
    assert phase(state) == Phase.COMMAND and legal(state) == ["Golem", "Undine"]
    state = play(state, "Golem")  # 5 + 4 = 9
    assert phase(state) == Phase.MAIN and legal(state) == ["Undine", "ACT"]
    assert int(state.command_number[0]) == 9
    state = play(state, "ACT")
    assert phase(state) == Phase.PILGRIMAGE
    state = play(state, "OPTION_A")  # VP = faith
    assert phase(state) == Phase.KEEP and zone(state, "offer") == {"Salamander": 1, "Fairy": 1}
    assert state.vp[0].tolist() == [1, 0]
    state = play(state, "Fairy")
    assert phase(state) == Phase.COMMAND
    assert int(state.active_player[0]) == 1 and int(state.current_player[0]) == 1
    assert int(state.turn[0]) == 1
    assert zone(state, "hand", 0) == {"Undine": 1, "Fairy": 1}


def test_R3_order_of_everything_in_a_turn():
    """R3 [decision]: "start-of-turn abilities (Leprechaun) -> Phase I (command card, then Asmodai)
    -> Phase II ... -> Phase III (draw 2, keep 1, assist; Cerberus) -> end-of-turn abilities
    (Belial) -> the end declaration (R7.1) -> the next player." """
    state = position(
        2,
        players=[
            {
                "hand": ["Imp", "Golem"],
                "head": "Angel",
                "mana": ["Succubus"],
                "vp": 26,
                "spirits": ["Leprechaun", "Asmodai", "Belial", "Cerberus"],
            },
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Unicorn"] * 3,
    )
    steps = [  # (decision expected, legal actions, action taken)
        (Phase.LEPRECHAUN, ["YES", "NO"], "YES"),  # draws a Unicorn
        (Phase.LEPRECHAUN_DISCARD, ["Imp", "Golem", "Unicorn"], "Imp"),
        (Phase.COMMAND, ["Golem", "Unicorn"], "Golem"),  # Angel + Golem = 9
        (Phase.ASMODAI, ["YES", "NO"], "NO"),
        (Phase.PILGRIMAGE, ["OPTION_A", "OPTION_B"], "OPTION_A"),  # Phase II: ACT was forced; +1 VP
        # Phase III: Unicorn, Unicorn (forced keep), Cerberus +1 VP for the assisted 5
        (Phase.BELIAL, ["MANA_BLACK", "NO"], "MANA_BLACK"),  # +2 VP: 30
        (Phase.DECLARE, ["YES", "NO"], "NO"),
    ]
    for expected, actions, action in steps:
        assert (phase(state), legal(state)) == (expected, actions)
        assert int(state.active_player[0]) == 0
        state = play(state, action)
        if expected == Phase.PILGRIMAGE:
            assert state.vp[0].tolist() == [28, 0] and int(state.head[0, 1]) == kind("Unicorn")
    assert state.vp[0].tolist() == [30, 0]
    assert int(state.active_player[0]) == 1 and phase(state) == Phase.COMMAND
    assert zone(state, "hand", 0) == {"Unicorn": 2}


# ---- R3.1 Phase I ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "head, card, number",
    [
        ("Imp", "Fairy", 3),
        ("Fairy", "Salamander", 5),
        ("Salamander", "Golem", 7),
        ("Golem", "Unicorn", 9),
        ("Angel", "Angel", 10),
    ],
)
def test_R3_1_1_command_number_is_head_plus_card(head, card, number):
    """R3.1.1: "Play one card from your hand face up onto the right end of your mana row, next to
    the head. The command number is the sum of the numbers of the head and the card just played.
    Both are ordinary mana from now on." """
    # two stones let Will-o'-wisp be summoned, so Phase II is a real choice and the game stops there
    state = position(
        2,
        players=[
            {"hand": [card, "Will-o'-wisp"], "head": head, "stones": ["Ouroboros", "Ouroboros"]},
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
    )
    state = play(state, card)
    assert phase(state) == Phase.MAIN
    assert int(state.command_number[0]) == number
    expected_mana = {head: 1} if head != card else {head: 2}
    if head != card:
        expected_mana[card] = 1
    assert zone(state, "mana", 0) == expected_mana
    assert zone(state, "hand", 0) == {"Will-o'-wisp": 1}
    assert int(state.head[0, 0]) == -1  # the head is ordinary mana now
    assert int(state.head[0, 1]) == kind("Dryad")  # the other row's head is untouched


def test_R3_1_1_the_command_card_is_any_card_from_your_own_hand():
    """R3.1.1: "Play one card from your hand": the legal command cards are exactly the kinds in
    the active player's hand; a card not in hand is refused."""
    state = position(
        2,
        players=[
            {"hand": ["Imp", "Imp", "Golem", "Seraph"], "head": "Angel"},
            {"hand": ["Fairy"], "head": "Dryad"},
        ],
    )
    assert legal(state) == ["Imp", "Golem", "Seraph"]
    with pytest.raises(ValueError):
        play(state, "Fairy")  # only in the other player's hand
    assert zone(state, "hand", 0) == {"Imp": 2, "Golem": 1, "Seraph": 1}  # unchanged


def test_R3_1_1_head_and_command_card_become_ordinary_mana():
    """R3.1.1: after Phase I the head and the card played "are ordinary mana from now on": they can
    pay a summon in the same turn (here Salamander RR with exactly those two red cards)."""
    state = position(
        2,
        players=[
            {"hand": ["Will-o'-wisp", "Salamander"], "head": "Ifrit"},
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Golem", "Angel"],
    )
    discard0 = zone(state, "discard")
    state = play(state, "Will-o'-wisp")  # 3 + 3 = 6
    assert legal(state) == ["Salamander", "ACT"]
    state = play(state, "Salamander")  # payment RR is forced: both red cards
    assert phase(state) == Phase.KEEP
    assert zone(state, "spirits", 0) == {"Salamander": 1}
    assert zone(state, "mana", 0) == {}
    assert diff(zone(state, "discard"), discard0) == {"Ifrit": 1, "Will-o'-wisp": 1}


def test_R3_1_2_empty_hand_plays_the_top_card_of_the_deck():
    """R3.1.2: "If your hand is empty, take the top card of the deck and play it instead." With 3
    players player 1 keeps the head set up here (player 0 assists player 2); player 1 has no card,
    so the last deck card (Unicorn) is played onto the Golem head: 4 + 5 = 9, Pilgrimage."""
    state = position(
        3,
        players=[
            {"hand": ["Imp", "Fairy"], "head": "Imp"},
            {"hand": [], "head": "Golem"},
            {"hand": ["Angel"], "head": "Dryad"},
        ],
        deck=["Unicorn", "Unicorn", "Unicorn"],
    )
    # player 0: Imp+Imp = 2, Conquest from the supply, keeps a Unicorn, assists one to player 2
    state = play(state, "Imp")
    assert int(state.active_player[0]) == 1
    assert phase(state) == Phase.PILGRIMAGE  # nothing to summon with an empty hand: ACT was forced
    assert int(state.command_number[0]) == 9
    assert zone(state, "mana", 1) == {"Golem": 1, "Unicorn": 1}
    assert zone(state, "hand", 1) == {}
    assert int(state.head[0, 1]) == -1
    assert zone(state, "deck") == {}
    assert int(state.head[0, 2]) == kind("Unicorn") and zone(state, "hand", 0) == {"Fairy": 1, "Unicorn": 1}
    assert total_cards(state)[0] == 110


@pytest.mark.parametrize("card, number", [("Golem", 4), ("Imp", 1)])
def test_R3_1_3_no_head_counts_as_zero(card, number):
    """R3.1.3: "If your row has no head (it can only be lost to an effect), the head counts as 0."
    Golem alone gives 4 (Research: flip a mana), Imp alone gives 1 (Conquest: 1 VP from the supply)."""
    state = position(
        2,
        players=[
            {"hand": [card, "Baal"], "mana": ["Angel"]},  # no head; Baal cannot be paid for
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Salamander", "Fairy"],
    )
    state = play(state, card)  # Phase II has only ACT: forced
    assert int(state.command_number[0]) == number
    if number == 4:
        assert phase(state) == Phase.RESEARCH_FLIP and legal(state) == ["MANA_YELLOW", "MANA_BLUE"]
        assert state.vp[0].tolist() == [0, 0]
    else:
        assert phase(state) == Phase.KEEP
        assert state.vp[0].tolist() == [1, 0]


# ---- R3.2 Phase II ----------------------------------------------------------------------


def _main_position():
    """Player 0 plays Succubus onto a Belial head: 1 + 1 = 2 (Conquest); mana K K U afterwards."""
    return position(
        2,
        players=[
            {"hand": ["Succubus", "Imp", "Salamander", "Fairy", "Undine"], "head": "Belial", "mana": ["Angel"]},
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Golem", "Angel"],
    )


def test_R3_2_choose_exactly_one_summon_or_action():
    """R3.2: "Choose exactly one" of summon (a payable spirit, R3.2.1/R5.1) or the action (R3.2.2).
    With mana K K U: Imp (K*) and Undine (U*) can be paid, Salamander (RR) and Fairy (G) cannot."""
    state = play(_main_position(), "Succubus")
    assert phase(state) == Phase.MAIN
    assert legal(state) == ["Imp", "Undine", "ACT"]


def test_R3_2_1_summon_puts_a_spirit_into_play_and_no_action_follows():
    """R3.2.1: "Summon: put one spirit from your hand into play and pay its cost from your mana
    row." The action (Conquest, worth 1 VP here) is not performed: Phase III follows at once."""
    state = play(_main_position(), "Succubus", "Imp")
    assert phase(state) == Phase.PAY  # K* from K K U: the first K is forced, the '*' is a choice
    assert legal(state) == ["MANA_BLACK", "MANA_BLUE"]
    state = play(state, "MANA_BLUE")
    assert phase(state) == Phase.KEEP
    assert zone(state, "spirits", 0) == {"Imp": 1}
    assert zone(state, "hand", 0) == {"Salamander": 1, "Fairy": 1, "Undine": 1}
    assert zone(state, "mana", 0) == {"Succubus": 1}
    assert state.vp[0].tolist() == [0, 0]


@pytest.mark.parametrize(
    "head, card",
    [
        ("Imp", "Imp"),
        ("Imp", "Fairy"),
        ("Fairy", "Fairy"),
        ("Fairy", "Salamander"),
        ("Salamander", "Salamander"),
        ("Salamander", "Golem"),
        ("Golem", "Golem"),
        ("Golem", "Angel"),
        ("Angel", "Angel"),
    ],
)
def test_R3_2_1_summon_is_allowed_whatever_the_command_number(head, card):
    """R3.2.1: "Summon (allowed whatever the command number)": for every number 2..10 the payable
    spirit (Will-o'-wisp, R*, paid with two stones) may be summoned instead of the action."""
    state = position(
        2,
        players=[
            {"hand": [card, "Will-o'-wisp"], "head": head, "stones": ["Ouroboros", "Ouroboros"]},
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Chimera", "Titania"],
    )
    state = play(state, card)
    assert int(state.command_number[0]) == CARDS.number[kind(head)] + CARDS.number[kind(card)]
    assert legal(state) == ["Will-o'-wisp", "ACT"]
    state = play(state, "Will-o'-wisp")
    while phase(state) == Phase.PAY:  # pay R* with the two stones (the highest unit)
        assert legal(state)[-1] == "STONE"
        state = play(state, "STONE")
    assert phase(state) == Phase.KEEP
    assert zone(state, "spirits", 0) == {"Will-o'-wisp": 1}
    assert zone(state, "stones", 0) == {}
    assert state.vp[0].tolist() == [0, 0] and state.faith[0].tolist() == [1, 1]
    assert zone(state, "hand", 0) == {}


def test_R3_2_2_action_performs_the_command_numbers_action_and_summons_nothing():
    """R3.2.2: "Action: perform the action of the command number (R6)." Number 2 is Conquest: with
    no icons and nobody holding VP, 1 VP comes from the supply; no spirit enters play."""
    state = play(_main_position(), "Succubus", "ACT")
    assert phase(state) == Phase.KEEP
    assert state.vp[0].tolist() == [1, 0]
    assert zone(state, "spirits", 0) == {}
    assert zone(state, "hand", 0) == {"Imp": 1, "Salamander": 1, "Fairy": 1, "Undine": 1}
    assert zone(state, "mana", 0) == {"Belial": 1, "Succubus": 1, "Angel": 1}


# ---- R3.3 Phase III -----------------------------------------------------------------------


def _pilgrimage_position(P=2, active=0, deck=("Unicorn", "Pegasus")):
    """The active player plays Angel onto a Golem head: 9, Pilgrimage (nothing can be summoned)."""
    heads = ["Imp", "Fairy", "Salamander", "Undine"]
    players = [{"hand": ["Dryad", "Treant"], "head": heads[q]} for q in range(P)]
    players[active] = {"hand": ["Angel", "Succubus"], "head": "Golem"}
    return position(P, players=players, active=active, deck=list(deck))


def test_R3_3_1_draw_two_keep_one():
    """R3.3.1: "Draw 2 cards and look at them privately. Keep one in your hand." The two draws are
    on offer (in no hand yet, seen by the drawer only), the choice is between exactly them, and the
    kept one joins the hand (the other is assisted)."""
    state = play(_pilgrimage_position(), "Angel", "OPTION_A")  # VP = faith, no draw
    assert phase(state) == Phase.KEEP
    assert zone(state, "offer") == {"Unicorn": 1, "Pegasus": 1}
    assert legal(state) == ["Unicorn", "Pegasus"]
    assert zone(state, "hand", 0) == {"Succubus": 1}  # not in hand before the choice
    offer = core.obs_slices()["offer"]  # "look at them privately"
    assert core.observe(state, 0)[0, offer].sum() == 2
    assert core.observe(state, 1)[0, offer].sum() == 0
    state = play(state, "Pegasus")
    assert zone(state, "hand", 0) == {"Succubus": 1, "Pegasus": 1}
    assert int(state.head[0, 1]) == kind("Unicorn")


def test_R3_3_1_two_identical_draws_the_keep_is_forced():
    """R3.3.1: with two cards of one kind the choice is no choice: one goes to hand, one is assisted."""
    state = play(_pilgrimage_position(deck=["Unicorn", "Unicorn"]), "Angel", "OPTION_A")
    assert int(state.active_player[0]) == 1 and phase(state) == Phase.COMMAND
    assert zone(state, "hand", 0) == {"Succubus": 1, "Unicorn": 1}
    assert int(state.head[0, 1]) == kind("Unicorn")


@pytest.mark.parametrize("P, active", [(2, 0), (2, 1), (3, 0), (3, 2), (4, 0), (4, 2)])
def test_R3_3_2_the_other_card_becomes_the_right_neighbours_head(P, active):
    """R3.3.2: "Place the other face up at the right end of your right neighbour's mana row: it is
    their new head ... (With 2 players, your right neighbour is the other player.)" """
    state = _pilgrimage_position(P, active)
    right = (active - 1) % P
    before = [zone(state, "mana", q) for q in range(P)]
    heads = state.head[0].copy()
    state = play(state, "Angel", "OPTION_A", "Pegasus")  # keep Pegasus, assist Unicorn
    assert int(state.head[0, right]) == kind("Unicorn")
    assert diff(zone(state, "mana", right), before[right]) == {"Unicorn": 1}
    assert zone(state, "hand", active) == {"Succubus": 1, "Pegasus": 1}
    for q in range(P):
        if q not in (active, right):
            assert zone(state, "mana", q) == before[q]
            assert state.head[0, q] == heads[q]
    assert int(state.head[0, active]) == -1


@pytest.mark.parametrize("P, active", [(2, 0), (2, 1), (3, 1), (3, 2), (4, 3)])
def test_R3_3_3_then_the_player_on_the_left_starts_their_turn(P, active):
    """R3.3.3: "Then the turn ends ..., and the player on your left starts theirs." """
    state = play(_pilgrimage_position(P, active), "Angel", "OPTION_A", "Pegasus")
    nxt = (active + 1) % P
    assert int(state.active_player[0]) == nxt and int(state.current_player[0]) == nxt
    assert phase(state) == Phase.COMMAND and int(state.turn[0]) == 1
    assert legal(state) == ["Dryad", "Treant"]
    assert int(state.command_number[0]) == 0  # a new command phase


# ======================================================================================
# R4 The mana row
# ======================================================================================


def test_R4_1_mana_pays_its_own_colour_and_any():
    """R4.1: "Mana of a colour pays a symbol of that colour or an 'any' symbol." Imp (K*) is paid with
    a black mana for K and a blue one for '*'."""
    state = position(
        2,
        players=[
            {"hand": ["Angel", "Imp"], "head": "Succubus"},  # 1 + 5 = 6
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Golem", "Fairy"],
    )
    discard0 = zone(state, "discard")
    state = play(state, "Angel")
    assert legal(state) == ["Imp", "ACT"]
    state = play(state, "Imp")  # K* from {K, U}: forced
    assert phase(state) == Phase.KEEP
    assert zone(state, "spirits", 0) == {"Imp": 1} and zone(state, "mana", 0) == {}
    assert diff(zone(state, "discard"), discard0) == {"Succubus": 1, "Angel": 1}


def test_R4_1_mana_of_another_colour_cannot_pay_a_coloured_symbol():
    """R4.1: a coloured symbol is paid only by mana of its colour (or a stone). With yellow and blue
    mana only, Imp (K*) and Salamander (RR) cannot be summoned; Undine (U*) can."""
    state = position(
        2,
        players=[
            {"hand": ["Golem", "Imp", "Salamander", "Undine"], "head": "Angel", "mana": ["Gargoyle"]},
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
    )
    state = play(state, "Golem")
    assert legal(state) == ["Undine", "ACT"]
    with pytest.raises(ValueError):
        play(state, "Imp")


def test_R4_1_a_stone_pays_any_symbol():
    """R4.1: "a philosopher's stone pays any symbol": with no red mana, two stones pay Salamander's RR;
    paid stones go to the discard pile."""
    state = position(
        2,
        players=[
            {"hand": ["Golem", "Salamander"], "head": "Angel", "stones": ["Seraph", "Seraph"]},
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Imp", "Fairy"],
    )
    discard0 = zone(state, "discard")
    state = play(state, "Golem")
    assert legal(state) == ["Salamander", "ACT"]
    state = play(state, "Salamander")  # only the stones can pay R: forced
    assert phase(state) == Phase.KEEP
    assert zone(state, "spirits", 0) == {"Salamander": 1}
    assert zone(state, "stones", 0) == {}
    assert zone(state, "mana", 0) == {"Golem": 1, "Angel": 1}
    assert diff(zone(state, "discard"), discard0) == {"Seraph": 2}


def _observations(state):
    return [core.observe(state, p) for p in range(state.num_players)]


def test_R4_2_mana_kinds_are_public_stones_show_only_their_number():
    """R4.2: "Mana cards are public: anyone may see which kinds they are. Stones show only how many
    there are." (R1.3: nobody may look at a stone's face, its owner included.)"""

    def pos(mana, stones):
        return position(
            2,
            players=[
                {"hand": ["Imp", "Fairy"], "head": "Golem"},
                {"hand": ["Dryad"], "head": "Angel", "mana": mana, "stones": stones},
            ],
        )

    base = _observations(pos(["Golem"], ["Seraph", "Seraph"]))
    # other faces under the stones: no observation changes, not even the owner's
    for a, b in zip(base, _observations(pos(["Golem"], ["Imp", "Chimera"])), strict=True):
        np.testing.assert_array_equal(a, b)
    # another kind of face-up mana, even of the same colour (Gargoyle vs Golem): visible to all
    for a, b in zip(base, _observations(pos(["Gargoyle"], ["Seraph", "Seraph"])), strict=True):
        assert not np.array_equal(a, b)
    # one stone more: visible to all
    for a, b in zip(base, _observations(pos(["Golem"], ["Seraph", "Seraph", "Imp"])), strict=True):
        assert not np.array_equal(a, b)


def _nightmare_position(p1_mana, p1_head, deck=("Golem", "Fairy")):
    """Player 0 plays Imp onto Succubus (2) and summons Nightmare (KK*) with its 3 black mana; every
    player then discards down to 6 cards and 7 mana if its summoner says YES (R10.1). Player 1 is
    the one to watch."""
    return position(
        2,
        players=[
            {"hand": ["Imp", "Nightmare"], "head": "Succubus", "mana": ["Belial"]},
            {"hand": ["Fairy"], "head": p1_head, "mana": p1_mana},
        ],
        deck=list(deck),
    )


SEVEN_MANA = ["Asmodai", "Angel", "Angel", "Golem", "Golem", "Salamander", "Ifrit"]


@pytest.mark.parametrize("n_mana, must_discard", [(6, False), (7, True)])
def test_R4_3_the_waiting_head_counts_towards_mana_limits(n_mana, must_discard):
    """R4.3: "A player's waiting head ... is part of their mana row and counts towards mana limits."
    Nightmare's limit is 7: 6 mana + head is fine, 7 mana + head is one too many."""
    state = _nightmare_position(SEVEN_MANA[:n_mana], "Dryad")
    state = play(state, "Imp", "Nightmare")  # payment forced: all three black mana
    assert zone(state, "spirits", 0) == {"Nightmare": 1}
    if must_discard:
        assert phase(state) == Phase.NIGHTMARE  # R10.1: asked only when someone would discard
        state = play(state, "YES")
        assert phase(state) == Phase.NIGHTMARE_MANA and int(state.current_player[0]) == 1
    else:
        assert phase(state) == Phase.KEEP and int(state.current_player[0]) == 0
        assert n_cards(state, "mana", 1) == 7


def test_R4_3_the_waiting_head_may_not_be_discarded():
    """R4.3: the waiting head "may not be chosen when they must discard mana". Player 1's only green
    mana is its head (Dryad), so green is not offered; any other colour is."""
    state = play(_nightmare_position(SEVEN_MANA, "Dryad"), "Imp", "Nightmare", "YES")
    assert phase(state) == Phase.NIGHTMARE_MANA and int(state.current_player[0]) == 1
    assert legal(state) == ["MANA_BLACK", "MANA_RED", "MANA_YELLOW", "MANA_BLUE"]
    discard0 = zone(state, "discard")
    state = play(state, "MANA_BLUE")
    assert diff(zone(state, "discard"), discard0) == {"Angel": 1}
    assert int(state.head[0, 1]) == kind("Dryad") and n_cards(state, "mana", 1) == 7
    assert phase(state) == Phase.KEEP and int(state.current_player[0]) == 0


def test_R4_3_discarding_the_heads_colour_keeps_the_head():
    """R4.3: with the head's colour the only one to discard (7 blue mana + a blue head, Undine), a
    blue card goes, but not the head: Undine stays, and stays the head."""
    blue = ["Angel", "Angel", "Unicorn", "Pegasus", "Valkyrie", "Seraph", "Seraph"]
    state = _nightmare_position(blue, "Undine")
    discard0 = zone(state, "discard")
    state = play(state, "Imp", "Nightmare")  # payment is forced
    assert phase(state) == Phase.NIGHTMARE
    state = play(state, "YES")  # player 1's single-choice discard is forced
    assert phase(state) == Phase.KEEP
    assert int(state.head[0, 1]) == kind("Undine")
    assert zone(state, "mana", 1).get("Undine") == 1
    assert n_cards(state, "mana", 1) == 7
    assert diff(zone(state, "discard"), discard0) == {"Imp": 1, "Succubus": 1, "Belial": 1, "Angel": 1}


def test_R4_4_gaining_a_stone_puts_the_top_deck_card_face_down_in_the_row():
    """R4.4: "'Gain a philosopher's stone' means: take the top card of the deck and put it face down
    in your mana row." Alchemy (b): +1 faith and a stone, which is the deck's Golem."""
    state = position(
        2,
        players=[
            {"hand": ["Salamander", "Angel"], "head": "Fairy"},  # 2 + 3 = 5: Alchemy; Angel unpayable
            {"hand": ["Dryad", "Imp"], "head": "Dryad"},
        ],
        deck=["Golem", "Golem", "Golem"],
    )
    state = play(state, "Salamander")
    assert phase(state) == Phase.ALCHEMY
    state = play(state, "OPTION_B")  # the stone, then Phase III: Golem, Golem (forced keep)
    assert zone(state, "stones", 0) == {"Golem": 1}
    assert zone(state, "mana", 0) == {"Fairy": 1, "Salamander": 1}
    assert state.faith[0].tolist() == [2, 1]
    assert zone(state, "deck") == {}
    assert zone(state, "hand", 0) == {"Angel": 1, "Golem": 1}
    assert total_cards(state)[0] == 110


def test_R4_5_a_newer_assisted_card_replaces_the_head():
    """R4.5: "A newer assisted card replaces it as head (the old one stays as ordinary mana)": player
    1's head Angel (5) is replaced by the assisted Gargoyle (4); its next command number is
    Gargoyle + Fairy = 6, not Angel + Fairy = 7, and the Angel stays in the row as mana."""
    state = position(
        2,
        players=[
            {"hand": ["Angel", "Succubus"], "head": "Golem"},
            {"hand": ["Fairy", "Imp"], "head": "Angel", "mana": ["Imp"]},
        ],
        deck=["Gargoyle", "Pegasus"],
    )
    state = play(state, "Angel", "OPTION_A", "Pegasus")  # Pilgrimage, keep Pegasus, assist Gargoyle
    assert int(state.active_player[0]) == 1
    assert int(state.head[0, 1]) == kind("Gargoyle")
    assert zone(state, "mana", 1) == {"Imp": 1, "Angel": 1, "Gargoyle": 1}
    state = play(state, "Fairy")
    assert int(state.command_number[0]) == 6
    assert int(state.head[0, 1]) == -1
    assert zone(state, "mana", 1) == {"Imp": 1, "Fairy": 1, "Angel": 1, "Gargoyle": 1}
    assert legal(state) == ["Imp", "ACT"]  # Imp (K*) can be paid: the old head is ordinary mana


HEAD_SCENARIOS = {
    # name: (player 0 spec, deck, moves, net cards added to player 0's row (mana + stones) in the turn)
    "festival": (  # Golem + Salamander = 7; faith 3 > the others': both revealed cards to the row
        {"hand": ["Salamander", "Angel"], "head": "Golem", "faith": 2},
        ["Unicorn"] * 4,
        ["Salamander"],
        1 + 2,
    ),
    "stone": (  # Salamander + Fairy = 5: Alchemy (b), a stone
        {"hand": ["Fairy", "Angel"], "head": "Salamander"},
        ["Unicorn"] * 3,
        ["Fairy", "OPTION_B"],
        1 + 1,
    ),
    "sphinx": (  # Sphinx costs '*' (2 Gargoyles); 4 shields: 4 cards, 3 to hand and 1 into the row
        {"hand": ["Golem", "Sphinx"], "head": "Imp", "spirits": ["Gargoyle", "Gargoyle", "Homunculus"]},
        ["Unicorn"] * 4 + ["Angel"] * 2,
        ["Golem", "Sphinx"],
        1 - 1 + 1,
    ),
    "baldanders": (  # summon Fairy (G), placing Angel from hand first
        {"hand": ["Dryad", "Fairy", "Angel"], "head": "Imp", "spirits": ["Baldanders"]},
        ["Unicorn"] * 2,
        ["Dryad", "Fairy", "Angel"],
        1 + 1 - 1,
    ),
}


@pytest.mark.parametrize("scenario", list(HEAD_SCENARIOS))
def test_R4_5_nothing_else_changes_the_head(scenario):
    """R4.5: "Nothing else (Festival, stones, Sphinx, Baldanders) changes the head." Cards these put
    into player 0's row after its command card do not make a new head: its row has none until
    player 1 assists it (3 players: player 1 assists player 0, player 0 assists player 2)."""
    spec, deck, moves, added = HEAD_SCENARIOS[scenario]
    state = position(
        3,
        players=[
            spec,
            {"hand": ["Dryad", "Titania"], "head": "Treant"},
            {"hand": ["Dryad"], "head": "Dryad", "faith": 0},
        ],
        deck=deck,
    )
    rows_before = n_cards(state, "mana", 0) + n_cards(state, "stones", 0)
    state = play(state, *moves)
    while int(state.active_player[0]) == 0:  # finish the turn (keep the lowest card)
        state = play(state, int(np.argmax(state.legal_action_mask[0])))
    assert int(state.active_player[0]) == 1 and phase(state) == Phase.COMMAND
    assert int(state.head[0, 0]) == -1
    assert int(state.head[0, 1]) == kind("Treant")
    assert int(state.head[0, 2]) >= 0 and int(state.head[0, 2]) != kind("Dryad")  # assisted by player 0
    assert n_cards(state, "mana", 0) + n_cards(state, "stones", 0) - rows_before == added


# ======================================================================================
# R5 Summoning
# ======================================================================================


def test_R5_1_only_one_spirit_per_summon():
    """R5.1: "Only one spirit per summon." With stones enough for two spirits, summoning Imp ends
    Phase II: Succubus stays in hand, two stones stay unused, Phase III follows."""
    state = position(
        2,
        players=[
            {"hand": ["Golem", "Imp", "Succubus"], "head": "Angel", "stones": ["Seraph"] * 2 + ["Ouroboros"] * 2},
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Salamander", "Fairy"],
    )
    state = play(state, "Golem")
    assert legal(state) == ["Imp", "Succubus", "ACT"]
    state = play(state, "Imp", "STONE")  # K by a stone (forced first), then '*' by a stone
    assert phase(state) == Phase.KEEP
    assert zone(state, "spirits", 0) == {"Imp": 1}
    assert zone(state, "hand", 0) == {"Succubus": 1}
    assert n_cards(state, "stones", 0) == 2
    assert zone(state, "mana", 0) == {"Golem": 1, "Angel": 1}


def test_R5_1_a_spirit_you_cannot_pay_for_cannot_be_summoned():
    """R5.1: "A spirit you cannot pay for cannot be summoned." Mana K K Y U U after Phase I: Angel (UU)
    and Nightmare (KK*) can be paid; Seraph (UUU**) and Baal (KKK**) cannot although the row holds
    five mana (too few of their colour), Salamander (RR) has no red at all. Summoning one is refused."""
    state = position(
        2,
        players=[
            {
                "hand": ["Imp", "Angel", "Nightmare", "Seraph", "Salamander", "Baal"],
                "head": "Unicorn",
                "mana": ["Succubus", "Pegasus", "Golem"],
            },
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
    )
    state = play(state, "Imp")
    assert legal(state) == ["Nightmare", "Angel", "ACT"]
    before = zone(state, "hand", 0)
    for name in ("Seraph", "Salamander", "Baal"):
        with pytest.raises(ValueError):
            play(state, name)
    assert zone(state, "hand", 0) == before and phase(state) == Phase.MAIN


def _phoenix_position():
    """After Golem onto an Angel head (9): mana Imp, Salamander, Ifrit, Golem, Angel, Angel; Phoenix costs RR**."""
    return position(
        2,
        players=[
            {"hand": ["Golem", "Phoenix"], "head": "Angel", "mana": ["Imp", "Salamander", "Ifrit", "Angel"]},
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Unicorn"] * 4,
    )


def test_R5_2_paid_mana_goes_to_the_discard_pile():
    """R5.2: "Pay the cost ... with mana from your row; paid mana goes to the discard pile." Phoenix
    (RR**) paid with Salamander, Ifrit, Golem, Angel: exactly those four are discarded."""
    state = play(_phoenix_position(), "Golem", "Phoenix")
    discard0 = zone(state, "discard")
    state = play(state, "MANA_RED", "MANA_YELLOW")  # the second red and the last blue are forced
    assert zone(state, "spirits", 0) == {"Phoenix": 1}
    assert diff(zone(state, "discard"), discard0) == {"Salamander": 1, "Ifrit": 1, "Golem": 1, "Angel": 1}
    assert zone(state, "mana", 0) == {"Imp": 1, "Angel": 1}
    assert total_cards(state)[0] == 110


@pytest.mark.parametrize(
    "unit, left",
    [
        ("MANA_BLACK", {"Golem": 1, "Angel": 1}),
        ("MANA_YELLOW", {"Succubus": 1, "Angel": 1}),
        ("MANA_BLUE", {"Succubus": 1, "Golem": 1}),
    ],
)
def test_R5_2_the_player_chooses_which_mana_pays(unit, left):
    """R5.2: "Payment is the player's choice of which mana (by colour) or stones to give up." Imp (K*)
    from Imp, Succubus, Golem, Angel: K must be black (Imp goes first, the lowest black kind), the
    '*' may be any of black, yellow or blue."""
    state = position(
        2,
        players=[
            {"hand": ["Succubus", "Imp"], "head": "Imp", "mana": ["Golem", "Angel"]},
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Salamander", "Fairy"],
    )
    state = play(state, "Succubus", "Imp")
    assert phase(state) == Phase.PAY
    assert legal(state) == ["MANA_BLACK", "MANA_YELLOW", "MANA_BLUE"]
    assert zone(state, "mana", 0) == {"Succubus": 1, "Golem": 1, "Angel": 1}  # the forced K: Imp
    state = play(state, unit)
    assert phase(state) == Phase.KEEP
    assert zone(state, "mana", 0) == left
    assert zone(state, "spirits", 0) == {"Imp": 1}


@pytest.mark.parametrize(
    "first, mana_left, stones_left",
    [
        ("STONE", {"Golem": 1, "Salamander": 1}, 0),
        ("MANA_RED", {"Golem": 1}, 1),
    ],
)
def test_R5_2_no_payment_choice_may_leave_the_rest_unpayable(first, mana_left, stones_left):
    """R5.2 (with R5.1): a unit may be given up only if the rest of the cost can still be paid.
    Salamander (RR) from Golem, Salamander and 2 stones: the yellow can never pay, so only
    MANA_RED and STONE are offered, and after a red only a stone."""
    state = position(
        2,
        players=[
            {"hand": ["Salamander", "Salamander"], "head": "Golem", "stones": ["Seraph", "Seraph"]},
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Imp", "Fairy"],
    )
    state = play(state, "Salamander", "Salamander")
    assert phase(state) == Phase.PAY
    assert legal(state) == ["MANA_RED", "STONE"]
    discard0 = zone(state, "discard")
    state = play(state, first)  # the second unit is forced: a stone
    assert phase(state) == Phase.KEEP
    assert zone(state, "mana", 0) == mana_left
    assert n_cards(state, "stones", 0) == stones_left
    assert zone(state, "spirits", 0) == {"Salamander": 1}
    assert "Golem" not in diff(zone(state, "discard"), discard0)


def test_R5_2_payment_is_a_multiset_chosen_in_ascending_order():
    """R5.2 (engine convention): units are chosen in ascending action order, each only if the rest
    stays payable. Phoenix (RR**) from K R R Y U U: yellow or blue first would leave RR unpayable;
    after MANA_RED the black can no longer be chosen, though it could have paid a '*'."""
    state = play(_phoenix_position(), "Golem", "Phoenix")
    assert phase(state) == Phase.PAY
    assert legal(state) == ["MANA_BLACK", "MANA_RED"]
    state = play(state, "MANA_RED")  # the second red is forced
    assert legal(state) == ["MANA_YELLOW", "MANA_BLUE"]
    state = play(state, "MANA_BLUE")  # then the last blue is forced
    assert zone(state, "mana", 0) == {"Imp": 1, "Golem": 1}
    assert zone(state, "spirits", 0) == {"Phoenix": 1}


# -- a brute-force model of R4.1/R5.1/R5.2, to cross-check the engine on random positions --

UNITS = 6  # five colours, then stones


def _is_payment(need, any_, units) -> bool:
    """R4.1: coloured mana pays its colour or '*', a stone pays anything: ``units`` pays the cost iff
    the total is right and the stones cover every coloured symbol the mana leaves unpaid."""
    return sum(units) == sum(need) + any_ and sum(max(need[c] - units[c], 0) for c in range(5)) <= units[5]


def _multisets(avail, lowest, n):
    """Every multiset of n units, each of index >= lowest, within avail."""
    if lowest == UNITS:
        if n == 0:
            yield [0] * UNITS
        return
    for x in range(min(avail[lowest], n) + 1):
        for rest in _multisets(avail, lowest + 1, n - x):
            rest[lowest] += x
            yield rest


def _payable(need, any_, avail) -> bool:
    return any(_is_payment(need, any_, m) for m in _multisets(avail, 0, sum(need) + any_))


def _legal_units(need, any_, avail, paid, floor) -> list[int]:
    """Units that may be paid next (ascending order from ``floor``) so that the rest stays payable."""
    out = []
    for u in range(floor, UNITS):
        if avail[u] == 0:
            continue
        rest_avail = [a - (i == u) for i, a in enumerate(avail)]
        now = [x + (i == u) for i, x in enumerate(paid)]
        left = sum(need) + any_ - sum(now)
        if left >= 0 and any(
            _is_payment(need, any_, [a + b for a, b in zip(now, m, strict=True)])
            for m in _multisets(rest_avail, u, left)
        ):
            out.append(u)
    return out


def _units(state) -> list[int]:
    """Player 0's face-up mana by colour, then stones."""
    return [int(x) for x in state.mana[0, 0].astype(int) @ CARDS.colour_onehot] + [int(state.stones[0, 0].sum())]


def _reduced_cost(k: int, gargoyles: int):
    """R10.2 by hand: each Gargoyle -1 of the spirit's colour; Giant also -1 per shield (Gargoyles
    have one each); never below zero, never on '*'."""
    reduction = gargoyles * (2 if CARDS.names[k] == "Giant" else 1)
    need = [int(x) for x in CARDS.cost[k]]
    c = int(CARDS.colour[k])
    need[c] = max(need[c] - reduction, 0)
    return need, int(CARDS.cost_any[k])


def test_R5_1_R5_2_summon_and_payment_choices_match_a_brute_force_model():
    """R5.1 "A spirit you cannot pay for cannot be summoned" and R5.2 "Payment is the player's choice
    ... (no choice may leave the rest unpayable)", on 150 random positions (random hand, mana, stones,
    head, 0-2 Gargoyles): the summonable spirits and, at every payment step, the legal units are
    exactly those a brute-force enumeration of payments allows; the payment made pays the cost."""
    rng = np.random.default_rng(2024)
    pool = [k for k in range(30) for _ in range(CARDS.copies[k]) if CARDS.names[k] != "Gargoyle"]
    steps = 0
    for _ in range(150):
        cards = [int(k) for k in rng.permutation(pool)]
        gargoyles = int(rng.integers(0, 3))
        n_mana, n_stones = int(rng.integers(0, 7)), int(rng.integers(0, 3))
        hand, mana = cards[:5], cards[5 : 5 + n_mana]
        stones = cards[5 + n_mana : 5 + n_mana + n_stones]
        head = cards[5 + n_mana + n_stones] if rng.random() < 0.8 else None
        state = position(
            2,
            players=[
                {"hand": hand, "mana": mana, "stones": stones, "head": head, "spirits": ["Gargoyle"] * gargoyles},
                {"hand": ["Gargoyle", "Dryad"]},
            ],
        )
        state = play(state, hand[0])
        if phase(state) != Phase.MAIN:
            continue  # nothing could be summoned: Phase II was forced to ACT
        avail = _units(state)
        expected = [k for k in range(30) if state.hand[0, 0, k] and _payable(*_reduced_cost(k, gargoyles), avail)]
        assert [k for k in range(30) if state.legal_action_mask[0, k]] == expected
        k = int(rng.choice(expected))
        need, any_ = _reduced_cost(k, gargoyles)
        state = play(state, k)
        while phase(state) == Phase.PAY:
            now = _units(state)
            paid = [a - b for a, b in zip(avail, now, strict=True)]
            floor = max([u for u in range(UNITS) if paid[u]], default=0)
            units = _legal_units(need, any_, now, paid, floor)
            assert [u for u in range(UNITS) if state.legal_action_mask[0, core.MANA_BLACK + u]] == units
            state = play(state, core.MANA_BLACK + int(rng.choice(units)))
            steps += 1
        assert state.spirits[0, 0, k] == 1
        assert _is_payment(need, any_, [a - b for a, b in zip(avail, _units(state), strict=True)])
    assert steps > 50  # the walk did meet real payment choices


def test_R5_3_a_when_summoned_ability_works_at_once():
    """R5.3: "Once in play, a spirit's ability works (from the moment it is summoned on, including its
    'when summoned' ability)." Angel: +2 faith before Phase III."""
    state = position(
        2,
        players=[
            {"hand": ["Undine", "Angel"], "head": "Angel"},  # 5 + 5 = 10; mana U U pays Angel's UU
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Golem", "Fairy"],
    )
    state = play(state, "Undine")
    assert legal(state) == ["Angel", "ACT"]
    state = play(state, "Angel")
    assert phase(state) == Phase.KEEP
    assert zone(state, "spirits", 0) == {"Angel": 1}
    assert state.faith[0].tolist() == [3, 1]


def test_R5_3_phoenix_draws_when_summoned():
    """R5.3: Phoenix's "when summoned: gain 1 faith and draw 2 cards" happens with the summon."""
    state = play(_phoenix_position(), "Golem", "Phoenix", "MANA_RED", "MANA_BLUE")
    # Phoenix drew 2 Unicorns; Phase III drew the last 2, kept one (forced) and assisted one
    assert zone(state, "hand", 0) == {"Unicorn": 3}
    assert state.faith[0].tolist() == [2, 1]
    assert int(state.head[0, 1]) == kind("Unicorn") and int(state.active_player[0]) == 1


def test_R5_3_sphinx_counts_itself():
    """R5.3: the spirit is in play when its "when summoned" ability resolves: a lone Sphinx counts its
    own shield ("this Sphinx included") and draws 1 card."""
    state = position(
        2,
        players=[
            {"hand": ["Gargoyle", "Sphinx"], "head": "Golem", "stones": ["Seraph"]},  # 4 + 4 = 8; Y Y + stone
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Angel"] * 3,
    )
    state = play(state, "Gargoyle")
    assert legal(state) == ["Sphinx", "ACT"]
    state = play(state, "Sphinx")  # payment forced; Sphinx draws 1; Phase III Angel, Angel (forced)
    assert zone(state, "spirits", 0) == {"Sphinx": 1}
    assert zone(state, "hand", 0) == {"Angel": 2}
    assert int(state.active_player[0]) == 1


def test_R5_3_an_end_of_turn_ability_works_in_the_turn_of_the_summon():
    """R5.3: an ability works "from the moment it is summoned on": Belial, summoned in Phase II, may
    already be used at the end of the same turn (1 Lightning mana for 2 VP)."""
    state = position(
        2,
        players=[
            {"hand": ["Succubus", "Belial"], "head": "Imp", "mana": ["Asmodai", "Angel"]},
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Golem", "Fairy"],
    )
    state = play(state, "Succubus", "Belial")  # KK* from K K K U: the two K are forced
    assert legal(state) == ["MANA_BLACK", "MANA_BLUE"]
    state = play(state, "MANA_BLUE")
    assert zone(state, "mana", 0) == {"Succubus": 1}
    state = play(state, "Golem")  # keep Golem, assist Fairy
    assert phase(state) == Phase.BELIAL and legal(state) == ["MANA_BLACK", "NO"]
    state = play(state, "MANA_BLACK")
    assert state.vp[0].tolist() == [2, 0]
    assert zone(state, "mana", 0) == {}
    assert int(state.active_player[0]) == 1


# ======================================================================================
# R10.2 Cost reductions, R10.3 the command-number table
# ======================================================================================


@pytest.mark.parametrize(
    "stones, summonable",
    [
        ([], ["Imp", "ACT"]),
        (["Seraph"], ["Imp", "Phoenix", "ACT"]),
    ],
)
def test_R10_2_cost_reductions_never_reduce_an_any_symbol(stones, summonable):
    """R10.2: "Cost reductions never reduce an 'any' symbol." Three Gargoyles take both R off Phoenix
    (RR**), but its two '*' remain: with one mana (the Angel played, no head) it cannot be paid,
    with one more stone it can, and then costs exactly those two. Imp (K*) costs just its '*'."""
    state = position(
        2,
        players=[
            {"hand": ["Angel", "Phoenix", "Imp"], "spirits": ["Gargoyle"] * 3, "stones": stones},
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Unicorn"] * 4,
    )
    state = play(state, "Angel")  # no head: 0 + 5
    assert legal(state) == summonable
    if "Phoenix" in summonable:
        state = play(state, "Phoenix")  # {U, stone} for '**': forced
        assert zone(state, "spirits", 0) == {"Gargoyle": 3, "Phoenix": 1}
        assert zone(state, "mana", 0) == {} and zone(state, "stones", 0) == {}


def test_R10_2_a_cost_never_goes_below_zero_symbols_of_a_colour():
    """R10.2: "A cost never goes below zero symbols of a colour." Two Gargoyles: Fairy (G) is free,
    Will-o'-wisp (R*) costs '*', Giant (YYY**, -2 Gargoyles -2 shields) costs '**': the surplus
    reduction is lost, never moved to another symbol. Seraph (UUU**) still needs a blue."""
    state = position(
        2,
        players=[
            {
                "hand": ["Golem", "Fairy", "Will-o'-wisp", "Seraph", "Giant"],
                "mana": ["Imp"],
                "spirits": ["Gargoyle"] * 2,
            },
            {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=["Salamander", "Pegasus"],
    )
    state = play(state, "Golem")  # no head: 0 + 4; mana Imp, Golem
    assert legal(state) == ["Fairy", "Will-o'-wisp", "Giant", "ACT"]
    free = state.copy()
    discard0 = zone(free, "discard")
    free = play(free, "Fairy")  # costs nothing: no payment at all
    assert phase(free) == Phase.KEEP
    assert zone(free, "spirits", 0) == {"Gargoyle": 2, "Fairy": 1}
    assert zone(free, "mana", 0) == {"Imp": 1, "Golem": 1}
    assert zone(free, "discard") == discard0
    giant = play(state.copy(), "Giant")  # '**' from {K, Y}: forced
    assert phase(giant) == Phase.KEEP
    assert zone(giant, "spirits", 0) == {"Gargoyle": 2, "Giant": 1}
    assert zone(giant, "mana", 0) == {}
    wisp = play(state.copy(), "Will-o'-wisp")
    assert phase(wisp) == Phase.PAY and legal(wisp) == ["MANA_BLACK", "MANA_YELLOW"]
    wisp = play(wisp, "MANA_YELLOW")
    assert zone(wisp, "mana", 0) == {"Imp": 1}


def _command(head, card, spirits=(), p1=None, deck=("Chimera", "Titania")):
    """Player 0 plays ``card`` onto ``head`` (None: no head). Baal cannot be paid for, so Phase II
    is ACT only. Player 1 has 0 VP and the same faith: Conquest takes from the supply."""
    return position(
        2,
        players=[
            {"hand": [card, "Baal"], "head": head, "spirits": list(spirits)},
            p1 or {"hand": ["Dryad", "Treant"], "head": "Dryad"},
        ],
        deck=list(deck),
    )


@pytest.mark.parametrize(
    "head, card, number",
    [
        (None, "Imp", 1),
        ("Imp", "Imp", 2),
        ("Imp", "Fairy", 3),
    ],
)
def test_R10_3_command_numbers_up_to_3_are_conquest(head, card, number):
    """R10.3: "The command-number table counts '3 or less' as Conquest." 1, 2 and 3: Conquest, 1 VP
    from the supply (no icons, nobody to steal from)."""
    state = play(_command(head, card), card)
    assert int(state.command_number[0]) == number
    assert phase(state) == Phase.KEEP
    assert state.vp[0].tolist() == [1, 0]


@pytest.mark.parametrize("head, card, number", [("Golem", "Angel", 9), ("Angel", "Seraph", 10)])
def test_R10_3_command_numbers_9_and_more_are_pilgrimage(head, card, number):
    """R10.3: "... and '9 or more' as Pilgrimage": 9 and 10 give the Pilgrimage choice."""
    state = play(_command(head, card), card)
    assert int(state.command_number[0]) == number
    assert phase(state) == Phase.PILGRIMAGE and legal(state) == ["OPTION_A", "OPTION_B"]
    state = play(state, "OPTION_A")
    assert state.vp[0].tolist() == [1, 0]  # VP = faith 1


def test_R10_3_the_neighbours_of_the_ends_are_research_and_inquisition():
    """R10.3 / R6 table: 4 is Research (not Conquest) and 8 is Inquisition (not Pilgrimage)."""
    research = play(_command("Fairy", "Dryad"), "Dryad")  # 4: flips the only colour (forced)
    assert int(research.command_number[0]) == 4
    assert n_cards(research, "stones", 0) == 1 and research.vp[0].tolist() == [0, 0]
    inquisition = play(
        _command("Golem", "Gargoyle", p1={"hand": ["Dryad", "Imp"], "head": "Dryad", "faith": 0}, deck=["Angel"] * 3),
        "Gargoyle",
    )
    assert int(inquisition.command_number[0]) == 8
    assert phase(inquisition) == Phase.INQUISITION_GIFT and int(inquisition.current_player[0]) == 1
    assert zone(inquisition, "hand", 0) == {"Baal": 1, "Angel": 3}


@pytest.mark.parametrize(
    "head, card, number",
    [
        (None, "Angel", 0),  # 0 is "3 or less": Conquest
        ("Imp", "Seraph", 1),  # Conquest
        ("Angel", "Golem", 5),  # Alchemy
    ],
)
def test_R10_3_a_number_moved_by_an_ability_always_leaves_an_action(head, card, number):
    """R10.3: "... so an ability that moves the number always leaves an action to perform." With
    Asmodai the card played counts 0: the number is the head's alone, even 0 (no head). Conquest
    then scores Asmodai's axe and 1 VP from the supply."""
    state = play(_command(head, card, spirits=["Asmodai"]), card)
    assert phase(state) == Phase.ASMODAI and legal(state) == ["YES", "NO"]
    state = play(state, "YES")
    assert int(state.command_number[0]) == number
    if number <= 3:
        assert phase(state) == Phase.KEEP and state.vp[0].tolist() == [2, 0]
    else:
        assert phase(state) == Phase.ALCHEMY
