// The score page's editor of a Metro sheet (score.js, #/score/{game}): tiles placed on the
// board's squares, in order. It only draws what is clicked; the server judges the sheet
// (POST /api/score).

import { h, s, clear, activate, colourName, optionValue } from "./dom.js";
import { t } from "./i18n.js";
import { refusedItem } from "./api.js";
import { MetroBoard, moveFigure, tileSvg } from "./board-metro.js";
import { seatChip } from "./play-metro.js";

export class MetroEditor {
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
    return [before, ...moveFigure(this.tiles, this.tile), after ?? ""];
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
