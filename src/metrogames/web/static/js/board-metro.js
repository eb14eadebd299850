// The Metro board as SVG, from GET /api/games/metro/board: squares, edge stations in seat
// colours, the central block, placed tiles drawn from their tracks. Routes are coloured by
// following the placed tracks from each station (a drawing matter; scores come from the view).

import { s, clear, colourHex, DASHES, colourName, isDark, seatLetter } from "./dom.js";
import { t } from "./i18n.js";
import { cell, cellPolygon, closeZoom, largestSquare, tapOrZoom } from "./taphit.js";

const U = 64;
const M = 0.62 * U;
const SIDES = { north: 0, east: 1, south: 2, west: 3, N: 0, E: 1, S: 2, W: 3 };
const NEIGHBOUR = [5, 4, 7, 6, 1, 0, 3, 2];
const STEP = [[0, -1], [1, 0], [0, 1], [-1, 0]]; // per side: dc, dr

// Endpoint positions on a unit square, clockwise from the north side's west point.
const EP = [[1 / 3, 0], [2 / 3, 0], [1, 1 / 3], [1, 2 / 3], [2 / 3, 1], [1 / 3, 1], [0, 2 / 3], [0, 1 / 3]];
const INWARD = [[0, 1], [0, 1], [-1, 0], [-1, 0], [0, -1], [0, -1], [1, 0], [1, 0]];

export function trackPath(a, b, size, ox = 0, oy = 0) {
  const [ax, ay] = EP[a];
  const [bx, by] = EP[b];
  const same = a >> 1 === b >> 1;
  const opposite = !same && (a >> 1) % 2 === (b >> 1) % 2;
  const far = Math.abs(ax - bx) + Math.abs(ay - by) > 1.1;
  const k = same ? 0.32 : opposite ? 0.34 : far ? 0.42 : 0.3;
  const [na, nb] = [INWARD[a], INWARD[b]];
  const X = (v) => (ox + v * size).toFixed(2);
  const Y = (v) => (oy + v * size).toFixed(2);
  return `M${X(ax)} ${Y(ay)} C${X(ax + na[0] * k)} ${Y(ay + na[1] * k)} ${X(bx + nb[0] * k)} ${Y(by + nb[1] * k)} ${X(bx)} ${Y(by)}`;
}

// A tile picture: tracks in `colours` (per even endpoint, else grey) over a dark square.
export function drawTile(tile, size, { x = 0, y = 0, colours = {}, dashes = {}, cls = "tile" } = {}) {
  const g = s("g", { class: cls, "data-tile": tile.code });
  g.append(s("rect", { x, y, width: size, height: size, rx: size * 0.06, class: "tile-bg" }));
  const order = [...tile.tracks].sort((p, q) => (colours[p[0]] ? 1 : 0) - (colours[q[0]] ? 1 : 0));
  const w = size / 16;
  for (const [a, b] of order) {
    const d = trackPath(a, b, size, x, y);
    const c = colours[a];
    g.append(s("path", { d, class: c && isDark(c) ? "track-casing light" : "track-casing", "stroke-width": w * 2.3 }));
    g.append(s("path", { d, class: c ? "track travelled" : "track", style: c ? { stroke: colourHex(c) } : null, "stroke-width": c ? w * 1.7 : w }));
    if (c && dashes[a]) {
      // a white pattern per seat, so routes differ without colour too
      g.append(s("path", { d, class: "track-pattern", "stroke-dasharray": dashes[a], "stroke-width": w * 0.55 }));
    }
  }
  return g;
}

// A tile in words, for screen readers and on hover: its four tracks, one from each side (top,
// right, bottom, left: the track leaving that side's even endpoint, as the tile's code reads
// them), each straight across, a curve to another side or a U-turn back to its own side
// ("straight top–bottom, curve right–bottom, …"), never the tile's code.
export function trackWords(tile) {
  const sides = [t("metro.side-0"), t("metro.side-1"), t("metro.side-2"), t("metro.side-3")]; // top, right, bottom, left
  const from = ([x, y]) => (x % 2 === 0 ? [x, y] : [y, x]);
  return tile.tracks.map(from).sort((p, q) => p[0] - q[0]).map(([e, f]) => {
    const [a, b] = [sides[e >> 1], sides[f >> 1]];
    if (e >> 1 === f >> 1) return t("metro.track-uturn", { a });
    return ((f >> 1) - (e >> 1)) % 2 === 0 ? t("metro.track-straight", { a, b }) : t("metro.track-curve", { a, b });
  }).join(", ");
}

