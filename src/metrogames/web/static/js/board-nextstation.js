// The Next Station map (London, Paris) as SVG, drawn from GET /api/games/{game}/board only.
// The player's lines and the clickable stations come from the view; nothing here decides
// what is legal.

import { s, clear, colourHex, colourLetters, DASHES, symbolShape, star, faceName, colourName, gameTitle } from "./dom.js";
import { t } from "./i18n.js";
import { cell, cellPolygon, closeZoom, largestSquare, tapOrZoom } from "./taphit.js";

const U = 48; // pixels per grid cell in the viewBox
const MARKER_GAP = 14; // a line marker's diameter (radius 6.5) and a pixel: closer ones touch
const PAD = 1.05; // cells of margin around the station grid (labels)
const SHADES = ["#f3ead6", "#e6ecdd", "#ece2ef", "#e2e9f1"];


export class NextStationBoard {
  // snug: each station's hit area reaches at most halfway to the next clickable one (the
  // score page, where the sections between them are clickable too)
  constructor(board, { onPick = null, onHover = null, snug = false } = {}) {
    this.board = board;
    this.snug = snug;
    this.onPick = onPick;
    this.onHover = onHover;
    this.colours = board.colours;
    this.letters = colourLetters(board.colours);
    this.stations = new Map(board.stations.map((st) => [st.name, st]));
    this.aliases = board.aliases || {};
    this.links = new Map();
    for (const l of board.links) {
      this.links.set(`${l.a}-${l.b}`, l);
      this.links.set(`${l.b}-${l.a}`, l);
    }
    this.cols = board.grid.columns;
    this.rows = board.grid.rows;
    this.hoverTarget = null;
    this.state = null;
    this.build();
  }

  x(c) { return (c + PAD) * U; }
  y(r) { return (r + PAD) * U; }

  station(name) {
    return this.stations.get(this.aliases[name] || name);
  }

  pos(name) {
    const st = this.station(name);
    return [this.x(st.col), this.y(st.row)];
  }

  // The segment a section is drawn along (Paris platform links end at a given cell).
  segment(a, b) {
    const l = this.links.get(`${this.aliases[a] || a}-${this.aliases[b] || b}`);
    if (!l) return [this.pos(a), this.pos(b)];
    const p = [this.x(l.from[0]), this.y(l.from[1])];
    const q = [this.x(l.to[0]), this.y(l.to[1])];
    return l.a === (this.aliases[a] || a) ? [p, q] : [q, p];
  }

  build() {
    const w = (this.cols - 1 + 2 * PAD) * U;
    const hgt = (this.rows - 1 + 2 * PAD) * U;
    this.svg = s("svg", {
      viewBox: `0 0 ${w} ${hgt}`,
      class: `board board-ns board-${this.board.game}`,
      role: "group",
      "aria-label": t("board.map", { game: gameTitle(this.board.game) }),
    });
    this.layers = {};
    for (const name of ["base", "links", "lines", "under", "stations", "labels", "marks", "preview", "hits"]) {
      this.layers[name] = s("g", { class: `layer-${name}` });
      this.svg.append(this.layers[name]);
    }
    this.drawDistricts();
    this.drawRiver();
    this.drawGridLabels();
    this.drawLinks();
    this.drawBridges();
    this.drawStations();
  }

  districtCells() {
    const stationsOf = new Map(this.board.districts.map((d) => [d.name, d.stations]));
    const boxes = [];
    for (const [i, d] of this.board.districts.entries()) {
      const pts = [];
      for (const n of stationsOf.get(d.name)) {
        const st = this.station(n);
        if (st.cells) pts.push(...st.cells);
        else pts.push([st.col, st.row]);
      }
      const xs = pts.map((p) => p[0]);
      const ys = pts.map((p) => p[1]);
      const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
      boxes.push({ i, area: (x1 - x0 + 1) * (y1 - y0 + 1), x0, x1, y0, y1 });
    }
    boxes.sort((a, b) => a.area - b.area || a.i - b.i);
    const byName = new Map(this.board.districts.map((d, i) => [d.name, i]));
    const cells = [];
    for (let r = 0; r < this.rows; r++) {
      cells.push([]);
      for (let c = 0; c < this.cols; c++) {
        let hit = boxes.find((b) => b.x0 <= c && c <= b.x1 && b.y0 <= r && r <= b.y1);
        let idx = hit ? hit.i : null;
        if (idx === null) {
          let best = null;
          for (const st of this.board.stations) {
            const d = Math.abs(st.col - c) + Math.abs(st.row - r);
            if (best === null || d < best.d) best = { d, st };
          }
          idx = byName.get(best.st.district);
        }
        cells[r].push(idx);
      }
    }
    return cells;
  }

