// The map studio's drawing as data, and its one way to and from the map format (docs/maps.md,
// "metrogames/city/1"). Nothing here decides whether a map is legal: the server's checker does
// (POST /api/maps/check). What the format asks the designer to list beside the drawing — the
// crossing links and the river's sections — is read off the drawing's geometry (the checker
// recomputes both and refuses any difference).

export const FORMAT = "metrogames/city/1";
export const COLOURS = ["blue", "pink", "purple", "green"];
export const SYMBOLS = ["square", "circle", "triangle", "pentagon", "any"];
export const MAX_GRID = 26;
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** A cell's name: its column letter and row number (col 2, row 9: "C10"). */
export const cellName = (col, row) => `${LETTERS[col]}${row + 1}`;

/** A cell's [col, row] from its name, or null. */
export function cellOf(name) {
  const m = /^([A-Z])(\d{1,2})$/.exec(String(name));
  return m ? [LETTERS.indexOf(m[1]), Number(m[2]) - 1] : null;
}

/** The cells of "B1" or of a rectangle "B1:C3". */
function cellsOfRange(text) {
  const [a, b] = String(text).split(":");
  const p = cellOf(a), q = cellOf(b === undefined ? a : b);
  if (!p || !q) return [];
  const out = [];
  for (let c = Math.min(p[0], q[0]); c <= Math.max(p[0], q[0]); c++) {
    for (let r = Math.min(p[1], q[1]); r <= Math.max(p[1], q[1]); r++) out.push([c, r]);
  }
  return out;
}

/** An empty drawing: a grid, no stations, one district to paint with. */
export function emptyDrawing(columns = 6, rows = 6) {
  return {
    title: "", columns, rows, next: 1,
    stations: [], // {id, col, row, symbol, tourist}
    links: [], // [id, id]
    departures: {}, // colour -> station id
    districts: [{ name: "centre", cells: [] }], // cells: "col,row" keys
    river: [], // course points [x, y], on half cells
    rest: null, // the imported map's other fields (deck, scoring, objectives...), kept as they were
    variant: null, // else: the served city whose deck and tables it plays
  };
}

export const stationAt = (d, col, row) => d.stations.find((s) => s.col === col && s.row === row) || null;
export const stationById = (d, id) => d.stations.find((s) => s.id === id) || null;
export const nameOf = (d, id) => { const s = stationById(d, id); return s ? cellName(s.col, s.row) : "?"; };
export const districtOfCell = (d, col, row) => {
  const key = `${col},${row}`;
  const found = d.districts.find((x) => x.cells.includes(key));
  return found ? found.name : null;
};
export const hasLink = (d, a, b) => d.links.some(([x, y]) => (x === a && y === b) || (x === b && y === a));

// -- geometry: strict crossings, as the checker's segments_cross ------------------------------
const orient = (a, b, c) => Math.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
function crosses(a, b, c, e) {
  return orient(c, e, a) * orient(c, e, b) < 0 && orient(a, b, c) * orient(a, b, e) < 0;
}

function segments(d) {
  return d.links.map(([a, b]) => {
    const p = stationById(d, a), q = stationById(d, b);
    return [[p.col, p.row], [q.col, q.row]];
  });
}

/** The pairs of link indices whose segments cross off their ends. */
export function crossingPairs(d) {
  const seg = segments(d);
  const out = [];
  for (let i = 0; i < seg.length; i++) {
    for (let j = i + 1; j < seg.length; j++) if (crosses(...seg[i], ...seg[j])) out.push([i, j]);
  }
  return out;
}

/** The indices of the links that cross the river's course. */
export function riverSections(d) {
  if (d.river.length < 2) return [];
  return segments(d).flatMap(([a, b], j) => (d.river.some((p, k) => k > 0 && crosses(a, b, d.river[k - 1], p)) ? [j] : []));
}

// -- to and from the format ---------------------------------------------------------------
const slug = (title) => (String(title).toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "my-city");

/** The rules variant's fields copied from a city's board data (GET /api/games/{game}/board):
 *  its deck, what ends a round and its scoring tables; no objectives, no powers. */
export function variantOf(board) {
  return {
    deck: (board.cards || []).map((c) => ({ id: c.id, kind: c.kind, face: c.face })),
    round_end: board.round_end,
    scoring: board.scoring,
    objectives: [],
    powers: [],
  };
}

/** The drawing as a map of the documented format (`variant`: the rules fields when the
 *  drawing was not imported with its own). */
