// Next Station at the table: the map, the cards, the turn builder (made only of the view's
// `legal` actions), the players' state and the score sheet.

import { h, clear, colourChip, colourLetters, faceIcon, fmtName, youName, faceName, objectiveTextOf, cardKind } from "./dom.js";
import { t } from "./i18n.js";
import { NextStationBoard } from "./board-nextstation.js";
import { confirmMoves, confirmToggle, pendingBar } from "./confirm.js";

export const powerLabel = (id) => ({
  "double-section": t("power.double-section"),
  joker: t("power.joker"),
  switch: t("power.switch"),
  "circle-station": t("power.circle-station"),
}[id] || id);
const modeHelp = (mode) => ({
  "double-section": t("power.double-section.help"),
  joker: t("power.joker.help"),
  switch: t("power.switch.help"),
  circle: t("power.circle.help"),
}[mode] || "");

// A pencil power's rule, by its id.
const powerText = (id) => ({
  "double-section": t("power.double-section.text"), joker: t("power.joker.text"),
  switch: t("power.switch.text"), "circle-station": t("power.circle-station.text"),
}[id] || "");

// The cards that end a round, by their kind, in words: underground (London), metro (Paris).
const roundEndCards = (kind) => ({ underground: t("ns.underground-cards"), metro: t("ns.metro-cards") }[kind] || kind);

// The river's name (London: the Thames).
export const riverName = (name) => (name === "Thames" ? t("river.thames") : name);

const sameSection = (p, q) => p[0] === q[0] && p[1] === q[1];
const uniq = (xs) => [...new Set(xs)];

function actionMode(a) {
  if (a === "pass" || typeof a !== "object") return null;
  if (a.circle) return "circle";
  return a.power || "normal";
}

// Screen for a Next Station game. ctx: {board, act(action) -> Promise, seatName(seat),
// interactive: bool}
export class NextStationScreen {
  constructor(root, board, ctx) {
    this.board = board;
    this.ctx = ctx;
    this.letters = colourLetters(board.colours);
    this.cards = new Map(board.cards.map((c) => [c.id, c]));
    this.objectiveText = new Map((board.objectives || []).map((o) => [o.id, o.text]));
    this.map = new NextStationBoard(board, { onPick: (name, kind) => this.pick(name, kind) });
    this.shownSeat = null;
    this.resetTurn();
    this.root = root;
    this.el = {
      tabs: h("div", { class: "seat-tabs", role: "tablist" }),
      status: h("div", { class: "status-line" }),
      cards: h("section", { class: "panel cards", "aria-label": t("ns.cards") }),
      turn: h("section", { class: "panel turn", "aria-live": "polite" }),
      players: h("section", { class: "panel players", "aria-label": t("ns.players") }),
      sheet: h("section", { class: "panel sheet", "aria-label": t("ns.sheet") }),
      objectives: h("section", { class: "panel objectives" }),
    };
    clear(root).append(
      h("div", { class: "table-layout" },
        h("div", { class: "board-col" }, this.el.tabs, h("div", { class: "board-wrap" }, this.map.svg), this.legend()),
        h("div", { class: "turn-dock", "data-testid": "turn-dock" }, this.el.status, this.el.cards, this.el.turn),
        h("div", { class: "side-col" }, this.el.players, this.el.sheet, this.el.objectives)),
    );
  }

  legend() {
    const items = this.board.colours.map((c) => colourChip(c, this.letters[c]));
    const extra = [];
    if (this.board.river) extra.push(h("span", { class: "legend-item" }, h("span", { class: "legend-river" }), riverName(this.board.river.name)));
    if (this.board.stations.some((st) => st.tourist_site)) extra.push(h("span", { class: "legend-item" }, `★ ${t("legend.tourist-site")}`));
    if (this.board.stations.some((st) => st.monument)) extra.push(h("span", { class: "legend-item" }, `◆ ${t("face.monument")}`));
    if ((this.board.bridges || []).length) extra.push(h("span", { class: "legend-item" }, `◇ ${t("legend.crossing")}`));
    extra.push(h("span", { class: "legend-item" }, h("span", { class: "legend-interchange" }), t("legend.interchange")));
    return h("div", { class: "legend" }, ...items, ...extra,
      // what a move may do: said only while the game goes on (hidden by render() once over)
      h("span", { class: "legend-item legend-move" }, h("span", { class: "legend-start" }), t("legend.start")),
      h("span", { class: "legend-item legend-move" }, h("span", { class: "legend-target" }), t("legend.target")));
  }

