"""The page itself: one HTML shell, its style and its script (no build step, no CDN).

The script draws every state the server streams (`/events`, server-sent events) with
text nodes only (nothing the agents wrote is ever read as HTML) and posts the three
actions with the CSRF token the shell carries.
"""

from __future__ import annotations

from html import escape

SHELL = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf" content="{csrf}">
<title>bullpen</title><link rel="stylesheet" href="/asset/page.css">
<script src="/asset/page.js" defer></script></head>
<body><header><h1>bullpen</h1><span id="live">connecting…</span></header>
<p id="said" role="status"></p>
<section><h2>Needs you</h2><div id="needs"></div></section>
<section><h2>Sessions</h2><ul id="sessions"></ul></section>
<section><h2>Send a note</h2><form id="note">
<select id="to" aria-label="to"></select>
<textarea id="body" rows="2" placeholder="a note" aria-label="note"></textarea>
<button type="submit">Send</button></form></section>
<section><h2>Cards</h2><ul id="cards"></ul></section>
<section><h2>Notes</h2><ul id="notes"></ul></section>
</body></html>
"""

CSS = """
:root { color-scheme: light dark; --line: #8884; --accent: #2a6df4; }
body { font: 16px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 40rem; padding: .5rem; }
header { display: flex; justify-content: space-between; align-items: baseline; }
h1 { font-size: 1.3rem; margin: .2rem 0; } h2 { font-size: 1.05rem; margin: 1rem 0 .3rem; }
#live { font-size: .8rem; opacity: .7; } #said:empty { display: none; }
#said { background: #fd05; padding: .4rem; border-radius: .3rem; }
ul { list-style: none; padding: 0; margin: 0; }
li, .need { border-bottom: 1px solid var(--line); padding: .4rem 0; }
.need { border: 1px solid var(--line); border-radius: .4rem; padding: .5rem; margin: .4rem 0; }
.who { font-weight: 600; } .dim { opacity: .7; font-size: .85rem; }
.context { font-family: ui-monospace, monospace; font-size: .8rem; white-space: pre-wrap;
  opacity: .8; margin: .2rem 0; }
.choices button { display: block; width: 100%; text-align: left; margin: .25rem 0;
  padding: .6rem; font-size: 1rem; border-radius: .4rem; border: 1px solid var(--accent);
  background: none; color: inherit; }
.choices button.selected { background: #2a6df422; }
.status { font-size: .8rem; padding: 0 .35rem; border-radius: .3rem; background: #8882; }
.needs_input { background: #f905; } .working { background: #2c55; } .exited { background: #f335; }
form { display: grid; gap: .3rem; } textarea, select, button { font: inherit; }
form button { padding: .5rem; }
"""

JS = r"""
"use strict";
const csrf = document.querySelector('meta[name="csrf"]').content;
const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}
function say(text) { $("said").textContent = text; }
async function post(path, fields) {
  const response = await fetch(path, {method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
    body: JSON.stringify(fields)});
  let reply = {};
  try { reply = await response.json(); } catch (error) { reply = {error: response.statusText}; }
  say(reply.ok || reply.error || String(response.status));
  return response.ok;
}
function question(asked) {
  const choices = asked.choices.map((choice) => el("button", {
    class: choice.number === asked.selected ? "selected" : "",
    "data-session": asked.session, "data-choice": String(choice.number),
    onclick: () => post("/answer", {session: asked.session, choice: String(choice.number),
                                   question: asked.id})},
    `${choice.number}. ${choice.label}`));
  const context = asked.context.filter((line) => line !== asked.question).join("\n");
  return el("div", {class: "need question", "data-question": asked.id},
    el("div", {}, el("span", {class: "who"}, asked.session), " asks ", asked.question),
    context ? el("div", {class: "context"}, context) : null,
    choices.length ? el("div", {class: "choices"}, choices)
                   : el("div", {class: "dim"},
                        `answer it in the pane: bullpen attach ${asked.session}`));
}
function needs(state) {
  const need = state.needs;
  const items = [
    ...need.questions.map(question),
    ...need.held.map((held) => el("div", {class: "need"}, el("span", {class: "who"},
      `note ${held.note} to ${held.to} held`), ` (${held.reason || "held"}${held.count > 1 ?
      `, ${held.count} in its chain` : ""}): `, held.body)),
    ...need.blocked.map((card) => el("div", {class: "need"}, el("span", {class: "who"},
      `card ${card.id} blocked`), ` ${card.title}: ${card.blocked || ""}`)),
    ...need.budgets.map((row) => el("div", {class: "need"}, el("span", {class: "who"},
      row.session), ` ${row.reached} · `, el("code", {}, row.raise))),
  ];
  $("needs").replaceChildren(...(items.length ? items : [el("p", {class: "dim"}, "nothing")]));
}
function cards(state) {
  $("cards").replaceChildren(...state.cards.map((card) => {
    const column = el("select", {"aria-label": `column of card ${card.id}`},
      state.columns.map((name) => {
        const option = el("option", {value: name}, name);
        if (name === card.status) option.selected = true;
        return option;
      }));
    return el("li", {}, el("span", {class: "who"}, `#${card.id} `), card.title,
      card.assignee ? el("span", {class: "dim"}, ` · ${card.assignee}`) : null, " ", column,
      el("button", {onclick: () => post("/move", {card: String(card.id), status: column.value})},
         "Move"));
  }));
}
function draw(state) {
  if (state.error) { say(state.error); return; }
  needs(state);
  $("sessions").replaceChildren(...state.sessions.map((row) => el("li", {},
    el("span", {class: "who"}, row.name), " ", el("span", {class: `status ${row.status}`},
    row.status), row.reason ? el("span", {class: "dim"}, ` ${row.reason}`) : null,
    row.spent ? el("span", {class: "dim"}, ` · ${row.spent}`) : null)));
  const to = $("to"), chosen = to.value;
  to.replaceChildren(...["all", ...state.sessions.map((row) => row.name)].map((name) =>
    el("option", {value: name}, name)));
  if (chosen) to.value = chosen;
  cards(state);
  $("notes").replaceChildren(...state.notes.map((note) => el("li", {},
    el("span", {class: "who"}, `${note.from} → ${note.to}`), " ", note.body)));
}
$("note").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (await post("/note", {to: $("to").value, body: $("body").value})) $("body").value = "";
});
const events = new EventSource("/events");
events.addEventListener("state", (event) => {
  $("live").textContent = "live";
  draw(JSON.parse(event.data));
});
events.onerror = () => { $("live").textContent = "reconnecting…"; };
"""

ASSETS = {"page.js": (JS, "text/javascript"), "page.css": (CSS, "text/css")}


def html(csrf: str) -> str:
    """The page's shell for a browser whose CSRF token is `csrf`."""
    return SHELL.format(csrf=escape(csrf, quote=True))
