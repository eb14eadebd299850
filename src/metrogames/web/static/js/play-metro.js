// Metro at the table: the board, the player's tile(s), the legal squares (from `legal`),
// the trains on their way, scores and whose turn it is.

import { h, clear, colourHex, fmtName, youName, colourName, seatLetter } from "./dom.js";
import { t } from "./i18n.js";
import { MetroBoard, moveFigure, tileSvg, tileWords, trackWords } from "./board-metro.js";
import { confirmMoves, confirmToggle, pendingBar } from "./confirm.js";

export function seatChip(board, seat, { label = true } = {}) {
  const colour = board.colours[seat];
  return h("span", { class: "chip", style: { "--c": colourHex(colour) } },
    h("span", { class: "chip-swatch", "aria-hidden": "true" }, seatLetter(board.colours, seat)),
    label ? h("span", { class: "chip-name" }, colourName(colour)) : null);
}

export class MetroScreen {
  constructor(root, board, ctx) {
    this.board = board;
    this.ctx = ctx;
    this.tiles = new Map(board.tiles.map((tile) => [tile.code, tile]));
    this.map = new MetroBoard(board, { onPick: (sq) => this.pick(sq) });
    this.selectedTile = null;
    this.busy = false;
    this.el = {
      status: h("div", { class: "status-line" }),
      hand: h("section", { class: "panel hand", "aria-live": "polite" }),
      scores: h("section", { class: "panel scores" }),
      last: h("section", { class: "panel last" }),
      trains: h("section", { class: "panel trains" }),
    };
    clear(root).append(h("div", { class: "table-layout" },
      h("div", { class: "board-col" }, h("div", { class: "board-wrap" }, this.map.svg), this.legend()),
      h("div", { class: "turn-dock", "data-testid": "turn-dock" }, this.el.status, this.el.hand),
      h("div", { class: "side-col" }, this.el.scores, this.el.last, this.el.trains)));
  }

  legend() {
    return h("div", { class: "legend" },
      h("span", { class: "legend-item", "data-testid": "seat-legend" }, t("metro.legend.stations"), " ",
        ...this.board.colours.map((_, seat) => seatChip(this.board, seat))),
      h("span", { class: "legend-item" }, h("span", { class: "legend-legal" }), t("metro.legend.legal")),
      h("span", { class: "legend-item" }, `● ${t("metro.legend.train")}`),
      h("span", { class: "legend-item" }, t("metro.legend.central")));
  }

  update(view) {
    if (!this.view || this.view.step !== view.step) { this.busy = false; this.pending = null; }
    this.view = view;
    this.render();
  }

  legal() {
    return this.ctx.interactive === false ? [] : this.view.legal || [];
  }

  // The tiles the player may place now, each with its squares.
  options() {
    const v = this.view;
    const out = new Map();
    for (const a of this.legal()) {
      if (a === "draw") continue;
      const tile = a.tile || v.drawn;
      if (!out.has(tile)) out.set(tile, []);
      out.get(tile).push(a.square);
    }
    return out;
  }

  render() {
    const v = this.view;
    const opts = this.options();
    if (!opts.has(this.selectedTile)) this.selectedTile = opts.size ? [...opts.keys()][0] : null;
    this.map.update({
      players: v.seats.length,
      board: this.pending ? [...(v.board || []), { square: this.pending.square, tile: this.pending.tile || v.drawn, by: v.you, pending: true }] : v.board,
      trains: v.trains,
      routes: v.routes,
      last: v.last,
      legal: this.busy || this.pending ? [] : opts.get(this.selectedTile) || [],
      previewTile: this.selectedTile,
      hints: this.hintMarks(v),
    });
    this.renderStatus();
    this.renderHand(opts);
    this.renderScores();
    this.renderLast();
    this.renderTrains();
  }

  // The coach's moves of this step (room.js), as numbered squares on the board.
  showHints(hints) {
    this.hints = hints;
    if (this.view) this.render();
  }

  hintMarks(v) {
    const hints = this.hints && this.hints.step === v.step ? this.hints.moves : [];
    return hints.map((m, i) => ({ square: m.action && m.action.square, rank: i + 1 })).filter((m) => m.square);
  }

