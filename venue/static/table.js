"use strict";
// The table's live page: one EventSource on /api/stream (state, event, hand, ping). Every
// state carries the public events of the hand under way ("story") and the game's hands, so a
// spectator who comes late sees the hand so far; the page draws it all from the state.
window.__state = null;
window.__updates = 0;
window.__shown = {};  // card -> when (ms) it was first drawn on the table (for the tests)
const $ = (id) => document.getElementById(id);
let WORDS = {};
let ZONES = {};
let PLURALS = {};
let SHIPPED = {};  // a shipped table file's title -> in the page's language
let AGREED = {};  // a sentence with a card in it: its words before and after the card, by template and rank
let LANG = "en";
function W(key, vars) {
  let text = WORDS[key] || key.replace(/_/g, " ");
  // a number meeting a noun: the form for its CLDR category (the catalogue's plural forms, Babel's rules)
  if (PLURALS[key] && vars && typeof vars.n === "number") {
    const forms = PLURALS[key];
    text = forms[new Intl.PluralRules(LANG).select(vars.n)] || forms.other || text;
  }
  for (const [k, v] of Object.entries(vars || {})) text = text.split("{" + k + "}").join(v);
  return text;
}

async function loadWords() {
  try {
    const w = await (await fetch("/api/words")).json();
    WORDS = w.words;
    PLURALS = w.plurals || {};
    SHIPPED = w.shipped || {};
    AGREED = w.agreed || {};
    LANG = w.lang || "en";
    window.__ranks = w.ranks;
    window.__cardWords = w.card_words || null;
    ZONES = w.zones || {};
    document.documentElement.lang = w.lang;
    document.title = W("page_title");
  } catch (err) {
    WORDS = {};
  }
  for (const node of document.querySelectorAll("[data-w]")) node.textContent = W(node.dataset.w);
  setConn(conn.dataset.conn);
}

function names(s) {
  return { A: (s.players[0] && s.players[0] !== "A") ? s.players[0] : "A",
           B: (s.players[1] && s.players[1] !== "B") ? s.players[1] : "B" };
}

// The hand so far, from its public events: the trump, the tricks (a trick knows the faults
// made in it), the faults made before the tricks, and how often the hand was played again.
function handStory(story) {
  const hand = { trump: null, tricks: [], early: [], replayed: 0 };
  let pending = [];
  for (const e of story) {
    if (e.event === "trump") hand.trump = e.card;
    else if (e.event === "fault") {
      if (e.late && e.trick && hand.tricks[e.trick - 1]) hand.tricks[e.trick - 1].faults.push(e);
      else if (hand.tricks.length || pending.length || story.some((x) => x.event === "play_begins")) pending.push(e);
      else hand.early.push(e);
    } else if (e.event === "trick") {
      hand.tricks.push({ number: hand.tricks.length + 1, cards: e.cards, winner: e.winner, leader: e.leader, faults: pending });
      pending = [];
    } else if (e.event === "replay_hand") {
      hand.tricks = []; pending = []; hand.replayed += 1;
    }
  }
  hand.pending = pending;
  return hand;
}

function faultWords(f) {
  const said = f.said || { what: f.code, do: "" };  // a fault carries no words: the server words it (said)
  return el("div", { class: "fault" + (f.late ? " late" : ""), "data-code": f.code },
    el("b", {}, said.what), said.do ? el("span", {}, " · " + said.do) : "");
}

function miniTrick(t, seatNames) {
  const lateBy = new Set(t.faults.filter((f) => f.late).map((f) => f.seat));
  const box = el("div", { class: "won" + (t.faults.length ? " faulty" : ""), "data-trick": t.number });
  box.title = W("trick") + " " + t.number + ": " + W("won_by", { who: seatNames[t.winner] });
  const order = t.leader === "B" ? ["B", "A"] : ["A", "B"];
  for (const seat of order) box.append(cardEl(t.cards[seat], { struck: lateBy.has(seat) }));
  for (const f of t.faults) if (!f.late && f.card) box.append(cardEl(f.card, { struck: true }));
  box.append(el("span", { class: "no" }, t.number));
  return box;
}

