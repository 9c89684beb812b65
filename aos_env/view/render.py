"""Text views of a game: the table from one seat, and actions in words.

``render_text(state, b, player)`` draws game ``b`` of a batch as a player sees
it (public information plus that player's hand and the cards they may see).
``describe_action(state, b, action)`` says what an action id means in the
current decision, e.g. "summon Sphinx (AS018)" or "keep Angel, assist Imp".
"""

from __future__ import annotations

from typing import TextIO, cast

import numpy as np

from ..base.cli import printable
from ..core import ACTION_NAMES, Phase, final_scores
from ..core.cards import ACTIONS, COLOURS, MANA_NAMES
from ..core.constants import (
    ACT,
    MANA_0,
    NO,
    NUM_ACTIONS,
    OPTION_A,
    PEGASUS_FAITH,
    STONE,
    TARGET_1,
    YES,
    game_action_of_number,
)
from ..core.phases import PHASES
from ..core.state import State

#: What each decision asks, in words (from the phase table).
QUESTIONS = {
    p: (info.question or "The game is over") for p, info in PHASES.items() if info.decision or p == Phase.GAME_OVER
}


def compared_faith(state: State, b: int) -> np.ndarray:
    """(P,) faith of game b's players as Festival and Inquisition compare it (Pegasus +2 each)."""
    pegasus = state.spirits[b].astype(np.int64) @ state.cards.special["pegasus"]
    return state.faith[b] + PEGASUS_FAITH * pegasus


def agent_name(player: int) -> str:
    return f"player_{player}"


class SafeTerminal:
    """A text stream that passes everything written through :func:`printable` (the terminal
    views write through one, so no name or card text from a file reaches the terminal raw)."""

    def __init__(self, out) -> None:
        self.out = out

    def write(self, text: str) -> int:
        return self.out.write(printable(text))

    def flush(self) -> None:
        self.out.flush()


def safe_terminal(out: TextIO) -> TextIO:
    """``out`` behind a :class:`SafeTerminal` (typed as the stream it stands in for: it has the
    ``write`` and ``flush`` that print and the views use)."""
    return cast(TextIO, SafeTerminal(out))


#: One vocabulary for colours, everywhere: a cost symbol's colour word ("G" -> "green").
def cost_words(need, n_any) -> str:
    """A cost in colour words: ``"2 green + 1 any"`` (``"nothing"`` for none)."""
    parts = [f"{int(n)} {colour}" for colour, n in zip(COLOURS, need, strict=True) if n]
    if n_any:
        parts.append(f"{int(n_any)} any")
    return " + ".join(parts) or "nothing"


def mana_words(c: int) -> str:
    """A mana colour as the views name it: ``"green (Tree of Life)"``."""
    return f"{COLOURS[c]} ({MANA_NAMES[c]})"


def neighbours(p: int, num_players: int) -> tuple[int, int]:
    """(left, right) neighbours of seat ``p``: play passes to the left (p + 1); the card you do not
    keep in Phase III goes to your right neighbour (p - 1)."""
    return (p + 1) % num_players, (p - 1) % num_players


def _cards(state: State, counts: np.ndarray) -> str:
    names = state.cards.names
    parts = [f"{names[k]}" + (f" x{n}" if n > 1 else "") for k, n in enumerate(counts) if n]
    return ", ".join(parts) if parts else "-"


def _label(state: State, k: int) -> str:
    return state.cards.label(int(k))


