// The guided first game, #/learn/{game}: a room on the game's fixed tutorial deal
// (POST /api/rooms with "tutorial": true) played at the ordinary table, beside a panel that
// says one idea per step. A step that expects a move lets through only the clicks that make it
// (others get the step's hint and are not sent); it goes on once the views show the move made.
// The last step leaves a real game going on.
//
// The steps are data, /tutorials.json, translated in /tutorials.{lang}.json (the same
// structure; English when that file is absent or lacks the game): per game {mode, seats,
// steps}, written for the fixed deals of web/rooms/tutorial.py (the same cards, colours and tiles
// every time). A step is {text, and at most one of:
//   move: [[from, to], ...]  (Next Station) the sections of the one move accepted;
//   square: "D1"             (Metro) the square the drawn tile must go on;
//   play: true               any move of the player's (then the step goes on);
//   round: n                 play freely until round n begins;
//   final: true              the last step: the game goes on, the guide is done;
// none of them: an explanation, with a Next button; and optionally mark: [...] stations or
// squares to ring ("centre": Metro's central block), refused: [...] stations to show as
// refused, line: colour (show that line's score), hint: said after a click that is not the
// expected one}.
// Only a step that expects a click shows the board's own invitations to click (a reading
// step hides them: .tutorial-reading). With "Confirm moves before sending" on, the move
// the step expects waits for Confirm (or Undo) like any other; Confirm and Undo are refused
// in a reading step.

import { h, clear, toast, colourName } from "./dom.js";
import { t, currentLang } from "./i18n.js";
import * as API from "./api.js";
import { RoomScreen } from "./room.js";
import { familyOf } from "./families.js";
import { rulesLink } from "./rules.js";

const sameSection = (p, q) => (p[0] === q[0] && p[1] === q[1]) || (p[0] === q[1] && p[1] === q[0]);

// The table, telling the guide about every view it shows.
class GuidedRoom extends RoomScreen {
  constructor(root, room, navigate, opts, guide) {
    super(root, room, navigate, opts);
    this.guide = guide;
  }

  display(v) {
    super.display(v);
    if (this.guide) this.guide.onView(v);
  }
}

export class TutorialScreen {
  constructor(root, navigate, game) {
    this.root = root;
    this.navigate = navigate;
    this.game = game;
    this.spec = null;
    this.index = 0;
    this.view = null;
    this.marker = 0; // the player's progress when the current step began (play steps)
    this.start();
  }

  destroy() {
    this.closed = true;
    if (this.room) this.room.destroy();
    if (this.observer) this.observer.disconnect();
    if (this.resizer) this.resizer.disconnect();
  }

  // The game's steps in the current language: /tutorials.{lang}.json, else /tutorials.json.
  async loadSpec() {
    const lang = currentLang();
    const pick = (all) => (Object.hasOwn(all, this.game) && this.game !== "about" ? all[this.game] : null);
    if (lang !== "en") {
      try {
        const res = await fetch(`/tutorials.${lang}.json`);
        const spec = res.ok ? pick(await res.json()) : null;
        if (spec) return spec;
      } catch { /* English below */ }
    }
    const res = await fetch("/tutorials.json");
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return pick(await res.json());
  }

  // A new language: the steps' texts and the table again, the game and the step kept.
  async relang() {
    if (!this.el) { if (!this.spec) this.start(); return; }
    try { this.spec = await this.loadSpec() || this.spec; } catch { /* the texts stay */ }
    if (this.closed) return;
    this.room.relang();
    this.render();
  }

