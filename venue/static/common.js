// Shared by the table's page and the venue's scoreboard (cards are drawn by cards.js).
"use strict";
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}
function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
function pair(p) { return p ? p.A + " – " + p.B : "–"; }
function tabs() {
  const buttons = document.querySelectorAll("nav button");
  const show = (name) => {
    for (const b of buttons) b.setAttribute("aria-selected", String(b.dataset.tab === name));
    for (const s of document.querySelectorAll("main > section")) s.hidden = s.id !== name;
    document.dispatchEvent(new CustomEvent("tab", { detail: name }));
  };
  for (const b of buttons) b.addEventListener("click", () => show(b.dataset.tab));
  show(buttons[0].dataset.tab);
}
// what the benchmark reads: milliseconds from a table's publish ("t") to this handler
window.__latencies = [];
function noteLatency(t) { if (typeof t === "number") window.__latencies.push(Date.now() - t * 1000); }
