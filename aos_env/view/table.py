"""What a newcomer needs beside the picture: the cards' texts, notes on each choice, and the rules
in short (the play page shows them; the words follow docs/rules.md).

One colour vocabulary everywhere: a mana or a cost is named by its colour ("2 green + 1 any"),
as the chips of the picture and the buttons of the page name it.
"""

from __future__ import annotations

from html import escape

import numpy as np

from ..core import Phase, State, final_scores
from ..core.cards import COLOURS, ICONS, CardSet
from ..core.constants import ACT, NO, TARGET_1, YES, game_action_of_number
from .render import agent_name, cost_words

#: The end condition (R7.1-R7.5), in one sentence.
END_RULE = (
    "At the end of your turn, with 10 or more spirits in play or 30 or more VP chips, you may declare the "
    "end: everyone then plays one more turn (the declarer last) and the highest score wins (VP chips + "
    "the points on your spirits + game-end abilities); a tie goes to the player nearest the declarer's left."
)

#: The command numbers (R6), lowest first: (numbers, action, what it does).
ACTION_RULES = (
    ("3 or less", "Conquest", "1 VP per axe and sword on your spirits, then take 1 VP chip from another player."),
    ("4", "Research", "1 VP per stone you have, then turn one face-up mana into a stone."),
    ("5", "Alchemy", "Draw 1 card and gain a stone, or gain 1 faith and a stone."),
    ("6", "Prayer", "Draw 2 cards, or discard any cards and draw up to 5."),
    ("7", "Festival", "Gain 1 faith, reveal 2 cards: both go to your mana if someone has less faith, else one."),
    ("8", "Inquisition", "Draw 3 cards (2 with 4 players); each player with less faith gives you a card."),
    ("9 or more", "Pilgrimage", "Score VP equal to your faith, or draw 1 card and gain 1 faith."),
)

#: A turn in three steps (R3).
TURN_RULES = (
    "Phase I: play a card from your hand onto your mana row; its number plus the head's number is the command number.",
    "Phase II: summon a spirit from your hand (pay its cost with mana of your row), or perform the "
    "action of the command number.",
    "Phase III: draw 2 cards, keep 1; the other goes to your right neighbour's mana row as their new head.",
)


def rules_html() -> str:
    """The rules panel of the play page (static HTML: no data from a game)."""
    rows = "".join(
        f"<tr><td>{escape(n)}</td><th scope='row'>{escape(a)}</th><td>{escape(t)}</td></tr>" for n, a, t in ACTION_RULES
    )
    turn = "".join(f"<li>{escape(t)}</li>" for t in TURN_RULES)
    return (
        f"<p><strong>Goal.</strong> {escape(END_RULE)}</p>"
        f"<p><strong>A turn.</strong></p><ol>{turn}</ol>"
        "<table class='rules'><caption>Command number and action</caption>"
        "<thead><tr><th scope='col'>number</th><th scope='col'>action</th><th scope='col'>what it does</th></tr>"
        f"</thead><tbody>{rows}</tbody></table>"
        "<p><strong>Colours.</strong> Mana and costs are named by colour: "
        f"{', '.join(COLOURS)}; 'any' is paid by any colour, and a stone pays anything.</p>"
        "<p><strong>Seats.</strong> Play passes to the left (player_0, player_1, ...); the card you do not keep "
        "goes to your right neighbour.</p>"
    )


def card_texts(cards: CardSet) -> dict[str, dict]:
    """Every kind by name: how it is shown, colour, number, cost in words, points, icons and text."""
    out = {}
    for k in range(cards.num_kinds):
        icons = ", ".join(f"{int(n)} {ICONS[i]}" for i, n in enumerate(cards.icons[k]) if n)
        out[cards.names[k]] = {
            "label": cards.label(k),
            "colour": COLOURS[int(cards.colour[k])],
            "number": int(cards.number[k]),
            "cost": cost_words(cards.cost[k], cards.cost_any[k]),
            "points": int(cards.points[k]),
            "icons": icons or "none",
            "text": str(cards.texts[k]),
        }
    return out


def hand(state: State, seat: int, b: int = 0) -> list[dict]:
    """The seat's hand: [{"name": ..., "count": n}], in card order."""
    names = state.cards.names
    return [{"name": names[k], "count": int(n)} for k, n in enumerate(state.hand[b, seat]) if n]


def action_notes(state: State, action: int, seat: int, b: int = 0) -> dict:
    """What a newcomer should know about one legal action of ``seat``: ``card`` (the card it names,
    whose text the page can show), ``detail`` (cost, points, what an action does) and ``warn`` (a
    reason to think twice, such as declaring the end while behind)."""
    cards = state.cards
    ph = Phase(int(state.phase[b]))
    out: dict = {}
    if action < cards.num_kinds:
        k = action
        out["card"] = cards.names[k]
        colour = COLOURS[int(cards.colour[k])]
        if ph == Phase.MAIN:
            points = int(cards.points[k])
            out["detail"] = f"cost {cost_words(cards.cost[k], cards.cost_any[k])}, {points} point" + "s" * (points != 1)
        else:
            out["detail"] = f"{colour} {int(cards.number[k])}"
    elif action == ACT:
        _, name, text = ACTION_RULES[game_action_of_number(int(state.command_number[b]))]
        out["detail"] = text
    elif TARGET_1 <= action < TARGET_1 + 3:
        target = (int(state.active_player[b]) + action - TARGET_1 + 1) % state.num_players
        out["detail"] = f"{agent_name(target)} has {int(state.vp[b, target])} VP chips"
    if ph == Phase.DECLARE and action in (YES, NO):
        scores = final_scores(state)[b]
        others = np.delete(scores, seat)
        best = int(np.argmax(np.where(np.arange(len(scores)) == seat, -(10**9), scores)))
        if action == YES and int(scores[seat]) <= int(others.max()):
            out["warn"] = (
                f"You are behind: your score is {int(scores[seat])}, {agent_name(best)} has {int(scores[best])}. "
                "Declaring ends the game after one more round; a tie goes against the declarer."
            )
        out["detail"] = "everyone plays one more turn, you last, then the game ends" if action == YES else ""
    return out
