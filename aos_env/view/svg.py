"""Pictures of the table: one game of a batch as an SVG, and as an RGB frame.

>>> from aos_env import core, render_svg
>>> state = core.init(num_envs=1, num_players=3, seed=0)
>>> svg = render_svg(state, game=0, seat=1)       # player_1's view: their hand too

The picture shows what ``seat`` may know (R9): every player's spirits (with
icons and points), mana row by colour with the waiting head marked, stones,
VP, faith and hand sizes; the seat's own hand; the offer when the seat may see
it (the Festival reveal is public, the two Phase III cards only the active
player's); the command number and the question being decided. ``seat=None``
shows public information only. A finished game shows the final scores and the
winner.

``render_rgb`` rasterises the same picture into an (H, W, 3) uint8 array (the
``rgb_array`` render mode of the AEC env); it needs the ``render`` extra
(``pip install "aos-env[render]"``: resvg-py and Pillow). For a given number
of players (and seat given or not) the picture always has the same size, so
frames make a video.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

import numpy as np

from ..core import Phase, State, final_scores
from ..core.cards import ACTIONS, COLOURS, ICONS, MANA_NAMES
from .render import QUESTIONS, agent_name, cost_words

# ---- look ---------------------------------------------------------------------

#: Fill of each colour (cards.COLOURS order) and the ink that reads on it.
FILL = {"black": "#2b2b2b", "green": "#2e7d32", "red": "#c62828", "yellow": "#f2c200", "blue": "#1f5fbf"}
INK = {"black": "#ffffff", "green": "#ffffff", "red": "#ffffff", "yellow": "#3b2f00", "blue": "#ffffff"}
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
BACKGROUND = "#f4efe4"
PANEL = "#fffdf8"
EDGE = "#d6ccb8"
TEXT = "#2a2623"
MUTED = "#7a7167"
ACCENT = "#8f5c00"  # the active player (white text on it: 5.5:1)
CHOOSER = "#b03a00"  # the player who must choose now (6:1 on the panels)
YOU = "#0b7285"
STONE_FILL = "#6f6a62"
HEADER = "#3d3350"

# Sizes in px. All are even, so the frame suits video encoders (yuv420p needs even sides).
WIDTH = 960
MARGIN = 16
HEADER_H = 44
GAP = 8
STATUS_H = 112
PANEL_H = 112
HAND_H = 116
CARD_W, CARD_H = 100, 84  # hand and offer cards
CARD_MIN_W = 70  # narrower cards when the hand holds many kinds; beyond that "+n more"
SPIRIT_W, SPIRIT_H = 90, 44
SPIRIT_MIN_W = 64
MAX_OFFER = 3

#: Icon glyphs on a 12 x 12 grid (cards.ICONS order): axe, staff, sword, shield, armour.
ICON_PATHS = {
    "axe": "M5.3 0.5h1.4v11.5H5.3z M6.7 2.6L10 0.6C11.8 2.4 11.8 6.6 10 8.4L6.7 6.4z",
    "staff": "M5.3 4h1.4v8H5.3z M6 0.4a2.3 2.3 0 1 1 0 4.6a2.3 2.3 0 1 1 0-4.6z",
    "sword": "M5.2 0.4h1.6l0.2 7.2H5z M2.4 7.6h7.2V9H2.4z M5.4 9h1.2v2.2H5.4z "
    "M6 10.8a0.9 0.9 0 1 1 0 1.2a0.9 0.9 0 1 1 0-1.2z",
    "shield": "M6 0.5L11 2.2C11 7 9.6 10 6 11.8C2.4 10 1 7 1 2.2z",
    "armour": "M1 2.6L4 1C4.6 2.6 7.4 2.6 8 1L11 2.6L10 5.3L9 4.9V11.5H3V4.9L2 5.3z",
}


# ---- argument checks ------------------------------------------------------------


def _check(state: State, game, seat) -> tuple[int, int | None]:
    if not isinstance(state, State):
        raise TypeError(f"state must be an aos_env.core.State, got {type(state).__name__}")
    B, P = state.batch_size, state.num_players
    if isinstance(game, bool) or not isinstance(game, (int, np.integer)) or not 0 <= game < B:
        raise ValueError(f"game must be an int from 0 to {B - 1} (the batch holds {B} games), got {game!r}")
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < P):
        raise ValueError(f"seat must be None (public view) or an int from 0 to {P - 1}, got {seat!r}")
    return int(game), (None if seat is None else int(seat))


# ---- drawing helpers --------------------------------------------------------------


def _attr(value) -> str:
    return escape(str(value), {'"': "&quot;"})


def _text(
    x: float,
    y: float,
    text: str,
    size: float = 13,
    fill: str = TEXT,
    weight: str = "normal",
    anchor: str = "start",
    italic: bool = False,
) -> str:
    attrs = f'x="{x:g}" y="{y:g}" font-size="{size:g}"'
    if fill != TEXT:  # the defaults are set once on the <svg> element (the pictures are large enough)
        attrs += f' fill="{fill}"'
    if weight != "normal":
        attrs += f' font-weight="{weight}"'
    if anchor != "start":
        attrs += f' text-anchor="{anchor}"'
    if italic:
        attrs += ' font-style="italic"'
    return f"<text {attrs}>{escape(text)}</text>"


def _rect(
    x: float,
    y: float,
    w: float,
    h: float,
    fill: str,
    stroke: str = "none",
    sw: float = 1,
    rx: float = 4,
    title: str | None = None,
) -> str:
    shape = (
        f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{rx:g}" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="{sw:g}"'
    )
    if title is None:
        return shape + "/>"
    return shape + f"><title>{escape(title)}</title></rect>"


def _text_width(text: str, size: float, bold: bool = False) -> float:
    """A width estimate for DejaVu Sans: em widths of capitals, digits, narrow and other letters."""
    em = 0.0
    for ch in text:
        if ch.isupper():
            em += 0.72
        elif ch.isdigit():
            em += 0.64
        elif ch in " .,:;'!|il()[]-":
            em += 0.34
        else:
            em += 0.6
    return em * size * (1.08 if bold else 1.0)


def _fit(text: str, width: float, size: float, bold: bool = False) -> str:
    """``text`` cut (with an ellipsis) to fit ``width`` px."""
    if _text_width(text, size, bold) <= width:
        return text
    while len(text) > 1 and _text_width(text + "…", size, bold) > width:
        text = text[:-1]
    return text + "…"


def _wrap(text: str, width: float, size: float) -> list[str]:
    per_line = max(8, int(width / (size * 0.6)))
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > per_line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + ([line] if line else [])


def _icon(x: float, y: float, icon: str, fill: str, scale: float = 1.0) -> str:
    return (
        f'<path transform="translate({x:g},{y:g}) scale({scale:g})" d="{ICON_PATHS[icon]}" fill="{fill}">'
        f"<title>{icon}</title></path>"
    )


def _icons_and_points(state: State, k: int, x: float, y: float, ink: str, right: float) -> list[str]:
    """The icons of kind k from (x, y), and its points as a badge ending at ``right``."""
    out = []
    cards = state.cards
    for i, icon in enumerate(ICONS):
        for _ in range(int(cards.icons[k, i])):
            out.append(_icon(x, y - 1, icon, ink, 1.2))
            x += 16
    points = int(cards.points[k])
    out.append(
        f'<circle cx="{right - 8:g}" cy="{y + 6:g}" r="7.5" fill="#ffffff" stroke="{TEXT}" stroke-width="1">'
        f"<title>{points} points</title></circle>"
    )
    out.append(_text(right - 8, y + 10, str(points), 10, TEXT, "bold", "middle"))
    return out


def _count_badge(x: float, y: float, n: int) -> list[str]:
    if n < 2:
        return []
    return [
        f'<circle cx="{x:g}" cy="{y:g}" r="9" fill="{TEXT}" stroke="#ffffff" stroke-width="1.5"/>',
        _text(x, y + 4, f"×{n}", 9.5, "#ffffff", "bold", "middle"),
    ]


def _card(state: State, k: int, n: int, x: float, y: float, w: float = CARD_W, h: float = CARD_H) -> list[str]:
    """A card of kind k (n copies): colour band with number and name, cost, icons and points."""
    cards = state.cards
    colour = COLOURS[int(cards.colour[k])]
    fill, ink = FILL[colour], INK[colour]
    tip = f"{cards.label(k)}: {colour} ({int(cards.number[k])}), cost {cards.cost_text(k)}. {cards.texts[k]}"
    out = [
        f'<g data-card="{_attr(cards.names[k])}" data-count="{n}">',
        _rect(x, y, w, h, PANEL, fill, 2, 6, tip),
        _rect(x, y, w, 24, fill, fill, 2, 6),
        _rect(x, y + 16, w, 8, fill, "none", 0, 0),
    ]
    out.append(f'<circle cx="{x + 12:g}" cy="{y + 12:g}" r="8" fill="{ink}"/>')
    out.append(_text(x + 12, y + 16, str(int(cards.number[k])), 11, fill, "bold", "middle"))
    out.append(_text(x + 23, y + 16.5, _fit(cards.names[k], w - 27, 11, True), 11, ink, "bold"))
    cx = x + 10
    for c in range(len(COLOURS)):  # the cost, one dot a symbol (the words below name the colours)
        for _ in range(int(cards.cost[k, c])):
            out.append(
                f'<circle cx="{cx:g}" cy="{y + 38:g}" r="6.5" fill="{FILL[COLOURS[c]]}" stroke="{TEXT}" '
                f'stroke-width="0.6"/>'
            )
            cx += 14
    for _ in range(int(cards.cost_any[k])):
        out.append(f'<circle cx="{cx:g}" cy="{y + 38:g}" r="6.5" fill="#ffffff" stroke="{TEXT}" stroke-width="0.8"/>')
        cx += 14
    out.append(_text(x + 6, y + 59, _fit(cost_words(cards.cost[k], cards.cost_any[k]), w - 10, 10), 10, MUTED))
    out += _icons_and_points(state, k, x + 6, y + h - 19, TEXT, x + w - 4)
    out += _count_badge(x + w - 6, y + 4, n)
    out.append("</g>")
    return out


def _card_back(x: float, y: float, w: float = CARD_W, h: float = CARD_H) -> list[str]:
    return [
        _rect(x, y, w, h, HEADER, EDGE, 2, 6, "a face-down card"),
        _rect(x + 6, y + 6, w - 12, h - 12, "none", "#8c7fa6", 1.5, 4),
        _text(x + w / 2, y + h / 2 + 5, "?", 20, "#c9bfe0", "bold", "middle"),
    ]


def _spirit(state: State, k: int, n: int, x: float, y: float, w: float) -> list[str]:
    cards = state.cards
    colour = COLOURS[int(cards.colour[k])]
    fill, ink = FILL[colour], INK[colour]
    tip = f"{cards.label(k)}: {int(cards.points[k])} points. {cards.texts[k]}"
    out = [
        f'<g data-card="{_attr(cards.names[k])}" data-count="{n}">',
        _rect(x, y, w, SPIRIT_H, fill, "#00000033", 1, 5, tip),
    ]
    out.append(_text(x + 5, y + 14, _fit(cards.names[k], w - 8, 10.5, True), 10.5, ink, "bold"))
    out += _icons_and_points(state, k, x + 5, y + 24, ink, x + w - 3)
    if n > 1:  # copies: beside the points, so that the name keeps the tile's width
        out.append(_text(x + w - 23, y + 34.5, f"×{n}", 12, ink, "bold", "end"))
    out.append("</g>")
    return out


def _kinds(counts: np.ndarray) -> list[tuple[int, int]]:
    return [(int(k), int(n)) for k, n in enumerate(counts) if n > 0]


def _row(items: list[tuple[int, int]], x: float, avail: float, full_w: float, min_w: float, gap: float):
    """Tile width for ``items`` in ``avail`` px, the items shown and those left over."""
    n = len(items)
    if not n:
        return full_w, [], []
    w = min(full_w, (avail + gap) / n - gap)
    if w >= min_w:
        return w, items, []
    fits = max(1, int((avail + gap) // (min_w + gap)) - 1)  # keep room for a "+n more" tile
    return min_w, items[:fits], items[fits:]


def _more(state: State, rest: list[tuple[int, int]], x: float, y: float, w: float, h: float) -> list[str]:
    names = ", ".join(state.cards.names[k] + (f" ×{n}" if n > 1 else "") for k, n in rest)
    out = [
        _rect(x, y, w, h, PANEL, EDGE, 1, 5, names),
        _text(x + w / 2, y + 15, f"+{len(rest)} more", 10, TEXT, "bold", "middle"),
    ]
    for i, line in enumerate(_wrap(names, w - 6, 8)[: int((h - 20) // 10)]):
        out.append(_text(x + w / 2, y + 27 + 10 * i, line, 8, MUTED, anchor="middle"))
    return out


def _chip_width(label: str, value: str) -> float:
    return _text_width(label, 11) + _text_width(value, 13, True) + 20


def _chip(
    x: float, y: float, label: str, value: str, fill: str = "#efe8da", title: str | None = None, key: str | None = None
) -> tuple[list[str], float]:
    """A chip "label value" (a group marked ``data-stat=key``); returns its elements and its width."""
    w = _chip_width(label, value)
    out = [
        f'<g data-stat="{_attr(key or label)}">',
        _rect(x, y, w, 22, fill, EDGE, 1, 11, title),
        _text(x + 9, y + 15, label, 11, MUTED),
        _text(x + 13 + _text_width(label, 11), y + 15.5, value, 13, TEXT, "bold"),
        "</g>",
    ]
    return out, w


def _pill(x: float, y: float, text: str, fill: str) -> tuple[list[str], float]:
    w = _text_width(text, 10.5, True) + 14
    pill = [_rect(x, y, w, 18, fill, "none", 0, 9), _text(x + w / 2, y + 13, text, 10.5, "#ffffff", "bold", "middle")]
    return pill, w


def _action_name(number: int) -> str:
    """The action a command number gives (R6 table; R10.3: <= 3 Conquest, >= 9 Pilgrimage)."""
    return ACTIONS[min(max(number, 3), 9) - 3].title()


# ---- the picture -------------------------------------------------------------------


def picture_size(num_players: int, with_hand: bool) -> tuple[int, int]:
    """(width, height) in px of every picture of a ``num_players`` game (with a seat's hand or not)."""
    h = HEADER_H + GAP + STATUS_H + GAP + num_players * (PANEL_H + GAP) + (HAND_H + GAP if with_hand else 0) + GAP
    return WIDTH, h


def render_svg(state: State, game: int = 0, seat: int | None = None, you: str | None = "you") -> str:
    """Game ``game`` of ``state`` as an SVG picture, from ``seat``'s point of view (None: public only).

    ``you``: how the seat is marked ("you" for a person at the table; None for a game watched, as in
    a replay of bots: the seat is then marked "hand shown" and nothing says "you")."""
    b, me = _check(state, game, seat)
    if you is not None and not isinstance(you, str):
        raise ValueError(f"you must be None or a string, got {you!r:.40}")
    P = state.num_players
    W, H = picture_size(P, me is not None)
    ph = Phase(int(state.phase[b]))
    over = ph == Phase.GAME_OVER
    active = int(state.active_player[b])
    chooser = None if over else int(state.current_player[b])
    scores = final_scores(state)[b]
    pegasus = state.spirits[b].astype(np.int64) @ np.asarray(state.cards.special["pegasus"])
    compared = state.faith[b] + 2 * pegasus  # Pegasus: faith counts 2 higher in comparisons

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        f'font-family="{FONT}" fill="{TEXT}" role="img" aria-label="the table: {_attr(QUESTIONS[ph])}">',
        f"<title>Age of Summoners, game {b}: {escape(QUESTIONS[ph])}</title>",
        f'<rect width="{W}" height="{H}" fill="{BACKGROUND}"/>',
    ]

    # header: the game and its counters
    out.append(_rect(0, 0, W, HEADER_H, HEADER, rx=0))
    out.append(_text(MARGIN, 29, "Age of Summoners", 19, "#ffffff", "bold"))
    turns = f"{int(state.turn[b])} turns played" if over else f"turn {int(state.turn[b]) + 1}"
    info = [f"{P} players", turns, f"deck {int(state.deck[b].sum())}", f"discard {int(state.discard[b].sum())}"]
    if state.batch_size > 1:
        info.insert(0, f"game {b} of {state.batch_size}")
    if state.declarer[b] >= 0:
        info.append(f"end declared by {agent_name(int(state.declarer[b]))}")
    out.append(_text(W - MARGIN, 28, "  ·  ".join(info), 13, "#e6def5", anchor="end"))

    # status: what is being decided (or the result), and the cards on offer
    y = HEADER_H + GAP
    out += ['<g class="status">', *_status(state, b, me, ph, scores, MARGIN, y, W - 2 * MARGIN, you), "</g>"]

    # one panel per player, in seat order
    y += STATUS_H + GAP
    for p in range(P):
        out.append(f'<g class="panel" data-player="{agent_name(p)}">')
        out += _panel(
            state, b, p, me, active, chooser, int(scores[p]), int(compared[p]), MARGIN, y, W - 2 * MARGIN, you
        )
        out.append("</g>")
        y += PANEL_H + GAP

    if me is not None:
        out += [
            f'<g class="hand" data-player="{agent_name(me)}">',
            *_hand(state, b, me, MARGIN, y, W - 2 * MARGIN),
            "</g>",
        ]
    out.append("</svg>")
    return "\n".join(out)


