// The generic table, for a game whose family has no screen of its own (a plug-in game):
// drawn from its board data alone (docs/web-api.md, "Plug-in games") — `grid` {columns, rows}
// and `cells` [{name, col, row}] — and its view: `marks` {cell: seat} (who holds each cell),
// `scores`, whose turn it is. A legal action that names a cell is played by clicking the cell;
// any other legal action is a button. Nothing here knows a rule: the server's `legal` decides.

import { h, s, clear, activate, colourHex, colourName, fmtName, youName, seatLetter, SEAT_PALETTE } from "./dom.js";
import { t } from "./i18n.js";
import { gameTitle } from "./games.js";

const U = 64; // a cell, in SVG units
const M = 6; // the margin around the grid

// A seat's colour from the shared seat palette (dom.js SEAT_PALETTE: Metro's), and its letter
// on it (never colour alone). Past the palette's six seats the colours come round again with
// the round's number after the letter and the name (seat 7: yellow "Y2", "yellow 2"), so no
// two seats ever look or read alike.
const seatColour = (seat) => SEAT_PALETTE[seat % SEAT_PALETTE.length];
const seatHex = (seat) => colourHex(seatColour(seat));
const seatRound = (seat) => Math.floor(seat / SEAT_PALETTE.length);
const roundTag = (seat) => (seatRound(seat) ? String(seatRound(seat) + 1) : "");
const letterOf = (seat) => seatLetter(SEAT_PALETTE, seat % SEAT_PALETTE.length) + roundTag(seat);
const seatColourName = (seat) => [colourName(seatColour(seat)), roundTag(seat)].filter(Boolean).join(" ");

export function seatMark(seat) {
  return h("span", { class: "chip seat-mark", style: { "--c": seatHex(seat) }, "data-colour": seatColour(seat) },
    h("span", { class: "chip-swatch", "aria-hidden": "true" }, letterOf(seat)),
    h("span", { class: "chip-name" }, seatColourName(seat)));
}

// An action as a button says it: a string as it is, anything else as its JSON.
const actionText = (a) => (typeof a === "string" ? a : JSON.stringify(a));

export class GenericScreen {
  constructor(root, board, ctx) {
    this.board = board;
    this.ctx = ctx;
    this.cells = (board.cells || []).filter((c) => c && typeof c.name === "string");
    this.names = new Set(this.cells.map((c) => c.name));
    this.busy = false;
    const grid = board.grid || {};
    this.columns = grid.columns || Math.max(1, ...this.cells.map((c) => c.col + 1));
    this.rows = grid.rows || Math.max(1, ...this.cells.map((c) => c.row + 1));
    this.svg = s("svg", {
      viewBox: `0 0 ${this.columns * U + 2 * M} ${this.rows * U + 2 * M}`, class: "board board-generic",
      role: "group", "aria-label": t("generic.board", { game: gameTitle(board.game) }),
    });
    this.el = {
      status: h("div", { class: "status-line" }),
      turn: h("section", { class: "panel turn", "aria-live": "polite" }),
      scores: h("section", { class: "panel scores" }),
    };
    clear(root).append(h("div", { class: "table-layout" },
      h("div", { class: "board-col" }, this.cells.length ? h("div", { class: "board-wrap" }, this.svg) : null),
      h("div", { class: "turn-dock", "data-testid": "turn-dock" }, this.el.status, this.el.turn),
      h("div", { class: "side-col" }, this.el.scores)));
  }

  update(view) {
    if (!this.view || this.view.step !== view.step || this.view.you !== view.you) this.busy = false;
    this.view = view;
    this.render();
  }

  legal() {
    return this.ctx.interactive === false || this.busy ? [] : this.view.legal || [];
  }

  // The move being built (the coach rates it): a click plays at once, so none.
  pendingAction() { return null; }

  // The coach's moves of this step (room.js), as numbered badges on their cells.
  showHints(hints) {
    this.hints = hints;
    if (this.view) this.render();
  }

  render() {
    this.drawBoard();
    this.renderStatus();
    this.renderTurn();
    this.renderScores();
  }