  renderStatus() {
    const v = this.view;
    const el = clear(this.el.status);
    const placed = (v.board || []).length;
    if (v.status === "finished") {
      el.append(h("strong", {}, t("end.over")), ` · ${t("metro.placed", { n: placed })}`);
      return;
    }
    const turn = (v.to_move || [])[0];
    el.append(h("span", {}, `${t("metro.placement", { n: Math.min(placed + 1, 60), of: 60 })} · ${t("metro.pile", { n: v.pile })}`));
    // whose turn, when a seat is to move (not while a tile is being drawn: no stray separator)
    if (turn !== undefined) {
      const seat = v.seats[turn] || {};
      el.append(" · ", turn === v.you ? h("strong", { class: "your-turn" }, t("metro.your-turn")) : h("span", {}, t("metro.to-play", { name: fmtName(seat.name) })), " ", seatChip(this.board, turn));
    }
  }

  renderHand(opts) {
    const v = this.view;
    const el = clear(this.el.hand);
    el.hidden = v.status === "finished";
    const codes = v.drawn ? [v.drawn] : [];
    for (const c of v.hand || []) codes.push(c);
    const legal = this.legal();
    // a spectator (a replay too) sees the tiles of the seat to move, not "your tile"
    const watching = v.you === null || v.you === undefined;
    const mover = v.seats[(v.to_move || [])[0]];
    // a spectator with no seat to move (a replay's tile being drawn) gets no "your tile" heading
    if (!watching || mover) {
      el.append(h("h3", {}, watching ? t("metro.tile-of", { name: fmtName(mover.name) })
        : codes.length > 1 ? (v.drawn ? t("metro.tiles-drawn-held") : t("metro.tiles")) : t("metro.tile")));
    }
    if (!codes.length) {
      el.append(h("p", { class: "muted" }, watching ? t("common.watching") : t("metro.no-tile")));
    }
    const row = h("div", { class: "tile-row" });
    const seen = new Set();
    codes.forEach((code, i) => {
      const tile = this.tiles.get(code);
      if (!tile) return;
      const playable = opts.has(code);
      const selected = playable && code === this.selectedTile && !seen.has(code);
      seen.add(code);
      const label = i === 0 && v.drawn ? t("metro.drawn-tile") : t("metro.held-tile");
      const btn = h("button", {
        class: `tile-btn${selected ? " selected" : ""}`, disabled: !playable || opts.size < 2,
        "aria-pressed": selected ? "true" : "false", "data-tile": code,
        "aria-label": `${label}: ${trackWords(tile)}${playable ? "" : ` ${t("metro.not-playable")}`}`,
        onclick: () => { this.selectedTile = code; this.render(); },
      }, tileSvg(tile, 72), h("span", { class: "tile-code", title: tileWords(tile) }, label));
      row.append(btn);
    });
    el.append(row);
    if (legal.length && this.pending && !this.busy) {
      const pending = this.pending;
      el.append(pendingBar(t("metro.place-on", { square: pending.square }), () => this.send(pending), () => { this.pending = null; this.render(); }));
      el.append(confirmToggle(() => { if (!confirmMoves()) this.send(pending); }));
    } else if (legal.length) {
      const squares = opts.get(this.selectedTile) || [];
      el.append(h("p", { class: "help", "data-testid": "turn-help" }, this.busy ? t("metro.placing") :
        squares.length ? (codes.length > 1 ? t("metro.help.chosen", { n: squares.length }) : t("metro.help", { n: squares.length })) : t("metro.choose-tile")));
      if (legal.includes("draw")) {
        el.append(h("div", { class: "buttons" }, h("button", { class: "btn", id: "draw-btn", onclick: () => this.send("draw") }, t("metro.draw"))));
      }
      if (this.ctx.interactive !== false) el.append(confirmToggle(() => this.render()));
    } else if (v.status === "playing" && !watching) {
      el.append(h("p", { class: "waiting" }, t("metro.waiting")));
    }
  }

  async send(action) {
    if (this.busy) return;
    this.busy = true;
    this.pending = null;
    this.render();
    try {
      await this.ctx.act(action, this.view.step);
    } catch {
      this.busy = false;
      this.render();
    }
  }

  pick(square) {
    const v = this.view;
    const action = this.legal().find((a) => a !== "draw" && a.square === square && (a.tile || v.drawn) === this.selectedTile);
    if (!action || this.pending) return;
    if (confirmMoves()) { this.pending = action; this.render(); } else this.send(action);
  }