def _status(
    state: State,
    b: int,
    me: int | None,
    ph: Phase,
    scores: np.ndarray,
    x: float,
    y: float,
    w: float,
    you: str | None = "you",
) -> list[str]:
    P = state.num_players
    out = [_rect(x, y, w, STATUS_H, PANEL, EDGE, 1, 8)]
    offer = _kinds(state.offer[b])
    offer_w = (CARD_W + 8) * MAX_OFFER + 8 if state.offer[b].any() else 0
    text_w = w - 28 - offer_w
    tx, ty = x + 14, y + 26
    if ph == Phase.GAME_OVER:
        if state.truncated[b]:
            head = "Game over: the turn limit was reached, nobody wins"
        else:
            winner = int(np.argmax(state.rewards[b]))
            head = f"Game over: {agent_name(winner)} wins with {int(scores[winner])} points"
        out.append(_text(tx, ty, head, 17, TEXT, "bold"))
        order = sorted(range(P), key=lambda p: -int(scores[p]))
        cx = tx
        for p in order:
            chip, cw = _chip(cx, ty + 14, agent_name(p), str(int(scores[p])), "#fff3d6" if p == order[0] else "#efe8da")
            out += chip
            cx += cw + 8
        out.append(
            _text(tx, ty + 62, "Final scores: VP chips + points of spirits + game-end abilities (R7.3)", 11, MUTED)
        )
        return out
    chooser = int(state.current_player[b])
    if ph in (Phase.COMMAND, Phase.LEPRECHAUN, Phase.LEPRECHAUN_DISCARD):
        head = f"{agent_name(int(state.active_player[b]))}'s turn" + (
            f" ({you})" if you and state.active_player[b] == me else ""
        )
    else:
        n = int(state.command_number[b])
        head = f"Command number {n}: {_action_name(n)}"
    out.append(_text(tx, ty, head, 17, TEXT, "bold"))
    who = agent_name(chooser) + (f" ({you})" if you and chooser == me else "")
    lines = _wrap(f"{who} to choose: {QUESTIONS[ph]}", text_w, 13)
    for i, line in enumerate(lines[:2]):
        out.append(_text(tx, ty + 22 + 17 * i, line, 13, CHOOSER if i == 0 else TEXT, "bold" if i == 0 else "normal"))
    if state.summon_kind[b] >= 0:
        k = int(state.summon_kind[b])
        need = cost_words(state.pay_need[b], state.pay_any[b])
        total = int(state.pay_need[b].sum() + state.pay_any[b])
        out.append(
            _text(
                tx,
                ty + 62,
                f"Summoning {state.cards.label(k)}: cost after reductions {need}, "
                f"{int(state.paid[b].sum())} of {total} paid",
                12,
                TEXT,
            )
        )
    if offer_w:
        out.append('<g class="offer">')
        ox = x + w - offer_w + 4
        public = bool(state.offer_public[b])
        seen = public or me == int(state.active_player[b])
        owner = agent_name(int(state.active_player[b]))
        if public:
            caption = "Festival: revealed to all"
        elif seen:
            # seen and not public: the seat is the active player
            caption = "Drawn by you (only you see them)" if you else f"Drawn by {owner} (only they see them)"
        else:
            caption = f"{int(state.offer[b].sum())} cards drawn by {owner} (hidden)"
        out.append(_text(ox, y + 14, caption, 10.5, MUTED, "bold"))
        cx = ox
        if seen:
            for k, n in offer[:MAX_OFFER]:
                out += _card(state, k, n, cx, y + 21)
                cx += CARD_W + 8
        else:
            for _ in range(min(int(state.offer[b].sum()), MAX_OFFER)):
                out += _card_back(cx, y + 21)
                cx += CARD_W + 8
        out.append("</g>")
    return out


