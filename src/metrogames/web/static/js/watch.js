// Now playing (#/watch): the listed online games in progress, the top-rated and the most
// recent, with their spectators, followed live over server-sent events (GET /api/watch/events,
// docs/web-api.md "Now playing": a snapshot each time the list changes). A stream that ends is
// reconnected by the browser (EventSource). "Watch" opens the room as a spectator.

import { h, clear, gameTitle, presetText, fmtName } from "./dom.js";
import { getGames } from "./api.js";
import { t } from "./i18n.js";

// A room header's "3 watching" (its spectators, on every server; hidden at none) and, for a
// spectator, "you are watching": from the room's latest view, else its summary.
export function showSpectators(el, view, summary) {
  if (!el) return;
  const n = view && view.spectators !== undefined ? view.spectators : summary.spectators || 0;
  const mine = view && view.you === null && view.status === "playing" ? ` · ${t("room.watching")}` : "";
  el.hidden = n === 0;
  el.textContent = `${t("watch.spectators", { n })}${mine}`;
}

// a server bot's seat is named by its level ("bot:medium"); a bot account's by its account
function seatName(s) {
  if (s.kind !== "bot") return s.name || "—";
  return s.name.startsWith("bot:") ? fmtName(s.name) : `${s.name} (${t("common.bot")})`;
}

export class WatchScreen {
  constructor(root, navigate) {
    this.root = root;
    this.navigate = navigate;
    this.game = "";
    this.games = [];
    this.list = { top: [], recent: [] };
    this.source = null;
    getGames().then((games) => { this.games = games; this.render(); }, () => this.render());
  }

  relang() { this.render(); }

  destroy() {
    if (this.source) this.source.close();
    this.source = null;
  }

  render() {
    document.title = t("watch.title");
    const gameSel = h("select", { id: "watch-game", onchange: (ev) => { this.game = ev.target.value; this.connect(); } },
      h("option", { value: "" }, t("lobby.all-games")),
      this.games.map((g) => h("option", { value: g.game, selected: g.game === this.game }, gameTitle(g.game))));
    this.status = h("span", { class: "tag", "data-testid": "watch-status" }, t("lobby.reconnecting"));
    this.topList = h("ul", { class: "lobby-list", "data-testid": "watch-top" });
    this.recentList = h("ul", { class: "lobby-list", "data-testid": "watch-recent" });
    clear(this.root).append(h("section", { class: "panel lobby-page watch-page" },
      h("h2", {}, t("watch.title"), " ", this.status),
      h("p", { class: "muted" }, t("watch.help")),
      h("div", { class: "lobby-filters" },
        h("label", { class: "row" }, t("lobby.game"), " ", gameSel),
        h("a", { class: "btn small", href: "/#/lobby", onclick: (ev) => { ev.preventDefault(); this.navigate("#/lobby"); } }, t("lobby.browse"))),
      h("h3", {}, t("watch.top")), this.topList,
      h("h3", {}, t("watch.recent")), this.recentList));
    this.connect();
  }

  connect() {
    if (this.source) this.source.close();
    this.list = { top: [], recent: [] };
    this.draw();
    const q = this.game ? `?game=${encodeURIComponent(this.game)}` : "";
    const source = new EventSource(`/api/watch/events${q}`);
    this.source = source;
    const live = (on) => { if (this.status) this.status.textContent = on ? t("lobby.live") : t("lobby.reconnecting"); };
    source.addEventListener("snapshot", (ev) => {
      this.list = JSON.parse(ev.data);
      live(true);
      this.draw();
    });
    source.onerror = () => live(false);
  }

  draw() {
    if (!this.topList) return;
    this.fill(this.topList, this.list.top);
    this.fill(this.recentList, this.list.recent);
  }

  fill(list, entries) {
    clear(list);
    if (!entries.length) {
      list.append(h("li", { class: "muted", "data-testid": "watch-empty" }, t("watch.empty")));
      return;
    }
    for (const e of entries) {
      const rules = e.preset ? presetText(e.preset.name, e.preset).title : t("room.defaults");
      const rating = e.rating === null ? t("lobby.unrated") : t("lobby.rating", { rating: e.rating });
      const seats = e.seats.map((s) => seatName(s)).join(", ");
      list.append(h("li", { class: "lobby-entry", "data-room": e.room, "data-game": e.game },
        h("div", { class: "lobby-entry-main" },
          h("strong", {}, gameTitle(e.game)), " ",
          h("span", { class: "tag" }, rules), " ",
          h("span", { class: "tag", "data-testid": "watch-spectators" }, t("watch.spectators", { n: e.spectators })),
          h("div", { class: "muted" }, `${seats} · ${rating}`)),
        h("button", { class: "btn primary small", type: "button", "data-watch-room": e.room,
          onclick: () => this.navigate(`/r/${e.room}`) }, t("watch.watch"))));
    }
  }
}
