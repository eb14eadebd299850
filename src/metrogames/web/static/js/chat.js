// The table chat of an online room (docs/web-api.md, "Table chat"): the latest messages, new
// ones live from the room's socket, an input and a send button for a seat. Messages are shown
// as text nodes only (h() never parses markup).

import { h, clear, toast, fmtName } from "./dom.js";
import { t, fmtTime } from "./i18n.js";
import * as API from "./api.js";

export class ChatPanel {
  // token() -> this browser's seat token now, or null (a spectator: reads only)
  constructor(room, token) {
    this.room = room;
    this.token = token;
    this.messages = new Map(); // seq -> message
    this.log = h("ol", { class: "chat-log", "data-testid": "chat-log", "aria-live": "polite" });
    this.input = h("input", { class: "chat-input", "data-testid": "chat-input", maxlength: "200", placeholder: t("chat.placeholder"), "aria-label": t("chat.message") });
    this.button = h("button", { class: "btn small", type: "submit", "data-testid": "chat-send" }, t("chat.send"));
    this.form = h("form", { class: "chat-form", onsubmit: (ev) => { ev.preventDefault(); this.send(); } }, this.input, this.button);
    this.note = h("p", { class: "muted", "data-testid": "chat-readonly" }, t("chat.readonly"));
    this.el = h("section", { class: "panel chat", "data-testid": "chat" }, h("h3", {}, t("chat.title")), this.log, this.form, this.note);
    this.refresh();
    this.load();
  }

  // The input for a seat, a note for a spectator (after taking a seat: call again).
  refresh() {
    const seated = Boolean(this.token());
    this.form.hidden = !seated;
    this.note.hidden = seated;
  }

  // All the recent messages again (at start and after a reconnection).
  async load() {
    try {
      const { messages } = await API.getChat(this.room);
      messages.forEach((m) => this.add(m));
    } catch { /* the next reconnection tries again */ }
  }

  add(m) {
    if (this.messages.has(m.seq)) return;
    this.messages.set(m.seq, m);
    const list = clear(this.log);
    for (const seq of [...this.messages.keys()].sort((a, b) => a - b)) {
      const x = this.messages.get(seq);
      const when = fmtTime(new Date(x.time * 1000));
      list.append(h("li", { "data-seq": String(seq), "data-seat": String(x.seat) },
        h("span", { class: "chat-time muted" }, when), " ",
        h("strong", { class: "chat-name" }, fmtName(x.name)), ": ",
        h("span", { class: "chat-text" }, x.text)));
    }
    list.scrollTop = list.scrollHeight;
  }

  async send() {
    const text = this.input.value.trim();
    if (!text) return;
    const token = this.token();
    if (!token) { toast(t("chat.take-seat")); return; }
    this.button.disabled = true;
    try {
      const { message } = await API.postChat(this.room, text, token);
      this.input.value = "";
      this.add(message);
    } catch (err) {
      toast(t("chat.not-sent", { error: err.message }));
    } finally {
      this.button.disabled = false;
      this.input.focus();
    }
  }
}
