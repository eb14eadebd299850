// The map studio (#/studio): draw a Next Station city on a grid, see the server's checker on
// it as you draw, export or import the JSON of docs/maps.md, and try it: a solo game on the
// drawn map, played on the Next Station screen from the room's board data.
// Mouse and touch alike: pointer events on one SVG (touch-action: none).

import { h, s, clear, symbolShape, colourHex, colourName, toast } from "./dom.js";
import { t } from "./i18n.js";
import { api, createRoom, getBoard, getGames, saveTokens, signedIn } from "./api.js";
import { gameTitle } from "./games.js";
import {
  COLOURS, SYMBOLS, MAX_GRID, cellName, emptyDrawing, stationAt, stationById, nameOf, districtOfCell,
  hasLink, toMap, fromMap, variantOf, stationName, homeCell,
} from "./studio-model.js";
import { reportPanel, drawHeat } from "./studio-report.js";

const DRAFT = "metrogames.studio.draft";
const UNDO_DEPTH = 100;
const CHECK_DELAY = 350; // ms after the last change
// each tool and symbol in words (keys written out: the catalogs' test finds every key used)
const TOOLS = {
  station: () => t("studio.tool.station"), link: () => t("studio.tool.link"), district: () => t("studio.tool.district"),
  river: () => t("studio.tool.river"), erase: () => t("studio.tool.erase"),
};
const SYMBOL_WORDS = {
  square: () => t("studio.symbol.square"), circle: () => t("studio.symbol.circle"), triangle: () => t("studio.symbol.triangle"),
  pentagon: () => t("studio.symbol.pentagon"), any: () => t("studio.symbol.any"),
};
// why an imported file cannot be drawn (studio-model.js's ImportRefusal), in words
const REFUSALS = {
  "studio.import.not-object": (p) => t("studio.import.not-object", p), "studio.import.grid": (p) => t("studio.import.grid", p),
  "studio.import.stations": (p) => t("studio.import.stations", p), "studio.import.station-object": (p) => t("studio.import.station-object", p),
  "studio.import.station-cell": (p) => t("studio.import.station-cell", p), "studio.import.station-cells": (p) => t("studio.import.station-cells", p),
  "studio.import.station-centre": (p) => t("studio.import.station-centre", p),
};
const refusal = (err) => (err.key && REFUSALS[err.key] ? REFUSALS[err.key](err.params) : err.message);
const DISTRICT_FILLS = ["#f3d9a4", "#bfe0c4", "#c9d6f2", "#f2c9d9", "#e0d0f0", "#d8ecec", "#f0e0c0", "#d9d9d9"];

export class StudioScreen {
  constructor(root, navigate) {
    this.root = root;
    this.navigate = navigate;
    this.drawing = loadDraft();
    this.undoStack = [];
    this.tool = "station";
    this.symbol = "square";
    this.district = this.drawing.districts[0].name;
    this.selected = null;
    this.report = null;
    this.drag = null;
    this.variant = null;
    this.timer = null;
    this.seq = 0;
    // on the screen's root, which outlives every drawing of the board: a gesture (and its
    // pointer capture) goes on while the board is drawn again under it
    this.listeners = {
      pointerdown: (ev) => { if (ev.target.closest && ev.target.closest("#studio-board")) this.down(this.svg, ev); },
      pointermove: (ev) => this.move(this.svg, ev),
      pointerup: (ev) => this.up(this.svg, ev),
      pointercancel: () => { if (this.drag) { this.drag = null; this.render(); } },
    };
    for (const [type, fn] of Object.entries(this.listeners)) root.addEventListener(type, fn);
    this.saved = null; // the account's saved maps, once asked
    this.play = { report: null, running: false, seq: 0 }; // how the map plays (its report panel)
    this.start();
  }

  async start() {
    try {
      // the rules a drawn map plays: a served Next Station city's deck and tables
      this.cities = (await getGames()).filter((g) => g.family === "nextstation").map((g) => g.game);
      await this.loadVariant();
    } catch (err) {
      toast(t("studio.cannot-load", { error: err.message }));
    }
    this.render();
    this.check();
    this.loadSaved();
  }

  async loadSaved() {
    if (!signedIn()) return;
    try {
      this.saved = (await api("GET", "/api/maps")).maps;
      this.render();
    } catch (err) {
      toast(t("studio.saved.cannot", { error: err.message }));
    }
  }

