// The score page's editor of a Next Station sheet (score.js, #/score/{game}): lines drawn
// section by section on the city's map, circled stations, the objectives in play. It only
// draws what is clicked; the server judges the sheet (POST /api/score).

import { h, s, clear, colourChip, colourLetters, colourHex, activate, colourName, gameTitle, objectiveTextOf } from "./dom.js";
import { t } from "./i18n.js";
import { refusedItem } from "./api.js";
import { NextStationBoard } from "./board-nextstation.js";
import { sheetTable } from "./play-nextstation.js";

export class LinesEditor {
  constructor(board, info, { changed, shown }) {
    this.board = board;
    this.onChange = changed;
    this.onShown = shown;
    this.letters = colourLetters(board.colours);
    this.canCircle = (board.powers || []).some((p) => p.id === "circle-station");
    this.neighbours = new Map();
    for (const l of board.links) {
      for (const [a, b] of [[l.a, l.b], [l.b, l.a]]) {
        if (!this.neighbours.has(a)) this.neighbours.set(a, []);
        this.neighbours.get(a).push(b);
      }
    }
    this.view = new NextStationBoard(board, { onPick: (name, kind) => this.pick(name, kind), snug: true });
    this.svg = this.view.svg;
    this.sectionHits = s("g", { class: "layer-section-hits" });
    this.svg.insertBefore(this.sectionHits, this.view.layers.hits);
    this.colour = board.colours[0];
    this.mode = "draw";
    this.selected = null;
    this.fixHint = t("score.fix.section");
    this.intro = t("score.intro.lines", { game: gameTitle(board.game) });
  }

  load(sheet) {
    const canon = (name) => (this.board.aliases || {})[name] || name;
    this.lines = {};
    for (const c of this.board.colours) {
      const raw = sheet && sheet.lines && Array.isArray(sheet.lines[c]) ? sheet.lines[c] : [];
      const known = (p) => Array.isArray(p) && p.length === 2 && p.every((n) => typeof n === "string" && this.view.station(n));
      this.lines[c] = raw.filter(known).map(([a, b]) => [canon(a), canon(b)]);
      this.lines[c] = this.ordered(c);
    }
    this.circled = this.canCircle && sheet && sheet.circled ? { ...sheet.circled } : {};
    this.objectives = sheet && Array.isArray(sheet.objectives) ? [...sheet.objectives] : [];
    this.selected = null;
  }

  // The sections as the `score` format lists them: from the departure outward (a paper sheet
  // has no order); sections not joined to the line follow as drawn (the server names them).
  ordered(colour) {
    const left = [...this.lines[colour]];
    const out = [];
    const reached = new Set([this.departure(colour)]);
    for (;;) {
      const i = left.findIndex(([a, b]) => reached.has(a) || reached.has(b));
      if (i < 0) break;
      const [a, b] = left.splice(i, 1)[0];
      const pair = reached.has(a) ? [a, b] : [b, a];
      out.push(pair);
      reached.add(a).add(b);
    }
    return [...out, ...left];
  }

  departure(colour) {
    const name = this.board.departures[colour];
    return (this.board.aliases || {})[name] || name;
  }

  stationsOf(colour) {
    const out = new Set([this.departure(colour)]);
    for (const [a, b] of this.lines[colour]) out.add(a).add(b);
    return out;
  }

  sheet() {
    const lines = {};
    for (const c of this.board.colours) lines[c] = this.lines[c].map((p) => [...p]);
    const out = { game: this.board.game, lines };
    const circled = Object.fromEntries(Object.entries(this.circled).filter(([, st]) => st));
    if (Object.keys(circled).length) out.circled = circled;
    if (this.objectives.length) out.objectives = [...this.objectives];
    return out;
  }

  pick(name, kind) {
    const c = this.colour;
    if (kind === "circle") {
      this.circled[c] = this.circled[c] === name ? null : name;
    } else if (kind === "target") {
      const same = (p) => (p[0] === this.selected && p[1] === name) || (p[1] === this.selected && p[0] === name);
      if (this.lines[c].some(same)) this.lines[c] = this.lines[c].filter((p) => !same(p));
      else this.lines[c].push([this.selected, name]);
      this.lines[c] = this.ordered(c);
      this.selected = name;
    } else {
      this.selected = kind === "selected" ? null : name;
      this.onShown();
      return;
    }
    this.onChange();
  }

  remove(colour, index) {
    this.lines[colour].splice(index, 1);
    this.lines[colour] = this.ordered(colour);
    if (this.circled[colour] && !this.stationsOf(colour).has(this.circled[colour])) this.circled[colour] = null;
    this.selected = null;
    this.onChange();
  }

  setColour(colour) {
    this.colour = colour;
    this.selected = null;
    this.onShown();
  }

  draw(result, error) {
    this.bad = null;
    const at = refusedItem(error);
    if (at && at.colour && Number.isInteger(at.section) && (this.lines[at.colour] || [])[at.section - 1]) this.bad = [at.colour, at.section - 1];
    this.redraw();
  }

