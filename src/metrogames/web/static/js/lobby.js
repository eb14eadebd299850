// The lobby of open tables (#/lobby): the listed online rooms waiting for players, newest first,
// filtered by game and player count, followed live over server-sent events
// (GET /api/lobby/events, docs/web-api.md "Lobby"): a snapshot, then "room" and "gone" events.
// A stream that ends is reconnected by the browser (EventSource) and starts from a new snapshot.
// "Join" opens the room, where the player takes a seat.

import { h, clear, gameTitle, presetText } from "./dom.js";
import { getGames } from "./api.js";
import { t } from "./i18n.js";
import { turnClockText } from "./room.js";

function ageLabel(seconds) {
  if (seconds < 60) return t("lobby.age-now");
  if (seconds < 3600) return t("lobby.age-minutes", { n: Math.floor(seconds / 60) });
  return t("lobby.age-hours", { n: Math.floor(seconds / 3600) });
}

export class LobbyScreen {
  constructor(root, navigate) {
    this.root = root;
    this.navigate = navigate;
    this.game = "";
    this.players = "";
    this.rooms = new Map(); // room -> { entry, seen: the local time its age was read }
    this.games = [];
    this.source = null;
    this.ticker = setInterval(() => this.drawList(), 30000); // the ages, redrawn (no request)
    getGames().then((games) => { this.games = games; this.render(); }, () => this.render());
  }

  relang() { this.render(); }

  destroy() {
    clearInterval(this.ticker);
    if (this.source) this.source.close();
    this.source = null;
  }

  render() {
    document.title = t("lobby.title");
    const gameSel = h("select", { id: "lobby-game", onchange: (ev) => { this.game = ev.target.value; this.connect(); } },
      h("option", { value: "" }, t("lobby.all-games")),
      this.games.map((g) => h("option", { value: g.game, selected: g.game === this.game }, gameTitle(g.game))));
    const most = Math.max(2, ...this.games.map((g) => g.players[1]));
    const counts = [];
    for (let n = 2; n <= most; n++) counts.push(n);
    const playersSel = h("select", { id: "lobby-players", onchange: (ev) => { this.players = ev.target.value; this.connect(); } },
      h("option", { value: "" }, t("lobby.any-players")),
      counts.map((n) => h("option", { value: String(n), selected: String(n) === this.players }, String(n))));
    this.status = h("span", { class: "tag", "data-testid": "lobby-status" }, t("lobby.reconnecting"));
    this.list = h("ul", { class: "lobby-list", "data-testid": "lobby-list" });
    clear(this.root).append(h("section", { class: "panel lobby-page" },
      h("h2", {}, t("lobby.title"), " ", this.status),
      h("p", { class: "muted" }, t("lobby.help")),
      h("div", { class: "lobby-filters" },
        h("label", { class: "row" }, t("lobby.game"), " ", gameSel),
        h("label", { class: "row" }, t("lobby.players"), " ", playersSel),
        h("a", { class: "btn small", href: "/#/watch", "data-testid": "watch-link", onclick: (ev) => { ev.preventDefault(); this.navigate("#/watch"); } }, t("watch.browse"))),
      this.list));
    this.connect();
  }

  connect() {
    if (this.source) this.source.close();
    this.rooms.clear();
    this.drawList();
    const q = new URLSearchParams();
    if (this.game) q.set("game", this.game);
    if (this.players) q.set("players", this.players);
    const source = new EventSource(`/api/lobby/events${q.toString() ? `?${q}` : ""}`);
    this.source = source;
    const live = (on) => { if (this.status) this.status.textContent = on ? t("lobby.live") : t("lobby.reconnecting"); };
    source.addEventListener("snapshot", (ev) => {
      this.rooms.clear();
      for (const entry of JSON.parse(ev.data).rooms) this.rooms.set(entry.room, { entry, seen: Date.now() });
      live(true);
      this.drawList();
    });
    source.addEventListener("room", (ev) => {
      const entry = JSON.parse(ev.data);
      this.rooms.set(entry.room, { entry, seen: Date.now() });
      this.drawList();
    });
    source.addEventListener("gone", (ev) => {
      this.rooms.delete(JSON.parse(ev.data).room);
      this.drawList();
    });
    source.onerror = () => live(false);
  }

  drawList() {
    if (!this.list) return;
    clear(this.list);
    const rows = [...this.rooms.values()].sort((a, b) => b.entry.created - a.entry.created || (a.entry.room < b.entry.room ? -1 : 1));
    if (!rows.length) {
      this.list.append(h("li", { class: "muted", "data-testid": "lobby-empty" }, t("lobby.empty")));
      return;
    }
    for (const { entry: e, seen } of rows) {
      const age = e.age + Math.floor((Date.now() - seen) / 1000);
      const rules = e.preset ? presetText(e.preset.name, e.preset).title : t("room.defaults");
      const rating = e.host_rating === null ? t("lobby.unrated") : t("lobby.rating", { rating: e.host_rating });
      this.list.append(h("li", { class: "lobby-entry", "data-room": e.room, "data-game": e.game },
        h("div", { class: "lobby-entry-main" },
          h("strong", {}, gameTitle(e.game)), " ",
          h("span", { class: "tag" }, rules), " ",
          h("span", { class: "tag", "data-testid": "lobby-seats" }, t("lobby.seats", { n: e.free, total: e.players })),
          h("div", { class: "muted" },
            `${t("lobby.host", { name: e.host })} · ${rating} · ${turnClockText(e.clock)} · ${ageLabel(age)}`)),
        h("button", { class: "btn primary small", type: "button", "data-join-room": e.room,
          onclick: () => this.navigate(`/r/${e.room}`) }, t("lobby.join"))));
    }
  }
}