  async loadVariant() {
    const d = this.drawing;
    if (!this.cities.includes(d.variant)) d.variant = this.cities[0];
    this.variant = variantOf(await getBoard(d.variant));
  }

  destroy() {
    clearTimeout(this.timer);
    for (const [type, fn] of Object.entries(this.listeners)) this.root.removeEventListener(type, fn);
  }
  // the checker's sentences come in the page's language (its lang cookie): asked for again
  relang() { this.render(); this.check(); }

  // -- changes: every one is undoable, saved as the draft and checked again ----------------
  change(fn) {
    this.undoStack.push(JSON.stringify(this.drawing));
    if (this.undoStack.length > UNDO_DEPTH) this.undoStack.shift();
    fn(this.drawing);
    this.changed();
  }

  changed() {
    this.pending = true;
    this.play = { report: null, running: false, seq: this.play.seq + 1 }; // another map now
    try { localStorage.setItem(DRAFT, JSON.stringify(this.drawing)); } catch { /* storage full or off */ }
    this.render();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), CHECK_DELAY);
  }

  undo() {
    const last = this.undoStack.pop();
    if (!last) return;
    this.drawing = JSON.parse(last);
    if (this.selected !== null && !stationById(this.drawing, this.selected)) this.selected = null;
    this.changed();
  }

  map() { return toMap(this.drawing, this.variant); }

  async check() {
    const seq = ++this.seq;
    try {
      const report = await api("POST", "/api/maps/check", this.map());
      if (seq === this.seq) { this.report = report; this.pending = false; this.render(); }
    } catch (err) {
      if (seq === this.seq) { this.pending = false; this.report = { valid: false, problems: [t("studio.cannot-check", { error: err.message })], counts: {} }; this.render(); }
    }
  }

  // -- the screen ----------------------------------------------------------------------------
  render() {
    const d = this.drawing;
    clear(this.root).append(
      h("div", { class: "studio" },
        h("div", { class: "panel studio-head" },
          h("h2", {}, t("studio.title")),
          h("p", { class: "muted" }, t("studio.intro")),
          h("div", { class: "studio-row" },
            h("label", {}, t("studio.map-title"), " ",
              h("input", { id: "studio-title", maxlength: "200", value: d.title, onchange: (ev) => this.change((x) => { x.title = ev.target.value; }) })),
            gridInput(t("studio.columns"), "studio-columns", d.columns, (n) => this.change((x) => resize(x, n, x.rows))),
            gridInput(t("studio.rows"), "studio-rows", d.rows, (n) => this.change((x) => resize(x, x.columns, n))),
            this.variantChoice()),
          this.toolbar()),
        h("div", { class: "studio-main" },
          h("div", { class: "studio-board-wrap" }, this.board()),
          h("div", { class: "studio-side" }, this.stationPanel(), this.districtPanel(), this.reportPanel(),
            reportPanel(this.play, { valid: Boolean(this.report && this.report.valid && !this.pending), run: (go = true) => (go ? this.runReport() : this.render()) }),
            this.savedPanel()))));
  }

  // how the map plays: a few solo bot games on the server (a heavy job, seconds to a minute)
  async runReport() {
    const seq = this.play.seq;
    this.play.running = true;
    this.render();
    try {
      const report = await api("POST", "/api/maps/report", this.map());
      if (seq === this.play.seq) this.play.report = report;
    } catch (err) {
      if (seq === this.play.seq) toast(t("studio.report.cannot", { error: err.message }));
    }
    if (seq === this.play.seq) { this.play.running = false; this.render(); }
  }

  variantChoice() {
    const d = this.drawing;
    if (d.rest) return h("span", { class: "muted" }, t("studio.rules.imported"));
    return h("label", {}, t("studio.rules"), " ", h("select", { id: "studio-rules", onchange: async (ev) => {
      this.change((x) => { x.variant = ev.target.value; });
      await this.loadVariant();
      this.changed();
    } }, (this.cities || []).map((g) => h("option", { value: g, selected: g === d.variant }, gameTitle(g)))));
  }

  toolbar() {
    const tools = Object.entries(TOOLS).map(([tool, words]) => h("button", {
      class: `btn tool${this.tool === tool ? " primary" : ""}`, id: `tool-${tool}`, "aria-pressed": String(this.tool === tool),
      onclick: () => { this.tool = tool; this.render(); },
    }, words()));
    const file = h("input", { type: "file", accept: "application/json,.json", id: "studio-import", class: "sr-only", onchange: (ev) => this.importFile(ev.target.files[0]) });
    const valid = Boolean(this.report && this.report.valid && !this.pending);
    return h("div", { class: "studio-tools", role: "toolbar", "aria-label": t("studio.tools") },
      ...tools,
      h("span", { class: "studio-sep" }),
      h("button", { class: "btn", id: "studio-undo", disabled: !this.undoStack.length, onclick: () => this.undo() }, t("studio.undo")),
      h("button", { class: "btn", id: "studio-clear-river", onclick: () => this.change((x) => { x.river = []; }) }, t("studio.clear-river")),
      h("button", { class: "btn", id: "studio-new", onclick: () => this.change((x) => Object.assign(x, emptyDrawing(x.columns, x.rows))) }, t("studio.new")),
      h("label", { class: "btn", for: "studio-import" }, t("studio.import")), file,
      h("button", { class: "btn", id: "studio-export", onclick: () => this.exportFile() }, t("studio.export")),
      h("button", { class: "btn primary", id: "studio-try", disabled: !valid, title: valid ? "" : t("studio.try.invalid"), onclick: () => this.tryIt() }, t("studio.try")));
  }

  board() {
    const d = this.drawing;
    const named = problemNames(this.report);
    const svg = s("svg", {
      class: "studio-board", id: "studio-board", viewBox: `-1 -1 ${d.columns + 0.5} ${d.rows + 0.5}`, role: "img", "aria-label": t("studio.board"),
      style: `aspect-ratio: ${d.columns + 0.5} / ${d.rows + 0.5}`,
    });
    const fills = new Map(d.districts.map((x, i) => [x.name, DISTRICT_FILLS[i % DISTRICT_FILLS.length]]));
    for (let c = 0; c < d.columns; c++) {
      for (let r = 0; r < d.rows; r++) {
        const district = districtOfCell(d, c, r);
        svg.append(s("rect", { class: "cell", x: c - 0.5, y: r - 0.5, width: 1, height: 1, fill: district ? fills.get(district) : "#fff", "data-cell": cellName(c, r) }));
      }
    }
    for (let c = 0; c < d.columns; c++) svg.append(s("text", { class: "axis", x: c, y: -0.75 }, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[c]));
    for (let r = 0; r < d.rows; r++) svg.append(s("text", { class: "axis", x: -0.75, y: r + 0.05 }, String(r + 1)));
    if (d.river.length) svg.append(s("polyline", { class: "river", points: d.river.map((p) => p.join(",")).join(" ") }));
    for (const [a, b] of d.links) {
      const p = stationById(d, a), q = stationById(d, b);
      const id = `${nameOf(d, a)}-${nameOf(d, b)}`;
      const bad = named.has(id) || named.has(`${nameOf(d, b)}-${nameOf(d, a)}`);
      svg.append(s("line", { class: `link${bad ? " flagged" : ""}`, x1: p.col, y1: p.row, x2: q.col, y2: q.row, "data-link": id }));
    }
    drawHeat(svg, this.play.report, d.stations.map((st) => ({ name: stationName(st), col: st.col, row: st.row })),
      d.links.map(([a, b]) => ({ a: { name: nameOf(d, a), ...stationById(d, a) }, b: { name: nameOf(d, b), ...stationById(d, b) } })));
    const departureOf = new Map(Object.entries(d.departures).map(([c, id]) => [id, c]));
    for (const st of d.stations) {
      const name = stationName(st);
      const colour = departureOf.get(st.id);
      const g = s("g", { class: `station${this.selected === st.id ? " selected" : ""}${named.has(name) ? " flagged" : ""}`, transform: `translate(${st.col} ${st.row})`, "data-station": name });
      if (colour) g.append(s("circle", { class: "departure", r: 0.36, stroke: colourHex(colour) }));
      g.append(symbolShape(st.symbol, 0.22, { class: "symbol" }));
      if (st.symbol === "any") g.append(s("text", { class: "any", y: 0.02 }, "?"));
      if (st.tourist) g.append(s("circle", { class: "site-dot", cx: 0.24, cy: -0.24, r: 0.08 }));
      svg.append(g);
    }
    this.svg = svg;
    return svg;
  }

  // -- pointer: one gesture per tool ----------------------------------------------------------
  at(svg, ev) {
    const m = svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
    const col = Math.round(p.x), row = Math.round(p.y);
    const d = this.drawing;
    return { x: p.x, y: p.y, col, row, inside: col >= 0 && row >= 0 && col < d.columns && row < d.rows };
  }

  down(svg, ev) {
    const p = this.at(svg, ev);
    if (!p || !p.inside) return;
    ev.preventDefault();
    try { this.root.setPointerCapture(ev.pointerId); } catch { /* the pointer is already gone */ }
    const d = this.drawing;
    const here = stationAt(d, p.col, p.row);
    if (this.tool === "station") {
      if (here) { this.selected = here.id; this.drag = { kind: "move", id: here.id, moved: false }; this.render(); return; }
      this.change((x) => { const st = { id: x.next++, col: p.col, row: p.row, symbol: this.symbol, tourist: false }; x.stations.push(st); this.selected = st.id; });
    } else if (this.tool === "link" && here) {
      this.drag = { kind: "link", from: here.id };
    } else if (this.tool === "district") {
      this.drag = { kind: "paint" };
      this.change((x) => paint(x, this.district, p.col, p.row));
    } else if (this.tool === "river") {
      const point = [Math.floor(p.x) + 0.5, Math.floor(p.y) + 0.5];
      this.change((x) => { x.river.push(point); });
    } else if (this.tool === "erase") {
      const link = ev.target.closest && ev.target.closest("[data-link]");
      if (here) this.change((x) => removeStation(x, here.id));
      else if (link) this.change((x) => { x.links = x.links.filter((l) => `${nameOf(x, l[0])}-${nameOf(x, l[1])}` !== link.dataset.link); });
      else this.change((x) => paint(x, null, p.col, p.row));
    }
  }

  move(svg, ev) {
    if (!this.drag) return;
    const p = this.at(svg, ev);
    if (!p) return;
    if (this.drag.kind === "link") this.preview(svg, p);
    else if (this.drag.kind === "paint" && p.inside && districtOfCell(this.drawing, p.col, p.row) !== this.district) {
      this.change((x) => paint(x, this.district, p.col, p.row));
    }
  }

  // the link being dragged, drawn in place (the board is not drawn again until it ends)
  preview(svg, p) {
    const from = stationById(this.drawing, this.drag.from);
    let line = svg.querySelector("line.preview");
    if (!line) { line = s("line", { class: "link preview" }); svg.append(line); }
    for (const [k, v] of Object.entries({ x1: from.col, y1: from.row, x2: p.x, y2: p.y })) line.setAttribute(k, String(v));
  }

  up(svg, ev) {
    const drag = this.drag;
    this.drag = null;
    if (!drag) return;
    const p = this.at(svg, ev);
    const d = this.drawing;
    const there = p && p.inside ? stationAt(d, p.col, p.row) : null;
    if (drag.kind === "link") {
      if (there && there.id !== drag.from && !hasLink(d, drag.from, there.id)) this.change((x) => { x.links.push([drag.from, there.id]); });
      else this.render();
    } else if (drag.kind === "move" && p && p.inside && !there && !stationById(d, drag.id).cells) { // a station of several cells stays
      this.change((x) => { const st = stationById(x, drag.id); st.col = p.col; st.row = p.row; });
    }
  }

  // -- side panels ---------------------------------------------------------------------------
  stationPanel() {
    const d = this.drawing;
    const st = this.selected === null ? null : stationById(d, this.selected);
    const symbols = h("select", { id: "studio-symbol", onchange: (ev) => {
      this.symbol = ev.target.value;
      if (st) this.change((x) => { stationById(x, st.id).symbol = this.symbol; });
    } }, SYMBOLS.map((sym) => h("option", { value: sym, selected: (st ? st.symbol : this.symbol) === sym }, SYMBOL_WORDS[sym]())));
    const panel = h("div", { class: "panel", id: "studio-station" }, h("h3", {}, st ? t("studio.station", { name: stationName(st) }) : t("studio.new-station")),
      h("label", {}, t("studio.symbol"), " ", symbols));
    if (!st) return panel;
    const departure = Object.entries(d.departures).find(([, id]) => id === st.id);
    panel.append(
      h("label", { class: "check" }, h("input", { type: "checkbox", id: "studio-tourist", checked: st.tourist, onchange: (ev) => this.change((x) => { stationById(x, st.id).tourist = ev.target.checked; }) }), " ", t("studio.tourist")),
      h("label", {}, t("studio.departure"), " ", h("select", { id: "studio-departure", onchange: (ev) => this.change((x) => setDeparture(x, st.id, ev.target.value)) },
        h("option", { value: "" }, t("studio.departure.none")),
        COLOURS.map((c) => h("option", { value: c, selected: departure && departure[0] === c }, colourName(c))))),
      h("p", { class: "muted" }, t("studio.district-of", { district: districtOfCell(d, ...homeCell(st)) || t("studio.district.none") })));
    return panel;
  }

  districtPanel() {
    const d = this.drawing;
    const input = h("input", { id: "studio-district-name", maxlength: "40", placeholder: t("studio.district.placeholder") });
    return h("div", { class: "panel", id: "studio-districts" }, h("h3", {}, t("studio.districts")),
      h("label", {}, t("studio.district.paint"), " ", h("select", { id: "studio-district", onchange: (ev) => { this.district = ev.target.value; this.tool = "district"; this.render(); } },
        d.districts.map((x) => h("option", { value: x.name, selected: x.name === this.district }, x.name)))),
      h("form", { class: "studio-row", onsubmit: (ev) => {
        ev.preventDefault();
        const name = input.value.trim().toLowerCase();
        if (!/^[a-z0-9][a-z0-9 -]{0,39}$/.test(name) || d.districts.some((x) => x.name === name)) { toast(t("studio.district.bad")); return; }
        this.district = name;
        this.tool = "district";
        this.change((x) => { x.districts.push({ name, cells: [] }); });
      } }, input, h("button", { class: "btn", id: "studio-add-district" }, t("studio.district.add"))));
  }

  reportPanel() {
    const r = this.report;
    const panel = h("div", { class: "panel", id: "studio-report", "aria-live": "polite", "data-pending": this.pending || !r ? "" : null }, h("h3", {}, t("studio.check")));
    if (r && this.pending) panel.append(h("p", { class: "muted" }, t("studio.checking")));
    if (!r) return panel.append(h("p", { class: "muted" }, t("studio.checking"))), panel;
    if (r.valid) {
      const c = r.counts || {};
      panel.append(h("p", { class: "ok", "data-testid": "studio-valid" }, t("studio.valid")),
        h("p", { class: "muted", "data-testid": "studio-counts" }, t("studio.counts", { stations: c.stations, links: c.links, crossings: c.crossing_link_pairs, districts: c.districts })));
    } else {
      // the checker's sentences as text: a map's names are shown, never interpreted
      panel.append(h("ul", { class: "problems", "data-testid": "studio-problems" }, r.problems.map((p) => h("li", {}, p))));
    }
    return panel;
  }

  // an account's maps, stored by the server by content hash: saved, opened, played online
  savedPanel() {
    const account = signedIn();
    const panel = h("div", { class: "panel", id: "studio-saved" }, h("h3", {}, t("studio.saved")));
    if (!account) return panel.append(h("p", { class: "muted" }, t("studio.saved.sign-in"))), panel;
    const valid = Boolean(this.report && this.report.valid && !this.pending);
    panel.append(h("button", { class: "btn", id: "studio-save", disabled: !valid, onclick: () => this.save() }, t("studio.save")));
    const list = h("ul", { class: "saved-maps", "data-testid": "saved-maps" });
    for (const m of this.saved || []) {
      // a title is the designer's text: a text node, never markup
      list.append(h("li", {}, h("span", { class: "saved-title" }, m.title || m.hash.slice(7, 19)), " ",
        h("button", { class: "btn small", "data-open": m.hash, onclick: () => this.open(m.hash) }, t("studio.saved.open")),
        h("button", { class: "btn small", "data-online": m.hash, onclick: () => this.online(m.hash) }, t("studio.saved.online"))));
    }
    if (this.saved && !this.saved.length) list.append(h("li", { class: "muted" }, t("studio.saved.none")));
    panel.append(list);
    return panel;
  }

  async save() {
    try {
      await api("POST", "/api/maps", this.map());
      toast(t("studio.saved.done"), "info");
      await this.loadSaved();
    } catch (err) {
      toast(t("studio.saved.cannot", { error: err.message }));
    }
  }

  async storedMap(hash) {
    return JSON.parse(await api("GET", `/api/maps/${encodeURIComponent(hash)}`, undefined, null, { raw: true }));
  }

  async open(hash) {
    try {
      const drawing = fromMap(await this.storedMap(hash));
      this.change((x) => Object.assign(x, drawing));
      this.district = this.drawing.districts[0].name;
      this.selected = null;
    } catch (err) {
      toast(t("studio.import.bad", { error: refusal(err) }));
    }
  }

  async online(hash) {
    try {
      const account = signedIn();
      const res = await createRoom({ game: "nextstation", mode: "online", seats: [{ name: account.name }, {}], options: { map: await this.storedMap(hash) } });
      const id = res.room.room;
      saveTokens(id, { tokens: res.tokens, host: res.host_token, name: account.name });
      this.navigate(`/r/${id}`);
    } catch (err) {
      toast(t("studio.try.cannot", { error: err.message }));
    }
  }

  // -- files and play -------------------------------------------------------------------------
  exportFile() {
    const map = this.map();
    const blob = new Blob([JSON.stringify(map, null, 1)], { type: "application/json" });
    const a = h("a", { href: URL.createObjectURL(blob), download: `${map.city}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  async importFile(file) {
    if (!file) return;
    if (file.size > 64 * 1024) { toast(t("studio.import.too-large")); return; }
    try {
      const drawing = fromMap(JSON.parse(await file.text()));
      this.change((x) => Object.assign(x, drawing));
      this.district = this.drawing.districts[0].name;
      this.selected = null;
    } catch (err) {
      toast(t("studio.import.bad", { error: refusal(err) }));
    }
  }

  async tryIt() {
    const btn = this.root.querySelector("#studio-try");
    if (btn) btn.disabled = true;
    try {
      const res = await createRoom({ game: "nextstation", mode: "solo", seats: [{ name: t("home.player-n", { n: 1 }) }], options: { map: this.map() } });
      const id = res.room.room;
      saveTokens(id, { tokens: res.tokens, host: res.host_token, name: "" });
      this.navigate(`/r/${id}`);
    } catch (err) {
      toast(t("studio.try.cannot", { error: err.message }));
      if (btn) btn.disabled = false;
    }
  }
}

// -- drawing edits ------------------------------------------------------------------------
function paint(d, district, col, row) {
  const key = `${col},${row}`;
  for (const x of d.districts) x.cells = x.cells.filter((k) => k !== key);
  const target = district && d.districts.find((x) => x.name === district);
  if (target) target.cells.push(key);
}

function removeStation(d, id) {
  d.stations = d.stations.filter((st) => st.id !== id);
  d.links = d.links.filter(([a, b]) => a !== id && b !== id);
  for (const [c, sid] of Object.entries(d.departures)) if (sid === id) delete d.departures[c];
}

function setDeparture(d, id, colour) {
  for (const [c, sid] of Object.entries(d.departures)) if (sid === id) delete d.departures[c];
  if (colour) d.departures[colour] = id;
}

function resize(d, columns, rows) {
  d.columns = columns;
  d.rows = rows;
  const kept = new Set(d.stations.filter((st) => st.col < columns && st.row < rows).map((st) => st.id));
  for (const st of d.stations) if (!kept.has(st.id)) removeStation(d, st.id);
  for (const x of d.districts) x.cells = x.cells.filter((k) => { const [c, r] = k.split(",").map(Number); return c < columns && r < rows; });
}

function gridInput(label, id, value, set) {
  return h("label", {}, label, " ", h("input", { id, type: "number", min: "2", max: String(MAX_GRID), value: String(value), onchange: (ev) => {
    const n = Number(ev.target.value);
    if (Number.isInteger(n) && n >= 2 && n <= MAX_GRID) set(n);
    else ev.target.value = String(value);
  } }));
}

/** The stations and links the checker's sentences name (to flag them on the board). */
function problemNames(report) {
  const names = new Set();
  if (!report || report.valid) return names;
  for (const p of report.problems) for (const m of String(p).matchAll(/\b[A-Z]\d{1,2}(?:-[A-Z]\d{1,2})?\b/g)) {
    names.add(m[0]);
    for (const part of m[0].split("-")) names.add(part);
  }
  return names;
}

function loadDraft() {
  try {
    const raw = localStorage.getItem(DRAFT);
    const d = raw ? JSON.parse(raw) : null;
    if (d && Array.isArray(d.stations) && Array.isArray(d.districts) && d.districts.length) return d;
  } catch { /* an unreadable draft: start afresh */ }
  return emptyDrawing();
}