function showState(s) {
  window.__state = s;
  if (s.lang && s.lang !== document.documentElement.lang) {
    // the language was changed at the table (its settings menu): the page follows at once
    document.documentElement.lang = s.lang;
    loadWords().then(() => showState(window.__state));
  }
  window.__updates += 1;
  const v = s.view;
  const who = names(s);
  $("title").textContent = SHIPPED[s.table] || s.table;
  $("game").textContent = W("game") + " " + s.game + " · " + W("hand") + " " + s.hand + " · " + ((s.said && s.said.rules) || v.rules);
  for (const [i, seat] of ["A", "B"].entries()) {
    $("name-" + seat).replaceChildren(who[seat], ...(v.dealer === seat ? [el("div", { class: "small" }, W("dealer"))] : []));
    $("seat-" + seat).classList.toggle("turn", s.prompt.seat === seat && v.phase !== "over");
    $("score-" + seat).textContent = v.score[i];
  }
  $("score").textContent = v.score[0] + " – " + v.score[1];
  $("score").dataset.score = v.score[0] + "-" + v.score[1];
  $("target").textContent = W("target", { n: v.target });
  const hand = handStory(s.story || []);
  const over = s.story_hand !== s.hand;  // the hand just over, until the next deal begins
  // the turn-up and the stock
  const trump = v.trump || (over ? hand.trump : null);
  $("trump").replaceChildren(...(trump ? [cardEl(trump)] : []));
  $("stock").replaceChildren(...(v.stock_size ? [cardBack()] : []));
  $("stock-n").textContent = v.stock_size || "";
  // the tricks won, on each side
  for (const [i, seat] of ["A", "B"].entries()) {
    const mine = hand.tricks.filter((t) => t.winner === seat);
    const count = v.phase === "play" ? v.tricks[i] : mine.length;
    $("count-" + seat).textContent = count;
    $("count-" + seat).nextElementSibling.textContent = W("tricks_count", { n: count });
    $("stack-" + seat).replaceChildren(...mine.map((t) => miniTrick(t, who)));
  }
  // the trick on the table, and a refused card where it lies
  const trick = $("trick");
  trick.replaceChildren();
  const onPad = Object.fromEntries(v.trick.map(([seat, card]) => [seat, card]));
  if (!v.trick.length && over && s.last_trick) Object.assign(onPad, s.last_trick.cards);
  const refused = Object.fromEntries(s.faults.filter((f) => f.card && f.seat).map((f) => [f.seat, f.card]));
  for (const seat of ["A", "B"]) {
    const slot = el("div", { class: "pad", "data-seat": seat }, el("div", { class: "small" }, who[seat]));
    if (onPad[seat]) slot.append(cardEl(onPad[seat]));
    if (refused[seat]) slot.append(cardEl(refused[seat], { struck: true }));
    if (!onPad[seat] && !refused[seat]) slot.append(el("div", { class: "card empty" }));
    trick.append(slot);
  }
  for (const code of [...Object.values(onPad), ...hand.tricks.flatMap((t) => Object.values(t.cards))]) {
    if (!(code in window.__shown)) window.__shown[code] = Date.now();
  }
  // what went wrong and what to do, in words
  const box = $("faultbox");
  const all = s.faults.concat(s.warning ? [s.warning] : []);
  box.replaceChildren(...all.map((f) => faultWords(f)));
  box.hidden = !all.length;
  if (s.winner) $("prompt").textContent = W("game_over", { who: who[s.winner] || s.winner });
  else if (s.choosing && s.warning) $("prompt").textContent = "";  // the fault's words say who chooses what
  else $("prompt").textContent = (s.said && s.said.prompt) || s.expectation;
  const facts = $("facts");
  facts.replaceChildren();
  if (hand.replayed) facts.append(el("span", {}, W("replayed")));
  for (const f of hand.early) facts.append(el("span", { class: "fault" }, W("before_play") + ": " + (f.said ? f.said.what : f.code)));
  for (const zone of s.offline) facts.append(el("span", { class: "fault" }, W("reader_offline", { zone: ZONES[zone] || zone })));
  showGame(s, who);
  if (!$("events").children.length) for (const e of s.story || []) showEvent(e);
}

