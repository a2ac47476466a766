"use strict";
// The table's live page: one EventSource on /api/stream (state, event, hand).
window.__state = null;
window.__updates = 0;
const $ = (id) => document.getElementById(id);

function showState(s) {
  window.__state = s;
  window.__updates += 1;
  const v = s.view;
  $("title").textContent = s.table;
  $("game").textContent = "game " + s.game + " · hand " + s.hand + " · " + v.rules;
  for (const [i, seat] of ["A", "B"].entries()) {
    $("name-" + seat).textContent = (s.players[i] && s.players[i] !== seat) ? s.players[i] + " (" + seat + ")" : seat;
    $("seat-" + seat).classList.toggle("turn", s.prompt.seat === seat && v.phase !== "over");
    $("tricks-" + seat).textContent = "tricks " + v.tricks[i] + (v.dealer === seat ? " · dealer" : "");
  }
  $("score").textContent = v.score[0] + " – " + v.score[1];
  $("score").dataset.score = v.score[0] + "-" + v.score[1];
  $("prompt").textContent = s.winner ? ("game over: " + s.winner + " wins") : s.expectation;
  const facts = $("facts");
  facts.replaceChildren(
    el("span", {}, "phase ", el("b", {}, v.phase)),
    el("span", {}, "trump ", v.trump ? cardEl(v.trump) : "–"),
    el("span", {}, "target ", el("b", {}, v.target)),
    el("span", {}, "stock ", el("b", {}, v.stock_size)),
    el("span", {}, "king ", el("b", {}, v.king || "–")),
    el("span", {}, "sight ", el("b", {}, s.sight.mode + (s.sight.mode === "partial" ? " (" + s.sight.seen.A + "/" + s.sight.held.A + ", " + s.sight.seen.B + "/" + s.sight.held.B + ")" : ""))),
  );
  if (s.offline.length) facts.append(el("span", { class: "fault" }, "offline: " + s.offline.join(", ")));
  const trick = $("trick");
  trick.replaceChildren();
  for (const [seat, card] of v.trick) trick.append(el("span", {}, seat + " "), cardEl(card));
  if (!v.trick.length) trick.textContent = "no card on the play pads";
  const last = $("lasttrick");
  last.replaceChildren();
  if (s.last_trick) last.append("last trick: ", cardEl(s.last_trick.cards.A), cardEl(s.last_trick.cards.B), " won by " + s.last_trick.winner);
  if (s.last_hand) last.append(el("span", {}, " · last hand: points " + pair(s.last_hand.points)));
  const faults = $("faults");
  faults.replaceChildren();
  const all = s.faults.concat(s.warning ? [s.warning] : []);
  for (const f of all) faults.append(el("div", { class: "fault" }, (f.seat || "table") + ": " + f.message + " (" + f.code + ", rule " + f.rule + ")"));
  if (!all.length) faults.textContent = "none";
}

function showEvent(e) {
  const list = $("events");
  let text = e.event;
  if (e.event === "trick") text = "trick to " + e.winner + ": " + e.cards.A + " / " + e.cards.B;
  else if (e.event === "play") text = e.seat + " plays";
  else if (e.event === "bid") text = e.seat + " " + e.bid;
  else if (e.event === "fault") text = "fault " + e.code + " (" + (e.seat || "table") + "): " + e.message;
  else if (e.event === "hand_end") text = "hand over: points " + pair(e.points) + ", score " + pair(e.score);
  else if (e.event === "game_end") text = "game over: " + e.winner + " wins " + pair(e.score);
  else if (e.event === "king") text = "king: " + e.seat;
  const li = el("li", {}, text);
  if (e.event === "play" || e.event === "trump") li.append(" ", cardEl(e.card));
  list.prepend(li);
  while (list.children.length > 60) list.lastChild.remove();
}

const hands = new Map();
function showHand(h) {
  if (window.__state && h.game !== window.__state.game) hands.clear();
  hands.set(h.game + "/" + h.hand, h);
  const box = $("handlist");
  box.replaceChildren();
  for (const hand of [...hands.values()].reverse()) {
    const round = hand.round ? "game " + hand.round + " of the rubber · " : "";
    box.append(el("h4", {}, round + "hand " + hand.hand + " (dealer " + hand.dealer + "): points " + pair(hand.points) +
      (hand.score ? ", score " + pair(hand.score) : "")), el("pre", {}, hand.text));
  }
}

function connect() {
  const source = new EventSource("/api/stream");
  source.onopen = () => { $("conn").textContent = "live"; };
  source.onerror = () => { $("conn").textContent = "reconnecting…"; };
  source.addEventListener("state", (m) => { const s = JSON.parse(m.data); noteLatency(s.t); showState(s); });
  source.addEventListener("event", (m) => showEvent(JSON.parse(m.data)));
  source.addEventListener("hand", (m) => showHand(JSON.parse(m.data)));
}

async function loadGames() {
  const games = await (await fetch("/api/games")).json();
  const body = document.querySelector("#gamelist tbody");
  body.replaceChildren();
  for (const g of games) {
    const link = el("a", { href: "#" }, "record");
    link.addEventListener("click", async (ev) => {
      ev.preventDefault();
      $("recordpanel").hidden = false;
      $("recordtitle").textContent = "game " + g.game;
      $("record").textContent = await (await fetch("/api/games/" + g.game + "/record")).text();
    });
    // a rubber: its result, then each of its games (winner's name and score)
    const score = g.games ? (g.rubber ? "rubber " + g.rubber.A + "–" + g.rubber.B : "rubber") + " (" +
      g.games.map((p) => (p.winner_name || "playing") + " " + pair(p.score)).join(", ") + ")" : pair(g.score);
    body.append(el("tr", { "data-game": g.game }, el("td", {}, g.game), el("td", {}, g.players.join(" – ")), el("td", {}, score),
      el("td", {}, g.winner_name || "–"), el("td", {}, g.hands), el("td", {}, link)));
  }
}

async function loadStats() {
  const rows = await (await fetch("/api/stats")).json();
  const body = document.querySelector("#statlist tbody");
  body.replaceChildren();
  for (const r of rows) {
    body.append(el("tr", {}, ...["player", "games", "wins", "hands", "points", "tricks", "kings", "voles", "faults"].map((k) => el("td", {}, r[k]))));
  }
}

document.addEventListener("tab", (e) => {
  if (e.detail === "games") loadGames();
  if (e.detail === "stats") loadStats();
});
tabs();
connect();
