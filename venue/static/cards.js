// The project's card faces, drawn here in SVG (no image files, no font needed for the suits):
// a white card with the rank and suit in two corners, the pips of a 7 to 10 in their usual
// places, a large pip for the ace and a framed letter for the faces. Ranks are printed as the
// table's language prints them (window.__ranks, from /api/words: a French king is an R).
// Hearts and diamonds are red, spades and clubs black. Nothing here names a card: the page only
// draws the cards the table has made public.
"use strict";
const SVG_NS = "http://www.w3.org/2000/svg";
const SUIT_PATHS = {
  H: "M5 9.3C3.2 7.7.2 5.7.2 3.1.2 1.5 1.4.4 2.8.4 3.8.4 4.6 1 5 1.9 5.4 1 6.2.4 7.2.4 8.6.4 9.8 1.5 9.8 3.1 9.8 5.7 6.8 7.7 5 9.3Z",
  D: "M5 .2 8.9 5 5 9.8 1.1 5Z",
  S: "M5 .3C6.8 2.3 9.8 4.2 9.8 6.3 9.8 7.7 8.8 8.5 7.6 8.5 6.8 8.5 6.1 8.1 5.6 7.5 5.8 8.4 6.3 9.2 7 9.8H3C3.7 9.2 4.2 8.4 4.4 7.5 3.9 8.1 3.2 8.5 2.4 8.5 1.2 8.5.2 7.7.2 6.3.2 4.2 3.2 2.3 5 .3Z",
  C: "M5 .3A2.3 2.3 0 1 1 5 4.9 2.3 2.3 0 1 1 5 .3ZM2.6 3.9A2.3 2.3 0 1 1 2.6 8.5 2.3 2.3 0 1 1 2.6 3.9ZM7.4 3.9A2.3 2.3 0 1 1 7.4 8.5 2.3 2.3 0 1 1 7.4 3.9ZM4.4 5.4H5.6C5.7 7.6 6.2 8.9 7 9.8H3C3.8 8.9 4.3 7.6 4.4 5.4Z",
};
const SUIT_NAMES = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
// pip centres on a 50 x 70 card, [x, y]; those below the middle are drawn upside down
const L = 16, M = 25, R = 34;
const PIPS = {
  7: [[L, 16], [R, 16], [M, 25.5], [L, 35], [R, 35], [L, 54], [R, 54]],
  8: [[L, 16], [R, 16], [M, 25.5], [L, 35], [R, 35], [M, 44.5], [L, 54], [R, 54]],
  9: [[L, 15], [R, 15], [L, 28], [R, 28], [M, 35], [L, 42], [R, 42], [L, 55], [R, 55]],
  T: [[L, 15], [R, 15], [M, 21.5], [L, 28], [R, 28], [L, 42], [R, 42], [M, 48.5], [L, 55], [R, 55]],
};
window.__ranks = window.__ranks || { T: "10" };

function svgNode(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  return node;
}

function pip(suit, x, y, size, flip) {
  const g = svgNode("path", { d: SUIT_PATHS[suit], class: "pip" });
  const s = size / 10;
  let t = "translate(" + (x - size / 2) + " " + (y - size / 2) + ") scale(" + s + ")";
  if (flip) t = "rotate(180 " + x + " " + y + ") " + t;
  g.setAttribute("transform", t);
  return g;
}

function rankText(rank) { return window.__ranks[rank] || (rank === "T" ? "10" : rank); }
function cardName(code) {
  const w = window.__cardWords;
  if (!w || !w.ranks[code[0]] || !w.suits[code[1]]) return "";
  return w.card.split("{rank}").join(w.ranks[code[0]]).split("{suit}").join(w.suits[code[1]]);
}

// One card as an SVG picture. opts: struck (a refused card: crossed out in red). Each face is drawn
// once and copied after (a venue's scoreboard draws hundreds of cards a second); only cards are kept.
const drawnCards = new Map();
function cardEl(code, opts) {
  const o = opts || {};
  if (typeof code !== "string" || !/^[789TJQKA][SHDC]$/.test(code)) return drawCard(code, o);
  const key = code + (o.struck ? " struck " : " ") + rankText(code[0]) + " " + cardName(code);
  let card = drawnCards.get(key);
  if (!card) {
    card = drawCard(code, o);
    drawnCards.set(key, card);
  }
  return card.cloneNode(true);
}

function drawCard(code, o) {
  const rank = code[0], suit = code[1];
  const red = suit === "H" || suit === "D";
  const svg = svgNode("svg", { viewBox: "0 0 50 70", role: "img",
    class: "card suit-" + suit + (red ? " red" : "") + (o.struck ? " struck" : "") });
  svg.dataset.card = code;
  // a screen reader says the card in words ("la reina de picas"); the printed index where none are loaded
  const label = cardName(code) || rankText(rank) + SUIT_NAMES[suit];
  svg.setAttribute("aria-label", label);
  svg.append(svgNode("title"));
  svg.lastChild.textContent = label;
  svg.append(svgNode("rect", { x: 0.75, y: 0.75, width: 48.5, height: 68.5, rx: 4, class: "face" }));
  const printed = rankText(rank);
  for (const flip of [false, true]) {
    const g = svgNode("g", flip ? { transform: "rotate(180 25 35)" } : {});
    const text = svgNode("text", { x: 6.5, y: 11.5, class: "index", "text-anchor": "middle",
      "font-size": printed.length > 1 ? 8.5 : 11, "letter-spacing": printed.length > 1 ? -0.9 : 0 });
    text.textContent = printed;
    g.append(text, pip(suit, 6.5, 17.5, 7, false));
    svg.append(g);
  }
  if (PIPS[rank]) {
    for (const [x, y] of PIPS[rank]) svg.append(pip(suit, x, y, 10, y > 35));
  } else if (rank === "A") {
    svg.append(pip(suit, 25, 35, 22, false));
  } else {
    svg.append(svgNode("rect", { x: 12, y: 11, width: 26, height: 48, rx: 2, class: "frame" }));
    const big = svgNode("text", { x: 25, y: 33, class: "facerank", "text-anchor": "middle", "font-size": 20 });
    big.textContent = printed;
    svg.append(big, pip(suit, 25, 46, 13, false));
  }
  if (o.struck) {
    svg.append(svgNode("line", { x1: 4, y1: 4, x2: 46, y2: 66, class: "strike" }),
      svgNode("line", { x1: 46, y1: 4, x2: 4, y2: 66, class: "strike" }));
  }
  return svg;
}

// A card lying face down (the stock): a back, never a card's face.
function cardBack() {
  const svg = svgNode("svg", { viewBox: "0 0 50 70", role: "img", class: "card back" });
  svg.append(svgNode("rect", { x: 0.75, y: 0.75, width: 48.5, height: 68.5, rx: 4, class: "backface" }),
    svgNode("rect", { x: 5, y: 5, width: 40, height: 60, rx: 2, class: "backframe" }),
    pip("D", 25, 35, 14, false));
  return svg;
}