// The strip of the game's hands with their points, and the score over the hands.
function showGame(s, who) {
  const strip = $("strip");
  strip.replaceChildren();
  for (const h of s.hands) {
    strip.append(el("li", { "data-hand": h.hand }, el("span", { class: "no" }, h.hand),
      el("span", {}, h.points.A + " – " + h.points.B)));
  }
  if (!s.winner) strip.append(el("li", { class: "now", "data-hand": s.hand }, el("span", { class: "no" }, s.hand), el("span", {}, "…")));
  drawChart(s, who);
}

function drawChart(s, who) {
  const width = 320, height = 120, pad = 18;
  const points = [{ A: 0, B: 0 }, ...s.hands.map((h) => h.score)];
  const now = { A: s.view.score[0], B: s.view.score[1] };
  if (now.A !== points[points.length - 1].A || now.B !== points[points.length - 1].B) points.push(now);
  const top = Math.max(s.view.target, now.A, now.B, 1);
  const steps = Math.max(points.length - 1, 1);
  const x = (i) => pad + (i * (width - 2 * pad)) / steps;
  const y = (n) => height - pad - (n * (height - 2 * pad)) / top;
  const svg = svgNode("svg", { viewBox: "0 0 " + width + " " + height, class: "scorechart", role: "img" });
  svg.append(svgNode("line", { x1: pad, x2: width - pad, y1: y(top), y2: y(top), class: "goal" }),
    svgNode("line", { x1: pad, x2: width - pad, y1: y(0), y2: y(0), class: "axis" }));
  const goal = svgNode("text", { x: pad, y: y(top) - 4, class: "label" });
  goal.textContent = W("target", { n: s.view.target });
  svg.append(goal);
  // the end labels: the higher score's above its point, the other's below its own, and never closer
  // than a line apart (scores 0 and 1 lie 17 units apart: "A 0" and "B 1" overlapped at 360 px)
  const last = points[points.length - 1];
  const upper = last.B > last.A ? "B" : "A";
  const labelY = { [upper]: y(last[upper]) - 6 };
  const lower = upper === "A" ? "B" : "A";
  labelY[lower] = Math.max(y(last[lower]) + 14, labelY[upper] + 13);
  if (labelY[lower] > height - 2) {
    labelY[upper] -= labelY[lower] - (height - 2);
    labelY[lower] = height - 2;
  }
  for (const seat of ["A", "B"]) {
    const line = points.map((p, i) => x(i) + "," + y(p[seat])).join(" ");
    svg.append(svgNode("polyline", { points: line, class: "line seat-" + seat }));
    for (const [i, p] of points.entries()) svg.append(svgNode("circle", { cx: x(i), cy: y(p[seat]), r: 3, class: "dot seat-" + seat }));
    const end = points.length > 1;
    const label = svgNode("text", { x: x(points.length - 1) + (end ? -4 : 6), y: labelY[seat],
      class: "label seat-" + seat, "text-anchor": end ? "end" : "start" });
    label.textContent = who[seat] + " " + last[seat];
    svg.append(label);
  }
  svg.setAttribute("aria-label", W("chart"));
  $("chart").replaceChildren(svg);
}

