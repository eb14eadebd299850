// "Score a paper game" (#/score[/{game}]): a player who played with the box redraws their
// sheet by clicking — Next Station: sections per colour, circled stations, objectives in play;
// Metro: tiles on squares — and after each change the server checks and scores it
// (POST /api/score, docs/web-api.md "Score sheets"): the breakdown of `metrogames score`, or
// the refusal naming the illegal section. The sheet downloads in the `score` format
// (docs/notation.md, "Score sheet") and uploads again. Nothing here decides what is legal:
// clicks follow the map's links and the board's squares; the server judges the drawing.

import { h, s, clear, colourChip, colourLetters, colourHex, activate, toast, colourName, gameTitle, optionValue, objectiveTextOf } from "./dom.js";
import { t } from "./i18n.js";
import { api, getBoard, getGames } from "./api.js";
import { NextStationBoard } from "./board-nextstation.js";
import { MetroBoard, moveFigure, tileSvg } from "./board-metro.js";
import { sheetTable } from "./play-nextstation.js";
import { seatChip } from "./play-metro.js";

const STORE = (game) => `metrogames.sheet.${game}`;
const scoreSheet = (sheet) => api("POST", "/api/score", sheet);

export class ScoreScreen {
  constructor(root, navigate, game) {
    this.root = root;
    this.navigate = navigate;
    this.game = game; // null: the first game with a score sheet
    this.closed = false;
    this.result = null;
    this.error = null;
    this.start();
  }

  destroy() { this.closed = true; }

  async start() {
    clear(this.root).append(h("p", { class: "muted" }, t("common.loading")));
    let games;
    try {
      games = (await getGames()).filter((g) => scoreGames.includes(g.game));
      if (!games.some((g) => g.game === this.game)) {
        this.navigate(`#/score/${games[0].game}`);
        return;
      }
      this.board = await getBoard(this.game);
    } catch (err) {
      clear(this.root).append(h("p", { class: "error" }, t("common.no-server", { error: err.message })));
      return;
    }
    if (this.closed) return;
    this.info = games.find((g) => g.game === this.game);
    // changed: the sheet changed (ask the server); shown: only the page's look changed
    const hooks = { changed: () => this.changed(), shown: () => this.render() };
    this.editor = new EDITORS[this.game](this.board, this.info, hooks);
    this.editor.load(this.stored());
    document.title = t("score.page-title", { game: gameTitle(this.game) });
    this.frame(games);
    this.changed();
  }

  stored() {
    try { return JSON.parse(localStorage.getItem(STORE(this.game)) || "null"); } catch { return null; }
  }

  frame(games) {
    const tabs = h("nav", { class: "seat-tabs score-games", "aria-label": t("home.game") }, games.map((g) =>
      h("a", { class: `tab${g.game === this.game ? " active" : ""}`, href: `/#/score/${g.game}`, "aria-current": g.game === this.game ? "page" : null,
        onclick: (ev) => { ev.preventDefault(); this.navigate(`#/score/${g.game}`); } }, gameTitle(g.game))));
    this.el = {
      status: h("p", { class: "status-line score-status", "data-testid": "score-status", "aria-live": "polite" }),
      toolbar: h("div", { class: "score-toolbar" }),
      controls: h("section", { class: "panel score-controls" }),
      result: h("section", { class: "panel score-result", "data-testid": "score-result", "aria-live": "polite" }),
      help: h("p", { class: "muted small score-help", "data-testid": "score-help" }),
    };
    const upload = h("input", { type: "file", id: "sheet-upload", accept: ".json,application/json", onchange: (ev) => {
      const f = ev.target.files[0];
      ev.target.value = "";
      if (f) this.upload(f);
    } });
    const file = h("section", { class: "panel" }, h("h3", {}, t("score.file")),
      h("p", { class: "muted small" }, t("score.format"), " ", h("code", {}, "metrogames score SHEET.json")),
      h("div", { class: "buttons" },
        h("button", { class: "btn", type: "button", id: "sheet-download", onclick: () => this.download() }, t("score.download"))),
      h("label", { class: "row file" }, t("score.upload"), " ", upload));
    clear(this.root).append(h("div", { class: "score-page" },
      h("div", { class: "room-header" }, h("h2", {}, t("score.title")), tabs),
      h("p", { class: "muted score-intro" }, this.editor.intro),
      h("div", { class: "table-layout" },
        h("div", { class: "score-board" }, this.el.status, this.el.toolbar, h("div", { class: "board-wrap" }, this.editor.svg), this.el.help),
        h("div", { class: "side" }, this.el.controls, this.el.result, file))));
  }