  resetTurn() {
    this.turn = { mode: "normal", prefix: [], selected: null, phase: "draw", busy: false };
  }

  // -- the view --------------------------------------------------------------------------
  update(view) {
    const stepChanged = !this.view || this.view.step !== view.step || this.view.you !== view.you;
    this.view = view;
    if (stepChanged) this.resetTurn();
    if (this.shownSeat === null || this.shownSeat >= view.players.length) {
      this.shownSeat = view.you ?? 0;
    }
    if (stepChanged && view.you !== null && view.you !== undefined) this.shownSeat = view.you;
    for (const item of this.root.querySelectorAll(".legend-move")) item.hidden = view.status === "finished";
    this.render();
  }

  me() {
    const v = this.view;
    return v.you === null || v.you === undefined ? null : v.players[v.you];
  }

  legal() {
    return this.ctx.interactive === false ? [] : this.view.legal || [];
  }

  render() {
    const v = this.view;
    this.renderTabs();
    this.renderStatus();
    this.renderCards();
    this.renderTurn();
    this.renderPlayers();
    this.renderSheet();
    this.renderObjectives();
    this.renderMap();
    this.lastRendered = v.step;
  }

  renderTabs() {
    const v = this.view;
    const tabs = clear(this.el.tabs);
    if (v.players.length < 2) return;
    for (const p of v.players) {
      const seat = v.seats[p.seat] || {};
      const label = p.seat === v.you ? youName(seat.name) : fmtName(seat.name);
      tabs.append(h("button", {
        class: `tab${p.seat === this.shownSeat ? " active" : ""}`, role: "tab",
        "aria-selected": p.seat === this.shownSeat ? "true" : "false",
        onclick: () => { this.shownSeat = p.seat; this.render(); },
      }, colourChip(p.colour, this.letters[p.colour], { label: false }), ` ${label}`));
    }
  }

  renderStatus() {
    const v = this.view;
    const el = clear(this.el.status);
    if (v.status === "finished") {
      el.append(h("strong", {}, t("end.over")));
      return;
    }
    const me = this.me() || v.players[this.shownSeat];
    el.append(
      h("span", { class: "round" }, t("ns.round-of", { n: v.round, of: 4 })),
      h("span", { class: "turnno" }, ` · ${t("ns.turn", { n: v.turn || 0 })}`),
      " · ",
      h("span", {}, v.you === null ? t("ns.line") : t("ns.your-line"), " "),
      colourChip(me.colour, this.letters[me.colour]),
    );
  }

  renderCards() {
    const v = this.view;
    const el = clear(this.el.cards);
    el.hidden = v.status === "finished";
    const re = v.round_end || { flipped: 0, count: 5 };
    const kindName = this.board.round_end.kind;
    const pips = h("span", { class: "pips", "aria-hidden": "true" });
    for (let i = 0; i < re.count; i++) pips.append(h("span", { class: `pip${i < re.flipped ? " on" : ""}` }));
    el.append(h("div", { class: "ucount" },
      h("span", { class: "ucount-label" }, roundEndCards(kindName)),
      pips,
      h("strong", { class: "ucount-num", "data-testid": "round-end-count" }, `${re.flipped}/${re.count}`)));
    const row = h("div", { class: "card-row" });
    const flipped = v.flipped || [];
    // --age: a phone's strip shows them newest first, the current card whole at its start (css)
    flipped.forEach((id, i) => row.append(this.cardEl(id, i === flipped.length - 1 && v.card === id, flipped.length - 1 - i)));
    if (!flipped.length) row.append(h("span", { class: "muted" }, t("ns.no-card")));
    el.append(row);
    if (v.branch) el.append(h("div", { class: "note" }, `⇄ ${t("ns.switch-note")}`));
  }