  renderScores() {
    const v = this.view;
    const el = clear(this.el.scores);
    el.append(h("h3", {}, t("metro.scores")));
    const rows = v.seats.map((seat, i) => {
      const turn = (v.to_move || []).includes(i);
      const win = (v.winners || []).includes(i);
      return h("tr", { class: `${turn ? "turn " : ""}${i === v.you ? "you" : ""}`, "data-seat": i },
        h("td", {}, turn ? "▶" : ""),
        h("td", {}, seatChip(this.board, i, { label: false })),
        h("td", {}, `${i === v.you ? youName(seat.name) : fmtName(seat.name)}${win ? " ★" : ""}`,
          seat.kind === "bot" ? h("span", { class: "tag" }, t("common.bot")) : null,
          seat.connected === false && seat.kind === "human" && this.ctx.online ? h("span", { class: "tag warn" }, t("common.away")) : null),
        h("td", { class: "num" }, String((v.scores || [])[i] ?? 0)),
        h("td", { class: "num muted" }, String((v.longest || [])[i] ?? 0)));
    });
    el.append(h("table", { class: "score-table" },
      h("thead", {}, h("tr", {}, h("th", {}), h("th", {}), h("th", {}, t("col.player")), h("th", { class: "num" }, t("col.score")), h("th", { class: "num" }, t("col.longest")))),
      h("tbody", {}, rows)));
  }

  renderLast() {
    const v = this.view;
    const el = clear(this.el.last);
    if (!v.last || v.status === "finished") { el.hidden = true; return; } // the end screen scores it all
    el.hidden = false;
    const by = v.seats[v.last.by] || {};
    el.append(h("p", {}, t("metro.last"), " ", seatChip(this.board, v.last.by, { label: false }), ` ${t("metro.last-placed", { name: fmtName(by.name), square: v.last.square })} `,
      v.last.tile ? moveFigure(this.tiles, v.last.tile) : null));
    for (const r of v.last.routes || []) {
      const nobody = r.player === null || r.player === undefined;
      el.append(h("p", { class: "route" }, "✔ ",
        nobody ? `${t("metro.station-nobody", { station: r.station })}: ${t("score.route", { n: r.tiles, points: r.points })}`
          : [seatChip(this.board, r.player, { label: false }),
            ` ${(r.central ? t("metro.route-central", { station: r.station, n: r.tiles, points: r.points }) : t("metro.route", { station: r.station, n: r.tiles, points: r.points }))}`]));
    }
  }

  renderTrains() {
    const v = this.view;
    const el = clear(this.el.trains);
    if (v.status === "finished") { el.hidden = true; return; } // nothing "current" once over
    el.hidden = false;
    el.append(h("h3", {}, t("metro.trains")));
    const bySeat = new Map();
    for (const tr of v.trains || []) {
      if (tr.seat === null || tr.seat === undefined || !tr.tiles) continue;
      if (!bySeat.has(tr.seat)) bySeat.set(tr.seat, []);
      bySeat.get(tr.seat).push(tr);
    }
    if (!bySeat.size) el.append(h("p", { class: "muted" }, t("metro.no-train")));
    for (const [seat, list] of [...bySeat.entries()].sort((a, b) => a[0] - b[0])) {
      el.append(h("ul", { class: "train-list" }, list.sort((a, b) => b.tiles - a.tiles).map((tr) =>
        h("li", { class: "train-line" }, seatChip(this.board, seat, { label: false }),
          ` ${t("metro.train-line", { station: tr.station, n: tr.tiles, square: tr.square })}`))));
    }
  }
}

// The end screen's details: the seats' scores and longest routes.
export function finalScores(board, v) {
  return h("table", { class: "score-table final" },
    h("thead", {}, h("tr", {}, h("th", {}), h("th", {}, t("col.player")), h("th", { class: "num" }, t("col.score")), h("th", { class: "num" }, t("col.longest-route")))),
    h("tbody", {}, v.seats.map((s, i) => h("tr", { class: (v.winners || []).includes(i) ? "winner" : "" },
      h("td", {}, seatChip(board, i, { label: false })), h("td", {}, fmtName(s.name)),
      h("td", { class: "num" }, h("strong", {}, String(v.scores[i]))), h("td", { class: "num" }, String((v.longest || [])[i] ?? ""))))));
}