function showEvent(e) {
  const s = window.__state;
  const who = s ? names(s) : { A: "A", B: "B" };
  const list = $("events");
  const li = el("li", { "data-event": e.event });
  if (e.event === "trick") li.append(W("trick") + " · " + W("won_by", { who: who[e.winner] }) + " ", cardEl(e.cards.A), cardEl(e.cards.B));
  else if (e.event === "play") li.append(who[e.seat] + " ", cardEl(e.card));
  else if (e.event === "trump") li.append(W("trump") + " ", cardEl(e.card));
  else if (e.event === "bid") li.append(W("bid_" + e.bid, { who: who[e.seat] }));
  else if (e.event === "fault") li.append(faultWords(e), ...(e.card ? [cardEl(e.card, { struck: true })] : []));
  else if (e.event === "hand_end") li.append(W("hand") + ": " + W("points") + " " + pair(e.points) + " · " + W("score") + " " + pair(e.score));
  else if (e.event === "game_end") li.append(W("game_over", { who: who[e.winner] || e.winner }) + " " + pair(e.score));
  else if (e.event === "king") li.append(who[e.seat] + " +1 " + W("king_points"));
  else if (e.event === "replay_hand") li.append(W("replayed"));
  else if (e.event === "reader") li.append(W(e.online ? "reader_back" : "reader_offline", { zone: ZONES[e.zone] || e.zone }));
  else li.append((e.seat && who[e.seat] ? who[e.seat] + ": " : "") + W("event_" + e.event));
  list.prepend(li);
  while (list.children.length > 60) list.lastChild.remove();
}

// The Hands tab: each finished hand, replayed as a hand viewer does (the deal as a diagram, the
// turn-up, the exchange, then trick by trick with a step control), the coach's verdict beside
// each decision and each card it finds wanting. A hand comes from /api/games/{g}/hands/{k},
// which serves only hands that are over (and revealed).
const hands = new Map();
let viewing = null;  // { game, hand, view, at }
function showHand(h) {
  if (window.__state && h.game !== window.__state.game) hands.clear();
  hands.set(h.game + "/" + h.hand, h);
  const box = $("handlist");
  box.replaceChildren();
  for (const hand of [...hands.values()].reverse()) {
    const round = hand.round ? W("rubber_game", { n: hand.round }) + " · " : "";
    const button = el("button", { class: "handbtn", "data-game": hand.game, "data-hand": hand.hand },
      round + W("hand") + " " + hand.hand + ": " + W("points") + " " + pair(hand.points));
    button.addEventListener("click", () => openHand(hand.game, hand.hand));
    const record = el("details", { class: "recordtext" }, el("summary", {}, W("record_text")), el("pre", {}, hand.said || hand.text));
    box.append(el("div", { class: "handrow" }, button, record));
  }
  if (!$("hands").hidden && !viewing) openHand(h.game, h.hand);
}

let opening = 0;  // the last hand asked for: an older answer that comes late is dropped
async function openHand(game, number) {
  const asked = ++opening;
  const answer = await fetch("/api/games/" + game + "/hands/" + number);
  if (!answer.ok || asked !== opening) return;
  const view = await answer.json();
  if (asked !== opening) return;
  viewing = { game, hand: number, view, at: 0 };
  window.__viewing = viewing;  // for the tests
  for (const b of document.querySelectorAll(".handbtn")) {
    b.setAttribute("aria-pressed", String(+b.dataset.game === game && +b.dataset.hand === number));
  }
  drawViewer();
}

function stepTo(at) {
  if (!viewing) return;
  viewing.at = Math.max(0, Math.min(viewing.view.steps.length - 1, at));
  drawViewer();
}

function viewerCard(code, view, extra) {
  const card = cardEl(code);
  if (view.unseen.includes(code)) {
    card.classList.add("unseen");
    card.dataset.unseen = "1";
    card.setAttribute("aria-label", card.getAttribute("aria-label") + " (" + W("unseen_card") + ")");
    card.append(svgNode("title", {}));
    card.lastChild.textContent = W("unseen_card");
  }
  if (extra) card.classList.add(extra);
  return card;
}

function withCard(text, code, view) {
  // the article before the card and an adjective after it made the card's own (the queen's "la ... meilleure"),
  // as the server agrees them (catalogue.agree)
  const [before, after] = (AGREED[text] || {})[code[0]] || text.split("{card}");
  return [before, viewerCard(code, view, "small"), after || ""];
}

function verdict(s, view) {
  const c = s.coach;
  if (!c) return [];
  if (s.kind === "bid") {
    const right = c.best === s.bid;
    return [el("span", { class: "coach" + (right ? " right" : " wrong") },
      right ? W("coach_agrees") : W("coach_would", { what: W("do_" + c.best) }))];
  }
  const said = el("span", { class: "coach wrong" }, ...withCard(W("coach_better"), c.better, view));
  if (c.points) said.append(" " + W("coach_costs", { n: c.points }));
  if (!c.knowable) said.append(" " + W("coach_luck"));
  return [said];
}