  cardEl(id, current, age = 0) {
    const c = this.cards.get(id) || { kind: "?", face: id, ends_round: false };
    const face = faceName(c.face);
    const kind = cardKind(c.kind);
    const label = t("ns.card", { kind, face });
    return h("div", {
      class: `card card-${c.ends_round ? "end" : "street"}${current ? " current" : ""}`,
      title: label, "data-card": id, role: "img", "aria-label": label, style: { "--age": String(age) },
    }, h("span", { class: "card-kind", "aria-hidden": "true" }, current ? kind : kind[0].toUpperCase()),
    faceIcon(c.face, current ? 34 : 22), h("span", { class: "card-face", "aria-hidden": "true" }, face));
  }

  // -- the turn builder -------------------------------------------------------------------
  candidates() {
    const mode = this.turn.mode;
    return this.legal().filter((a) => actionMode(a) === mode);
  }

  analyse() {
    const t = this.turn;
    const cands = this.candidates();
    const matching = cands.filter((a) => t.prefix.every((p, i) => a.sections[i] && sameSection(a.sections[i], p)));
    const complete = matching.filter((a) => a.sections.length === t.prefix.length);
    const longer = matching.filter((a) => a.sections.length > t.prefix.length);
    return { cands, matching, complete, longer };
  }

  // What the map shows: starts, targets, circle candidates.
  picks() {
    const t = this.turn;
    const { complete, longer } = this.analyse();
    if (t.mode === "circle" && t.phase === "circle") {
      return { starts: [], targets: [], circles: uniq(complete.map((a) => a.circle)), complete, longer };
    }
    const k = t.prefix.length;
    const starts = uniq(longer.map((a) => a.sections[k][0]));
    if (t.selected && !starts.includes(t.selected)) t.selected = null;
    if (!t.selected && starts.length === 1) t.selected = starts[0];
    const targets = t.selected
      ? uniq(longer.filter((a) => a.sections[k][0] === t.selected).map((a) => a.sections[k][1]))
      : [];
    return { starts, targets, circles: [], complete, longer };
  }

  // The move being built, once its sections make a whole legal move (the coach rates it).
  pendingAction() {
    if (!this.turn.prefix.length || this.turn.mode === "circle") return null;
    return this.analyse().complete[0] || null;
  }

  async submit(action) {
    if (this.turn.busy) return;
    this.turn.busy = true;
    this.render();
    try {
      await this.ctx.act(action, this.view.step);
    } catch {
      this.resetTurn();
      this.render();
    } finally {
      this.turn.busy = false;
    }
  }

  advance() {
    const t = this.turn;
    const { complete, longer } = this.analyse();
    if (t.mode === "circle") {
      if (t.phase === "draw" && complete.length && !longer.length) t.phase = "circle";
    } else if (complete.length && !longer.length && t.prefix.length) {
      this.propose(complete[0]);
      return;
    }
    this.render();
  }

  // A move built on the board: sent at once, or held for Confirm/Undo (confirm.js).
  propose(action) {
    if (!confirmMoves()) { this.submit(action); return; }
    this.turn.pending = action;
    this.render();
  }

  undoPending() {
    this.turn = { ...this.turn, prefix: [], selected: null, phase: "draw", pending: null };
    this.render();
  }

  pick(name, kind) {
    const t = this.turn;
    if (t.busy || t.pending) return;
    if (kind === "start") t.selected = name;
    else if (kind === "selected") t.selected = null;
    else if (kind === "target" && t.selected) {
      t.prefix.push([t.selected, name]);
      t.selected = null;
      this.advance();
      return;
    } else if (kind === "circle") {
      const a = this.analyse().complete.find((x) => x.circle === name);
      if (a) { this.propose(a); return; }
    }
    this.render();
    const again = this.map.svg.querySelector(`.hit[data-station="${name}"]`) || this.map.svg.querySelector(".hit-target");
    if (again) again.focus({ preventScroll: true });
  }

  setMode(mode) {
    this.turn = { mode: this.turn.mode === mode ? "normal" : mode, prefix: [], selected: null, phase: "draw", busy: false };
    this.render();
  }