  // After every change: redraw, keep the sheet for a reload, and ask the server (one request
  // at a time; changes made meanwhile are sent together when it answers).
  async changed() {
    if (!this.el) return;
    this.render();
    try { localStorage.setItem(STORE(this.game), JSON.stringify(this.editor.sheet())); } catch { /* storage off */ }
    this.el.result.dataset.pending = "1";
    if (this.asking) { this.again = true; return; }
    this.asking = true;
    do {
      this.again = false;
      try {
        this.result = await scoreSheet(this.editor.sheet());
        this.error = null;
      } catch (err) {
        this.result = null;
        this.error = err;
      }
    } while (this.again && !this.closed);
    this.asking = false;
    if (this.closed) return;
    delete this.el.result.dataset.pending;
    this.render();
  }

  render() {
    const focused = focusKey(document.activeElement);
    this.editor.draw(this.result, this.error);
    this.editor.toolbar(clear(this.el.toolbar));
    this.editor.controls(clear(this.el.controls), this.result);
    clear(this.el.help).append(...[this.editor.help()].flat());  // text, or nodes (a tile's picture)
    const status = clear(this.el.status);
    const res = clear(this.el.result);
    res.append(h("h3", {}, t("daily.fact.score")));
    if (this.el.result.dataset.pending && !this.result && !this.error) {
      res.append(h("p", { class: "muted" }, t("score.scoring")));
    } else if (this.error) {
      const rule = this.error.reason && this.error.reason !== "bad-request" && this.error.status === 400;
      status.append(h("span", { class: "error" }, `✗ ${rule ? t("score.refused") : t("score.not-scored")}: ${this.error.message}`));
      res.append(h("p", { class: "error", role: "alert", "data-testid": "score-error", "data-reason": this.error.reason },
        rule ? t("score.breaks") : t("score.cannot"), " ", this.error.message));
      if (rule) res.append(h("p", { class: "muted small" }, this.editor.fixHint));
    } else if (this.result) {
      status.append(this.editor.summary(this.result));
      res.append(this.editor.breakdown(this.result));
    }
    // the controls were drawn anew: keyboard focus goes back to the same control
    const again = focused && this.root.querySelector(focused);
    if (again) again.focus();
  }

  download() {
    const text = `${JSON.stringify(this.editor.sheet(), null, 1)}\n`;
    const blob = new Blob([text], { type: "application/json" });
    const a = h("a", { href: URL.createObjectURL(blob), download: `${this.game}-sheet.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 2000);
  }

  // An uploaded sheet is first shown to the server: one it cannot read (bad structure) is
  // refused and changes nothing; one it reads — legal or breaking a rule — is loaded to edit.
  async upload(file) {
    let sheet;
    try {
      sheet = JSON.parse(await file.text());
    } catch (err) {
      toast(t("score.not-json", { file: file.name, error: err.message }));
      return;
    }
    try {
      await scoreSheet(sheet);
    } catch (err) {
      if (err.reason === "bad-request" || err.status !== 400) {
        toast(t("score.cannot-load", { file: file.name, error: err.message }));
        return;
      }
    }
    if (sheet.game !== this.game) {
      try { localStorage.setItem(STORE(sheet.game), JSON.stringify(sheet)); } catch { /* storage off */ }
      this.navigate(`#/score/${sheet.game}`);
      return;
    }
    this.editor.load(sheet);
    toast(t("score.loaded", { file: file.name }), "info");
    this.changed();
  }
}

// -- Next Station: lines drawn section by section ------------------------------------------
class LinesEditor {
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

/** The refused item of a sheet, as the server names it in the refusal's `item` (a section:
 *  {colour, section: its 1-based number}; a Metro placement: {placement: 1-based, square,
 *  tile}), or null for any other refusal. */
function refusedItem(error) {
  return error && error.status === 400 && error.reason !== "bad-request" && error.item ? error.item : null;
}

// A selector for the control `el` that finds it again once redrawn, or null.
function focusKey(el) {
  if (!el || el === document.body) return null;
  if (el.id) return `#${CSS.escape(el.id)}`;
  for (const attr of ["data-station", "data-section", "data-square", "data-tile"]) {
    if (el.hasAttribute(attr)) return `:is(button, [tabindex])[${attr}="${CSS.escape(el.getAttribute(attr))}"]`;
  }
  if (el.name) return `input[name="${CSS.escape(el.name)}"][value="${CSS.escape(el.value)}"]`;
  return null;
}

// The points of a band `half` wide on each side of the segment (x1, y1)-(x2, y2): a section's
// click area (a line's box would be flat for a level section).
function band(x1, y1, x2, y2, half) {
  const len = Math.hypot(x2 - x1, y2 - y1) || 1;
  const [nx, ny] = [((y1 - y2) / len) * half, ((x2 - x1) / len) * half];
  return [[x1 + nx, y1 + ny], [x2 + nx, y2 + ny], [x2 - nx, y2 - ny], [x1 - nx, y1 - ny]]
    .map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");
}

// -- Metro: tiles placed on squares, in order ------------------------------------------------
class MetroEditor {
  constructor(board, info, { changed, shown }) {
    this.board = board;
    this.info = info;
    this.onChange = changed;
    this.onShown = shown;
    this.tiles = new Map(board.tiles.map((t) => [t.code, t]));
    this.view = new MetroBoard(board);
    this.svg = this.view.svg;
    this.squareHits = s("g", { class: "layer-square-hits" });
    this.svg.insertBefore(this.squareHits, this.view.layers.hits);
    this.tile = board.tiles[0].code;
    this.fixHint = t("score.fix.tile");
    this.intro = t("score.intro.metro");
  }

