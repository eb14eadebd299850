// Tiny DOM helpers, colours, letters and shapes shared by every screen.

import { currentLang, t } from "./i18n.js";

const SVGNS = "http://www.w3.org/2000/svg";

function applyAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.setAttribute("class", v);
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    // styles go through the CSSOM: the Content-Security-Policy refuses style attributes
    else if (k === "style") for (const [p, x] of Object.entries(v)) node.style.setProperty(p, x);
    else node.setAttribute(k, v === true ? "" : v);
  }
}

function append(node, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// HTML element: h("button", {class: "x", onclick: f}, "label")
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  applyAttrs(node, attrs);
  append(node, children);
  return node;
}

// SVG element
export function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVGNS, tag);
  applyAttrs(node, attrs);
  append(node, children);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

// -- colours: every colour also has a letter and a dash pattern ---------------------------
export const COLOUR_HEX = {
  blue: "#1f6fd1",
  pink: "#e0489a",
  purple: "#8446d6",
  green: "#15924a",
  orange: "#ef7d00",
  yellow: "#e8b800",
  black: "#16181d",
};

// The seats' colours where a game names none (a plug-in game, play-generic.js): Metro's
// printed seat colours in their order (metro.json's seat_colours; letters Y B O G P L in
// English), so seats 5 and 6 are purple and black everywhere.
export const SEAT_PALETTE = ["yellow", "blue", "orange", "green", "purple", "black"];

// A colour's name in the current language (the code when unknown).
export function colourName(c) {
  return {
    blue: t("colour.blue"), pink: t("colour.pink"), purple: t("colour.purple"), green: t("colour.green"),
    orange: t("colour.orange"), yellow: t("colour.yellow"), black: t("colour.black"),
  }[c] || c;
}

// A symbol or card face in words.
export function faceName(face) {
  return {
    square: t("face.square"), circle: t("face.circle"), triangle: t("face.triangle"), pentagon: t("face.pentagon"),
    any: t("face.any"), joker: t("face.joker"), switch: t("face.switch"), "free-entry": t("face.free-entry"),
    monument: t("face.monument"),
  }[face] || face;
}

// A station card's kind (its back: street, underground, metro) in words.
export const cardKind = (kind) => ({ street: t("card.street"), underground: t("card.underground"), metro: t("card.metro") }[kind] || kind);

// A station card named by its id ("underground-joker", as the move log and the analysis give
// it) in words: "underground card: joker"; any other text as it is.
export function cardName(id) {
  const m = /^(street|underground|metro)-(.+)$/.exec(id);
  return m ? t("ns.card", { kind: cardKind(m[1]), face: faceName(m[2]) }) : id;
}

// A game's name (games.js: the published titles stay as printed).
export { gameTitle } from "./games.js";

// Colours the dark Metro tiles would hide (Metro's black seat): drawn with a light outline.
export const isDark = (name) => name === "black";

export function colourHex(name) {
  return COLOUR_HEX[name] || "#555";
}

// One distinct letter per colour of a list: the first letter of its name in the page's
// language not already taken, accents dropped (English: London blue b, pink p, purple u,
// green g — as in the terminal; Metro y b o g p l; French bleu b, rose r, violet v, vert e).
// Kept per language and colour list: a board asks for a seat's letter at every station it draws.
const LETTERS = new Map();
export function colourLetters(colours) {
  const key = `${currentLang()}|${colours.join(",")}`;
  if (!LETTERS.has(key)) LETTERS.set(key, freshLetters(colours));
  return LETTERS.get(key);
}

function freshLetters(colours) {
  const out = {};
  for (const c of colours) {
    const used = new Set(Object.values(out));
    const name = colourName(c).normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
    const letter = [...name, ...c].find((ch) => /[a-z]/.test(ch) && !used.has(ch)) || "?";
    out[c] = letter;
  }
  return out;
}

// A seat's letter among its game's seat colours (upper case: Metro's Y B O G P L in English).
export function seatLetter(colours, seat) {
  return colourLetters(colours)[colours[seat]].toUpperCase();
}

// A white pattern drawn over a line of the i-th colour, so lines differ without colour.
export const DASHES = [null, "1.5 4", "7 4", "9 3 2 3", "2 2", "12 3"];

// A colour chip: swatch + letter + name.
export function colourChip(colour, letter, { label = true } = {}) {
  return h(
    "span",
    { class: "chip", style: { "--c": colourHex(colour) } },
    h("span", { class: "chip-swatch", "aria-hidden": "true" }, letter.toUpperCase()),
    label ? h("span", { class: "chip-name" }, colourName(colour)) : null,
  );
}

