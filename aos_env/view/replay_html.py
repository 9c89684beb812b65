"""The HTML replay page: one self-contained file that steps through a game and shows why each
player chose as it did (``python -m aos_env.view.replay FILE --html OUT``).

Per position: the table (SVG, from the chooser's seat or a fixed one), the move in words, what
the agent weighed there (its most likely legal actions as bars, and its value estimate; see
:mod:`aos_env.view.explain`), and, with the "all hands" switch, every player's hand. Below: a
score and VP timeline of the whole game (inline SVG) and the list of moves, which follows the
position shown. Nothing is loaded from elsewhere, and the page's strict policy lets only its own
script and style run (:func:`aos_env.view.replay.page_policy`).
"""

from __future__ import annotations

import json
import re

import numpy as np

from .. import core
from .render import consequences, describe_move

#: Line colours of the players in the timeline (readable on white, told apart without colour by
#: the legend's order and the line styles).
PLAYER_COLOURS = ("#1f5fbf", "#b3261e", "#2e7d32", "#7b3fa0")
#: The timeline's drawing area, in px of its viewBox.
CHART_W, CHART_H, CHART_PAD = 640, 170, 30


def esc(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _hands(state: core.State) -> list[str]:
    names = state.cards.names
    out = []
    for p in range(state.num_players):
        row = state.hand[0, p]
        out.append(", ".join(names[k] + (f" ×{int(n)}" if n > 1 else "") for k, n in enumerate(row) if n) or "no cards")
    return out


def _weighed_view(replay, states: list[core.State], i: int) -> dict | None:
    """Move i's weighing as the page shows it: each action in words, its number, and which was chosen."""
    item = replay.weighing(i)
    if not item:
        return None
    state = states[i]
    chosen = replay.actions[i][1]
    rows = [[describe_move(state, 0, a), float(x), a == chosen] for a, x in item["actions"]]
    return {"by": item["by"], "value": item.get("value"), "rows": rows}


def timeline(states: list[core.State], labels: list[str]) -> str:
    """An inline SVG of every player's score (solid) and VP chips (dashed) over the positions, with a
    marker (``#tl-now``) the page moves to the position shown."""
    P = states[0].num_players
    scores = np.array([core.final_scores(s)[0] for s in states], dtype=float)
    vp = np.array([s.vp[0] for s in states], dtype=float)
    top = max(10.0, float(max(scores.max(), vp.max())))
    n = max(1, len(states) - 1)
    w, h, pad = CHART_W, CHART_H, CHART_PAD

    def xy(i: int, v: float) -> str:
        return f"{pad + (w - pad - 8) * i / n:.1f},{h - pad + 10 - (h - pad) * v / top:.1f}"

    out = [
        f'<svg id="timeline" viewBox="0 0 {w} {h + 4}" role="img" '
        f'aria-label="score and VP of each player over the game">',
        f'<rect x="{pad}" y="10" width="{w - pad - 8}" height="{h - pad}" fill="#ffffff" stroke="#d6ccb8"/>',
    ]
    for frac in (0.0, 0.5, 1.0):
        v = top * frac
        y = h - pad + 10 - (h - pad) * frac
        out.append(f'<text x="{pad - 4}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{v:.0f}</text>')
    out.append(f'<text x="{pad}" y="{h + 2}" font-size="11">start</text>')
    out.append(f'<text x="{w - 8}" y="{h + 2}" font-size="11" text-anchor="end">move {len(states) - 1}</text>')
    for p in range(P):
        colour = PLAYER_COLOURS[p % len(PLAYER_COLOURS)]
        line = " ".join(xy(i, v) for i, v in enumerate(scores[:, p]))
        chips = " ".join(xy(i, v) for i, v in enumerate(vp[:, p]))
        out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        out.append(
            f'<polyline points="{chips}" fill="none" stroke="{colour}" stroke-width="1.5" stroke-dasharray="4 3"/>'
        )
    out.append(f'<line id="tl-now" x1="{pad}" x2="{pad}" y1="10" y2="{h - pad + 10}" stroke="#2a2623"/>')
    out.append("</svg>")
    legend = "".join(
        f'<li><span class="swatch p{p}"></span>{esc(labels[p])}: score (solid), VP chips (dashed)</li>'
        for p in range(P)
    )
    return "".join(out) + f'<ul class="legend">{legend}</ul>'


def build(replay, states: list[core.State], seat: int | None, title: str, result: str) -> str:
    """The page (see the module docstring); ``seat`` None: each position from its chooser's seat."""
    from .svg import render_svg

    P = replay.num_players
    views = []
    for i, state in enumerate(states):
        s = view_seat(replay, i, seat)
        views.append(render_svg(state, 0, s, you="you" if replay.players[s] == "human" else None))
    labels = [replay.player_label(p) for p in range(P)]
    steps = []
    for i, (p, a) in enumerate(replay.actions):
        before, after = states[i], states[i + 1]
        steps.append(
            {
                "turn": int(before.turn[0]) + 1,
                "who": labels[p],
                "what": describe_move(before, 0, a),
                "then": consequences(before, after),
                "weighed": _weighed_view(replay, states, i),
            }
        )
    data = {
        "steps": steps,
        "result": result,
        "hands": [_hands(s) for s in states],
        "labels": labels,
        "shownFrom": [labels[view_seat(replay, i, seat)] for i in range(len(states))],
        "fixed": seat is not None,
    }
    positions = "\n".join(f'<div class="pos" id="pos{i}" hidden>{svg}</div>' for i, svg in enumerate(views))
    items = "\n".join(
        f'<li><button type="button" class="move" data-i="{i}">turn {st["turn"]}, {esc(st["who"])}: '
        f"{esc(st['what'])}</button></li>"
        for i, st in enumerate(steps)
    )
    items += f'\n<li><button type="button" class="move" data-i="{len(steps)}">{esc(result)}</button></li>'
    script_data = json.dumps(data).replace("<", "\\u003c")  # no "</script>" or "<!--" in the script's text
    fields = {
        "title": esc(title),
        "last": str(len(states) - 1),
        "positions": positions,
        "items": items,
        "timeline": timeline(states, labels),
        "data": script_data,
    }
    # one pass over the template: text put in is never searched for markers again
    page = re.sub(r"@@([a-z]+)@@", lambda m: fields.get(m[1], m[0]), TEMPLATE)
    return page


def view_seat(replay, i: int, seat: int | None) -> int:
    """The seat position ``i`` is shown from: ``seat``, else whoever chooses there (the last chooser at the end)."""
    if seat is not None:
        return seat
    if replay.actions:
        return replay.actions[min(i, len(replay.actions) - 1)][0]
    return 0


# The page. One <style> and one <script> (the policy admits them by hash); no style attributes and
# no inline handlers; every text from the replay goes in as escaped HTML or as textContent.
TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Age of Summoners replay</title>
<meta http-equiv="Content-Security-Policy" content="@@content-security-policy@@">
<style>
  * { box-sizing: border-box; }
  body { margin: 0; font-family: "DejaVu Sans", Verdana, Arial, sans-serif; background: #e9e2d3; color: #2a2623;
         font-size: 14px; overflow-wrap: anywhere; }
  header { background: #3d3350; color: #fff; padding: 10px 16px; }
  header h1 { margin: 0; font-size: 20px; }
  header p { margin: 4px 0 0; font-size: 13px; color: #f1ecfa; }
  main { display: grid; grid-template-columns: minmax(0, 960px) minmax(260px, 1fr); gap: 14px; padding: 12px 16px;
         align-items: start; }
  @media (max-width: 900px) { main { grid-template-columns: minmax(0, 1fr); padding: 8px; } }
  .box { background: #fffdf8; border-radius: 8px; padding: 8px 10px; box-shadow: 0 1px 4px #0002; margin-bottom: 10px; }
  h2 { font-size: 15px; margin: 2px 0 6px; }
  #chart { margin-top: 10px; }
  .pos svg { display: block; width: 100%; height: auto; border-radius: 8px; box-shadow: 0 1px 4px #0003; }
  #controls { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 8px; }
  button { font: inherit; cursor: pointer; }
  #controls button { font-size: 14px; padding: 6px 10px; border-radius: 6px; border: 1px solid #6b5f85;
                     background: #fffdf8; color: #2a2623; min-height: 36px; }
  #controls button:disabled { color: #6f675e; cursor: default; }
  #slider { flex: 1 1 160px; min-width: 120px; }
  #counter { font-size: 14px; }
  label.switch { font-size: 14px; display: inline-flex; gap: 6px; align-items: center; }
  #caption { font-size: 15px; font-weight: bold; margin: 0 0 4px; }
  #then { margin: 0 0 8px; font-size: 13px; }
  #weighed .row { display: grid; grid-template-columns: minmax(0, 1fr) 64px; gap: 6px; align-items: center;
                  margin: 3px 0; }
  #weighed .label { font-size: 13px; }
  #weighed .chosen .label { font-weight: bold; }
  #weighed .track { grid-column: 1 / 3; height: 8px; background: #efe8da; border-radius: 4px; }
  #weighed .bar { height: 8px; background: #3d3350; border-radius: 4px; }
  #weighed .chosen .bar { background: #b34700; }
  #weighed .num { text-align: right; font-variant-numeric: tabular-nums; font-size: 13px; }
  .muted { color: #5f574e; font-size: 13px; }
  #hands ul, .legend { margin: 0; padding-left: 1.2em; font-size: 13px; }
  .legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 14px; }
  .swatch { display: inline-block; width: 14px; height: 4px; margin-right: 5px; vertical-align: middle; }
  .p0 { background: #1f5fbf; } .p1 { background: #b3261e; } .p2 { background: #2e7d32; } .p3 { background: #7b3fa0; }
  #timeline { display: block; width: 100%; height: auto; font-family: inherit; }
  #moves { max-height: 70vh; overflow-y: auto; }
  #moves ol { margin: 0; padding-left: 2.8em; font-size: 13px; }
  #moves li { padding: 1px 0; }
  .move { display: block; width: 100%; text-align: left; padding: 2px 4px; border: none; background: none;
          color: #2a2623; border-radius: 4px; font-size: 13px; }
  .move:hover { background: #efe8da; }
  .move.current { background: #3d3350; color: #fff; }
  :focus-visible { outline: 3px solid #b34700; outline-offset: 1px; }
  kbd { border: 1px solid #8a8178; border-radius: 3px; padding: 0 4px; font-size: 12px; }
</style>
</head>
<body>
<header><h1>Age of Summoners replay</h1><p>@@title@@</p></header>
<main>
<section aria-label="the game">
  <div id="controls">
    <button type="button" id="first" aria-label="first position (Home)">&laquo; first</button>
    <button type="button" id="prev" aria-label="back (left arrow)">&#x25C0; back</button>
    <button type="button" id="next" aria-label="next (right arrow)">next &#x25B6;</button>
    <button type="button" id="last" aria-label="last position (End)">last &raquo;</button>
    <input id="slider" type="range" min="0" max="@@last@@" value="0" aria-label="position">
    <span id="counter" aria-live="polite"></span>
  </div>
  <div class="box">
    <p id="caption"></p>
    <p id="then" class="muted"></p>
    <div id="weighed" aria-label="what the player weighed"></div>
    <label class="switch"><input type="checkbox" id="all-hands"> show all hands</label>
    <div id="hands" hidden></div>
  </div>
  @@positions@@
  <div class="box" id="chart"><h2>Score and VP over the game</h2>@@timeline@@</div>
  <p class="muted">Keys: <kbd>&larr;</kbd> <kbd>&rarr;</kbd> step, <kbd>Home</kbd> <kbd>End</kbd> first and
  last position. <span id="shown-from"></span></p>
</section>
<aside>
  <div class="box" id="moves"><h2>Moves</h2><ol>
@@items@@
  </ol></div>
</aside>
</main>
<script>
"use strict";
const DATA = @@data@@;
const LAST = @@last@@;
let current = -1;
const $ = (id) => document.getElementById(id);
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
function weighed(step) {
  const box = $("weighed");
  box.replaceChildren();
  if (!step || !step.weighed) {
    box.append(el("p", step ? "Nothing recorded about what this player weighed." : "", "muted"));
    return;
  }
  const w = step.weighed;
  const policy = w.by === "policy";
  box.append(el("h2", policy ? "What the player weighed (probability of each move)" :
    "What the search found (mean value of each move searched)"));
  const nums = w.rows.map((r) => r[1]);
  const lo = policy ? 0 : Math.min(0, ...nums), hi = policy ? 1 : Math.max(...nums);
  for (const [text, x, chosen] of w.rows) {
    const row = el("div", undefined, "row" + (chosen ? " chosen" : ""));
    const track = el("div", undefined, "track"), bar = el("div", undefined, "bar");
    bar.style.width = (hi > lo ? Math.max(2, 100 * (x - lo) / (hi - lo)) : 100) + "%";
    track.append(bar);
    row.append(el("span", text + (chosen ? " (chosen)" : ""), "label"),
               el("span", policy ? (100 * x).toFixed(1) + "%" : x.toFixed(3), "num"), track);
    box.append(row);
  }
  if (w.value !== null && w.value !== undefined) {
    box.append(el("p", "Value estimate: " + (w.value >= 0 ? "+" : "") + w.value.toFixed(3) + " (the value " +
      "network's estimate of the player's return: about +1 for a sure win, below 0 for a likely loss)", "muted"));
  }
}
function hands(i) {
  const list = el("ul");
  DATA.hands[i].forEach((h, p) => list.append(el("li", DATA.labels[p] + ": " + h)));
  $("hands").replaceChildren(list);
}
function show(i) {
  i = Math.max(0, Math.min(LAST, i));
  if (current >= 0) {
    $("pos" + current).hidden = true;
    const old = document.querySelector('.move[data-i="' + current + '"]');
    if (old) { old.classList.remove("current"); old.removeAttribute("aria-current"); }
  }
  current = i;
  $("pos" + i).hidden = false;
  const move = document.querySelector('.move[data-i="' + i + '"]');
  if (move) {
    move.classList.add("current");
    move.setAttribute("aria-current", "step");
    const list = $("moves");
    const top = move.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - move.offsetHeight) {
      list.scrollTop = top - list.clientHeight / 2;
    }
  }
  const step = DATA.steps[i];
  $("caption").textContent = step ? "Move " + (i + 1) + " of " + DATA.steps.length + ", turn " + step.turn +
    ": " + step.who + " chooses: " + step.what : DATA.result;
  $("then").textContent = step && step.then.length ? "Then: " + step.then.join("; ") + "." : "";
  weighed(step);
  hands(i);
  $("counter").textContent = "position " + (i + 1) + " of " + (LAST + 1);
  $("shown-from").textContent = "The table shows the hand of " + DATA.shownFrom[i] +
    (DATA.fixed ? " at every position." : ", the player who chooses here.");
  $("slider").value = i;
  $("first").disabled = $("prev").disabled = i === 0;
  $("last").disabled = $("next").disabled = i === LAST;
  const chart = $("timeline"), now = $("tl-now");
  if (chart && now) {
    const box = chart.viewBox.baseVal, pad = 30, x = pad + (box.width - pad - 8) * i / Math.max(1, LAST);
    now.setAttribute("x1", x); now.setAttribute("x2", x);
  }
}
$("first").onclick = () => show(0);
$("prev").onclick = () => show(current - 1);
$("next").onclick = () => show(current + 1);
$("last").onclick = () => show(LAST);
$("slider").oninput = (e) => show(Number(e.target.value));
$("all-hands").onchange = (e) => { $("hands").hidden = !e.target.checked; };
document.querySelectorAll(".move").forEach((b) => { b.onclick = () => show(Number(b.dataset.i)); });
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" && e.target.type === "range") return;
  const to = {ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: LAST}[e.key];
  if (to !== undefined) { e.preventDefault(); show(to); }
});
show(0);
</script>
</body>
</html>
"""
