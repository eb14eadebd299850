// Replays: the frames of a finished room (GET /api/rooms/{room}/replay) or of an uploaded
// record (POST /api/replays), one spectator view per step, with prev/next/play controls.

import { h, clear, gameTitle, fmtName } from "./dom.js";
import { t } from "./i18n.js";
import * as API from "./api.js";
import { familyOf } from "./families.js";
import { downloadRecord } from "./room.js";
import { analysable, analysisPanel } from "./analysis.js";

export class ReplayScreen {
  constructor(root, { room = null, file = null } = {}) {
    this.root = root;
    this.room = room;
    this.file = file;
    this.index = 0;
    this.playing = false;
    this.keys = (ev) => this.onKey(ev);
    this.load();
  }

  // A new language: the controls and the table again, at the same step.
  relang() {
    if (!this.screen) return;
    const at = this.index;
    this.stop();
    this.build();
    this.show(at);
  }

  destroy() {
    this.stop();
    document.removeEventListener("keydown", this.keys);
  }

  async load() {
    clear(this.root).append(h("p", { class: "muted" }, t("replay.loading")));
    try {
      if (this.room) {
        this.data = await API.getReplay(this.room);
      } else if (this.file) {
        const text = await this.file.text();
        try { JSON.parse(text); } catch { throw new Error(t("replay.not-json")); }
        this.record = text;
        this.data = await API.postReplayText(text);
      } else {
        throw new Error(t("replay.nothing"));
      }
      // a custom map's record brings its board (its map's drawing data) with its frames
      this.board = this.data.board || (this.room ? await API.getRoomBoard(this.room, this.data.game) : await API.getBoard(this.data.game));
    } catch (err) {
      clear(this.root).append(h("section", { class: "panel" }, h("h2", {}, t("replay.cannot")),
        h("p", { class: "error", "data-testid": "replay-error" }, err.message), h("a", { class: "btn", href: "/#/" }, t("common.home"))));
      return;
    }
    this.build();
    document.addEventListener("keydown", this.keys);
    this.show(0);
  }

  build() {
    const n = this.data.frames.length;
    this.slider = h("input", { type: "range", min: 0, max: Math.max(0, n - 1), value: 0, id: "replay-slider", "aria-label": t("replay.step"), oninput: (ev) => { this.stop(); this.show(Number(ev.target.value)); } });
    this.counter = h("span", { class: "replay-counter", "data-testid": "replay-counter" });
    this.playBtn = h("button", { class: "btn", id: "replay-play", onclick: () => (this.playing ? this.stop() : this.play()) }, t("replay.play"));
    const controls = h("div", { class: "replay-controls", role: "toolbar", "aria-label": t("replay.controls") },
      h("button", { class: "btn", id: "replay-first", "aria-label": t("replay.first"), onclick: () => { this.stop(); this.show(0); } }, "|◀"),
      h("button", { class: "btn", id: "replay-prev", "aria-label": t("replay.previous"), onclick: () => { this.stop(); this.show(this.index - 1); } }, t("replay.prev")),
      this.playBtn,
      h("button", { class: "btn", id: "replay-next", "aria-label": t("replay.next-step"), onclick: () => { this.stop(); this.show(this.index + 1); } }, t("replay.next")),
      h("button", { class: "btn", id: "replay-last", "aria-label": t("replay.last"), onclick: () => { this.stop(); this.show(n - 1); } }, "▶|"),
      this.slider, this.counter,
      h("button", { class: "btn", id: "replay-download", onclick: () => downloadRecord(this.room, this.record) }, t("replay.record")));
    const players = (this.data.players || []).map(fmtName).join(", ");
    this.table = h("div", { class: "table" });
    clear(this.root).append(
      h("header", { class: "room-header" }, h("h2", {}, t("replay.title", { game: gameTitle(this.data.game) })),
        this.room ? h("span", { class: "room-code" }, t("room.code"), " ", h("code", {}, this.room)) : null,
        h("span", { class: "muted" }, players)),
      controls,
      h("p", { class: "muted small" }, t("replay.keys")),
      this.table);
    const last = this.data.frames[n - 1];
    if (last && analysable(last)) {
      this.root.append(analysisPanel(this.board, () => (this.room ? API.getAnalysis(this.room) : API.postAnalysisText(this.record))));
    }
    const ctx = { act: async () => {}, interactive: false };
    this.screen = new (familyOf(this.data.frames[0]).Screen)(this.table, this.board, ctx);
  }

  show(i) {
    const n = this.data.frames.length;
    if (!n) return;
    this.index = Math.max(0, Math.min(n - 1, i));
    this.slider.value = String(this.index);
    this.counter.textContent = t("replay.counter", { n: this.index + 1, of: n });
    this.screen.update(this.data.frames[this.index]);
    if (this.index === n - 1) this.stop();
  }

  play() {
    if (this.index >= this.data.frames.length - 1) this.show(0);
    this.playing = true;
    this.playBtn.textContent = t("replay.pause");
    this.timer = setInterval(() => this.show(this.index + 1), 600);
  }

  stop() {
    this.playing = false;
    clearInterval(this.timer);
    if (this.playBtn) this.playBtn.textContent = t("replay.play");
  }

  onKey(ev) {
    if (ev.target && ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName) && ev.target.type !== "range") return;
    if (ev.key === "ArrowRight") { this.stop(); this.show(this.index + 1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft") { this.stop(); this.show(this.index - 1); ev.preventDefault(); }
    else if (ev.key === "Home") { this.stop(); this.show(0); ev.preventDefault(); }
    else if (ev.key === "End") { this.stop(); this.show(this.data.frames.length - 1); ev.preventDefault(); }
    else if (ev.key === " " && ev.target.tagName !== "BUTTON") { if (this.playing) this.stop(); else this.play(); ev.preventDefault(); }
  }
}