// "tile: " and its tracks in words (:func:`trackWords`).
export function tileWords(tile) {
  return t("metro.tile-words", { tracks: trackWords(tile) });
}

export function tileSvg(tile, size = 72, { label = null } = {}) {
  const svg = s("svg", { viewBox: `-2 -2 ${size + 4} ${size + 4}`, width: size, height: size, class: "tile-svg", role: "img", "aria-label": tileWords(tile) });
  svg.append(drawTile(tile, size));
  if (label) svg.append(s("title", { text: label }));
  return svg;
}

// A move or chance outcome as a player reads it (docs/notation.md, "Metro turn action"): each
// tile code of the text (`cbaa C5`, a drawn `cbaa`) as a small picture of its tracks, named
// in words for screen readers and on hover (:func:`tileWords`); squares and words stay as written.
export function moveFigure(tiles, text) {
  return String(text).split(/(\s+)/).filter((part) => part !== "").map((part) => {
    const tile = tiles.get(part);
    if (!tile) return part;
    const pic = tileSvg(tile, 30, { label: tileWords(tile) });
    pic.classList.add("tile-inline");
    pic.dataset.tile = part;
    return pic;
  });
}

export class MetroBoard {
  constructor(board, { onPick = null } = {}) {
    this.board = board;
    this.onPick = onPick;
    this.tiles = new Map(board.tiles.map((tile) => [tile.code, tile]));
    this.squares = new Map(board.squares.map((q) => [q.name, q]));
    this.colours = board.colours;
    this.build();
  }

  sx(c) { return M + c * U; }
  sy(r) { return M + r * U; }

