"""The page of an exported walk: one self-contained HTML file that replays the frames the explorer drew.

No server, no network: the page links nothing (its Content-Security-Policy forbids every load and every script
but its own), its fonts are the reader's monospace, and the frames travel inside it, gzip-compressed, inflated
by the browser's own ``DecompressionStream``. Buttons, a slider and keys step back and forth and play: by decision
(as presenting mode does; the default) or, with "every event", one event at a time. Every piece of text from the
corpus or the navigator reaches the page escaped, by Rich's SVG and HTML exports or by :func:`html.escape`.
"""

from __future__ import annotations

import html
import json
import secrets
from collections.abc import Sequence

PAGE_STYLE = """
:root { color-scheme: dark; --ink: #e6edf3; --muted: #9aa7b4; --panel: #121a21; --accent: #ffa62b; }
* { box-sizing: border-box; }
body { margin: 0; background: #0c1117; color: var(--ink); font: 15px/1.4 ui-monospace, "DejaVu Sans Mono",
       Menlo, Consolas, monospace; }
header { padding: 12px 20px 4px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 16px 0 6px; color: var(--muted); }
.meta { color: var(--muted); margin: 0; }
nav { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 8px 20px; position: sticky; top: 0;
      background: #0c1117; z-index: 2; border-bottom: 1px solid #26313b; }
button { font: inherit; color: var(--ink); background: #1f2b36; border: 1px solid #3a4754; border-radius: 6px;
         padding: 6px 12px; cursor: pointer; }
button:hover, button:focus-visible { border-color: var(--accent); outline: none; }
#where { margin-left: 8px; color: var(--accent); font-weight: bold; }
#keys { color: var(--muted); margin-left: auto; }
#slider { flex: 1 1 200px; min-width: 120px; accent-color: var(--accent); }
.fork { color: var(--accent); margin: 0 0 4px; }
.verdict { color: var(--accent); margin: 4px 0; }
main { padding: 12px 20px; }
#frame svg { width: 100%; height: auto; display: block; }
#transcript-box { padding: 0 20px 24px; }
#transcript { white-space: pre-wrap; background: var(--panel); padding: 12px; border-radius: 6px; margin: 0;
              overflow-x: auto; }
"""

PAGE_SCRIPT = """
"use strict";
const data = JSON.parse(document.getElementById("walk-data").textContent);
const frame = document.getElementById("frame"), where = document.getElementById("where");
const transcript = document.getElementById("transcript"), playButton = document.getElementById("play");
const every = document.getElementById("every"), slider = document.getElementById("slider");
const inflated = new Map();
let position = 0, player = null, shownFrame = -1;

async function inflate(packed) {
  if (inflated.has(packed)) return inflated.get(packed);
  const bytes = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const text = await new Response(stream).text();
  inflated.set(packed, text);
  return text;
}
function sequence() { return every.checked ? data.frames.map((_, i) => i) : data.decisions; }
async function show(index) {
  const order = sequence();
  position = Math.max(0, Math.min(index, order.length - 1));
  const number = order[position];
  shownFrame = number;
  document.body.dataset.ready = "no";
  const svg = await inflate(data.frames[number]);
  const text = data.transcriptOf[number] >= 0 ? await inflate(data.transcripts[data.transcriptOf[number]]) : "";
  if (shownFrame !== number) return;  // a later step was asked for meanwhile
  frame.innerHTML = svg;
  transcript.innerHTML = text || "No decision at this step.";
  // One numbering, the step panel's: the step (an event of the walk); by decision, which decision too.
  const step = `Step ${data.steps[number]} of ${data.total}`;
  where.textContent = every.checked ? step : `${step} · decision ${position + 1} of ${order.length}`;
  slider.max = String(order.length - 1);
  slider.value = String(position);
  slider.setAttribute("aria-valuetext", where.textContent);
  document.body.dataset.frame = String(number);
  document.body.dataset.ready = "yes";
}
function stop() { if (player !== null) { clearInterval(player); player = null; } playButton.textContent = "▶ Play"; }
function play() {
  if (player !== null) { stop(); return; }
  if (position >= sequence().length - 1) show(0);
  playButton.textContent = "❚❚ Pause";
  player = setInterval(() => {
    if (position >= sequence().length - 1) { stop(); return; }
    show(position + 1);
  }, every.checked ? 700 : 1600);
}
function step(by) { stop(); show(position + by); }
document.getElementById("first").addEventListener("click", () => { stop(); show(0); });
document.getElementById("back").addEventListener("click", () => step(-1));
document.getElementById("next").addEventListener("click", () => step(1));
document.getElementById("last").addEventListener("click", () => { stop(); show(sequence().length - 1); });
playButton.addEventListener("click", play);
slider.addEventListener("input", () => { stop(); show(Number(slider.value)); });
every.addEventListener("change", () => {
  stop();
  const order = sequence(), at = Math.max(0, order.findIndex((i) => i >= shownFrame));
  show(at);
});
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target === slider && event.key.startsWith("Arrow")) return;  // the slider steps itself
  const keys = {ArrowRight: () => step(1), n: () => step(1), f: () => step(1), ArrowLeft: () => step(-1),
                b: () => step(-1), p: play, " ": play, Home: () => { stop(); show(0); }, B: () => { stop(); show(0); },
                End: () => { stop(); show(sequence().length - 1); },
                F: () => { stop(); show(sequence().length - 1); }, e: () => every.click()};
  const act = keys[event.key];
  if (act) { event.preventDefault(); act(); }
});
show(0);
"""