  async start() {
    try {
      this.spec = await this.loadSpec();
    } catch (err) {
      clear(this.root).append(h("div", { class: "panel" }, h("h2", {}, t("tutorial.cannot-load")), h("p", {}, err.message)));
      return;
    }
    if (this.closed) return;
    if (!this.spec) {
      clear(this.root).append(h("div", { class: "panel" }, h("h2", {}, t("tutorial.none")),
        h("p", {}, t("tutorial.none.text", { game: this.game })), h("a", { href: "/#/", class: "btn" }, t("common.home"))));
      return;
    }
    clear(this.root).append(h("p", { class: "muted" }, t("tutorial.setting-up")));
    let res;
    try {
      res = await API.createRoom({ game: this.game, mode: this.spec.mode, seats: this.spec.seats, tutorial: true });
    } catch (err) {
      clear(this.root).append(h("div", { class: "panel" }, h("h2", {}, t("tutorial.cannot-start")), h("p", {}, err.message)));
      return;
    }
    if (this.closed) return;
    const tokens = res.tokens;
    this.el = {
      panel: h("aside", { class: "panel tutorial-panel", "aria-live": "polite", "data-testid": "tutorial" }),
      table: h("div", { class: "tutorial-table" }),
    };
    const box = h("div", { class: "tutorial" }, this.el.panel, this.el.table);
    clear(this.root).append(box);
    // on a phone the guide is pinned at the bottom: the turn's dock sticks just above it
    this.resizer = new ResizeObserver(() => box.style.setProperty("--guide-h", `${this.el.panel.offsetHeight}px`));
    this.resizer.observe(this.el.panel);
    this.el.table.addEventListener("click", (ev) => this.filter(ev), true);
    this.el.table.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") this.filter(ev); }, true);
    this.observer = new MutationObserver(() => this.paintMarks());
    this.observer.observe(this.el.table, { childList: true, subtree: true });
    this.room = new GuidedRoom(this.el.table, res.room.room, this.navigate, {
      tokens: () => tokens,
      header: () => h("span", { class: "tag", "data-testid": "guided-tag" }, t("tutorial.tag")),
    }, this);
    this.render();
  }

  get step() { return this.spec.steps[this.index]; }

  // The player's own progress: Next Station, the turn reached; Metro, the tiles they placed.
  progress(v) {
    return familyOf(v).progress(v);
  }

  done(step, v) {
    if (step.final) return false;
    if (step.move) {
      const lines = Object.values(v.players[v.you].lines || {});
      return lines.some((ln) => step.move.every((m) => (ln.sections || []).some((s) => sameSection(s, m))));
    }
    if (step.square) return (v.board || []).some((p) => p.square === step.square && p.by === v.you);
    if (step.play) return this.progress(v) > this.marker;
    if (step.round) return v.status === "finished" || (v.round || 0) >= step.round;
    return false; // an explanation: the Next button
  }

  onView(v) {
    this.view = v;
    if (v.status === "finished") this.index = this.spec.steps.length - 1;
    while (this.done(this.step, v)) this.goTo(this.index + 1);
    this.render();
  }

  goTo(index) {
    this.index = Math.min(index, this.spec.steps.length - 1);
    if (this.view) this.marker = this.progress(this.view);
    this.render();
  }

  // The stations or squares a click may reach in this step (null: any).
  allowed() {
    const step = this.step;
    if (step.move) return new Set(step.move.flat());
    if (step.square) return new Set([step.square]);
    if (step.play || step.round || step.final) return null;
    return new Set(); // an explanation: read it first
  }

  filter(ev) {
    const allowed = this.allowed();
    if (allowed === null) return;
    const target = ev.target.closest ? ev.target.closest(".hit, #pass-btn, .power, #done-btn, #circle-now-btn, #confirm-btn, #undo-btn, #confirm-moves") : null;
    if (!target) return;
    const name = target.dataset.station || target.dataset.square;
    if (name && allowed.has(name)) return;
    // the expected move, held for Confirm: Confirm sends it, Undo takes it back; the setting
    // itself may be changed at any time
    if (allowed.size && ["confirm-btn", "undo-btn"].includes(target.id)) return;
    if (target.id === "confirm-moves") return;
    ev.preventDefault();
    ev.stopPropagation();
    this.say(allowed.size ? this.step.hint || t("tutorial.not-this") : t("tutorial.read-first"));
  }

  // The hint goes under the step's text, and in a toast too when that is out of sight.
  say(text) {
    const el = this.el && this.el.panel.querySelector("[data-testid=tutorial-hint]");
    if (el) el.textContent = text;
    const box = el && !this.el.panel.classList.contains("folded") ? el.getBoundingClientRect() : null;
    if (!box || box.bottom < 0 || box.top > window.innerHeight) toast(text, "info");
  }