function drawViewer() {
  const box = $("viewer");
  if (!viewing) { box.hidden = true; return; }
  const view = viewing.view, at = viewing.at, s = view.steps[at];
  const who = window.__state ? names(window.__state) : { A: "A", B: "B" };
  const deal = view.steps[0];
  const seat = (x) => {
    const cards = s.hands[x].map((c) => viewerCard(c, view, s.kind === "draw" && s.seat === x && s.cards.includes(c) ? "new" : ""));
    for (let i = 0; i < (s.hidden[x] || 0); i++) {
      const back = cardBack();
      back.classList.add("never");
      back.setAttribute("aria-label", W("unseen_card"));
      cards.push(back);
    }
    const name = el("div", { class: "hv-name" }, who[x], ...(view.dealer === x ? [el("span", { class: "small" }, " · " + W("dealer"))] : []),
      el("span", { class: "hv-tricks" }, " " + s.tricks[x] + " " + W("tricks_count", { n: s.tricks[x] })));
    return el("div", { class: "hv-seat" + (s.seat === x ? " acting" : ""), "data-seat": x }, name, el("div", { class: "hv-cards" }, ...cards));
  };
  const centre = el("div", { class: "hv-centre" });
  centre.append(el("div", { class: "hv-turnup" }, viewerCard(deal.turn_up, view), el("div", { class: "small" }, W("trump"))));
  const table = el("div", { class: "hv-trick" });
  if (s.kind === "discard") table.append(...s.cards.map((c) => viewerCard(c, view, "out")));
  else for (const x of ["A", "B"]) if (s.trick[x]) table.append(el("div", { class: "hv-pad" + (s.winner === x ? " won" : ""), "data-seat": x }, viewerCard(s.trick[x], view), el("div", { class: "small" }, who[x])));
  centre.append(table);
  let said;
  if (s.kind === "deal") said = [W("deal") + " · " + W("turn_up") + " ", viewerCard(s.turn_up, view, "small")];
  else if (s.kind === "bid") said = [W("bid_" + s.bid, { who: who[s.seat] })];
  else if (s.kind === "discard" || s.kind === "draw") said = [W(s.kind === "discard" ? "discards" : "draws", { who: who[s.seat] }) + " ", ...s.cards.map((c) => viewerCard(c, view, "small"))];
  else if (s.kind === "king") said = [W("announces", { who: who[s.seat] })];
  else if (s.kind === "play") said = [W("trick") + " " + s.number + " · " + W("plays", { who: who[s.seat] }) + " ", viewerCard(s.card, view, "small"),
    ...(s.winner ? [" · " + W("won_by", { who: who[s.winner] })] : [])];
  else if (s.kind === "end") said = [W("hand_over", { a: who.A, pa: s.points.A, b: who.B, pb: s.points.B })];
  else said = [s.kind];
  const coach = verdict(s, view);
  const caption = el("p", { class: "hv-said", "aria-live": "polite" }, ...said, ...(coach.length ? [" — ", ...coach] : []));
  const button = (key, to, label) => {
    const b = el("button", { class: "hv-step", "data-step": key, "aria-label": W(label) }, key === "first" ? "«" : key === "prev" ? "◀" : key === "next" ? "▶" : "»");
    b.disabled = to === at || to < 0 || to >= view.steps.length;
    b.addEventListener("click", () => stepTo(to));
    return b;
  };
  const last = view.steps.length - 1;
  const controls = el("div", { class: "hv-controls" }, button("first", 0, "step_first"), button("prev", at - 1, "step_prev"),
    el("span", { class: "hv-at" }, W("step_of", { n: at + 1, m: last + 1 })), button("next", at + 1, "step_next"), button("last", last, "step_last"));
  const notes = [];
  if (view.unseen.length) notes.push(el("p", { class: "small" }, W("unseen_note")));
  if (!view.whole) notes.push(el("p", { class: "small" }, W("coach_none")));
  box.replaceChildren(el("h3", {}, W("viewer") + " · " + W("hand") + " " + view.hand),
    el("div", { class: "hv-table", "data-step": at, "data-kind": s.kind }, seat("B"), centre, seat("A")), caption, controls, ...notes);
  box.hidden = false;
}

