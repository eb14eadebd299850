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

export const stationAt = (d, col, row) => d.stations.find((s) => (s.col === col && s.row === row) || (s.cells && s.cells.some(([c, r]) => c === col && r === row))) || null;
export const stationById = (d, id) => d.stations.find((s) => s.id === id) || null;
// a station's name: its cell's, or the name of a station over several cells (Paris's platform)
export const stationName = (s) => s.name || cellName(s.col, s.row);
export const nameOf = (d, id) => { const s = stationById(d, id); return s ? stationName(s) : "?"; };
/** The cell a station's district is read from: its own, or the first of its cells. */
export const homeCell = (s) => (s.cells ? s.cells[0] : [s.col, s.row]);
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

// a link is drawn between its stations' centres, or between the cells its link_geometry names
// (a link to a station over several cells: docs/maps.md)
function segments(d) {
  const geometry = (d.rest && d.rest.link_geometry) || {};
  return d.links.map(([a, b]) => {
    const p = stationById(d, a), q = stationById(d, b);
    const there = geometry[`${stationName(p)} ${stationName(q)}`], back = geometry[`${stationName(q)} ${stationName(p)}`];
    if (there) return [there.from_cell, there.to_cell];
    if (back) return [back.to_cell, back.from_cell];
    return [[p.col, p.row], [q.col, q.row]];
  });
}

const pairKey = (x, y) => [[...x].sort().join("-"), [...y].sort().join("-")].sort().join(" ");

/** The pairs of link indices whose segments cross off their ends (two links of one station,
 *  and an overhead crossing — a bridge of the imported map between two of its links — excepted). */
export function crossingPairs(d) {
  const seg = segments(d);
  const bridged = new Set(((d.rest && d.rest.bridges) || []).map((b) => pairKey(...b.links)));
  const names = d.links.map((l) => l.map((id) => nameOf(d, id)));
  const out = [];
  for (let i = 0; i < seg.length; i++) {
    for (let j = i + 1; j < seg.length; j++) {
      const shared = d.links[i].some((id) => d.links[j].includes(id)); // links sharing a station meet there
      if (!shared && crosses(...seg[i], ...seg[j]) && !bridged.has(pairKey(names[i], names[j]))) out.push([i, j]);
    }
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
      const st = { name: stationName(s), col: s.col, row: s.row, symbol: s.symbol, district: districtOfCell(d, ...homeCell(s)) || "" };
      if (s.tourist || s.touristKey) st.tourist_site = s.tourist;
      if (s.monument) st.monument = true;
      if (s.platform) st.central_platform = true;
      if (s.cells) st.cells = s.cells.map((c) => [...c]);
      return st;
    }),
    links: d.links.map(([a, b]) => [name(a), name(b)]),
    crossings: asImported(crossingPairs(d).map(([i, j]) => [d.links[i].map(name), d.links[j].map(name)]), rest.crossings),
    districts: d.districts.filter((x) => x.cells.length).map((x) => {
      const stations = d.stations.filter((s) => districtOfCell(d, ...homeCell(s)) === x.name).map(stationName);
      const cells = x.cells.map((k) => cellName(...k.split(",").map(Number)));
      return {
        name: x.name,
        kind: x.kind || "main",
        stations: x.listed && sameSet(x.listed, stations) ? [...x.listed] : stations,
        cells: x.ranges && sameSet(x.ranges.flatMap(cellsOfRange).map((c) => cellName(...c)), cells) ? [...x.ranges] : cells,
      };
    }),
  };
  if (d.river.length >= 2) {
    const river = rest.river || {};
    map.river = {
      name: river.name || "River",
      sections: asImported(riverSections(d).map((j) => d.links[j].map(name)), river.sections),
      course: d.river.map((p) => [...p]),
      points_per_crossing: river.points_per_crossing ?? 2,
    };
  }
  for (const key of ["deck", "round_end", "scoring", "objectives", "powers", "source", "central_district", "solo_rating", "reference_scores"]) {
    if (rest[key] !== undefined) map[key] = rest[key];
  }
  keptGeometry(map, rest);
  if (rest.check_values) map.check_values = checkValues(map, rest.check_values);
  return map;
}

const linkKey = (l) => [...l].sort().join("-");
function sameSet(a, b) {
  const x = new Set(a.map((v) => (Array.isArray(v) ? JSON.stringify(v.map((w) => (Array.isArray(w) ? linkKey(w) : w)).sort()) : String(v))));
  const y = new Set(b.map((v) => (Array.isArray(v) ? JSON.stringify(v.map((w) => (Array.isArray(w) ? linkKey(w) : w)).sort()) : String(v))));
  return x.size === y.size && [...x].every((v) => y.has(v));
}
// a list the drawing recomputes (crossings, river sections) kept as the imported file wrote it
// while the drawing still has exactly those
const asImported = (found, imported) => (Array.isArray(imported) && sameSet(found, imported) ? imported : found);

/** The imported map's aliases, link geometry and bridges that still name its stations and links. */
function keptGeometry(map, rest) {
  const stations = new Set(map.stations.map((st) => st.name));
  const links = new Set(map.links.map(linkKey));
  if (rest.aliases) {
    const kept = Object.entries(rest.aliases).filter(([, target]) => stations.has(target));
    if (kept.length) map.aliases = Object.fromEntries(kept);
  }
  if (rest.link_geometry) {
    const kept = Object.entries(rest.link_geometry).filter(([key]) => links.has(linkKey(key.split(" "))));
    if (kept.length) map.link_geometry = Object.fromEntries(kept);
  }
  if (rest.bridges) {
    const kept = rest.bridges.filter((b) => b.links.every((l) => links.has(linkKey(l))));
    if (kept.length) map.bridges = kept;
  }
}