def describe_action(state: State, b: int, action: int) -> str:
    """The action id ``action`` in words, for the decision game ``b`` waits for."""
    if not 0 <= action < NUM_ACTIONS:
        return f"{action} (not an action id)"
    ph = Phase(int(state.phase[b]))
    cards = state.cards
    p = int(state.active_player[b])
    P = state.num_players
    if action < cards.num_kinds:
        card = _label(state, action)
        if ph == Phase.COMMAND:
            head = int(state.head[b, p])
            n = (cards.number[head] if head >= 0 else 0) + cards.number[action]
            return f"play {card} as command card (number {n}: {ACTIONS[game_action_of_number(n)].title()})"
        if ph == Phase.MAIN:
            return f"summon {card}"
        if ph == Phase.BALDANDERS:
            return f"place {card} as mana (Baldanders)"
        if ph == Phase.FESTIVAL_PICK:
            rest = state.offer[b].copy()
            rest[action] -= 1
            other = f", discard {_cards(state, rest)}" if rest.any() else ""
            return f"put {card} into your mana row{other}"
        if ph == Phase.KEEP:
            rest = state.offer[b].copy()
            rest[action] -= 1
            other = f", assist {_cards(state, rest)}" if rest.any() else ""
            return f"keep {cards.names[action]}{other}"
        if ph == Phase.INQUISITION_GIFT:
            return f"give {card} to {agent_name(p)}"
        return f"discard {card}"
    if MANA_0 <= action <= STONE:
        what = "a philosopher's stone" if action == STONE else f"a {COLOURS[action - MANA_0]} mana"
        if ph == Phase.PAY:
            return f"pay with {what}"
        if ph == Phase.RESEARCH_FLIP:
            return f"turn {what} into a philosopher's stone"
        if ph == Phase.BELIAL:
            return f"discard {what} for 2 VP (Belial)"
        return f"discard {what}"
    if action == ACT:
        return f"perform {ACTIONS[game_action_of_number(int(state.command_number[b]))].title()}"
    if action in (OPTION_A, OPTION_A + 1):
        a = action == OPTION_A
        faith = int(state.faith[b, p])
        text = {
            Phase.ALCHEMY: ("draw 1 card and gain a stone", "gain 1 faith and a stone"),
            Phase.PRAYER: ("draw 2 cards", "discard any cards, then draw up to 5"),
            Phase.PILGRIMAGE: (f"gain {faith} VP (your faith)", "draw 1 card and gain 1 faith"),
        }.get(ph)
        return text[0 if a else 1] if text else ACTION_NAMES[action]
    if action in (YES, NO):
        yes = action == YES
        text = {
            Phase.LEPRECHAUN: ("use Leprechaun", "do not use Leprechaun"),
            Phase.ASMODAI: (
                f"count the command card as 0 (number {int(state.head_number[b])})",
                f"keep number {int(state.command_number[b])}",
            ),
            Phase.DECLARE: ("declare the end", "do not declare"),
            Phase.BALDANDERS: ("", "place no more cards"),
            Phase.BELIAL: ("", "do not use Belial"),
            Phase.PRAYER_DISCARD: ("", "stop discarding and draw up to 5"),
        }.get(ph)
        return (text[0 if yes else 1] if text else "") or ACTION_NAMES[action]
    target = (p + action - TARGET_1 + 1) % P
    return f"steal from {agent_name(target)}"


#: Decisions whose card stays hidden from the other players (R9.2): it goes face down to the discard pile.
_HIDDEN_DISCARDS = (Phase.LEPRECHAUN_DISCARD, Phase.NIGHTMARE_HAND, Phase.PRAYER_DISCARD, Phase.SHORTAGE_HAND)


def describe_seen(state: State, b: int, action: int, viewer: int) -> str:
    """``describe_action`` as ``viewer`` may know it (R9): another player's discarded hand card,
    kept Phase III card and Inquisition gift (unless ``viewer`` receives it) stay hidden."""
    p = int(state.current_player[b])
    ph = Phase(int(state.phase[b]))
    if viewer == p:
        return describe_action(state, b, action)
    return _third_person(_seen_by_other(state, b, action, viewer, p, ph))


def _third_person(text: str) -> str:
    """Another player's move in the third person ("your faith" -> "their faith")."""
    return text.replace("your ", "their ")


def _seen_by_other(state: State, b: int, action: int, viewer: int, p: int, ph: Phase) -> str:
    if not 0 <= action < state.cards.num_kinds:
        return describe_action(state, b, action)
    if ph in _HIDDEN_DISCARDS:
        return "discard a card from the hand (face down)"
    if ph == Phase.KEEP:
        rest = state.offer[b].copy()
        rest[action] -= 1
        return f"keep one card, assist {_cards(state, rest)}" if rest.any() else "keep the card drawn"
    if ph == Phase.INQUISITION_GIFT and viewer != int(state.active_player[b]):
        return f"give a card to {agent_name(int(state.active_player[b]))}"
    return describe_action(state, b, action)


def describe_move(state: State, b: int, action: int) -> str:
    """``describe_action`` in the third person, everything shown (for replays, watched from outside)."""
    return _third_person(describe_action(state, b, action))


def _signed(n: int, unit: str) -> str:
    return f"{'+' if n > 0 else '−'}{abs(n)} {unit}"


def consequences(before: State, after: State, b: int = 0, viewer: int | None = None) -> list[str]:
    """What changed between two positions of game ``b``, player by player, as ``viewer`` may know it
    (everything public; the viewer is "you"): VP, faith, cards in hand, spirits summoned or lost,
    stones and mana, cards revealed, the end declared. Automatic moves between two decisions (the
    engine plays forced ones itself) show up here too. ["player_1: +3 VP, −1 card in hand", ...]."""
    names = before.cards.names
    out = []
    for p in range(before.num_players):
        who = "you" if p == viewer else agent_name(p)
        parts = []
        d = int(after.vp[b, p]) - int(before.vp[b, p])
        if d:
            parts.append(_signed(d, "VP"))
        d = int(after.faith[b, p]) - int(before.faith[b, p])
        if d:
            parts.append(_signed(d, "faith"))
        d = int(after.hand[b, p].sum()) - int(before.hand[b, p].sum())
        if d:
            parts.append(_signed(d, "card in hand" if abs(d) == 1 else "cards in hand"))
        gained = after.spirits[b, p].astype(np.int64) - before.spirits[b, p]
        for k in np.flatnonzero(gained > 0):
            parts.append(f"summons {names[k]}")
        for k in np.flatnonzero(gained < 0):
            parts.append(f"loses {names[k]}")
        d = int(after.stones[b, p].sum()) - int(before.stones[b, p].sum())
        if d:
            parts.append(_signed(d, "stone" if abs(d) == 1 else "stones"))
        d = int(after.mana[b, p].sum()) - int(before.mana[b, p].sum())
        if d:
            parts.append(_signed(d, "mana"))
        if after.declarer[b] == p and before.declarer[b] != p:
            parts.append("declares the end: one more round, then the game is over")
        if parts:
            out.append(f"{who}: {', '.join(parts)}")
    revealed = after.offer_public[b] and after.offer[b].any() and not (before.offer_public[b] and before.offer[b].any())
    if revealed:
        out.append(f"revealed: {_cards(after, after.offer[b])}")
    return out