  renderTurn() {
    const v = this.view;
    const el = clear(this.el.turn);
    const legal = this.legal();
    const me = this.me();
    if (v.status === "finished") {
      el.append(h("p", {}, t("ns.over")));
      return;
    }
    if (!legal.length) {
      if (me && me.acted) el.append(h("p", { class: "waiting" }, t("ns.done-waiting")));
      else if (v.you === null || v.you === undefined) el.append(h("p", { class: "muted" }, t("common.watching")));
      else el.append(h("p", { class: "waiting" }, t("ns.waiting-card")));
      return;
    }
    const turn = this.turn;
    if (turn.pending && !turn.busy) {
      const what = turn.pending.circle ? t("ns.send-circle", { station: turn.pending.circle }) : t("ns.send-sections", { n: turn.pending.sections.length });
      el.append(pendingBar(what, () => this.submit(turn.pending), () => this.undoPending()));
      el.append(confirmToggle(() => { if (!confirmMoves()) this.submit(turn.pending); }));
      return;
    }
    const p = this.picks();
    let help;
    if (turn.busy) help = t("ns.sending");
    else if (turn.mode === "circle" && turn.phase === "circle") help = t("ns.help.circle");
    else if (turn.prefix.length && turn.mode === "double-section") help = t("ns.help.second");
    else if (turn.prefix.length) help = t("ns.help.monument");
    else if (!p.starts.length) help = t("ns.help.pass");
    else if (turn.selected) help = t("ns.help.from", { station: turn.selected });
    else help = t("ns.help.start");
    el.append(h("p", { class: "help", "data-testid": "turn-help" }, help));
    if (modeHelp(turn.mode)) el.append(h("p", { class: "note" }, modeHelp(turn.mode)));
    const buttons = h("div", { class: "buttons" });
    if (legal.includes("pass")) {
      buttons.append(h("button", { class: "btn", id: "pass-btn", disabled: turn.busy, onclick: () => this.submit("pass") }, t("ns.pass")));
    }
    if (p.complete.length && p.longer.length && turn.mode !== "circle") {
      buttons.append(h("button", { class: "btn primary", id: "done-btn", onclick: () => this.submit(p.complete[0]) }, t("ns.done")));
    }
    if (turn.mode === "circle" && turn.phase === "draw" && p.complete.length) {
      buttons.append(h("button", { class: "btn primary", id: "circle-now-btn", onclick: () => { turn.phase = "circle"; this.render(); } },
        turn.prefix.length ? t("ns.circle-now") : t("ns.circle-without")));
    }
    if (turn.prefix.length || turn.selected || turn.phase !== "draw") {
      buttons.append(h("button", { class: "btn", onclick: () => { this.turn = { ...this.turn, prefix: [], selected: null, phase: "draw" }; this.render(); } }, t("ns.undo-selection")));
    }
    el.append(buttons);
    if (this.ctx.interactive !== false) el.append(confirmToggle(() => this.render()));
    const modes = uniq(legal.map(actionMode).filter((m) => m && m !== "normal"));
    if (modes.length) {
      const pw = h("div", { class: "buttons powers" }, h("span", { class: "muted" }, t("ns.power")));
      for (const m of modes) {
        const id = m === "circle" ? "circle-station" : m;
        pw.append(h("button", {
          class: `btn power${turn.mode === m ? " active" : ""}`, "aria-pressed": turn.mode === m ? "true" : "false",
          "data-power": id, title: powerText(id), onclick: () => this.setMode(m),
        }, `${turn.mode === m ? "✓ " : ""}${powerLabel(id)}`));
      }
      el.append(pw);
    }
  }

  renderMap() {
    const v = this.view;
    const seat = this.shownSeat;
    const p = v.players[seat];
    const mine = seat === v.you;
    let picks = { starts: [], targets: [], circles: [] };
    if (mine && this.legal().length && !this.turn.busy) picks = this.picks();
    const current = p.colour;
    const line = p.lines[current];
    const blink = v.status === "playing" && line && !(line.sections || []).length;
    this.map.update({
      lines: p.lines,
      colour: current,
      blink,
      starts: picks.starts,
      selected: mine ? this.turn.selected : null,
      targets: picks.targets,
      circles: picks.circles,
      pending: mine ? this.turn.prefix : [],
      hints: mine ? this.hintMarks(v) : [],
    });
  }

