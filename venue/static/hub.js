"use strict";
// The venue's scoreboard: one EventSource on /api/stream (table, standings).
const tables = new Map();
window.__tables = tables;
window.__standings = null;
window.__updates = 0;
const $ = (id) => document.getElementById(id);
let pending = false;

function render() {
  pending = false;
  const body = document.querySelector("#tables tbody");
  body.replaceChildren();
  for (const t of [...tables.values()].sort((a, b) => a.table.localeCompare(b.table, undefined, { numeric: true }))) {
    const link = el("a", { href: "#" }, "record");
    link.addEventListener("click", async (ev) => {
      ev.preventDefault();
      const r = await fetch("/api/tables/" + encodeURIComponent(t.table) + "/record");
      $("recordtitle").textContent = t.table;
      $("record").textContent = await r.text();
      document.querySelector('nav button[data-tab="records"]').click();
    });
    const state = t.availability !== "online" ? t.availability : (t.winner ? t.winner + " wins" : t.phase + (t.turn ? " · " + t.turn : ""));
    const row = el("tr", { "data-table": t.table }, el("td", {}, t.table), el("td", {}, t.players.join(" – ")),
      el("td", { class: "tscore" }, t.score.A + " – " + t.score.B), el("td", {}, state),
      el("td", {}, t.trump ? cardEl(t.trump) : "–"), el("td", {}, link));
    body.append(row);
  }
  $("count").textContent = tables.size + " tables";
}

function schedule() { if (!pending) { pending = true; requestAnimationFrame(render); } }

function showStandings(s) {
  window.__standings = s;
  $("session").textContent = "Ranking · " + s.session + " · " + s.games + " games";
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
    if (rnd.bye) list.append(el("li", { class: "bye" }, "bye: " + rnd.bye + " (a win)"));
    rounds.append(el("h4", {}, "round " + rnd.round + (swiss ? " of " + s.planned + " (Swiss)" : "")), list);
  }
  if (swiss && s.rounds.length && s.rounds.length < s.planned) {
    const n = s.rounds.length;
    const over = s.rounds[n - 1].games.every((g) => g.result);
    rounds.append(el("p", { class: "next" }, over ? "no round " + (n + 1) + " without a repeat pairing: the evening is over"
      : "round " + (n + 1) + ": paired by score when round " + n + " is over"));
  }
  if (!s.rounds.length) rounds.textContent = "no session set: every game counts";
}

const source = new EventSource("/api/stream");
source.onopen = () => { $("conn").textContent = "live"; };
source.onerror = () => { $("conn").textContent = "reconnecting…"; };
source.addEventListener("table", (m) => {
  const t = JSON.parse(m.data);
  noteLatency(t.t);
  window.__updates += 1;
  tables.set(t.table, t);
  schedule();
});
source.addEventListener("standings", (m) => showStandings(JSON.parse(m.data)));
tabs();
