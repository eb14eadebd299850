// Play now (#/play-now, docs/web-api.md "Play now"): pick a game, a player count and a clock
// kind; the server seats the player with the nearest-rated players waiting for the same.
// The waiting screen follows the request's event stream (GET /api/quickmatch/{ticket}/events):
// "offer" shows the bots' offer, "seated" opens the room with the request's token as the
// seat's token, "gone" says the request ended. Cancel leaves the queue.

import { h, clear, gameTitle, toast } from "./dom.js";
import { api, getGames, saveTokens } from "./api.js";
import { t } from "./i18n.js";

const remembered = (key, fallback) => {
  try { return localStorage.getItem(`metrogames.${key}`) ?? fallback; } catch { return fallback; }
};

export class QuickMatchScreen {
  constructor(root, navigate) {
    this.root = root;
    this.navigate = navigate;
    this.games = [];
    this.choice = { game: remembered("quick.game", ""), players: Number(remembered("quick.players", "2")), clock: "live" };
    this.wait = null; // {ticket, token, since, offered}
    this.source = null;
    this.ticker = null;
    getGames().then((games) => { this.games = games.filter((g) => g.players[1] >= 2); this.render(); }, () => this.render());
  }

  relang() { this.render(); }

  destroy() {
    this.stopWaiting();
    if (this.wait) api("DELETE", `/api/quickmatch/${this.wait.ticket}`, undefined, this.wait.token).catch(() => null);
    this.wait = null;
  }

  stopWaiting() {
    if (this.source) this.source.close();
    if (this.ticker) clearInterval(this.ticker);
    this.source = null;
    this.ticker = null;
  }

  render() {
    document.title = t("quick.title");
    if (this.wait) this.drawWaiting(); else this.drawForm();
  }

  drawForm() {
    const game = this.games.find((g) => g.game === this.choice.game) || this.games[0];
    if (game) this.choice.game = game.game;
    const low = game ? Math.max(2, game.players[0]) : 2;
    const high = game ? game.players[1] : 2;
    this.choice.players = Math.min(high, Math.max(low, this.choice.players));
    const counts = [];
    for (let n = low; n <= high; n++) counts.push(n);
    const gameSel = h("select", { id: "quick-game", onchange: (ev) => { this.choice.game = ev.target.value; this.render(); } },
      this.games.map((g) => h("option", { value: g.game, selected: g.game === this.choice.game }, gameTitle(g.game))));
    const playersSel = h("select", { id: "quick-players", onchange: (ev) => { this.choice.players = Number(ev.target.value); } },
      counts.map((n) => h("option", { value: String(n), selected: n === this.choice.players }, String(n))));
    const clock = (value, label, help) => h("label", { class: `choice${this.choice.clock === value ? " checked" : ""}` },
      h("input", { type: "radio", name: "quick-clock", value, checked: this.choice.clock === value,
        onchange: () => { this.choice.clock = value; this.render(); } }),
      h("span", { class: "choice-title" }, label), h("span", { class: "muted" }, help));
    const go = h("button", { class: "btn primary", type: "submit", id: "quick-go" }, t("quick.go"));
    clear(this.root).append(h("form", { class: "panel quick-page", "data-testid": "quick-form", onsubmit: (ev) => { ev.preventDefault(); this.ask(go); } },
      h("h2", {}, t("quick.title")),
      h("p", { class: "muted" }, t("quick.help")),
      h("div", { class: "lobby-filters" },
        h("label", { class: "row" }, t("lobby.game"), " ", gameSel),
        h("label", { class: "row" }, t("lobby.players"), " ", playersSel)),
      h("fieldset", {}, h("legend", {}, t("quick.clock")),
        h("div", { class: "choices" },
          clock("live", t("quick.clock.live"), t("quick.clock.live.help")),
          clock("turn-based", t("quick.clock.turn"), t("quick.clock.turn.help")))),
      h("div", { class: "buttons" }, go)));
  }

  async ask(button) {
    button.disabled = true;
    const body = { game: this.choice.game, players: this.choice.players, clock: this.choice.clock };
    const name = remembered("name", "").trim();
    if (name) body.name = name;
    try {
      const res = await api("POST", "/api/quickmatch", body);
      try {
        localStorage.setItem("metrogames.quick.game", body.game);
        localStorage.setItem("metrogames.quick.players", String(body.players));
      } catch { /* kept for this page only */ }
      this.wait = { ticket: res.ticket, token: res.token, since: Date.now(), offered: false, body };
      this.render();
      this.listen();
    } catch (err) {
      toast(t("quick.cannot", { error: err.message }));
      button.disabled = false;
    }
  }

  listen() {
    const wait = this.wait;
    const source = new EventSource(`/api/quickmatch/${wait.ticket}/events`);
    this.source = source;
    this.ticker = setInterval(() => this.drawElapsed(), 1000);
    source.addEventListener("offer", () => { wait.offered = true; this.render(); });
    source.addEventListener("seated", (ev) => this.seated(JSON.parse(ev.data)));
    source.addEventListener("gone", () => this.ended(t("quick.gone")));
    source.onerror = () => {
      // the stream ended without a seat (the server went away): the request may be gone
      if (source.readyState === EventSource.CLOSED) this.ended(t("quick.gone"));
    };
  }

  seated(seating) {
    const wait = this.wait;
    this.stopWaiting();
    this.wait = null;
    saveTokens(seating.room, { tokens: { [String(seating.seat)]: wait.token }, name: remembered("name", "") });
    this.navigate(`/r/${seating.room}`);
  }

  ended(text) {
    this.stopWaiting();
    this.wait = null;
    this.render();
    toast(text);
  }

  async cancel() {
    const wait = this.wait;
    this.stopWaiting();
    this.wait = null;
    try { await api("DELETE", `/api/quickmatch/${wait.ticket}`, undefined, wait.token); } catch (err) {
      if (err.reason === "seated") { this.wait = wait; this.listen(); return; }
    }
    this.render();
  }

  async withBots(button) {
    button.disabled = true;
    const wait = this.wait;
    try {
      this.seated(await api("POST", `/api/quickmatch/${wait.ticket}/bots`, {}, wait.token));
    } catch (err) {
      if (err.reason !== "seated") toast(t("quick.cannot", { error: err.message }));
      button.disabled = false;
    }
  }

  drawElapsed() {
    if (!this.elapsed || !this.wait) return;
    this.elapsed.textContent = t("quick.elapsed", { n: Math.floor((Date.now() - this.wait.since) / 1000) });
  }

  drawWaiting() {
    const { body, offered } = this.wait;
    this.elapsed = h("p", { class: "muted", "data-testid": "quick-elapsed" });
    this.drawElapsed();
    const bots = offered
      ? h("div", { class: "quick-offer", "data-testid": "quick-offer" },
        h("p", {}, t("quick.offer")),
        h("button", { class: "btn primary", type: "button", id: "quick-bots", onclick: (ev) => this.withBots(ev.target) }, t("quick.bots")))
      : null;
    clear(this.root).append(h("section", { class: "panel quick-page", "data-testid": "quick-waiting", "aria-live": "polite" },
      h("h2", {}, t("quick.waiting")),
      h("p", {}, t("quick.waiting-for", { game: gameTitle(body.game), n: body.players,
        clock: body.clock === "live" ? t("quick.clock.live") : t("quick.clock.turn") })),
      this.elapsed, bots,
      h("div", { class: "buttons" }, h("button", { class: "btn", type: "button", id: "quick-cancel", onclick: () => this.cancel() }, t("quick.cancel")))));
  }
}
