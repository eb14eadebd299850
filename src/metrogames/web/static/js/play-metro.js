// Metro at the table: the board, the player's tile(s), the legal squares (from `legal`),
// the trains on their way, scores and whose turn it is.

import { h, clear, colourHex, fmtName } from "./dom.js";
import { MetroBoard, SEAT_LETTERS, tileSvg } from "./board-metro.js";
import { confirmMoves, confirmToggle, pendingBar } from "./confirm.js";

export function seatChip(board, seat, { label = true } = {}) {
  const colour = board.colours[seat];
  return h("span", { class: "chip", style: { "--c": colourHex(colour) } },
    h("span", { class: "chip-swatch", "aria-hidden": "true" }, SEAT_LETTERS[seat]),
    label ? h("span", { class: "chip-name" }, colour) : null);
}

export class MetroScreen {
  constructor(root, board, ctx) {
    this.board = board;
    this.ctx = ctx;
    this.tiles = new Map(board.tiles.map((t) => [t.code, t]));
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
      h("span", { class: "legend-item" }, "Stations: number + seat letter (Y B O G R V)"),
      h("span", { class: "legend-item" }, h("span", { class: "legend-legal" }), "square your tile may go to"),
      h("span", { class: "legend-item" }, "● train waiting to enter a square"),
      h("span", { class: "legend-item" }, "central stations score ×2"));
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
      el.append(h("strong", {}, "Game over"), ` · ${placed} tiles placed`);
      return;
    }
    const turn = (v.to_move || [])[0];
    el.append(h("span", {}, `Placement ${Math.min(placed + 1, 60)} of 60 · ${v.pile} in the pile · `));
    if (turn !== undefined) {
      const seat = v.seats[turn] || {};
      el.append(turn === v.you ? h("strong", { class: "your-turn" }, "Your turn ") : h("span", {}, `${fmtName(seat.name)} to play `), seatChip(this.board, turn));
    }
  }

  renderHand(opts) {
    const v = this.view;
    const el = clear(this.el.hand);
    el.hidden = v.status === "finished";
    const codes = v.drawn ? [v.drawn] : [];
    for (const c of v.hand || []) codes.push(c);
    const legal = this.legal();
    el.append(h("h3", {}, codes.length > 1 ? (v.drawn ? "Your tiles (drawn + held)" : "Your tiles") : "Your tile"));
    if (!codes.length) {
      el.append(h("p", { class: "muted" }, v.you === null || v.you === undefined ? "Watching." : "No tile in hand."));
    }
    const row = h("div", { class: "tile-row" });
    const seen = new Set();
    codes.forEach((code, i) => {
      const t = this.tiles.get(code);
      if (!t) return;
      const playable = opts.has(code);
      const selected = playable && code === this.selectedTile && !seen.has(code);
      seen.add(code);
      const label = i === 0 && v.drawn ? "drawn" : "held";
      const btn = h("button", {
        class: `tile-btn${selected ? " selected" : ""}`, disabled: !playable || opts.size < 2,
        "aria-pressed": selected ? "true" : "false", "data-tile": code,
        "aria-label": `${label} tile ${code}${playable ? "" : " (cannot be played now)"}`,
        onclick: () => { this.selectedTile = code; this.render(); },
      }, tileSvg(t, 72), h("span", { class: "tile-code", title: `tile ${code}` }, `${label} tile`));
      row.append(btn);
    });
    el.append(row);
    if (legal.length && this.pending && !this.busy) {
      const pending = this.pending;
      el.append(pendingBar(`Place the tile on ${pending.square}?`, () => this.send(pending), () => { this.pending = null; this.render(); }));
      el.append(confirmToggle(() => { if (!confirmMoves()) this.send(pending); }));
    } else if (legal.length) {
      const squares = opts.get(this.selectedTile) || [];
      el.append(h("p", { class: "help", "data-testid": "turn-help" }, this.busy ? "Placing…" :
        squares.length ? `Click a highlighted square (${squares.length} possible) to place the ${codes.length > 1 ? "chosen " : ""}tile.` : "Choose a tile."));
      if (legal.includes("draw")) {
        el.append(h("div", { class: "buttons" }, h("button", { class: "btn", id: "draw-btn", onclick: () => this.send("draw") }, "Draw a new tile and place it (keep the held one)")));
      }
      if (this.ctx.interactive !== false) el.append(confirmToggle(() => this.render()));
    } else if (v.status === "playing") {
      el.append(h("p", { class: "waiting" }, "Waiting for the other players…"));
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
    el.append(h("h3", {}, "Scores"));
    const rows = v.seats.map((seat, i) => {
      const turn = (v.to_move || []).includes(i);
      const win = (v.winners || []).includes(i);
      return h("tr", { class: `${turn ? "turn " : ""}${i === v.you ? "you" : ""}`, "data-seat": i },
        h("td", {}, turn ? "▶" : ""),
        h("td", {}, seatChip(this.board, i, { label: false })),
        h("td", {}, `${fmtName(seat.name)}${i === v.you ? " (you)" : ""}${win ? " ★" : ""}`,
          seat.kind === "bot" ? h("span", { class: "tag" }, "bot") : null,
          seat.connected === false && seat.kind === "human" && this.ctx.online ? h("span", { class: "tag warn" }, "away") : null),
        h("td", { class: "num" }, String((v.scores || [])[i] ?? 0)),
        h("td", { class: "num muted" }, String((v.longest || [])[i] ?? 0)));
    });
    el.append(h("table", { class: "score-table" },
      h("thead", {}, h("tr", {}, h("th", {}), h("th", {}), h("th", {}, "player"), h("th", { class: "num" }, "score"), h("th", { class: "num" }, "longest"))),
      h("tbody", {}, rows)));
  }

  renderLast() {
    const v = this.view;
    const el = clear(this.el.last);
    if (!v.last) { el.hidden = true; return; }
    el.hidden = false;
    const by = v.seats[v.last.by] || {};
    el.append(h("p", {}, "Last: ", seatChip(this.board, v.last.by, { label: false }), ` ${fmtName(by.name)} placed a tile on ${v.last.square}`));
    for (const r of v.last.routes || []) {
      el.append(h("p", { class: "route" }, "✔ ",
        r.player === null || r.player === undefined ? `station ${r.station} (nobody's)` : seatChip(this.board, r.player, { label: false }),
        ` station ${r.station}: ${r.tiles} tile${r.tiles === 1 ? "" : "s"}${r.central ? " × 2 centre" : ""} = ${r.points}`));
    }
  }

  renderTrains() {
    const v = this.view;
    const el = clear(this.el.trains);
    if (v.status === "finished") { el.hidden = true; return; } // nothing "current" once over
    el.hidden = false;
    el.append(h("h3", {}, "Trains on their way"));
    const bySeat = new Map();
    for (const t of v.trains || []) {
      if (t.seat === null || t.seat === undefined || !t.tiles) continue;
      if (!bySeat.has(t.seat)) bySeat.set(t.seat, []);
      bySeat.get(t.seat).push(t);
    }
    if (!bySeat.size) el.append(h("p", { class: "muted" }, "none has left its station yet"));
    for (const [seat, list] of [...bySeat.entries()].sort((a, b) => a[0] - b[0])) {
      el.append(h("ul", { class: "train-list" }, list.sort((a, b) => b.tiles - a.tiles).map((t) =>
        h("li", { class: "train-line" }, seatChip(this.board, seat, { label: false }),
          ` station ${t.station}: ${t.tiles} tile${t.tiles === 1 ? "" : "s"} so far, waiting at ${t.square}`))));
    }
  }
}