  drawDistricts() {
    const cells = this.districtCells();
    const n = this.board.districts.length;
    const neighbours = Array.from({ length: n }, () => new Set());
    for (let r = 0; r < this.rows; r++) {
      for (let c = 0; c < this.cols; c++) {
        for (const [dc, dr] of [[1, 0], [0, 1]]) {
          const o = cells[r + dr] && cells[r + dr][c + dc];
          if (o !== undefined && o !== cells[r][c]) {
            neighbours[cells[r][c]].add(o);
            neighbours[o].add(cells[r][c]);
          }
        }
      }
    }
    const shade = new Array(n).fill(null);
    const order = [...Array(n).keys()].sort((a, b) => neighbours[b].size - neighbours[a].size);
    for (const d of order) {
      const used = new Set([...neighbours[d]].map((e) => shade[e]));
      shade[d] = SHADES.find((c) => !used.has(c)) || SHADES[0];
    }
    const base = this.layers.base;
    base.append(s("rect", {
      x: this.x(-0.5) - 2, y: this.y(-0.5) - 2,
      width: this.cols * U + 4, height: this.rows * U + 4, class: "map-frame",
    }));
    for (let r = 0; r < this.rows; r++) {
      for (let c = 0; c < this.cols; c++) {
        base.append(s("rect", {
          x: this.x(c - 0.5), y: this.y(r - 0.5), width: U + 0.5, height: U + 0.5,
          fill: shade[cells[r][c]], class: "district-cell",
          "data-district": this.board.districts[cells[r][c]].name,
        }));
      }
    }
    let d = "";
    for (let r = 0; r < this.rows; r++) {
      for (let c = 0; c < this.cols; c++) {
        if (c + 1 < this.cols && cells[r][c + 1] !== cells[r][c]) {
          d += `M${this.x(c + 0.5)} ${this.y(r - 0.5)}V${this.y(r + 0.5)}`;
        }
        if (r + 1 < this.rows && cells[r + 1][c] !== cells[r][c]) {
          d += `M${this.x(c - 0.5)} ${this.y(r + 0.5)}H${this.x(c + 0.5)}`;
        }
      }
    }
    base.append(s("path", { d, class: "district-border" }));
  }