def legal_actions_text(state: State, b: int) -> list[tuple[int, str]]:
    """[(action id, words), ...] for the legal actions of game b."""
    return [(int(a), describe_action(state, b, int(a))) for a in np.nonzero(state.legal_action_mask[b])[0]]


def render_text(state: State, b: int = 0, player: int | None = None) -> str:
    """A readable table of game ``b`` from ``player``'s seat (default: the player who must choose)."""
    cards = state.cards
    P = state.num_players
    me = int(state.current_player[b]) if player is None else int(player)
    ph = Phase(int(state.phase[b]))
    active = int(state.active_player[b])
    scores = final_scores(state)[b]
    faith_cmp = compared_faith(state, b)
    lines = []
    turn = int(state.turn[b])
    status = f"turn {turn + 1} (a game ends when a player declares it; turn limit {state.max_turns})"
    if state.declarer[b] >= 0:
        status += f", end declared by {agent_name(int(state.declarer[b]))}"
    lines.append(f"Age of Summoners, {P} players, {status}")
    lines.append(f"deck {int(state.deck[b].sum())} cards, discard pile {int(state.discard[b].sum())} cards")
    lines.append("")
    for seat in range(P):
        p = (me + seat) % P
        marks = []
        if p == active:
            marks.append("active")
        if p == int(state.current_player[b]) and ph != Phase.GAME_OVER:
            marks.append("to choose")
        if p == me:
            marks.append("you")
        title = f"{agent_name(p)}" + (f" ({', '.join(marks)})" if marks else "")
        faith = f"faith {int(state.faith[b, p])}"
        if faith_cmp[p] != state.faith[b, p]:
            faith += f" (compared as {int(faith_cmp[p])})"
        lines.append(
            f"{title}: VP {int(state.vp[b, p])}, {faith}, hand {int(state.hand[b, p].sum())} cards, "
            f"score now {int(scores[p])}"
        )
        lines.append(f"  spirits: {_cards(state, state.spirits[b, p])}")
        head = int(state.head[b, p])
        mana = state.mana[b, p].copy()
        if head >= 0:
            mana[head] -= 1
        by_colour = np.bincount(cards.colour, weights=mana, minlength=len(COLOURS)).astype(np.int64)
        row = ", ".join(f"{colour} x{int(n)}" for colour, n in zip(COLOURS, by_colour, strict=True) if n) or "-"
        if head >= 0:
            row += f"; head: {cards.names[head]} ({COLOURS[int(cards.colour[head])]} {cards.number[head]})"
        lines.append(f"  mana: {row}; stones: {int(state.stones[b, p].sum())}")
    lines.append("")
    lines.append(f"Your hand ({agent_name(me)}): {_cards(state, state.hand[b, me])}")
    if state.offer[b].any():
        if state.offer_public[b] or me == active:
            lines.append(f"On offer: {_cards(state, state.offer[b])}")
        else:
            lines.append(f"On offer: {int(state.offer[b].sum())} cards (hidden)")
    if ph == Phase.GAME_OVER:
        lines.append("Game over: " + ("truncated at the turn limit" if state.truncated[b] else "finished"))
        lines.append("Final scores: " + ", ".join(f"{agent_name(p)} {int(scores[p])}" for p in range(P)))
    else:
        if ph not in (Phase.COMMAND, Phase.LEPRECHAUN, Phase.LEPRECHAUN_DISCARD):
            n = int(state.command_number[b])
            lines.append(f"Command number {n}: {ACTIONS[game_action_of_number(n)].title()}")
        if state.summon_kind[b] >= 0:
            total = int(state.pay_need[b].sum() + state.pay_any[b])
            need = cost_words(state.pay_need[b], state.pay_any[b])
            lines.append(
                f"Summoning {_label(state, state.summon_kind[b])}: cost after reductions {need}, "
                f"{int(state.paid[b].sum())} of {total} paid"
            )
        lines.append(f"{agent_name(int(state.current_player[b]))} to choose: {QUESTIONS[ph]}")
    return printable("\n".join(lines))