  load(sheet) {
    const [lo, hi] = this.info.players;
    const n = sheet && Number.isInteger(sheet.player_count) ? sheet.player_count : 2;
    this.players = Math.min(Math.max(n, lo), hi);
    this.placements = sheet && Array.isArray(sheet.placements)
      ? sheet.placements.filter((p) => p && this.view.squares.has(p.square) && this.tiles.has(p.tile)).map((p) => ({ square: p.square, tile: p.tile }))
      : [];
    this.options = sheet && sheet.options && typeof sheet.options === "object" ? { ...sheet.options } : {};
  }

  sheet() {
    const out = { game: this.info.game, player_count: this.players, placements: this.placements.map((p) => ({ ...p })) };
    if (Object.keys(this.options).length) out.options = { ...this.options };
    return out;
  }

  // Copies of tile `code` not laid yet (never below 0: a loaded sheet may lay too many, which
  // the server then refuses).
  left(code) {
    const used = this.placements.filter((p) => p.tile === code).length;
    return Math.max(0, this.tiles.get(code).count - used);
  }

  place(square) {
    const i = this.placements.findIndex((p) => p.square === square);
    if (i >= 0) this.placements.splice(i, 1);
    else if (this.left(this.tile) > 0) this.placements.push({ square, tile: this.tile });
    else return;  // no copy of this tile is left: its button is disabled
    this.onChange();
  }

  draw(result, error) {
    const at = refusedItem(error);
    const bad = at && at.placement ? this.placements[at.placement - 1] : null;
    const last = this.placements[this.placements.length - 1];
    this.view.update({
      players: this.players,
      board: this.placements.map((p) => ({ ...p, by: null })),
      routes: (result && result.routes) || [],
      trains: [],
      legal: [],
      last: last ? { square: last.square } : null,
    });
    const g = clear(this.squareHits);
    const U = this.view.sx(1) - this.view.sx(0);
    for (const q of this.board.squares) {
      if (q.central) continue;
      const [x, y] = [this.view.sx(q.col), this.view.sy(q.row)];
      const laid = this.placements.find((p) => p.square === q.name);
      const hit = s("g", { class: "hit hit-square", tabindex: "0", role: "button", "data-square": q.name,
        "aria-label": laid ? t("score.take-off", { tile: laid.tile, square: q.name }) : t("score.lay", { tile: this.tile, square: q.name }) },
      s("rect", { x: x + 1, y: y + 1, width: U - 2, height: U - 2, rx: 4 }));
      activate(hit, () => this.place(q.name));
      g.append(hit);
    }
    const q = bad && this.view.squares.get(bad.square);
    if (q) {
      const [x, y] = [this.view.sx(q.col), this.view.sy(q.row)];
      g.append(s("rect", { x: x + 6, y: y + 6, width: U - 12, height: U - 12, rx: 4, class: "bad-square", "data-bad": q.name }));
    }
  }