export function toMap(d, variant) {
  const name = (id) => nameOf(d, id);
  const rest = { ...(d.rest || variant || {}) };
  const map = {
    format: FORMAT,
    city: rest.city || slug(d.title),
    title: d.title || "My city",
    grid: { columns: d.columns, rows: d.rows },
    colours: rest.colours || COLOURS,
    departures: Object.fromEntries(Object.entries(d.departures).filter(([, id]) => stationById(d, id)).map(([c, id]) => [c, name(id)])),
    stations: d.stations.map((s) => {
      const st = { name: cellName(s.col, s.row), col: s.col, row: s.row, symbol: s.symbol, district: districtOfCell(d, s.col, s.row) || "" };
      if (s.tourist) st.tourist_site = true;
      return st;
    }),
    links: d.links.map(([a, b]) => [name(a), name(b)]),
    crossings: crossingPairs(d).map(([i, j]) => [d.links[i].map(name), d.links[j].map(name)]),
    districts: d.districts.filter((x) => x.cells.length).map((x) => ({
      name: x.name,
      kind: x.kind || "main",
      stations: d.stations.filter((s) => districtOfCell(d, s.col, s.row) === x.name).map((s) => cellName(s.col, s.row)),
      cells: x.cells.map((k) => cellName(...k.split(",").map(Number))),
    })),
  };
  if (d.river.length >= 2) {
    const river = rest.river || {};
    map.river = {
      name: river.name || "River",
      sections: riverSections(d).map((j) => d.links[j].map(name)),
      course: d.river.map((p) => [...p]),
      points_per_crossing: river.points_per_crossing ?? 2,
    };
  }
  for (const key of ["deck", "round_end", "scoring", "objectives", "powers", "source", "central_district", "solo_rating"]) {
    if (rest[key] !== undefined) map[key] = rest[key];
  }
  return map;
}

/** A drawing from a decoded map, or an Error naming what the studio cannot draw (the checker
 *  judges the rest once drawn). */
export function fromMap(map) {
  if (!map || typeof map !== "object" || Array.isArray(map)) throw new Error("not a JSON object");
  const grid = map.grid || {};
  const columns = Number(grid.columns), rows = Number(grid.rows);
  if (!Number.isInteger(columns) || !Number.isInteger(rows) || columns < 2 || rows < 2 || columns > MAX_GRID || rows > MAX_GRID) {
    throw new Error("grid: columns and rows are whole numbers from 2 to 26");
  }
  if (!Array.isArray(map.stations) || map.stations.length > 200) throw new Error("stations: a list of at most 200");
  const d = emptyDrawing(columns, rows);
  d.title = String(map.title || "").slice(0, 200);
  d.districts = [];
  const ids = new Map();
  for (const st of map.stations) {
    if (!st || !Number.isInteger(st.col) || !Number.isInteger(st.row) || st.cells) throw new Error(`station ${String(st && st.name).slice(0, 40)}: the studio draws stations of one cell only`);
    const symbol = SYMBOLS.includes(st.symbol) ? st.symbol : "square";
    const s = { id: d.next++, col: st.col, row: st.row, symbol, tourist: st.tourist_site === true };
    d.stations.push(s);
    ids.set(String(st.name), s.id);
  }
  for (const x of Array.isArray(map.districts) ? map.districts.slice(0, 64) : []) {
    const cells = (Array.isArray(x.cells) ? x.cells : []).flatMap(cellsOfRange).map(([c, r]) => `${c},${r}`);
    d.districts.push({ name: String(x.name).slice(0, 40), kind: x.kind, cells: [...new Set(cells)] });
  }
  if (!d.districts.length) d.districts.push({ name: "centre", cells: [] });
  for (const link of Array.isArray(map.links) ? map.links.slice(0, 1000) : []) {
    if (Array.isArray(link) && ids.has(String(link[0])) && ids.has(String(link[1]))) d.links.push([ids.get(String(link[0])), ids.get(String(link[1]))]);
  }
  for (const [colour, station] of Object.entries(map.departures || {})) if (ids.has(String(station))) d.departures[colour] = ids.get(String(station));
  const course = map.river && Array.isArray(map.river.course) ? map.river.course : [];
  d.river = course.filter((p) => Array.isArray(p) && p.length === 2 && p.every(Number.isFinite)).map((p) => [p[0], p[1]]);
  const { format, city, title, grid: _g, departures, stations, links, crossings, districts, check_values, ...rest } = map;
  d.rest = { ...rest, city, colours: map.colours };
  return d;
}