  redraw() {
    const lines = {};
    for (const c of this.board.colours) lines[c] = { sections: this.lines[c], circled: this.circled[c] || null };
    const onLine = [...this.stationsOf(this.colour)];
    this.view.update({
      lines,
      colour: this.colour,
      starts: this.mode === "draw" ? onLine : [],
      selected: this.mode === "draw" ? this.selected : null,
      targets: this.mode === "draw" && this.selected ? this.neighbours.get(this.selected) || [] : [],
      circles: this.mode === "circle" && this.lines[this.colour].length ? onLine : [],
    });
    const g = clear(this.sectionHits);
    for (const c of this.board.colours) {
      this.lines[c].forEach(([a, b], i) => {
        const [[x1, y1], [x2, y2]] = this.view.segment(a, b);
        const bad = this.bad && this.bad[0] === c && this.bad[1] === i;
        if (bad) g.append(s("line", { x1, y1, x2, y2, class: "bad-section", "data-bad": `${a}-${b}` }));
        const hit = s("g", { class: "hit hit-section", tabindex: "0", role: "button", "data-section": `${c}:${a}-${b}`,
          "aria-label": t("score.remove-section", { colour: colourName(c), section: `${a}-${b}` }) }, s("polygon", { points: band(x1, y1, x2, y2, 8) }));
        activate(hit, () => this.remove(c, i));
        g.append(hit);
      });
    }
  }

  toolbar(el) {
    const counts = Object.fromEntries(this.board.colours.map((c) => [c, this.lines[c].length]));
    el.append(h("div", { class: "score-colours", role: "radiogroup", "aria-label": t("score.line-colour") }, this.board.colours.map((c) =>
      h("label", { class: `choice colour-choice${c === this.colour ? " checked" : ""}`, style: { "--c": colourHex(c) } },
        h("input", { type: "radio", name: "colour", value: c, checked: c === this.colour, onchange: () => this.setColour(c) }),
        colourChip(c, this.letters[c]),
        h("span", { class: "choice-help" }, `${t("score.sections", { n: counts[c] })}${this.circled[c] ? `, ○ ${this.circled[c]}` : ""}`)))));
    if (this.canCircle) {
      const modeBtn = (mode, label) => h("button", { type: "button", class: `btn small power${this.mode === mode ? " active" : ""}`,
        "aria-pressed": this.mode === mode ? "true" : "false", id: `mode-${mode}`,
        onclick: () => { this.mode = mode; this.selected = null; this.onShown(); } }, label);
      el.append(h("div", { class: "buttons score-modes" }, modeBtn("draw", t("score.mode.draw")), modeBtn("circle", t("power.circle-station"))));
    }
  }

  controls(el, result) {
    el.append(h("h3", {}, t("score.your-sheet")));
    el.append(h("div", { class: "buttons" },
      h("button", { type: "button", class: "btn small", id: "undo-section", disabled: !this.lines[this.colour].length,
        onclick: () => this.remove(this.colour, this.lines[this.colour].length - 1) }, t("score.remove-last", { colour: colourName(this.colour) })),
      h("button", { type: "button", class: "btn small", id: "clear-sheet", onclick: () => {
        if (!confirm(t("score.clear-sheet.confirm"))) return;
        this.load(null);
        this.onChange();
      } }, t("score.clear-sheet"))));
    const objs = this.board.objectives || [];
    if (objs.length) {
      const met = (result && result.objectives) || {};
      el.append(h("fieldset", { class: "score-objectives" }, h("legend", {}, t("score.objectives")),
        objs.map((o) => {
          const on = this.objectives.includes(o.id);
          return h("label", { class: "row objective" },
            h("input", { type: "checkbox", value: o.id, checked: on, disabled: !on && this.objectives.length >= 2, onchange: (ev) => {
              this.objectives = ev.target.checked ? [...this.objectives, o.id] : this.objectives.filter((x) => x !== o.id);
              this.onChange();
            } }),
            h("span", {}, objectiveTextOf(o.id, o.text)),
            on && o.id in met ? h("span", { class: `tag${met[o.id] ? " met" : ""}` }, met[o.id] ? t("score.met") : t("score.not-met")) : null);
        })));
    }
    if (this.canCircle) {
      el.append(h("p", { class: "muted small" }, t("score.powers-note")));
    }
  }

  help() {
    const c = this.colour;
    const colour = colourName(c);
    if (this.mode === "circle") return this.lines[c].length ? t("score.help.circle", { colour }) : t("score.help.draw-first", { colour });
    if (this.selected) return t("score.help.selected", { colour, station: this.selected });
    return this.lines[c].length ? t("score.help.start", { colour }) : t("score.help.start-departure", { colour, station: this.board.departures[c] });
  }

  summary(result) {
    return h("span", {}, t("score.total"), " ", h("strong", { "data-testid": "score-total" }, String(result.total)), " ", t("score.points-word", { n: result.total }));
  }

  breakdown(result) {
    const scored = Object.fromEntries(this.board.colours.map((c) => [c, (result.lines[c] || {}).score || 0]));
    return sheetTable(this.board, result, scored, this.letters);
  }
}

// The points of a band `half` wide on each side of the segment (x1, y1)-(x2, y2): a section's
// click area (a line's box would be flat for a level section).
function band(x1, y1, x2, y2, half) {
  const len = Math.hypot(x2 - x1, y2 - y1) || 1;
  const [nx, ny] = [((y1 - y2) / len) * half, ((x2 - x1) / len) * half];
  return [[x1 + nx, y1 + ny], [x2 + nx, y2 + ny], [x2 - nx, y2 - ny], [x1 - nx, y1 - ny]]
    .map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");
}