  paintMarks() {
    const root = this.el.table;
    // a move held for Confirm: the guide says how to send it, with the table's Confirm and
    // Undo at hand (on a phone the guide covers the turn's dock)
    const pending = !!root.querySelector("[data-testid=pending-move]");
    if (pending !== !!this.toldConfirm) {
      this.toldConfirm = pending;
      const hint = this.el.panel.querySelector("[data-testid=tutorial-hint]");
      const press = (id) => () => { const btn = root.querySelector(id); if (btn) btn.click(); };
      if (hint) {
        clear(hint).append(...(pending ? [t("tutorial.confirm"), h("span", { class: "buttons" },
          h("button", { class: "btn primary small", id: "tutorial-confirm", onclick: press("#confirm-btn") }, t("confirm.confirm")),
          h("button", { class: "btn small", id: "tutorial-undo", onclick: press("#undo-btn") }, t("confirm.undo")))] : []));
      }
    }
    const step = this.step;
    const want = new Set(step.mark || []);
    const refused = new Set(step.refused || []);
    for (const node of root.querySelectorAll(".tut-mark, .tut-refused")) {
      const name = node.dataset.station || node.dataset.square || (node.classList.contains("central") ? "centre" : "");
      if (!want.has(name)) node.classList.remove("tut-mark");
      if (!refused.has(name)) node.classList.remove("tut-refused");
    }
    for (const name of want) {
      const sel = name === "centre" ? "rect.central" : `.hit[data-station="${name}"], .hit[data-square="${name}"], g.station[data-station="${name}"]`;
      for (const node of root.querySelectorAll(sel)) if (!node.classList.contains("tut-mark")) node.classList.add("tut-mark");
    }
    for (const name of refused) {
      for (const node of root.querySelectorAll(`g.station[data-station="${name}"]`)) if (!node.classList.contains("tut-refused")) node.classList.add("tut-refused");
    }
  }

  lineFacts(colour) {
    const v = this.view;
    const ln = v && v.players[v.you].sheet.lines[colour];
    if (!ln) return null;
    const extra = [];
    if (ln.thames) extra.push(t("score.thames-times", { n: ln.thames }));
    if (ln.monuments) extra.push(t("score.monuments-times", { n: ln.monuments }));
    return h("p", { class: "tutorial-facts", "data-testid": "tutorial-facts" },
      t("tutorial.facts", { colour: colourName(colour), districts: t("score.districts-times", { n: ln.districts, max: ln.max_in_district }),
        extra: extra.map((x) => ` + ${x}`).join(""), n: ln.score }));
  }

  render() {
    if (!this.el) return;
    const step = this.step;
    const n = this.spec.steps.length;
    const panel = clear(this.el.panel);
    this.toldConfirm = false;
    panel.dataset.step = String(this.index + 1);
    const reading = this.allowed() !== null && !this.allowed().size;
    this.el.table.classList.toggle("tutorial-reading", reading);
    panel.append(...[
      h("h2", {}, t("tutorial.title"), " ", h("span", { class: "muted tutorial-count", "data-testid": "tutorial-count" }, `${this.index + 1} / ${n}`)),
      h("p", { class: "tutorial-text", "data-testid": "tutorial-text" }, step.text),
      step.line ? this.lineFacts(step.line) : null,
      h("p", { class: "note tutorial-hint", "data-testid": "tutorial-hint" }),
    ].filter(Boolean));
    const buttons = h("div", { class: "buttons" });
    if (this.allowed() !== null && !step.move && !step.square) {
      buttons.append(h("button", { class: "btn primary", id: "tutorial-next", onclick: () => this.goTo(this.index + 1) }, t("tutorial.next")));
    }
    const folded = this.el.panel.classList.contains("folded");
    buttons.append(h("button", { class: "btn", id: "tutorial-fold", "aria-expanded": folded ? "false" : "true", onclick: () => {
      this.el.panel.classList.toggle("folded");
      this.render();
    } }, folded ? t("tutorial.show") : t("tutorial.hide")));
    const rules = rulesLink(this.game, t("tutorial.rules"));
    if (rules) buttons.append(rules);
    panel.append(buttons);
    this.paintMarks();
  }
}