def _panel(
    state: State,
    b: int,
    p: int,
    me: int | None,
    active: int,
    chooser: int | None,
    score: int,
    compared: int,
    x: float,
    y: float,
    w: float,
    you: str | None = "you",
) -> list[str]:
    cards = state.cards
    edge, width = (ACCENT, 3) if p == active else (EDGE, 1)
    out = [_rect(x, y, w, PANEL_H, PANEL, edge, width, 8)]
    out.append(_text(x + 14, y + 23, agent_name(p), 15, TEXT, "bold"))
    px = x + 20 + _text_width(agent_name(p), 15, True)
    marks = ((p == active, "active", ACCENT), (p == chooser, "to choose", CHOOSER), (p == me, you or "hand shown", YOU))
    for flag, label, colour in marks:
        if flag:
            pill, pw = _pill(px, y + 9, label, colour)
            out += pill
            px += pw + 5

    # the stats, right-aligned
    faith = str(int(state.faith[b, p]))
    faith_tip = None
    if compared != state.faith[b, p]:
        faith += f" (counts {compared})"
        faith_tip = "Pegasus: faith counts 2 higher per Pegasus when compared (Festival, Inquisition)"
    stats = [
        ("VP", str(int(state.vp[b, p])), None),
        ("faith", faith, faith_tip),
        ("hand", str(int(state.hand[b, p].sum())), "cards in hand"),
        ("stones", str(int(state.stones[b, p].sum())), "philosopher's stones in the mana row"),
        ("score", str(score), "VP + points of spirits + game-end abilities, if the game ended now"),
    ]
    widths = [_chip_width(lab, val) for lab, val, _ in stats]
    cx = x + w - 12 - sum(widths) - 6 * (len(stats) - 1)
    for (lab, val, tip), cw in zip(stats, widths, strict=True):
        chip, _ = _chip(cx, y + 8, lab, val, "#fff3d6" if lab == "score" else "#efe8da", tip, lab)
        out += chip
        cx += cw + 6

    # spirits
    sy = y + 36
    out.append(_text(x + 14, sy + 26, "Spirits", 11, MUTED, "bold"))
    spirits = _kinds(state.spirits[b, p])
    sx0, avail = x + 72, w - 72 - 12
    tw, shown, rest = _row(spirits, sx0, avail, SPIRIT_W, SPIRIT_MIN_W, 5)
    if not spirits:
        out.append(_text(sx0, sy + 26, "none in play", 11, MUTED, italic=True))
    sx = sx0
    for k, n in shown:
        out += _spirit(state, k, n, sx, sy, tw)
        sx += tw + 5
    if rest:
        out += _more(state, rest, sx, sy, tw, SPIRIT_H)
    total = int(state.spirits[b, p].sum())
    if total:
        out.append(_text(x + 14, sy + 40, f"{total} in play", 9, MUTED))

    # mana row: face-up mana by colour, the waiting head, the stones
    my = y + PANEL_H - 28
    out.append(_text(x + 14, my + 16, "Mana", 11, MUTED, "bold"))
    head = int(state.head[b, p])
    mana = state.mana[b, p].astype(np.int64)
    if head >= 0:
        mana[head] -= 1
    mx = x + 72
    any_mana = False
    for c, colour in enumerate(COLOURS):
        of_colour = [(k, n) for k, n in _kinds(mana) if cards.colour[k] == c]
        n = sum(n for _, n in of_colour)
        if not n:
            continue
        any_mana = True
        tip = f"{n} {MANA_NAMES[c]} ({colour} {c + 1}): " + ", ".join(
            cards.names[k] + (f" ×{m}" if m > 1 else "") for k, m in of_colour
        )
        cw = _text_width(f"{colour} ×{n}", 11, True) + 14
        out.append(_rect(mx, my, cw, 22, FILL[colour], "#00000033", 1, 4, tip))
        out.append(_text(mx + 7, my + 15.5, f"{colour} ×{n}", 11, INK[colour], "bold"))
        mx += cw + 6
    if head >= 0:
        colour = COLOURS[int(cards.colour[head])]
        label = f"head: {cards.names[head]} ({colour} {int(cards.number[head])})"
        hw = _text_width(label, 11, True) + 22
        out.append(
            _rect(
                mx,
                my - 1,
                hw,
                24,
                FILL[colour],
                ACCENT,
                3,
                4,
                "the waiting head: the next command card is added to its number (R4.5)",
            )
        )
        out.append(_text(mx + 8, my + 15.5, label, 11, INK[colour], "bold"))
        mx += hw + 8
        any_mana = True
    n_stones = int(state.stones[b, p].sum())
    if n_stones:
        label = f"{n_stones} stone" + ("s" if n_stones > 1 else "")
        sw = _text_width(label, 11, True) + 16
        out.append(
            _rect(
                mx, my, sw, 22, STONE_FILL, "#00000055", 1, 4, "philosopher's stones: face down, pay any symbol (R4.1)"
            )
        )
        out.append(_text(mx + 8, my + 15.5, label, 11, "#ffffff", "bold"))
        any_mana = True
    if not any_mana:
        out.append(_text(mx, my + 16, "empty", 11, MUTED, italic=True))
    return out


