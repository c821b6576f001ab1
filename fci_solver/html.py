"""A solution viewer: one self-contained HTML page (no network, no other file) that steps through a line.

The page holds the line as JSON and draws each position with a few lines of JavaScript: the
board with card numbers and names, stack heights, the sea animals left and the pending effect,
the turn's actions as arrows from cell to cell, a legend of the abilities of the cards on the
board, and, for a graded puzzle, a mark on the narrow decisions.  Buttons and the arrow keys
step through the turns.  Every cell is a ``<div data-cell="r,c">`` so that a test (or a user's
script) can read the board shown.
"""

from __future__ import annotations

import json
from html import escape

from .cards import CardTable
from .position import Position, effect_label, sea_list


def _frame(pos: Position, board, text: str, actions: list, narrow) -> dict:
    return {
        "stacks": [[s.cell[0], s.cell[1], s.card, s.height] for s in pos.stacks],
        "sea": sea_list(pos.shark, pos.whale),
        "pending": effect_label(pos.pending),
        "text": text,
        "actions": actions,
        "narrow": narrow,
    }


def viewer_data(start: Position, line, positions, human: list[str], cards: CardTable, narrow: dict | None = None) -> dict:
    """The page's data: the board's shape and one frame per position (the start, then after each turn)."""
    b = start.board
    narrow = narrow or {}
    frames = [_frame(start, b, "start", [], None)]
    for i, (turn, after, text) in enumerate(zip(line, positions, human), 1):
        frames.append(_frame(after, b, f"{i}. {text}", [a.to_json() for a in turn], narrow.get(i)))
    on_board = sorted({s.card for s in start.stacks})
    return {
        "rows": list(b.rows), "cols": list(b.cols), "margin": b.margin,
        "names": {c.value: c.name for c in cards},
        "legend": [[c, cards[c].name, cards[c].describe()] for c in on_board],
        "frames": frames,
    }


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: Helvetica, Arial, sans-serif; margin: 20px; color: #222; }}
h1 {{ font-size: 20px; margin: 0 0 6px; }}
#facts {{ color: #555; font-size: 13px; margin-bottom: 10px; }}
#wrap {{ position: relative; display: inline-block; }}
#board {{ display: grid; gap: 2px; background: #ccc; padding: 2px; }}
.cell {{ width: 58px; height: 58px; background: #fff; display: flex; flex-direction: column;
        align-items: center; justify-content: center; font-size: 11px; }}