  toolbar(el) {
    el.append(h("div", { class: "tile-row score-tiles", role: "group", "aria-label": t("score.tile-to-lay") }, this.board.tiles.map((tile) => {
      const left = this.left(tile.code);
      return h("button", { type: "button", class: `tile-btn${tile.code === this.tile ? " selected" : ""}`, "data-tile": tile.code, disabled: left === 0,
        "aria-pressed": tile.code === this.tile ? "true" : "false", "aria-label": t("score.tile-left", { code: tile.code, n: left }),
        onclick: () => { this.tile = tile.code; this.onShown(); } }, tileSvg(tile, 40), h("span", { class: "tile-code" }, `×${left}`));
    })));
  }

  controls(el) {
    el.append(h("h3", {}, t("score.your-board")));
    const [lo, hi] = this.info.players;
    const count = h("select", { id: "sheet-players", onchange: (ev) => { this.players = Number(ev.target.value); this.onChange(); } });
    for (let n = lo; n <= hi; n++) count.append(h("option", { value: n, selected: n === this.players }, String(n)));
    el.append(h("label", { class: "row" }, t("home.players"), " ", count));
    const spec = (this.info.options || {}).one_tile_routes;
    if (spec) {
      const current = this.options.one_tile_routes || spec.default;
      el.append(h("label", { class: "row" }, t("option.one_tile_routes"), " ", h("select", { id: "sheet-one-tile", onchange: (ev) => {
        if (ev.target.value === spec.default) delete this.options.one_tile_routes;
        else this.options.one_tile_routes = ev.target.value;
        this.onChange();
      } }, spec.values.map((v) => h("option", { value: v, selected: v === current }, optionValue(v))))));
    }
    el.append(h("p", { class: "muted small" }, t("score.laid", { n: this.placements.length })));
    el.append(h("div", { class: "buttons" },
      h("button", { type: "button", class: "btn small", id: "undo-tile", disabled: !this.placements.length,
        onclick: () => { this.placements.pop(); this.onChange(); } }, t("score.take-off-last")),
      h("button", { type: "button", class: "btn small", id: "clear-sheet", onclick: () => {
        if (!confirm(t("score.clear-board.confirm"))) return;
        this.placements = [];
        this.onChange();
      } }, t("score.clear-board"))));
  }

  help() {
    // the tile to lay as its picture, where the sentence names it
    const [before, after] = t("score.help.metro", { tile: "\u0001" }).split("\u0001");
    return [before, moveFigure(this.tiles, this.tile), after ?? ""];
  }

  summary(result) {
    return h("span", {}, t("score.scores"), " ", h("strong", { "data-testid": "score-total" }, result.scores.join(" · ")));
  }

  breakdown(result) {
    const rows = result.scores.map((points, seat) => h("tr", {},
      h("th", { scope: "row" }, seatChip(this.board, seat)),
      h("td", {}, t("score.routes", { n: result.routes.filter((r) => r.player === seat).length })),
      h("td", { class: "num" }, String(points))));
    const routes = result.routes.map((r) => h("li", { class: "route" },
      `${r.player === null ? t("metro.station-nobody", { station: r.station }) : t("score.station-of", { station: r.station, colour: colourName(this.board.colours[r.player]) })}: `
      + (r.central ? t("score.route-central", { n: r.tiles, points: r.points }) : t("score.route", { n: r.tiles, points: r.points }))));
    return h("div", {}, h("table", { class: "sheet-table" }, h("tbody", {}, rows)),
      routes.length ? h("ul", { class: "train-list" }, routes) : h("p", { class: "muted small" }, t("score.no-route")));
  }
}

// The games with a paper score sheet and the editor each draws it with: per game by nature (a
// score sheet is the game's own printed sheet, docs/notation.md "Score sheet"); a game not
// listed has no score page.
const EDITORS = { london: LinesEditor, paris: LinesEditor, metro: MetroEditor };
export const scoreGames = Object.keys(EDITORS);