  drawBoard() {
    const v = this.view;
    const marks = v.marks && typeof v.marks === "object" ? v.marks : {};
    const playable = new Set(this.legal().filter((a) => typeof a === "string" && this.names.has(a)));
    const hints = this.hints && this.hints.step === v.step ? this.hints.moves : [];
    const rank = new Map(hints.map((m, i) => [m.action, i + 1]));
    const svg = clear(this.svg);
    for (const c of this.cells) {
      const x = M + c.col * U;
      const y = M + c.row * U;
      const seat = marks[c.name];
      const held = Number.isInteger(seat);
      const g = s("g", { class: "cell", "data-cell": c.name, transform: `translate(${x} ${y})` },
        s("rect", { class: `cell-box${playable.has(c.name) ? " cell-legal" : ""}`, x: 1, y: 1, width: U - 2, height: U - 2, rx: 6 }),
        s("text", { class: "cell-name", x: 6, y: 14, text: c.name }));
      if (held) {
        g.append(s("circle", { class: "cell-mark", cx: U / 2, cy: U / 2 + 4, r: U / 3, fill: seatHex(seat), "data-seat": seat }),
          s("text", { class: "cell-mark-text", x: U / 2, y: U / 2 + 4, dy: "0.35em", "text-anchor": "middle", text: letterOf(seat) }));
        const who = fmtName((v.seats[seat] || {}).name);
        g.append(s("title", { text: t("generic.cell-of", { cell: c.name, name: who }) }));
      }
      if (rank.has(c.name)) {
        g.append(s("g", { class: "hint-badge", transform: "translate(50 14)" },
          s("circle", { r: 10 }), s("text", { "text-anchor": "middle", dy: "0.35em", text: String(rank.get(c.name)) })));
      }
      if (playable.has(c.name)) {
        const hit = s("g", { class: "hit hit-cell", tabindex: "0", role: "button", "data-cell": c.name, "aria-label": t("generic.play", { cell: c.name }) },
          s("rect", { x: 1, y: 1, width: U - 2, height: U - 2, rx: 6 }));
        activate(hit, () => this.play(c.name));
        g.append(hit);
      }
      svg.append(g);
    }
  }

  renderStatus() {
    const v = this.view;
    const el = clear(this.el.status);
    if (v.status === "finished") {
      el.append(h("strong", {}, t("end.over")));
      return;
    }
    const turn = (v.to_move || [])[0];
    if (turn === undefined) return;
    const seat = v.seats[turn] || {};
    el.append(turn === v.you ? h("strong", { class: "your-turn" }, t("generic.your-turn")) : h("span", {}, t("generic.to-play", { name: fmtName(seat.name) })), " ", seatMark(turn));
  }

  renderTurn() {
    const v = this.view;
    const el = clear(this.el.turn);
    el.hidden = v.status === "finished";
    if (el.hidden) return;
    const watching = v.you === null || v.you === undefined;
    if (this.busy) {
      el.append(h("p", { class: "help" }, t("generic.sending")));
      return;
    }
    const legal = this.legal();
    if (!legal.length) {
      el.append(h("p", { class: watching ? "muted" : "waiting" }, watching ? t("common.watching") : t("generic.waiting")));
      return;
    }
    const cells = legal.filter((a) => typeof a === "string" && this.names.has(a));
    const others = legal.filter((a) => !(typeof a === "string" && this.names.has(a)));
    if (cells.length) el.append(h("p", { class: "help", "data-testid": "turn-help" }, t("generic.help", { n: cells.length })));
    if (others.length) {
      el.append(h("p", { class: "muted" }, t("generic.moves")),
        h("div", { class: "buttons" }, others.map((a) => h("button", { class: "btn", "data-action": actionText(a), onclick: () => this.play(a) }, actionText(a)))));
    }
  }

  renderScores() {
    const v = this.view;
    const el = clear(this.el.scores);
    el.append(h("h3", {}, t("generic.scores")), scoreTable(v));
  }

  async play(action) {
    if (this.busy) return;
    this.busy = true;
    this.render();
    try {
      await this.ctx.act(action, this.view.step);
    } catch {
      this.busy = false;
      this.render();
    }
  }
}

// The seats and their scores (winners starred once the game is over).
function scoreTable(v) {
  return h("table", { class: "score-table generic-scores" }, h("tbody", {}, v.seats.map((seat, i) => {
    const won = v.status === "finished" && v.seats.length > 1 && (v.winners || []).includes(i);
    return h("tr", { class: won ? "winner" : "", "data-seat": i },
      h("td", {}, seatMark(i)), h("td", {}, `${i === v.you ? youName(seat.name) : fmtName(seat.name)}${won ? " ★" : ""}`),
      h("td", { class: "num" }, h("strong", {}, String((v.scores || [])[i] ?? ""))));
  })));
}

// The end screen's details: the seats' final scores.
export function finalScores(board, v) {
  return h("div", { class: "final-generic" }, scoreTable(v));
}