.cell.stack {{ background: #fdf3d8; }}
.cell .num {{ font-size: 20px; font-weight: bold; }}
.cell .h {{ font-size: 10px; color: #a60; }}
.lab {{ width: 58px; height: 16px; font-size: 11px; color: #777; text-align: center; }}
#arrows {{ position: absolute; left: 0; top: 0; pointer-events: none; }}
#controls button {{ font-size: 15px; margin-right: 4px; }}
#turn {{ font-size: 16px; margin: 10px 0 4px; min-height: 20px; }}
#turn.narrow {{ color: #b00; font-weight: bold; }}
#status {{ font-size: 13px; color: #444; margin-bottom: 8px; }}
#legend {{ font-size: 12px; margin-top: 14px; border-collapse: collapse; }}
#legend td {{ padding: 1px 8px 1px 0; }}
</style></head>
<body>
<h1>{title}</h1>
<div id="facts">{facts}</div>
<div id="controls"><button id="first" title="Home">&laquo; start</button><button id="prev" title="Left arrow">&#x25C0; back</button>
<button id="next" title="Right arrow">next &#x25B6;</button><button id="last" title="End">end &raquo;</button>
<span id="count"></span></div>
<div id="turn"></div>
<div id="status"></div>
<div id="wrap"><div id="board"></div><svg id="arrows"></svg></div>
<table id="legend"></table>
<script id="data" type="application/json">{data}</script>
<script>
const D = JSON.parse(document.getElementById("data").textContent);
const R = D.rows, C = D.cols;
let at = 0;
function letters(i) {{ let s = ""; i += 1; while (i > 0) {{ const m = (i - 1) % 26; s = String.fromCharCode(97 + m) + s; i = Math.floor((i - 1) / 26); }} return s; }}
function centre(rc) {{
  const d = document.querySelector(`[data-cell="${{rc[0]}},${{rc[1]}}"]`), w = document.getElementById("wrap").getBoundingClientRect();
  const r = d.getBoundingClientRect();
  return [r.left - w.left + r.width / 2, r.top - w.top + r.height / 2];
}}
function draw() {{
  const f = D.frames[at], board = document.getElementById("board");
  board.style.gridTemplateColumns = `repeat(${{C.length + 1}}, 58px)`;
  board.innerHTML = "";
  const top = document.createElement("div"); top.className = "lab"; board.appendChild(top);
  C.forEach((c, j) => {{ const l = document.createElement("div"); l.className = "lab"; l.textContent = letters(j); board.appendChild(l); }});
  const by = {{}}; f.stacks.forEach(s => by[s[0] + "," + s[1]] = s);
  R.forEach((r, i) => {{
    const l = document.createElement("div"); l.className = "lab"; l.style.height = "58px"; l.style.lineHeight = "58px";
    l.textContent = i + 1; board.appendChild(l);
    C.forEach(c => {{
      const d = document.createElement("div"), s = by[r + "," + c];
      d.className = "cell" + (s ? " stack" : ""); d.dataset.cell = r + "," + c;
      if (s) {{
        d.dataset.card = s[2]; d.dataset.height = s[3];
        d.innerHTML = `<span class="num">${{s[2]}}</span><span>${{D.names[s[2]]}}</span>` + (s[3] > 1 ? `<span class="h">stack of ${{s[3]}}</span>` : "");
      }}
      board.appendChild(d);
    }});
  }});
  const t = document.getElementById("turn");
  t.textContent = f.text + (f.narrow ? `  (narrow decision: ${{f.narrow}} turns kept the perfect result)` : "");
  t.className = f.narrow ? "narrow" : "";
  document.getElementById("status").textContent =
    `${{f.stacks.length}} stack${{f.stacks.length == 1 ? "" : "s"}}; sea animals left: ${{f.sea.join(", ") || "none"}}; pending: ${{f.pending}}`;
  document.getElementById("count").textContent = ` turn ${{at}} of ${{D.frames.length - 1}}`;
  arrows(f);
}}
function arrows(f) {{
  const svg = document.getElementById("arrows"), b = document.getElementById("board");
  svg.setAttribute("width", b.offsetWidth); svg.setAttribute("height", b.offsetHeight);
  const colour = {{eat: "#c00", shark: "#06c", whale: "#06c", move: "#080", swap: "#808", discard: "#555"}};
  let out = '<defs>' + Object.entries(colour).map(([k, v]) => `<marker id="m-${{k}}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="${{v}}"/></marker>`).join("") + '</defs>';
  f.actions.forEach(a => {{
    const k = a.op, col = colour[k] || "#000";
    if (k == "discard") {{ const [x, y] = centre(a.at); out += `<circle class="arrow" cx="${{x}}" cy="${{y}}" r="22" fill="none" stroke="${{col}}" stroke-width="3" stroke-dasharray="5,3"/>`; return; }}
    const p = k == "swap" ? a.a : a.from, q = k == "swap" ? a.b : a.to;
    const [x1, y1] = centre(p), [x2, y2] = centre(q);
    const ends = k == "swap" ? `marker-start="url(#m-swap)" marker-end="url(#m-swap)"` : `marker-end="url(#m-${{k}})"`;
    out += `<line class="arrow" data-op="${{k}}" x1="${{x1}}" y1="${{y1}}" x2="${{x2}}" y2="${{y2}}" stroke="${{col}}" stroke-width="3" ${{ends}}/>`;
  }});
  svg.innerHTML = out;
}}
function go(i) {{ at = Math.max(0, Math.min(D.frames.length - 1, i)); draw(); }}
document.getElementById("first").onclick = () => go(0);
document.getElementById("prev").onclick = () => go(at - 1);
document.getElementById("next").onclick = () => go(at + 1);
document.getElementById("last").onclick = () => go(D.frames.length - 1);
document.addEventListener("keydown", e => {{
  if (e.key == "ArrowRight") go(at + 1); else if (e.key == "ArrowLeft") go(at - 1);
  else if (e.key == "Home") go(0); else if (e.key == "End") go(D.frames.length - 1);
}});
document.getElementById("legend").innerHTML = "<tr><td colspan=3><b>The cards on the board</b></td></tr>" +
  D.legend.map(([v, n, t]) => `<tr><td>${{v}}</td><td>${{n}}</td><td>${{t}}</td></tr>`).join("");
draw();
</script>
</body></html>
"""


def solution_html(start: Position, line, positions, human: list[str], cards: CardTable, title: str,
                  facts: list[str] = (), narrow: dict | None = None) -> str:
    """The whole page for a line from ``start``; ``narrow`` maps a turn number to "k of n"."""
    data = json.dumps(viewer_data(start, line, positions, human, cards, narrow)).replace("</", "<\\/")
    return PAGE.format(title=escape(title), facts="<br>".join(escape(f) for f in facts), data=data)