def _hand(state: State, b: int, me: int, x: float, y: float, w: float) -> list[str]:
    hand = _kinds(state.hand[b, me])
    n = int(state.hand[b, me].sum())
    out = [
        _rect(x, y, w, HAND_H, PANEL, YOU, 1.5, 8),
        _text(x + 14, y + 19, f"Hand of {agent_name(me)}: {n} card" + ("" if n == 1 else "s"), 12, YOU, "bold"),
    ]
    if not hand:
        out.append(_text(x + 14, y + 60, "no cards in hand", 12, MUTED, italic=True))
        return out
    cw, shown, rest = _row(hand, x + 10, w - 20, CARD_W, CARD_MIN_W, 7)
    cx = x + 10
    for k, m in shown:
        out += _card(state, k, m, cx, y + 26, cw)
        cx += cw + 7
    if rest:
        out += _more(state, rest, cx, y + 26, cw, CARD_H)
    return out


# ---- rasterising ---------------------------------------------------------------------


def svg_to_rgb(svg: str) -> np.ndarray:
    """Rasterise an SVG (e.g. from ``render_svg``) into an (H, W, 3) uint8 array.

    Uses resvg (through the resvg-py wheel) with the system fonts; text needs a
    sans-serif font such as DejaVu Sans (Debian: ``fonts-dejavu-core``).
    """
    try:
        import io

        import resvg_py
        from PIL import Image
    except ImportError as e:  # the render extra is not installed
        raise ImportError(
            f"pictures as pixels (render_mode='rgb_array', render_rgb) need resvg-py and Pillow: "
            f'pip install "aos-env[render]" ({e})'
        ) from None
    png = resvg_py.svg_to_bytes(svg_string=svg, background=BACKGROUND)
    with Image.open(io.BytesIO(bytes(png))) as img:
        return np.asarray(img.convert("RGB"), dtype=np.uint8).copy()


def render_rgb(state: State, game: int = 0, seat: int | None = None) -> np.ndarray:
    """``render_svg(state, game, seat)`` as an (H, W, 3) uint8 frame."""
    return svg_to_rgb(render_svg(state, game, seat))
