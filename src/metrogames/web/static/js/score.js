// "Score a paper game" (#/score[/{game}]): a player who played with the box redraws their
// sheet by clicking — Next Station: sections per colour, circled stations, objectives in play;
// Metro: tiles on squares — and after each change the server checks and scores it
// (POST /api/score, docs/web-api.md "Score sheets"): the breakdown of `metrogames score`, or
// the refusal naming the illegal section. The editor that draws a game's sheet is its
// family's (families.js: sheet-nextstation.js, sheet-metro.js); a family without one has no page. The sheet downloads in the `score` format
// (docs/notation.md, "Score sheet") and uploads again. Nothing here decides what is legal:
// clicks follow the map's links and the board's squares; the server judges the drawing.

import { h, clear, toast, gameTitle } from "./dom.js";
import { t } from "./i18n.js";
import { api, getBoard, getGames } from "./api.js";
import { familyOf } from "./families.js";

const STORE = (game) => `metrogames.sheet.${game}`;
const scoreSheet = (sheet) => api("POST", "/api/score", sheet);

export class ScoreScreen {
  constructor(root, navigate, game) {
    this.root = root;
    this.navigate = navigate;
    this.game = game; // null: the first game with a score sheet
    this.closed = false;
    this.result = null;
    this.error = null;
    this.start();
  }

  destroy() { this.closed = true; }

  async start() {
    clear(this.root).append(h("p", { class: "muted" }, t("common.loading")));
    let games;
    try {
      games = (await getGames()).filter(hasSheet);
      if (!games.some((g) => g.game === this.game)) {
        this.navigate(`#/score/${games[0].game}`);
        return;
      }
      this.board = await getBoard(this.game);
    } catch (err) {
      clear(this.root).append(h("p", { class: "error" }, t("common.no-server", { error: err.message })));
      return;
    }
    if (this.closed) return;
    this.info = games.find((g) => g.game === this.game);
    // changed: the sheet changed (ask the server); shown: only the page's look changed
    const hooks = { changed: () => this.changed(), shown: () => this.render() };
    const Editor = familyOf(this.info).SheetEditor;
    this.editor = new Editor(this.board, this.info, hooks);
    this.editor.load(this.stored());
    document.title = t("score.page-title", { game: gameTitle(this.game) });
    this.frame(games);
    this.changed();
  }

  stored() {
    try { return JSON.parse(localStorage.getItem(STORE(this.game)) || "null"); } catch { return null; }
  }

  frame(games) {
    const tabs = h("nav", { class: "seat-tabs score-games", "aria-label": t("home.game") }, games.map((g) =>
      h("a", { class: `tab${g.game === this.game ? " active" : ""}`, href: `/#/score/${g.game}`, "aria-current": g.game === this.game ? "page" : null,
        onclick: (ev) => { ev.preventDefault(); this.navigate(`#/score/${g.game}`); } }, gameTitle(g.game))));
    this.el = {
      status: h("p", { class: "status-line score-status", "data-testid": "score-status", "aria-live": "polite" }),
      toolbar: h("div", { class: "score-toolbar" }),
      controls: h("section", { class: "panel score-controls" }),
      result: h("section", { class: "panel score-result", "data-testid": "score-result", "aria-live": "polite" }),
      help: h("p", { class: "muted small score-help", "data-testid": "score-help" }),
    };
    const upload = h("input", { type: "file", id: "sheet-upload", accept: ".json,application/json", onchange: (ev) => {
      const f = ev.target.files[0];
      ev.target.value = "";
      if (f) this.upload(f);
    } });
    const file = h("section", { class: "panel" }, h("h3", {}, t("score.file")),
      h("p", { class: "muted small" }, t("score.format"), " ", h("code", {}, "metrogames score SHEET.json")),
      h("div", { class: "buttons" },
        h("button", { class: "btn", type: "button", id: "sheet-download", onclick: () => this.download() }, t("score.download"))),
      h("label", { class: "row file" }, t("score.upload"), " ", upload));
    clear(this.root).append(h("div", { class: "score-page" },
      h("div", { class: "room-header" }, h("h2", {}, t("score.title")), tabs),
      h("p", { class: "muted score-intro" }, this.editor.intro),
      h("div", { class: "table-layout" },
        h("div", { class: "score-board" }, this.el.status, this.el.toolbar, h("div", { class: "board-wrap" }, this.editor.svg), this.el.help),
        h("div", { class: "side" }, this.el.controls, this.el.result, file))));
  }