def missed(verdict: Sequence[str]) -> str:
    """The header's lines of a miss: its verdict (``Missed the expected node: the map hid it: …``), then the flat
    search's words, each escaped; ``""`` for none."""
    said = [line for line in verdict if line]
    if not said:
        return ""
    lines = [f'<p class="verdict" id="verdict">Missed the expected node — {html.escape(said[0])}</p>']
    lines += [f'<p class="meta" id="flat">{html.escape(line[:1].upper() + line[1:])}</p>' for line in said[1:]]
    return "\n".join(lines)


def page(*, title: str, subtitle: str, frames: Sequence[str], steps: Sequence[int], transcripts: Sequence[str],
         transcript_of: Sequence[int], decisions: Sequence[int], total: int, fork: str = "", cut: str = "",
         verdict: Sequence[str] = (), map_variant: str = "") -> str:
    """The page: ``frames`` and ``transcripts`` packed (base64 of gzip), ``steps`` the event of each frame,
    ``transcript_of`` each frame's transcript (-1: none), ``decisions`` the frames presenting mode stops at.

    ``fork``: what the walk is, when a fork (what was forced, or the prompt variant), shown under the title;
    ``cut``: which recorded answers were cut to the ids a live answer keeps, said under it.
    ``verdict``: when the walk missed the node its question expects, whose fault it was and where a flat search ranks
    that node, in words (each line said, an empty one left out).
    ``map_variant``: the map variant the walk was walked with, when it had one (its file's name and short hash),
    said under the settings.
    ``title``, ``subtitle``, ``fork``, ``cut``, ``verdict`` and ``map_variant`` are untrusted (the query, the corpus,
    ids, a file's name): escaped here."""
    nonce = secrets.token_urlsafe(16)
    walk = json.dumps({"frames": list(frames), "steps": list(steps), "transcripts": list(transcripts),
                       "transcriptOf": list(transcript_of), "decisions": list(decisions), "total": total},
                      separators=(",", ":"))
    # Base64 and whole numbers only: nothing in it can close the script element that holds it.
    assert "<" not in walk
    policy = (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; img-src data:; "
              "font-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'")
    shown_title = html.escape(title)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="reasoning-explorer export">
<title>{shown_title}</title>
<style>{PAGE_STYLE}</style>
</head>
<body data-ready="no">
<header>
<h1 id="title">{shown_title}</h1>
{f'<p class="fork" id="fork">{html.escape(fork)}</p>' if fork else ""}
<p class="meta">{html.escape(subtitle)}</p>
{f'<p class="meta" id="map">Walked with the map variant {html.escape(map_variant)}</p>' if map_variant else ""}
{f'<p class="meta" id="cut">{html.escape(cut[:1].upper() + cut[1:])}.</p>' if cut else ""}
{missed(verdict)}
</header>
<nav aria-label="step through the walk">
<button id="first" title="The first step (Home)">|◀ First</button>
<button id="back" title="Back a step (← or b)">◀ Back</button>
<button id="play" title="Play / pause (p or space)">▶ Play</button>
<button id="next" title="Next step (→ or n)">Next ▶</button>
<button id="last" title="The last step (End)">Last ▶|</button>
<input type="range" id="slider" min="0" max="0" value="0" aria-label="the step shown">
<label><input type="checkbox" id="every"> every event (e)</label>
<span id="where" aria-live="polite"></span>
<span id="keys">← → step · p play · Home End</span>
</nav>
<main id="frame" aria-label="the explorer at this step"></main>
<section id="transcript-box">
<h2>Transcript of the decision at this step: what the navigator was sent and answered</h2>
<pre id="transcript"></pre>
</section>
<script id="walk-data" type="application/json">{walk}</script>
<script nonce="{nonce}">{PAGE_SCRIPT}</script>
</body>
</html>
"""