document.addEventListener("keydown", (e) => {
  if ($("hands").hidden || !viewing) return;
  if (e.key === "ArrowRight") stepTo(viewing.at + 1);
  else if (e.key === "ArrowLeft") stepTo(viewing.at - 1);
});

// The connection, told honestly: "live" only while the stream is open and heard from (the
// server pings every 15 s); "reconnecting" from the moment it fails or falls silent.
const conn = $("conn");
const SILENT_MS = 40000;
let source = null;
let lastHeard = 0;
function setConn(state) {
  conn.dataset.conn = state;
  conn.textContent = W(state);
}
function heard() {
  lastHeard = Date.now();
  if (conn.dataset.conn !== "live") setConn("live");
}
function connect() {
  source = new EventSource("/api/stream");
  const mine = source;
  source.onopen = heard;
  source.onerror = () => {
    setConn("reconnecting");
    if (mine.readyState === EventSource.CLOSED && source === mine) setTimeout(connect, 2000);
  };
  source.addEventListener("state", (m) => { heard(); const s = JSON.parse(m.data); noteLatency(s.t); showState(s); });
  source.addEventListener("event", (m) => { heard(); showEvent(JSON.parse(m.data)); });
  source.addEventListener("hand", (m) => { heard(); showHand(JSON.parse(m.data)); });
  source.addEventListener("ping", heard);
}
setInterval(() => {
  if (source && source.readyState === EventSource.OPEN && Date.now() - lastHeard > SILENT_MS) {
    source.close();
    setConn("reconnecting");
    connect();
  }
}, 5000);

async function loadGames() {
  const games = await (await fetch("/api/games")).json();
  const body = document.querySelector("#gamelist tbody");
  body.replaceChildren();
  for (const g of games) {
    const link = el("a", { href: "#" }, W("record"));
    link.addEventListener("click", async (ev) => {
      ev.preventDefault();
      $("recordpanel").hidden = false;
      $("recordtitle").textContent = W("game") + " " + g.game;
      $("record").textContent = await (await fetch("/api/games/" + g.game + "/record?lang=" + LANG)).text();
    });
    // a rubber: its result, then each of its games (winner's name and score)
    const score = g.games ? (g.rubber ? W("rubber") + " " + g.rubber.A + "–" + g.rubber.B : W("rubber")) + " (" +
      g.games.map((p) => (p.winner_name || W("playing")) + " " + pair(p.score)).join(", ") + ")" : pair(g.score);
    body.append(el("tr", { "data-game": g.game }, el("td", {}, g.game), el("td", {}, g.players.join(" – ")), el("td", {}, score),
      el("td", {}, g.winner_name || "–"), el("td", {}, g.hands), el("td", {}, link)));
  }
  label($("gamelist"));
}

// each figure carries its column's name: on a phone a row is a card, the name above the figure
function label(table) {
  const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent);
  for (const row of table.querySelectorAll("tbody tr")) {
    for (const [i, td] of [...row.children].entries()) if (i > 0 && names[i]) td.dataset.label = names[i];
  }
}

async function loadStats() {
  const rows = await (await fetch("/api/stats")).json();
  const body = document.querySelector("#statlist tbody");
  body.replaceChildren();
  for (const r of rows) {
    body.append(el("tr", {}, ...["player", "games", "wins", "hands", "points", "tricks", "kings", "voles", "faults"].map((k) => el("td", {}, r[k]))));
  }
  label($("statlist"));
}

document.addEventListener("tab", (e) => {
  if (e.detail === "hands" && !viewing && hands.size) {
    const latest = [...hands.values()].pop();
    openHand(latest.game, latest.hand);
  }
  if (e.detail === "games") loadGames();
  if (e.detail === "stats") loadStats();
});
tabs();
loadWords().then(connect);
