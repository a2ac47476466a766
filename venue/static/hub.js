"use strict";
// The venue's scoreboard: one EventSource on /api/stream (table, standings).
const tables = new Map();
window.__tables = tables;
window.__standings = null;
window.__updates = 0;
window.__frames = 0;
const $ = (id) => document.getElementById(id);
let pending = false;

// One tile a table: its players and score, the trump and the trick on its pads (the last trick
// while the pads are empty), drawn with the same cards as the table's page.
function tile(t) {
  const link = el("a", { href: "#" }, "record");
  link.addEventListener("click", async (ev) => {
    ev.preventDefault();
    const r = await fetch("/api/tables/" + encodeURIComponent(t.table) + "/record");
    $("recordtitle").textContent = t.table;
    $("record").textContent = await r.text();
    document.querySelector('nav button[data-tab="records"]').click();
  });
  const state = t.availability !== "online" ? t.availability : (t.winner ? t.winner + " wins" : t.phase + (t.turn ? " · " + t.turn : ""));
  const [a, b] = t.players;
  const onPads = t.trick.length ? t.trick : (t.last_trick ? [["A", t.last_trick.cards.A], ["B", t.last_trick.cards.B]] : []);
  const trick = el("div", { class: "ttrick" + (t.trick.length ? "" : " last") });
  for (const [seat, card] of onPads) trick.append(el("span", { class: "tcard" }, cardEl(card), el("small", {}, seat === "A" ? a : b)));
  const tricks = t.tricks || [0, 0];
  return el("article", { class: "tile" + (t.faults ? " faulty" : ""), "data-table": t.table },
    el("div", { class: "thead" }, el("b", {}, t.table), el("span", { class: "small" }, state), link),
    el("div", { class: "tplayers" }, el("span", {}, a), el("b", { class: "tscore" }, t.score.A + " – " + t.score.B), el("span", {}, b)),
    el("div", { class: "tbody" }, el("span", { class: "ttrump" }, ...(t.trump ? [cardEl(t.trump)] : [])), trick,
      el("span", { class: "small" }, t.phase === "play" ? tricks[0] + " · " + tricks[1] : "")));
}

// A table whose state cannot be drawn (a card that is no card: the hub refuses those, but the page
// trusts no sender) gets a tile that says so; the others keep drawing.
function unreadable(name) {
  return el("article", { class: "tile faulty unreadable", "data-table": name },
    el("div", { class: "thead" }, el("b", {}, name), el("span", { class: "small" }, "unreadable state")));
}
function safeTile(name) {
  try { return tile(tables.get(name)); } catch (err) { console.warn("table " + name + ": " + err); return unreadable(name); }
}

// Only the tiles of the tables heard from since the last frame are drawn again, and only those
// that would look different (a card dealt to a hand changes a table's state, not its tile). A tile
// off the screen (more than a screen's height away) waits: it is drawn when it scrolls into view, so a
// phone showing ten tiles of a room of 256 draws ten.
const tiles = new Map();
const dirty = new Set();
const looks = new Map();
const inView = new Set();
const waiting = new Set();
const watcher = new IntersectionObserver((entries) => {
  for (const e of entries) {
    const name = e.target.dataset.table;
    if (tiles.get(name) !== e.target) continue;  // a tile since replaced
    if (!e.isIntersecting) { inView.delete(name); continue; }
    inView.add(name);
    if (waiting.delete(name)) { dirty.add(name); schedule(); }
  }
}, { rootMargin: "100% 0px" });
const byName = (a, b) => a.localeCompare(b, undefined, { numeric: true });
function look(t) {
  return JSON.stringify([t.availability, t.winner, t.phase, t.turn, t.players, t.score, t.trump, t.trick,
    t.last_trick, t.tricks, t.faults]);
}
function render() {
  pending = false;
  window.__frames += 1;
  const box = $("tables");
  for (const name of dirty) {
    const old = tiles.get(name);
    if (old && !inView.has(name)) { waiting.add(name); continue; }
    const now = look(tables.get(name));
    if (old && looks.get(name) === now) continue;
    looks.set(name, now);
    const fresh = safeTile(name);
    if (old) { watcher.unobserve(old); old.replaceWith(fresh); }
    else box.insertBefore(fresh, [...box.children].find((c) => byName(c.dataset.table, name) > 0) || null);
    watcher.observe(fresh);
    tiles.set(name, fresh);
  }
  dirty.clear();
  $("count").textContent = plural(tables.size, "table");
}

// A room is drawn ten times a second at most: a frame's style, layout and paint cost the same for one
// tile as for fifty, and a busy room would otherwise spend a phone's whole time drawing.
const FRAME_MS = 100;
let drawnAt = -FRAME_MS;
function schedule() {
  if (pending) return;
  pending = true;
  setTimeout(() => requestAnimationFrame((now) => { drawnAt = now; render(); }),
    Math.max(0, drawnAt + FRAME_MS - performance.now()));
}

function showStandings(s) {
  window.__standings = s;
  $("session").textContent = "Ranking · " + s.session + " · " + plural(s.games, "game");
  const body = document.querySelector("#ranking tbody");
  body.replaceChildren();
  for (const r of s.ranking) {
    body.append(el("tr", {}, ...["rank", "player", "played", "wins", "losses", "for", "against"].map((k) => el("td", {}, r[k]))));
  }
  const rounds = $("rounds");
  rounds.replaceChildren();
  const swiss = s.system === "swiss";
  for (const rnd of s.rounds) {
    const list = el("ul", {});
    for (const g of rnd.games) {
      list.append(el("li", {}, g.A + " – " + g.B + ": " + (g.result ? g.result.score.A + "–" + g.result.score.B + " (" + g.result.table + ")" : "to play")));
    }
    if (rnd.bye) list.append(el("li", { class: "bye" }, "bye: " + rnd.bye + " (a win)" + (rnd.bye_again ? ": a second bye, no other pairing without a repeat was left" : "")));
    rounds.append(el("h4", {}, "round " + rnd.round + (swiss ? " of " + s.planned + " (Swiss)" : "")), list);
  }
  if (swiss && s.rounds.length && s.rounds.length < s.planned) {
    const n = s.rounds.length;
    const over = s.rounds[n - 1].games.every((g) => g.result);
    rounds.append(el("p", { class: "next" }, over ? "no round " + (n + 1) + " without a repeat pairing: the evening is over"
      : "round " + (n + 1) + ": paired by score when round " + n + " is over"));
  }
  if (!s.rounds.length) rounds.textContent = "no session set: every game counts";
  // results not counted, for the director: a table's result for another table's pairing, a pair's second result…
  if (s.disputed && s.disputed.length) {
    const list = el("ul", { class: "disputed" });
    for (const d of s.disputed) {
      list.append(el("li", {}, d.table + " game " + d.game + ": " + d.players[0] + " – " + d.players[1] + " " + d.score.A + "–" + d.score.B + ": not counted (" + d.why + ")"));
    }
    rounds.append(el("h4", {}, plural(s.disputed.length, "disputed result")), list);
  }
}

const source = new EventSource("/api/stream");
source.onopen = () => { $("conn").textContent = "live"; };
source.onerror = () => { $("conn").textContent = "reconnecting…"; };
source.addEventListener("table", (m) => {
  const t = JSON.parse(m.data);
  if (!t || typeof t.table !== "string") return;
  noteLatency(t.t);
  window.__updates += 1;
  tables.set(t.table, t);
  dirty.add(t.table);
  schedule();
});
source.addEventListener("standings", (m) => showStandings(JSON.parse(m.data)));
tabs();