  build() {
    const size = 2 * M + 8 * U;
    this.svg = s("svg", { viewBox: `0 0 ${size} ${size}`, class: "board board-metro", role: "group", "aria-label": t("metro.board") });
    this.layers = {};
    // square names above the legal squares' stripes (haloed: css), hidden under placed tiles
    for (const n of ["base", "tiles", "marks", "names", "stations", "trains", "hits"]) {
      this.layers[n] = s("g", { class: `layer-${n}` });
      this.svg.append(this.layers[n]);
    }
    const base = this.layers.base;
    this.svg.prepend(s("defs", {}, s("pattern", { id: "legal-hatch", width: 10, height: 10, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
      s("rect", { width: 10, height: 10, fill: "#fff6cc" }), s("rect", { width: 5, height: 10, fill: "#ffd84a" }))));
    base.append(s("rect", { x: M - 4, y: M - 4, width: 8 * U + 8, height: 8 * U + 8, rx: 6, class: "metro-frame" }));
    this.squareRects = new Map();
    for (const q of this.board.squares) {
      if (q.central) continue;
      const r = s("rect", { x: this.sx(q.col) + 1, y: this.sy(q.row) + 1, width: U - 2, height: U - 2, rx: 4, class: "square", "data-square": q.name });
      base.append(r);
      this.layers.names.append(s("text", { x: this.sx(q.col) + U / 2, y: this.sy(q.row) + U / 2 + 4, class: "square-name", "text-anchor": "middle", "data-square": q.name, text: q.name }));
      this.squareRects.set(q.name, r);
    }
    const central = this.board.squares.filter((q) => q.central);
    const c0 = Math.min(...central.map((q) => q.col));
    const r0 = Math.min(...central.map((q) => q.row));
    const cx = this.sx(c0);
    const cy = this.sy(r0);
    base.append(s("rect", { x: cx + 3, y: cy + 3, width: 2 * U - 6, height: 2 * U - 6, rx: 10, class: "central" }));
    base.append(s("text", { x: cx + U, y: cy + U - 4, class: "central-label", "text-anchor": "middle", text: t("metro.central") }));
    base.append(s("text", { x: cx + U, y: cy + U + 18, class: "central-x2", "text-anchor": "middle", text: "×2" }));
    for (const cs of this.board.central_stations || []) {
      const q = this.squares.get(cs.square);
      const side = SIDES[cs.side];
      const [dc, dr] = STEP[side];
      // the face sits on the square's side towards the centre; draw the stop just inside the block
      const mx = this.sx(q.col) + U / 2 + dc * (U / 2 + 8);
      const my = this.sy(q.row) + U / 2 + dr * (U / 2 + 8);
      base.append(s("rect", { x: mx - 8, y: my - 8, width: 16, height: 16, rx: 3, class: "central-stop" }));
    }
  }

  owners(players) {
    const out = {};
    const alloc = (this.board.allocations || {})[String(players)] || [];
    alloc.forEach((stations, seat) => { for (const n of stations) out[n] = seat; });
    return out;
  }

  // state: {players, board: [{square, tile, by, pending?}], trains, routes, legal: [names], last,
  //         previewTile: code, hints: [{square, rank}]}
  update(state) {
    this.state = state;
    const placed = new Map((state.board || []).map((p) => [p.square, p]));
    const owners = this.owners(state.players);
    const travelled = this.trace(placed, owners);
    const g = clear(this.layers.tiles);
    for (const [name, p] of placed) {
      const q = this.squares.get(name);
      const tile = this.tiles.get(p.tile);
      if (!tile) continue;
      const colours = {};
      const dashes = {};
      for (const [a] of tile.tracks) {
        const seat = travelled.get(`${name}:${a}`);
        if (seat !== undefined) {
          colours[a] = this.colours[seat];
          dashes[a] = DASHES[seat];
        }
      }
      const tg = drawTile(tile, U - 2, { x: this.sx(q.col) + 1, y: this.sy(q.row) + 1, colours, dashes });
      tg.setAttribute("data-square", name);
      if (p.pending) tg.classList.add("tile-pending"); // not sent yet (confirm.js)
      g.append(tg);
    }
    for (const name of this.layers.names.children) name.classList.toggle("covered", placed.has(name.dataset.square));
    this.drawStations(owners, state);
    this.drawTrains(state.trains || []);
    this.drawMarks(state);
    this.drawHints(state.hints || []);
    this.drawHits(state);
  }

  // The coach's moves: a numbered badge in the corner of each square (1: the best).
  drawHints(hints) {
    for (const { square, rank } of hints) {
      const q = this.squares.get(square);
      if (!q) continue;
      this.layers.marks.append(s("g", { transform: `translate(${this.sx(q.col) + 13} ${this.sy(q.row) + 13})`, class: "hint-badge", "data-hint-square": square },
        s("circle", { r: 10 }), s("text", { "text-anchor": "middle", dy: "0.35em", text: String(rank) })));
    }
  }

  trace(placed, owners) {
    const out = new Map();
    for (const st of this.board.stations) {
      const seat = owners[st.number];
      if (seat === undefined) continue;
      let q = this.squares.get(st.square);
      let e = st.departure;
      for (let guard = 0; guard < 300 && q && !q.central; guard++) {
        const p = placed.get(q.name);
        if (!p) break;
        const tile = this.tiles.get(p.tile);
        const track = tile.tracks.find(([a, b]) => a === e || b === e);
        const partner = track[0] === e ? track[1] : track[0];
        out.set(`${q.name}:${track[0]}`, seat);
        const [dc, dr] = STEP[partner >> 1];
        const nc = q.col + dc;
        const nr = q.row + dr;
        if (nc < 0 || nc > 7 || nr < 0 || nr > 7) break;
        q = this.board.squares[nr * 8 + nc];
        e = NEIGHBOUR[partner];
      }
    }
    return out;
  }

  drawStations(owners, state) {
    const g = clear(this.layers.stations);
    const done = new Set((state.routes || []).map((r) => r.station));
    for (const st of this.board.stations) {
      const q = this.squares.get(st.square);
      const side = SIDES[st.side];
      const seat = owners[st.number];
      const hx = this.sx(q.col);
      const hy = this.sy(q.row);
      const d = M * 0.78;
      let x;
      let y;
      let w;
      let hgt;
      if (side === 0) [x, y, w, hgt] = [hx + 5, hy - d - 3, U - 10, d];
      else if (side === 2) [x, y, w, hgt] = [hx + 5, hy + U + 3, U - 10, d];
      else if (side === 3) [x, y, w, hgt] = [hx - d - 3, hy + 5, d, U - 10];
      else [x, y, w, hgt] = [hx + U + 3, hy + 5, d, U - 10];
      const colour = seat === undefined ? null : this.colours[seat];
      const sg = s("g", { class: `edge-station${done.has(st.number) ? " done" : ""}${seat === undefined ? " unused" : ""}`, "data-station": st.number });
      sg.append(s("title", { text: `${seat === undefined ? t("metro.station-nobody", { station: st.number }) : t("metro.station-of", { station: st.number, colour: colourName(colour), letter: seatLetter(this.colours, seat) })}${done.has(st.number) ? `, ${t("metro.route-complete")}` : ""}` }));
      sg.append(s("rect", { x, y, width: w, height: hgt, rx: 5, fill: colour ? colourHex(colour) : "#bbb", class: "edge-box" }));
      const vertical = side === 1 || side === 3;
      sg.append(s("text", { x: x + w / 2, y: y + hgt / 2 + (vertical ? -3 : 5), "text-anchor": "middle", class: "edge-num", text: String(st.number) }));
      if (seat !== undefined) {
        sg.append(s("text", {
          x: vertical ? x + w / 2 : x + w - 7, y: vertical ? y + hgt / 2 + 13 : y + hgt / 2 + 4,
          "text-anchor": "middle", class: "edge-letter", text: seatLetter(this.colours, seat),
        }));
      }
      if (done.has(st.number)) {
        sg.append(s("path", { d: `M${x + 4} ${y + 4}l4 4l6 -7`, class: "edge-done" }));
      }
      g.append(sg);
    }
  }

  drawTrains(trains) {
    const g = clear(this.layers.trains);
    for (const tr of trains) {
      if (!tr.tiles || tr.seat === null || tr.seat === undefined) continue; // at its station, or nobody's
      const q = this.squares.get(tr.square);
      if (!q) continue;
      const e = 2 * SIDES[tr.side];
      const [ex, ey] = EP[e];
      const [nx, ny] = INWARD[e];
      const x = this.sx(q.col) + (ex + nx * 0.13) * U;
      const y = this.sy(q.row) + (ey + ny * 0.13) * U;
      const colour = colourHex(this.colours[tr.seat]);
      g.append(s("g", { transform: `translate(${x} ${y})`, class: isDark(this.colours[tr.seat]) ? "train light" : "train", "data-station": tr.station },
        s("title", { text: t("metro.train-title", { station: tr.station, colour: colourName(this.colours[tr.seat]), n: tr.tiles }) }),
        s("circle", { r: 9, fill: colour }),
        s("text", { "text-anchor": "middle", dy: "0.35em", text: seatLetter(this.colours, tr.seat) })));
    }
  }

  drawMarks(state) {
    const g = clear(this.layers.marks);
    if (state.last && state.last.square) {
      const q = this.squares.get(state.last.square);
      if (q) g.append(s("rect", { x: this.sx(q.col) + 1, y: this.sy(q.row) + 1, width: U - 2, height: U - 2, rx: 4, class: "last-mark" }));
    }
    for (const name of state.legal || []) {
      const q = this.squares.get(name);
      g.append(s("rect", { x: this.sx(q.col) + 4, y: this.sy(q.row) + 4, width: U - 8, height: U - 8, rx: 5, class: "legal-mark" }));
    }
  }

  drawHits(state) {
    closeZoom();
    const g = clear(this.layers.hits);
    this.preview = null;
    const names = [...(state.legal || [])].sort((a, b) => {
      const p = this.squares.get(a);
      const q = this.squares.get(b);
      return p.row - q.row || p.col - q.col;
    });
    // each legal square's hit area: the points nearer its centre than any other legal
    // square's, up to 0.85 of a square away (taphit.js); where a finger needs more, a tap
    // opens a magnifier
    const centres = names.map((name) => {
      const q = this.squares.get(name);
      return [this.sx(q.col) + U / 2, this.sy(q.row) + U / 2];
    });
    for (const [i, name] of names.entries()) {
      const [x, y] = centres[i];
      const area = cell(centres, i, U * 0.85);
      const hit = s("g", { class: "hit hit-square", tabindex: "0", role: "button", "aria-label": t("metro.hit", { square: name }), "data-square": name, transform: `translate(${x} ${y})` },
        cellPolygon(area, x, y), s("rect", { x: 3 - U / 2, y: 3 - U / 2, width: U - 6, height: U - 6, rx: 5, class: "hit-ring" }));
      tapOrZoom(this.svg, hit, { reach: largestSquare(area, x, y), centre: [x, y], pick: () => this.onPick && this.onPick(name) });
      hit.addEventListener("pointerenter", (ev) => { if (ev.pointerType !== "touch") this.showPreview(name); }); // a finger's tap is no hover
      hit.addEventListener("pointerleave", () => this.showPreview(null));
      hit.addEventListener("focus", () => this.showPreview(name));
      hit.addEventListener("blur", () => this.showPreview(null));
      g.append(hit);
    }
  }

  showPreview(name) {
    if (this.preview) { this.preview.remove(); this.preview = null; }
    const code = this.state && this.state.previewTile;
    if (!name || !code) return;
    const q = this.squares.get(name);
    const tile = this.tiles.get(code);
    if (!tile) return;
    this.preview = drawTile(tile, U - 2, { x: this.sx(q.col) + 1, y: this.sy(q.row) + 1, cls: "tile preview" });
    this.layers.trains.append(this.preview);
  }
}