/** The imported map's stated counts, each as the exported map has it (the checker compares). */
function checkValues(map, stated) {
  const central = map.districts.find((x) => x.name === map.central_district);
  const count = {
    stations: map.stations.length, links: map.links.length, districts: map.districts.length,
    river_sections: map.river ? map.river.sections.length : 0,
    tourist_sites: map.stations.filter((st) => st.tourist_site).length,
    monuments: map.stations.filter((st) => st.monument).length,
    departures: new Set(Object.values(map.departures)).size, cards: (map.deck || []).length,
    crossing_link_pairs: map.crossings.length, objectives: (map.objectives || []).length,
    powers: (map.powers || []).length, bridges: (map.bridges || []).length,
    central_district_stations: central ? central.stations.length : 0,
  };
  return Object.fromEntries(Object.keys(stated).map((key) => [key, key in count ? count[key] : stated[key]]));
}

/** Why a file cannot be drawn: `key` (a message of the page's catalogs) and its `params`. */
export class ImportRefusal extends Error {
  constructor(key, params = {}) {
    super(key);
    this.key = key;
    this.params = params;
  }
}

/** A drawing from a decoded map, or an ImportRefusal naming what the studio cannot draw (the
 *  checker judges the rest once drawn). */
export function fromMap(map) {
  if (!map || typeof map !== "object" || Array.isArray(map)) throw new ImportRefusal("studio.import.not-object");
  const grid = map.grid || {};
  const columns = Number(grid.columns), rows = Number(grid.rows);
  if (!Number.isInteger(columns) || !Number.isInteger(rows) || columns < 2 || rows < 2 || columns > MAX_GRID || rows > MAX_GRID) {
    throw new ImportRefusal("studio.import.grid");
  }
  if (!Array.isArray(map.stations) || map.stations.length > 200) throw new ImportRefusal("studio.import.stations");
  const d = emptyDrawing(columns, rows);
  d.title = String(map.title || "").slice(0, 200);
  d.districts = [];
  const ids = new Map();
  for (const st of map.stations) {
    const s = importedStation(st, d);
    d.stations.push(s);
    ids.set(String(st.name), s.id);
  }
  for (const x of Array.isArray(map.districts) ? map.districts.slice(0, 64) : []) {
    const ranges = (Array.isArray(x.cells) ? x.cells : []).filter((c) => typeof c === "string");
    const cells = ranges.flatMap(cellsOfRange).map(([c, r]) => `${c},${r}`);
    const listed = Array.isArray(x.stations) ? x.stations.filter((n) => typeof n === "string") : null;
    d.districts.push({ name: String(x.name).slice(0, 40), kind: x.kind, cells: [...new Set(cells)], ranges, listed });
  }
  if (!d.districts.length) d.districts.push({ name: "centre", cells: [] });
  for (const link of Array.isArray(map.links) ? map.links.slice(0, 1000) : []) {
    if (Array.isArray(link) && ids.has(String(link[0])) && ids.has(String(link[1]))) d.links.push([ids.get(String(link[0])), ids.get(String(link[1]))]);
  }
  for (const [colour, station] of Object.entries(map.departures || {})) if (ids.has(String(station))) d.departures[colour] = ids.get(String(station));
  const course = map.river && Array.isArray(map.river.course) ? map.river.course : [];
  d.river = course.filter((p) => Array.isArray(p) && p.length === 2 && p.every(Number.isFinite)).map((p) => [p[0], p[1]]);
  const { format, city, title, grid: _g, departures, stations, links, districts, ...rest } = map;
  d.rest = { ...rest, city, colours: map.colours };
  return d;
}

/** A station of an imported map: one cell (whole col and row), or over 2–9 cells of the grid
 *  (Paris's platform: its centre, its name and its cells kept); else an ImportRefusal naming it. */
function importedStation(st, d) {
  const name = String(st && st.name).slice(0, 40);
  if (!st || typeof st !== "object") throw new ImportRefusal("studio.import.station-object", { name });
  const symbol = SYMBOLS.includes(st.symbol) ? st.symbol : "square";
  const s = { id: d.next++, col: st.col, row: st.row, symbol, tourist: st.tourist_site === true };
  if ("tourist_site" in st) s.touristKey = true;
  if (st.monument === true) s.monument = true;
  if (st.central_platform === true) s.platform = true;
  if (st.cells === undefined) {
    if (!Number.isInteger(st.col) || !Number.isInteger(st.row) || st.col < 0 || st.row < 0 || st.col >= d.columns || st.row >= d.rows) {
      throw new ImportRefusal("studio.import.station-cell", { name });
    }
    return s;
  }
  const inGrid = (c) => Array.isArray(c) && c.length === 2 && Number.isInteger(c[0]) && Number.isInteger(c[1]) && c[0] >= 0 && c[1] >= 0 && c[0] < d.columns && c[1] < d.rows;
  if (!Array.isArray(st.cells) || st.cells.length < 2 || st.cells.length > 9 || !st.cells.every(inGrid)) {
    throw new ImportRefusal("studio.import.station-cells", { name });
  }
  if (!Number.isFinite(st.col) || !Number.isFinite(st.row) || typeof st.name !== "string" || !/^[A-Z]\d{1,2}$/.test(st.name)) {
    throw new ImportRefusal("studio.import.station-centre", { name });
  }
  return Object.assign(s, { name: st.name, cells: st.cells.map((c) => [c[0], c[1]]) });
}