  // After every change: redraw, keep the sheet for a reload, and ask the server (one request
  // at a time; changes made meanwhile are sent together when it answers).
  async changed() {
    if (!this.el) return;
    this.render();
    try { localStorage.setItem(STORE(this.game), JSON.stringify(this.editor.sheet())); } catch { /* storage off */ }
    this.el.result.dataset.pending = "1";
    if (this.asking) { this.again = true; return; }
    this.asking = true;
    do {
      this.again = false;
      try {
        this.result = await scoreSheet(this.editor.sheet());
        this.error = null;
      } catch (err) {
        this.result = null;
        this.error = err;
      }
    } while (this.again && !this.closed);
    this.asking = false;
    if (this.closed) return;
    delete this.el.result.dataset.pending;
    this.render();
  }

  render() {
    const focused = focusKey(document.activeElement);
    this.editor.draw(this.result, this.error);
    this.editor.toolbar(clear(this.el.toolbar));
    this.editor.controls(clear(this.el.controls), this.result);
    clear(this.el.help).append(...[this.editor.help()].flat());  // text, or nodes (a tile's picture)
    const status = clear(this.el.status);
    const res = clear(this.el.result);
    res.append(h("h3", {}, t("daily.fact.score")));
    if (this.el.result.dataset.pending && !this.result && !this.error) {
      res.append(h("p", { class: "muted" }, t("score.scoring")));
    } else if (this.error) {
      const rule = this.error.reason && this.error.reason !== "bad-request" && this.error.status === 400;
      status.append(h("span", { class: "error" }, `✗ ${rule ? t("score.refused") : t("score.not-scored")}: ${this.error.message}`));
      res.append(h("p", { class: "error", role: "alert", "data-testid": "score-error", "data-reason": this.error.reason },
        rule ? t("score.breaks") : t("score.cannot"), " ", this.error.message));
      if (rule) res.append(h("p", { class: "muted small" }, this.editor.fixHint));
    } else if (this.result) {
      status.append(this.editor.summary(this.result));
      res.append(this.editor.breakdown(this.result));
    }
    // the controls were drawn anew: keyboard focus goes back to the same control
    const again = focused && this.root.querySelector(focused);
    if (again) again.focus();
  }

  download() {
    const text = `${JSON.stringify(this.editor.sheet(), null, 1)}\n`;
    const blob = new Blob([text], { type: "application/json" });
    const a = h("a", { href: URL.createObjectURL(blob), download: `${this.game}-sheet.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 2000);
  }

  // An uploaded sheet is first shown to the server: one it cannot read (bad structure) is
  // refused and changes nothing; one it reads — legal or breaking a rule — is loaded to edit.
  async upload(file) {
    let sheet;
    try {
      sheet = JSON.parse(await file.text());
    } catch (err) {
      toast(t("score.not-json", { file: file.name, error: err.message }));
      return;
    }
    try {
      await scoreSheet(sheet);
    } catch (err) {
      if (err.reason === "bad-request" || err.status !== 400) {
        toast(t("score.cannot-load", { file: file.name, error: err.message }));
        return;
      }
    }
    if (sheet.game !== this.game) {
      try { localStorage.setItem(STORE(sheet.game), JSON.stringify(sheet)); } catch { /* storage off */ }
      this.navigate(`#/score/${sheet.game}`);
      return;
    }
    this.editor.load(sheet);
    toast(t("score.loaded", { file: file.name }), "info");
    this.changed();
  }
}

// A selector for the control `el` that finds it again once redrawn, or null.
function focusKey(el) {
  if (!el || el === document.body) return null;
  if (el.id) return `#${CSS.escape(el.id)}`;
  for (const attr of ["data-station", "data-section", "data-square", "data-tile"]) {
    if (el.hasAttribute(attr)) return `:is(button, [tabindex])[${attr}="${CSS.escape(el.getAttribute(attr))}"]`;
  }
  if (el.name) return `input[name="${CSS.escape(el.name)}"][value="${CSS.escape(el.value)}"]`;
  return null;
}

// Whether a game of GET /api/games has a score page: its family has a sheet editor.
export const hasSheet = (game) => Boolean(familyOf(game).SheetEditor);