  // The coach's moves of this step (room.js), drawn dashed and numbered on the map.
  showHints(hints) {
    this.hints = hints;
    if (this.view) this.render();
  }

  hintMarks(v) {
    const hints = this.hints && this.hints.step === v.step ? this.hints.moves : [];
    return hints.map((m, i) => ({ sections: (m.action && m.action.sections) || [], rank: i + 1 })).filter((m) => m.sections.length);
  }

  renderPlayers() {
    const v = this.view;
    const el = clear(this.el.players);
    el.append(h("h3", {}, t("home.players")));
    const list = h("ul", { class: "player-list" });
    for (const p of v.players) {
      const seat = v.seats[p.seat] || {};
      let state = "";
      if (v.status === "playing") {
        if (p.acted) state = t("ns.played");
        else if ((v.to_move || []).includes(p.seat)) state = p.seat === v.you ? t("status.your-turn") : t("ns.thinking");
      }
      const winner = v.seats.length > 1 && (v.winners || []).includes(p.seat);
      list.append(h("li", { class: `player${p.seat === v.you ? " you" : ""}`, "data-seat": p.seat },
        colourChip(p.colour, this.letters[p.colour], { label: false }),
        h("span", { class: "pname" }, `${p.seat === v.you ? youName(seat.name) : fmtName(seat.name)}${winner ? " ★" : ""}`),
        seat.kind === "bot" ? h("span", { class: "tag" }, t("common.bot")) : null,
        seat.connected === false && seat.kind === "human" && this.ctx.online ? h("span", { class: "tag warn" }, t("common.away")) : null,
        h("span", { class: `pstate${p.acted ? " acted" : ""}` }, state),
        h("span", { class: "pscore" }, String((v.scores || [])[p.seat] ?? p.sheet.total))));
    }
    el.append(list);
  }

  renderSheet() {
    const v = this.view;
    const p = v.players[this.shownSeat];
    const el = clear(this.el.sheet);
    const seat = v.seats[p.seat] || {};
    el.append(h("h3", {}, t("ns.sheet-of", { name: fmtName(seat.name) })));
    el.append(sheetTable(this.board, p.sheet, p.line_scores, this.letters));
    if (p.power) {
      el.append(h("p", { class: "power-line" }, t("ns.power"), " ",
        h("strong", {}, powerLabel(p.power.id)),
        v.status === "finished" ? "" : ` ${p.power.available ? t("ns.power.available") : t("ns.power.unavailable")}`));
    }
  }

  renderObjectives() {
    const v = this.view;
    const el = clear(this.el.objectives);
    if (!v.objectives || !v.objectives.length) { el.hidden = true; return; }
    el.hidden = false;
    const sheet = v.players[this.shownSeat].sheet;
    el.append(h("h3", {}, t("ns.objectives")));
    el.append(h("ul", {}, v.objectives.map((id) => {
      const met = sheet.objectives && sheet.objectives[id];
      return h("li", { class: met ? "met" : "" }, met ? "✓ " : "○ ", objectiveTextOf(id, this.objectiveText.get(id)));
    })));
  }
}