// Whether the page is laid out for a phone (the style sheet's narrow layout: max-width 600px).
export const narrow = () => matchMedia("(max-width: 600px)").matches;

// Secondary content behind a summary a tap opens: closed on a phone (a short page), open
// elsewhere. ``fold(panel)`` folds a panel whose first heading is its title, the heading
// becoming the summary (the panel keeps its id, so links and tests find it).
export function fold(panel) {
  const heading = panel.querySelector(":scope > h2, :scope > .panel-head > h2");
  const details = h("details", { class: "panel fold", open: !narrow() }, h("summary", {}, heading));
  panel.classList.remove("panel");
  details.append(panel);
  return details;
}

// A text field with its rule right under it, read out with it (aria-describedby): a player
// sees what a field takes before anything is refused.
export function withRule(input, id, rule) {
  input.setAttribute("aria-describedby", id);
  return h("span", { class: "field" }, input,
    h("span", { class: "muted small field-rule", id, "data-testid": "field-rule" }, rule));
}

// -- symbols (stations and card faces) ----------------------------------------------------
function polygon(n, r, rot = -Math.PI / 2) {
  const pts = [];
  for (let i = 0; i < n; i++) {
    const a = rot + (2 * Math.PI * i) / n;
    pts.push(`${(r * Math.cos(a)).toFixed(2)},${(r * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(" ");
}

// A station symbol centred on (0, 0), radius r.
export function symbolShape(symbol, r, attrs = {}) {
  switch (symbol) {
    case "square":
      return s("rect", { x: -r * 0.82, y: -r * 0.82, width: r * 1.64, height: r * 1.64, ...attrs });
    case "circle":
      return s("circle", { r: r * 0.9, ...attrs });
    case "triangle":
      return s("polygon", { points: polygon(3, r * 1.12, -Math.PI / 2).replace(/,/g, ",") , transform: `translate(0 ${r * 0.18})`, ...attrs });
    case "pentagon":
      return s("polygon", { points: polygon(5, r * 1.0), ...attrs });
    case "monument":
      return s("polygon", { points: `0,${-r * 1.15} ${r * 1.15},0 0,${r * 1.15} ${-r * 1.15},0`, ...attrs });
    default: // any
      return s("circle", { r: r * 0.95, ...attrs });
  }
}

// A card face icon (inline SVG) for the cards panel.
export function faceIcon(face, size = 28) {
  const r = size * 0.36;
  const g = s("g", { transform: `translate(${size / 2} ${size / 2})` });
  const attrs = { fill: "currentColor" };
  if (["square", "circle", "triangle", "pentagon"].includes(face)) {
    g.append(symbolShape(face, r, attrs));
  } else if (face === "joker") {
    g.append(s("polygon", { points: star(5, r * 1.1, r * 0.45), ...attrs }));
  } else if (face === "switch") {
    g.append(s("path", { d: `M${-r} ${-r * 0.4} H${r * 0.6} M${r * 0.2} ${-r * 0.9} L${r * 0.75} ${-r * 0.4} L${r * 0.2} ${r * 0.1} M${r} ${r * 0.5} H${-r * 0.6} M${-r * 0.2} ${0} L${-r * 0.75} ${r * 0.5} L${-r * 0.2} ${r}`, fill: "none", stroke: "currentColor", "stroke-width": size * 0.09, "stroke-linecap": "round", "stroke-linejoin": "round" }));
  } else if (face === "free-entry") {
    g.append(s("polygon", { points: `0,${-r} ${r},0 0,${r} ${-r},0`, ...attrs }));
    g.append(s("circle", { r: r * 0.3, fill: "#fff" }));
  } else {
    g.append(s("text", { "text-anchor": "middle", dy: "0.35em", "font-size": size * 0.6, fill: "currentColor", text: "?" }));
  }
  return s("svg", { viewBox: `0 0 ${size} ${size}`, width: size, height: size, class: "face-icon", "aria-hidden": "true" }, g);
}

export function star(n, ro, ri) {
  const pts = [];
  for (let i = 0; i < 2 * n; i++) {
    const a = -Math.PI / 2 + (Math.PI * i) / n;
    const r = i % 2 ? ri : ro;
    pts.push(`${(r * Math.cos(a)).toFixed(2)},${(r * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(" ");
}

// Keyboard: Enter/Space on a focusable SVG group acts like a click.
export function activate(node, fn) {
  node.addEventListener("click", (ev) => { ev.preventDefault(); fn(ev); });
  node.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); fn(ev); }
  });
}