  drawRiver() {
    const river = this.board.river;
    if (!river || !river.course || river.course.length < 2) return;
    const pts = river.course.map(([cx, cy]) => [this.x(cx), this.y(cy)]);
    const d = smoothPath(pts);
    this.layers.base.append(
      s("path", { d, class: "river-band" }),
      s("path", { d, class: "river-wave" }),
    );
    // where the name may go: along the course, inside the grid (placed clear of the lines
    // and markers at each update, drawRiverName)
    this.riverSpots = [];
    const [left, right] = [this.x(0) + 24, this.x(this.cols - 1) - 24];
    for (let i = 0; i + 1 < pts.length; i++) {
      for (const f of [0.5, 0.25, 0.75]) {
        const x = pts[i][0] + (pts[i + 1][0] - pts[i][0]) * f;
        if (x >= left && x <= right) this.riverSpots.push([x, pts[i][1] + (pts[i + 1][1] - pts[i][1]) * f]);
      }
    }
    if (!this.riverSpots.length) this.riverSpots.push([(pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2]);
    this.riverName = s("text", { class: "river-name", "text-anchor": "middle", dy: "0.35em", text: river.name === "Thames" ? t("river.thames") : river.name });
    this.layers.labels.append(this.riverName);
    this.drawRiverName([], []);
  }

  // The river's name at the spot of its course clearest of the line markers and sections.
  drawRiverName(markers, segments) {
    if (!this.riverName) return;
    const half = this.riverName.textContent.length * 3.4;
    const room = ([x, y]) => {
      let best = Infinity;
      for (const dx of [-half, -half / 2, 0, half / 2, half]) {
        const px = x + dx;
        for (const [mx, my] of markers) best = Math.min(best, Math.hypot(px - mx, y - my) - 12);
        for (const [[x1, y1], [x2, y2]] of segments) best = Math.min(best, pointToSegment(px, y, x1, y1, x2, y2) - 6);
      }
      return best;
    };
    let pick = this.riverSpots[0];
    let pickRoom = room(pick);
    for (const spot of this.riverSpots.slice(1)) {
      const r = room(spot);
      if (r > pickRoom + 0.5 && pickRoom < 40) { pick = spot; pickRoom = r; }
    }
    this.riverName.setAttribute("x", pick[0]);
    this.riverName.setAttribute("y", pick[1]);
  }

  drawGridLabels() {
    const g = this.layers.base;
    const letters = "ABCDEFGHIJKLMNOP";
    for (let c = 0; c < this.cols; c++) {
      g.append(s("text", { x: this.x(c), y: this.y(-0.5) - 10, class: "grid-label", "text-anchor": "middle", text: letters[c] }));
    }
    for (let r = 0; r < this.rows; r++) {
      g.append(s("text", { x: this.x(-0.5) - 5, y: this.y(r) + 5, class: "grid-label", "text-anchor": "end", text: String(r + 1) }));
    }
  }

  drawLinks() {
    for (const l of this.board.links) {
      this.layers.links.append(s("line", {
        x1: this.x(l.from[0]), y1: this.y(l.from[1]), x2: this.x(l.to[0]), y2: this.y(l.to[1]),
        class: "link", "data-link": l.id,
      }));
    }
  }

  drawBridges() {
    for (const b of this.board.bridges || []) {
      const [x, y] = [this.x(b.at[0]), this.y(b.at[1])];
      this.layers.stations.append(s("g", { transform: `translate(${x} ${y})`, class: "bridge" },
        s("title", { text: t("board.crossing", { links: b.links.join(" / ") }) }),
        s("rect", { x: -7, y: -7, width: 14, height: 14, rx: 3, transform: "rotate(45)" }),
        s("path", { d: "M-5 3 Q0 -5 5 3" }),
      ));
    }
  }

  drawStations() {
    const r = U * 0.25;
    const deps = {};
    for (const [colour, name] of Object.entries(this.board.departures)) deps[this.aliases[name] || name] = colour;
    for (const st of this.board.stations) {
      const [x, y] = [this.x(st.col), this.y(st.row)];
      const g = s("g", { transform: `translate(${x} ${y})`, class: "station", "data-station": st.name });
      const words = [st.monument ? faceName("monument") : faceName(st.symbol)];
      if (st.tourist_site) words.push(t("legend.tourist-site"));
      if (deps[st.name]) words.push(t("board.departure", { colour: colourName(deps[st.name]) }));
      g.append(s("title", { text: `${st.name}: ${words.join(", ")}` }));
      if (deps[st.name]) {
        const colour = deps[st.name];
        g.append(s("circle", { r: st.cells ? U * 0.9 : r * 1.55, class: "departure-ring", stroke: colourHex(colour) }));
      }
      if (st.cells) {
        // Paris central platform: one big station over 4 cells
        g.append(s("rect", { x: -U * 0.78, y: -U * 0.78, width: U * 1.56, height: U * 1.56, rx: 10, class: "sym platform" }));
        g.append(s("text", { class: "sym-q big", "text-anchor": "middle", dy: "0.36em", text: "?" }));
      } else if (st.monument) {
        g.append(symbolShape("monument", r * 1.05, { class: "sym monument" }));
        g.append(s("text", { class: "sym-q", "text-anchor": "middle", dy: "0.36em", text: "?" }));
      } else if (st.symbol === "any") {
        g.append(symbolShape("any", r * 1.1, { class: "sym any" }));
        g.append(s("text", { class: "sym-q", "text-anchor": "middle", dy: "0.36em", text: "?" }));
      } else {
        g.append(symbolShape(st.symbol, r, { class: `sym ${st.symbol}` }));
      }
      if (st.tourist_site) {
        g.append(s("polygon", { points: star(5, r * 0.62, r * 0.27), transform: `translate(${r * 1.05} ${-r * 1.05})`, class: "tourist" }));
      }
      this.layers.stations.append(g);
    }
  }

  // -- the changing part ----------------------------------------------------------------
  // state: {lines: {colour: {sections, ends, circled}}, colour, blink, starts, selected,
  //         targets, circles, pending: [[a,b]...], pendingCircle, hints: [{sections, rank}]}
  update(state) {
    this.state = state;
    this.drawLines(state.lines || {}, state.pending || [], state.colour);
    this.drawMarks(state);
    this.drawHints(state.hints || [], state.colour);
    this.drawHits(state);
  }

  // The coach's moves: their sections dashed, a numbered badge on the last one (1: the best).
  drawHints(hints, colour) {
    const marks = this.layers.marks;
    for (const { sections, rank } of hints) {
      for (const [a, b] of sections) {
        const [[x1, y1], [x2, y2]] = this.segment(a, b);
        marks.append(s("line", { x1, y1, x2, y2, class: "hint-section", stroke: colour ? colourHex(colour) : "#1d1f24" }));
      }
      const [a, b] = sections[sections.length - 1];
      const [[x1, y1], [x2, y2]] = this.segment(a, b);
      marks.append(s("g", { transform: `translate(${(x1 + 2 * x2) / 3} ${(y1 + 2 * y2) / 3})`, class: "hint-badge", "data-hint-section": `${a}-${b}` },
        s("circle", { r: 9 }), s("text", { "text-anchor": "middle", dy: "0.35em", text: String(rank) })));
    }
  }

  drawLines(lines, pending, current) {
    const g = clear(this.layers.lines);
    const width = U * 0.17;
    const markers = [];
    for (const [ci, colour] of this.colours.entries()) {
      const line = lines[colour];
      if (!line) continue;
      const hex = colourHex(colour);
      const lg = s("g", { class: "line", "data-colour": colour });
      for (const [a, b] of line.sections || []) {
        const [[x1, y1], [x2, y2]] = this.segment(a, b);
        lg.append(s("line", { x1, y1, x2, y2, stroke: hex, "stroke-width": width, class: "section", "data-section": `${a}-${b}` }));
        if (DASHES[ci]) {
          lg.append(s("line", { x1, y1, x2, y2, class: "section-pattern", "stroke-dasharray": DASHES[ci], "stroke-width": width * 0.32 }));
        }
      }
      for (const [a, b] of line.sections || []) {
        const [[x1, y1], [x2, y2]] = this.segment(a, b);
        // a diagonal's marker sits a third of the way along (two diagonals crossing in one
        // cell share their midpoint); a marker that would touch one already drawn (a
        // diagonal's beside a straight's at the station they leave) slides along its section
        const first = x1 !== x2 && y1 !== y2 ? 0.3 : 0.5;
        const at = (f) => [x1 + (x2 - x1) * f, y1 + (y2 - y1) * f];
        const free = ([x, y]) => markers.every(([u, v]) => Math.hypot(x - u, y - v) >= MARKER_GAP);
        const [mx, my] = [first, 0.5, 0.7, 0.4, 0.6, 0.3, 0.65, 0.35].map(at).find(free) || at(first);
        markers.push([mx, my]);
        lg.append(s("g", { transform: `translate(${mx} ${my})`, class: "line-letter" },
          s("circle", { r: 6.5, stroke: hex }),
          s("text", { "text-anchor": "middle", dy: "0.35em", text: this.letters[colour] })));
      }
      if (line.circled) {
        const [x, y] = this.pos(line.circled);
        lg.append(s("circle", { cx: x, cy: y, r: U * 0.42, class: "circled", stroke: hex }));
      }
      g.append(lg);
    }
    this.drawInterchanges(lines);
    this.drawDepartureLetters(lines, markers);
    const segments = [];
    for (const line of Object.values(lines)) for (const [a, b] of line.sections || []) segments.push(this.segment(a, b));
    this.drawRiverName(markers, segments);
    const pg = clear(this.layers.preview);
    if (current) {
      const hex = colourHex(current);
      for (const [a, b] of pending) {
        const [[x1, y1], [x2, y2]] = this.segment(a, b);
        pg.append(s("line", { x1, y1, x2, y2, stroke: hex, "stroke-width": width, class: "pending" }));
      }
    }
  }

  // Interchanges: a station on two or more of the sheet's lines gets a dark ring on a white one
  // (its title says how many lines), as the sheet's interchange boxes count them.
  drawInterchanges(lines) {
    const g = this.interchangeLabels || s("g", { class: "interchanges" });
    if (!this.interchangeLabels) { this.interchangeLabels = g; this.layers.labels.prepend(g); }
    clear(g);
    const count = new Map();
    for (const line of Object.values(lines)) {
      const on = new Set();
      for (const [a, b] of line.sections || []) { on.add(this.aliases[a] || a); on.add(this.aliases[b] || b); }
      for (const name of on) count.set(name, (count.get(name) || 0) + 1);
    }
    for (const [name, n] of count) {
      if (n < 2) continue;
      const st = this.station(name);
      const [x, y] = this.pos(name);
      const r = st.cells ? U * 0.86 : U * 0.3;
      g.append(s("g", { transform: `translate(${x} ${y})`, class: "interchange", "data-interchange": name, "data-lines": n },
        s("title", { text: t("board.interchange", { station: name, n }) }),
        s("circle", { r: r + 1, class: "interchange-ring outer" }),
        s("circle", { r, class: "interchange-ring" })));
    }
  }

  // Each departure's colour letter, beside its ring where it is clearest of every drawn
  // section and line marker (16 candidate spots in the gaps between the 8 directions).
  drawDepartureLetters(lines, markers) {
    const g = this.departureLabels || s("g", { class: "departure-labels" });
    if (!this.departureLabels) { this.departureLabels = g; this.layers.labels.append(g); }
    clear(g);
    const segments = [];
    for (const line of Object.values(lines)) {
      for (const [a, b] of line.sections || []) segments.push(this.segment(a, b));
    }
    const clearance = (x, y) => {
      let best = Infinity;
      for (const [mx, my] of markers) best = Math.min(best, Math.hypot(x - mx, y - my) - 13);
      for (const [[x1, y1], [x2, y2]] of segments) best = Math.min(best, pointToSegment(x, y, x1, y1, x2, y2) - 10);
      for (const st of this.board.stations) {
        if (!st.cells) best = Math.min(best, Math.hypot(x - this.x(st.col), y - this.y(st.row)) - U * 0.32);
      }
      return best;
    };
    // ties go to the lower left (between south and south-west), as the sheet prints it
    const order = [2, 3, 1, 4, 0, 5, 7, 6];
    for (const [colour, dep] of Object.entries(this.board.departures)) {
      const name = this.aliases[dep] || dep;
      const st = this.station(name);
      const [x, y] = this.pos(name);
      let pick = null;
      for (const radius of st.cells ? [U * 1.05] : [U * 0.5, U * 0.62]) {
        for (const k of order) {
          const angle = (k + 0.5) * (Math.PI / 4);
          const px = x + Math.cos(angle) * radius;
          const py = y + Math.sin(angle) * radius;
          const room = Math.min(clearance(px, py), 999);
          if (!pick || room > pick.room + 0.5) pick = { px, py, room };
        }
      }
      g.append(s("text", {
        x: pick.px, y: pick.py, dy: "0.35em",
        class: "departure-letter", fill: colourHex(colour), "text-anchor": "middle",
        "data-departure": colour, text: this.letters[colour].toUpperCase(),
      }));
    }
  }

  drawMarks(state) {
    const under = clear(this.layers.under);
    const marks = clear(this.layers.marks);
    const R = (name) => (this.station(name).cells ? U * 0.95 : U * 0.43);
    if (state.blink && state.colour) {
      const dep = this.board.departures[state.colour];
      const [x, y] = this.pos(dep);
      marks.append(s("circle", { cx: x, cy: y, r: R(dep) + 3, class: "blink", stroke: colourHex(state.colour) }));
    }
    for (const name of state.targets || []) {
      const [x, y] = this.pos(name);
      under.append(s("circle", { cx: x, cy: y, r: R(name), class: "target-halo" }));
      marks.append(s("g", { transform: `translate(${x} ${y})`, class: "target-mark" },
        s("circle", { r: R(name) }),
        s("path", { d: ticks(R(name)) })));
    }
    for (const name of state.circles || []) {
      const [x, y] = this.pos(name);
      under.append(s("circle", { cx: x, cy: y, r: R(name), class: "circle-halo" }));
      marks.append(s("circle", { cx: x, cy: y, r: R(name), class: "circle-mark" }));
    }
    for (const name of state.starts || []) {
      if (name === state.selected) continue;
      const [x, y] = this.pos(name);
      marks.append(s("circle", { cx: x, cy: y, r: R(name), class: "start-mark" }));
    }
    if (state.selected) {
      const [x, y] = this.pos(state.selected);
      marks.append(s("circle", { cx: x, cy: y, r: R(state.selected) + 2, class: "selected-mark", stroke: colourHex(state.colour) }));
      marks.append(s("circle", { cx: x, cy: y, r: R(state.selected) + 2, class: "selected-mark-inner" }));
    }
  }

  drawHits(state) {
    closeZoom();
    const g = clear(this.layers.hits);
    const kinds = new Map();
    for (const n of state.starts || []) kinds.set(n, "start");
    for (const n of state.circles || []) kinds.set(n, "circle");
    for (const n of state.targets || []) kinds.set(n, "target");
    if (state.selected) kinds.set(state.selected, "selected");
    const names = [...kinds.keys()].sort((a, b) => {
      const p = this.station(a);
      const q = this.station(b);
      return p.row - q.row || p.col - q.col;
    });
    // each hit area is the region nearer this station than any other one to click now, up
    // to 1.3 cells away (taphit.js; snug: see the constructor); a phone's tap where that is
    // too small opens a magnifier
    const places = names.map((n) => this.pos(n));
    for (const [i, name] of names.entries()) {
      const kind = kinds.get(name);
      const st = this.station(name);
      const [x, y] = this.pos(name);
      const label = {
        start: t("board.hit.start", { station: st.name }), target: t("board.hit.target", { station: st.name }),
        circle: t("board.hit.circle", { station: st.name }), selected: t("board.hit.selected", { station: st.name }),
      }[kind];
      const near = Math.min(...places.filter((_, j) => j !== i).map(([px, py]) => Math.hypot(px - x, py - y) / 2));
      const area = cell(places, i, this.snug ? Math.max(U * 0.46, Math.min(U * 0.8, near)) : st.cells ? U * 1.6 : U * 1.3);
      const hit = s("g", {
        class: `hit hit-${kind}`, tabindex: "0", role: "button",
        "aria-label": label, "data-station": st.name, "data-kind": kind,
        transform: `translate(${x} ${y})`,
      }, cellPolygon(area, x, y), s("circle", { r: (st.cells ? U * 0.95 : U * 0.43) + 3, class: "hit-ring" }));
      tapOrZoom(this.svg, hit, { reach: largestSquare(area, x, y), centre: [x, y], pick: () => this.onPick && this.onPick(st.name, kind) });
      if (kind === "target") {
        hit.addEventListener("pointerenter", (ev) => { if (ev.pointerType !== "touch") this.showHover(st.name); }); // a finger's tap is no hover
        hit.addEventListener("pointerleave", () => this.showHover(null));
        hit.addEventListener("focus", () => this.showHover(st.name));
        hit.addEventListener("blur", () => this.showHover(null));
      }
      g.append(hit);
    }
  }

  showHover(name) {
    const old = this.layers.preview.querySelector(".hover-preview");
    if (old) old.remove();
    const st = this.state;
    if (!name || !st || !st.selected || !st.colour) return;
    const [[x1, y1], [x2, y2]] = this.segment(st.selected, name);
    this.layers.preview.append(s("line", {
      x1, y1, x2, y2, stroke: colourHex(st.colour), "stroke-width": U * 0.12, class: "hover-preview",
    }));
  }
}

function ticks(r) {
  const a = r + 1;
  const b = r + 7;
  return `M0 ${-a}V${-b}M0 ${a}V${b}M${-a} 0H${-b}M${a} 0H${b}`;
}

function smoothPath(pts) {
  // a polyline with round joins: faithful to the course, so crossings read as in the data
  return `M${pts.map((p) => `${p[0].toFixed(1)} ${p[1].toFixed(1)}`).join(" L")}`;
}

/** The distance from (x, y) to the segment (x1, y1)-(x2, y2), in the same units. */
function pointToSegment(x, y, x1, y1, x2, y2) {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const len = dx * dx + dy * dy;
  const f = len ? Math.max(0, Math.min(1, ((x - x1) * dx + (y - y1) * dy) / len)) : 0;
  return Math.hypot(x - (x1 + f * dx), y - (y1 + f * dy));
}