// The breakdown of a `score --json` sheet as a table (shared with the end screens).
export function sheetTable(board, sheet, lineScores = {}, letters = colourLetters(board.colours)) {
  const rows = [];
  const riverKey = board.river ? (board.river.name === "Thames" ? "thames" : "river") : null;
  for (const colour of board.colours) {
    const ln = (sheet.lines || {})[colour] || {};
    const scored = lineScores && colour in lineScores;
    let detail = `${ln.districts ?? 0} × ${ln.max_in_district ?? 0}`;
    if (riverKey && ln[riverKey]) detail += ` + ${ln[riverKey]}×2 ${riverName(board.river.name)}`;
    if (ln.monuments) detail += ` + ${t("sheet.monuments", { n: ln.monuments })}`;
    if (ln.circled) detail += ` ${t("score.circled", { station: ln.circled })}`;
    rows.push(h("tr", { class: scored ? "" : "unscored" },
      h("th", { scope: "row" }, colourChip(colour, letters[colour])),
      h("td", {}, scored || ln.score ? detail : "—"),
      h("td", { class: "num" }, scored ? String(ln.score) : ln.score ? `(${ln.score})` : "")));
  }
  if (sheet.tourist) rows.push(h("tr", {}, h("th", { scope: "row" }, t("sheet.tourist")), h("td", {}, t("sheet.boxes", { n: sheet.tourist.boxes })), h("td", { class: "num" }, String(sheet.tourist.points))));
  if (sheet.interchanges) {
    const ic = sheet.interchanges;
    rows.push(h("tr", {}, h("th", { scope: "row" }, t("sheet.interchanges")), h("td", {}, t("sheet.interchange-counts", { two: ic["2"] || 0, three: ic["3"] || 0, four: ic["4"] || 0 })), h("td", { class: "num" }, String(ic.points))));
  }
  if (sheet.bridges) rows.push(h("tr", {}, h("th", { scope: "row" }, t("sheet.crossings")), h("td", {}, t("sheet.crossing-counts", { single: sheet.bridges.single, double: sheet.bridges.double })), h("td", { class: "num" }, String(sheet.bridges.points))));
  if (sheet.objectives) {
    const met = Object.entries(sheet.objectives).filter(([k, val]) => k !== "points" && val).length;
    const all = Object.keys(sheet.objectives).filter((k) => k !== "points").length;
    if (all) rows.push(h("tr", {}, h("th", { scope: "row" }, t("sheet.objectives")), h("td", {}, t("sheet.objectives-met", { met, n: all })), h("td", { class: "num" }, String(sheet.objectives.points))));
  }
  rows.push(h("tr", { class: "total" }, h("th", { scope: "row" }, t("sheet.total")), h("td", {}), h("td", { class: "num", "data-testid": "sheet-total" }, String(sheet.total))));
  return h("table", { class: "sheet-table" }, h("tbody", {}, rows));
}

// The round scored last: each seat's line and its score, closed with OK (`close(round)`);
// null before the first and once the player closed it (`dismissed`: the last round closed).
export function roundResult(board, v, dismissed, close) {
  const lr = v.last_round;
  if (!lr || lr.round <= 0 || dismissed >= lr.round || v.status === "finished") return null;
  const letters = colourLetters(board.colours);
  const rows = Object.entries(lr.lines).map(([seat, ln]) => {
    const p = v.players[Number(seat)];
    const colour = Object.keys(p.line_scores || {}).at(-1) || p.colour; // keys in round order
    let detail = t("score.districts-times", { n: ln.districts, max: ln.max_in_district });
    if (ln.thames) detail += ` + ${t("score.thames-times", { n: ln.thames })}`;
    if (ln.river) detail += ` + ${t("score.river-times", { n: ln.river })}`;
    if (ln.monuments) detail += ` + ${t("score.monuments-times", { n: ln.monuments })}`;
    if (ln.circled) detail += ` ${t("score.circled", { station: ln.circled })}`;
    return h("tr", {}, h("td", {}, fmtName((v.seats[Number(seat)] || {}).name)),
      h("td", {}, colourChip(colour, letters[colour] || "?", { label: false })),
      h("td", {}, detail), h("td", { class: "num" }, h("strong", {}, String(ln.score))));
  });
  return h("section", { class: "panel round-result", "data-testid": "round-result" },
    h("div", { class: "panel-head" }, h("h3", {}, t("room.round-scored", { n: lr.round })),
      h("button", { class: "btn small", "aria-label": t("room.round-close"), onclick: () => close(lr.round) }, t("common.ok"))),
    h("table", { class: "score-table" }, h("tbody", {}, rows)));
}

// The end screen's details: each seat's final sheet.
export function finalSheets(board, v) {
  return h("div", { class: "final-sheets" }, v.players.map((p) => h("div", { class: "final-sheet" },
    h("h3", {}, `${fmtName((v.seats[p.seat] || {}).name)}${v.seats.length > 1 && (v.winners || []).includes(p.seat) ? " ★" : ""} — ${p.sheet.total}`),
    sheetTable(board, p.sheet, p.line_scores))));
}