// A seat's name as shown: a bot's ("bot:medium", or "bot:medium 2" for the second bot of
// that level in a room) in words of the page's language, built from its level and ordinal.
export function fmtName(name) {
  if (!name) return "—";
  if (!name.startsWith("bot:")) return name;
  const [, code, n] = name.slice(4).match(/^(.*?)(?: (\d+))?$/);
  return n ? t("name.bot-n", { name: botLevel(code), n }) : t("name.bot", { name: botLevel(code) });
}

// This browser's seat: its name with "(you)", unless the name says so already (the guided
// game's seat is called "You", "Vous", "Jij", "Vy").
export function youName(name) {
  const shown = fmtName(name);
  return shown.toLowerCase() === t("common.you").toLowerCase() ? shown : t("common.name-you", { name: shown });
}

// A bot level (easy, medium, hard, expert) or algorithm in words.
export function botLevel(code) {
  return {
    easy: t("bot.easy"), medium: t("bot.medium"), hard: t("bot.hard"), expert: t("bot.expert"),
    greedy: t("bot.greedy"), heuristic: t("bot.heuristic"), lookahead: t("bot.lookahead"),
    montecarlo: t("bot.montecarlo"), random: t("bot.random"),
  }[code] || code;
}

// A bot's menu label: the level in words, then the server's account of what it plays
// ("Medium — greedy": the part after the dash is technical and stays as sent).
export function botLabel(g, b) {
  const label = (g.bot_labels || {})[b] || b;
  // the detail names an algorithm first ("greedy", "Monte Carlo (500 game estimates)"):
  // that name in words, its figures as sent
  const raw = label.includes(" — ") ? label.split(" — ").slice(1).join(" — ") : "";
  const algo = { greedy: "greedy", heuristic: "heuristic", lookahead: "lookahead", "Monte Carlo": "montecarlo", random: "random" };
  const first = Object.keys(algo).find((name) => raw === name || raw.startsWith(`${name} `));
  const detail = first ? `${botLevel(algo[first])}${raw.slice(first.length)}` : raw;
  const level = botLevel(b);
  const title = `${level[0].toUpperCase()}${level.slice(1)}`;
  if (["easy", "medium", "hard", "expert"].includes(b)) return detail ? `${title} — ${detail}` : title;
  return t("bot.algorithm", { name: botLevel(b) });
}

// A solo rating band's scores and phrase in words, from the numbers the server sends
// (`low`/`high`, null at an open end; `phrase` is the rulebook's, London's top band only).
export function bandRange(r) {
  if (r.low == null) return t("end.range.or-less", { score: r.high });
  if (r.high == null) return t("end.range.or-more", { score: r.low });
  return `${r.low}–${r.high}`;
}
export function bandPhrase(r) {
  return r.phrase ? t("end.top-phrase") : "";
}

// A published rule set's title and note (Metro: seed, box), in words.
export function presetText(name, p) {
  const known = {
    seed: [t("preset.seed"), t("preset.seed.note")],
    box: [t("preset.box"), t("preset.box.note")],
  }[name];
  return known ? { title: known[0], note: known[1] } : { title: p.title, note: p.note };
}

// An option's value in words (Metro's turn modes and one-tile routes).
export function optionValue(v) {
  return {
    draw: t("option.value.draw"), hand: t("option.value.hand"), "official-hand": t("option.value.official-hand"),
    allowed: t("option.value.allowed"), forbidden: t("option.value.forbidden"),
  }[v] || v;
}

// An objective's text by its id (the board's English text when unknown).
export function objectiveTextOf(id, fallback) {
  return {
    "interchanges-8": t("objective.interchanges-8"), "all-districts": t("objective.all-districts"),
    "all-tourist-sites": t("objective.all-tourist-sites"), "central-district": t("objective.central-district"),
    "thames-6": t("objective.thames-6"), "triple-interchanges-3": t("objective.triple-interchanges-3"),
    "districts-7": t("objective.districts-7"), "double-bridges-2": t("objective.double-bridges-2"),
    "monuments-6": t("objective.monuments-6"),
  }[id] || fallback || id;
}

export function toast(message, kind = "error") {
  let box = document.getElementById("toasts");
  if (!box) {
    box = h("div", { id: "toasts", role: "status", "aria-live": "polite" });
    document.body.append(box);
  }
  const t = h("div", { class: `toast toast-${kind}` }, message);
  box.append(t);
  setTimeout(() => t.remove(), 4500);
}
