// The daily challenge's leaderboard pages (#/daily/{game}/{date}): a day's board by list
// (accounts, guests), the player's own days, the deal of a closed day to download. It shows
// what the server sends (docs/web-api.md, "The daily challenge").

import { h, clear, toast } from "./dom.js";
import { t } from "./i18n.js";
import * as API from "./api.js";
import { titleOf, shortOf, dailyGames, DATE_RE, addDays, longDate, timeLeft, fmtFinished, dailyHref, roomHref, link, loadDaily } from "./daily-common.js";
import { tokenPanel, playDaily } from "./daily.js";

// -- the leaderboard pages -------------------------------------------------------------------
export class DailyBoardScreen {
  constructor(root, navigate, game, date) {
    this.root = root;
    this.navigate = navigate;
    this.game = game; // checked against the server's daily games once they are loaded
    this.date = date && DATE_RE.test(date) ? date : null;
    this.closed = false;
    this.render();
  }

  destroy() {
    this.closed = true;
    clearInterval(this.timer);
  }

  async render() {
    const root = this.root;
    clear(root).append(h("p", { class: "muted" }, t("daily.loading-board")));
    let info;
    try {
      info = await loadDaily();
    } catch (err) {
      clear(root).append(h("div", { class: "panel" }, h("h2", {}, t("header.daily")), h("p", { class: "error" }, t("common.no-server", { error: err.message }))));
      return;
    }
    if (this.closed) return;
    this.daily = info.daily;
    this.badToken = info.badToken;
    const games = dailyGames(this.daily);
    if (!games.includes(this.game)) this.game = games[0];
    const today = this.daily.date;
    const date = this.date || today;
    this.date = date;
    const game = this.game;
    document.title = t("daily.page-title", { city: shortOf(game), date });
    const isToday = date === today;
    const future = date > today;
    const main = h("div", { class: "daily-main" });
    const side = h("div", { class: "daily-side" });
    clear(root).append(
      h("header", { class: "daily-header" },
        h("h2", {}, t("header.daily")),
        h("nav", { class: "game-tabs", "aria-label": t("home.game") }, games.map((g) =>
          link(this.navigate, dailyHref(g, date), shortOf(g), { class: `tab${g === game ? " active" : ""}`, "aria-current": g === game ? "page" : false, "data-game-tab": g })))),
      this.dateNav(date, today),
      h("div", { class: "daily-layout" }, main, side));
    main.append(this.dayPanel(date, isToday, future));
    if (!future) main.append(await this.rankingPanel(date, "leaderboard"), await this.rankingPanel(date, "guests"));
    if (this.closed) return;
    const sidePanels = await Promise.all([this.mePanel(date), this.bestPanel()]);
    if (this.closed) return;
    side.append(...sidePanels.filter(Boolean));
    if (!API.signedIn()) side.append(h("section", { class: "panel" }, tokenPanel(() => this.render())));
  }

  dateNav(date, today) {
    const go = (d) => this.navigate(dailyHref(this.game, d));
    const picker = h("input", { type: "date", id: "daily-date-pick", value: date, max: today, "aria-label": t("daily.go-to-date"), onchange: (ev) => { if (DATE_RE.test(ev.target.value)) go(ev.target.value); } });
    const next = addDays(date, 1);
    return h("nav", { class: "date-nav", "aria-label": t("daily.days") },
      link(this.navigate, dailyHref(this.game, addDays(date, -1)), `← ${addDays(date, -1)}`, { class: "btn small", id: "prev-day", rel: "prev" }),
      h("strong", { class: "date-now" }, h("time", { datetime: date }, longDate(date)), date === today ? ` · ${t("daily.today-word")}` : ""),
      next <= today
        ? link(this.navigate, dailyHref(this.game, next), `${next} →`, { class: "btn small", id: "next-day", rel: "next" })
        : h("span", { class: "btn small", "aria-disabled": "true", id: "next-day" }, `${next} →`),
      date !== today ? link(this.navigate, dailyHref(this.game, today), t("daily.today-link"), { class: "btn small", id: "today-link" }) : null,
      picker);
  }

  dayPanel(date, isToday, future) {
    const panel = h("section", { class: "panel day-panel" });
    if (future) {
      panel.append(h("p", {}, t("daily.future")));
      return panel;
    }
    if (isToday) {
      const entry = (this.daily.games || []).find((x) => x.game === this.game) || {};
      const countdown = h("strong", { class: "countdown" }, timeLeft(this.daily.closes_at));
      this.timer = setInterval(() => { countdown.textContent = timeLeft(this.daily.closes_at); }, 1000);
      panel.append(h("p", {}, h("span", { class: "tag open-tag" }, t("daily.open")), " ", t("daily.open-until", { game: titleOf(this.game) }), " ", countdown, "."));
      const share = h("input", { type: "checkbox", class: "daily-share", id: "board-share" });
      if (entry.room && !this.badToken) {
        panel.append(h("div", { class: "buttons" }, link(this.navigate, roomHref(this.game, date, entry.room), t("daily.my-game"), { class: "btn primary", id: "my-game-link" })));
      } else {
        const btn = h("button", { class: "btn primary", type: "button", id: "board-play", onclick: async () => {
          btn.disabled = true;
          if (!await playDaily(this.navigate, this.game, date, share.checked)) btn.disabled = false;
        } }, t("daily.play-today", { city: shortOf(this.game) }));
        panel.append(h("label", { class: "share-opt" }, share, h("span", {}, t("daily.share"), " ", h("span", { class: "muted small" }, t("daily.share.optional")))),
          h("p", { class: "small midnight-rule" }, h("strong", {}, t("daily.midnight")), " ", this.daily.midnight_rule),
          h("p", { class: "small account-rule" }, h("strong", {}, t("daily.who-ranks")), " ", this.daily.account_rule),
          h("div", { class: "buttons" }, btn));
      }
      panel.append(h("p", { class: "muted small" }, t("daily.published")));
      return panel;
    }
    panel.append(h("p", {}, h("span", { class: "tag" }, t("daily.closed")), " ", t("daily.closed-text", { game: titleOf(this.game) })));
    const seedLine = h("p", { class: "small seed-line" }, t("daily.loading-deal"));
    const practice = h("button", { class: "btn primary", type: "button", id: "practice-btn", onclick: async () => {
      practice.disabled = true;
      if (!await playDaily(this.navigate, this.game, date, false)) practice.disabled = false;
    } }, t("daily.practice"));
    const dl = h("button", { class: "btn", type: "button", id: "deal-download", onclick: () => this.downloadDeal(date, "deal") }, t("daily.download-deal"));
    const dlAll = h("button", { class: "btn", type: "button", id: "games-download", onclick: () => this.downloadDeal(date, "all") }, t("daily.download-all"));
    panel.append(seedLine, h("div", { class: "buttons" }, practice, dl, dlAll),
      h("p", { class: "muted small" }, t("daily.practice-note"), " ", h("code", {}, "metrogames replay")));
    API.getDealText(this.game, date).then((text) => {
      this.dealText = text;
      const seed = (text.match(/"seed"\s*:\s*(\d+)/) || [])[1];
      seedLine.replaceChildren(t("daily.seed"), " ", h("code", { "data-testid": "deal-seed" }, seed || "?"));
    }).catch((err) => { seedLine.textContent = t("daily.deal-unavailable", { error: err.message }); dl.disabled = true; dlAll.disabled = true; });
    return panel;
  }

  async downloadDeal(date, what) {
    try {
      const text = this.dealText || await API.getDealText(this.game, date);
      const body = what === "deal" ? dealRecordText(text) : text;
      saveText(body, what === "deal" ? `${this.game}-daily-${date}-deal.json` : `${this.game}-daily-${date}-games.json`);
    } catch (err) { toast(t("daily.cannot-download", { error: err.message })); }
  }

  // The day's leaderboard (accounts) or, apart, its guests list: the same table.
  async rankingPanel(date, which) {
    const guests = which === "guests";
    const titleId = guests ? "guests-title" : "ranking-title";
    const fetchPage = (offset) => (guests ? API.getGuests : API.getLeaderboard)(this.game, date, 100, offset);
    const panel = h("section", { class: `panel ranking${guests ? " guests" : ""}`, "aria-labelledby": titleId });
    const myId = API.dailyPlayerId();
    let data;
    try {
      data = await fetchPage(0);
    } catch (err) {
      panel.append(h("h3", { id: titleId }, guests ? t("daily.guests") : t("daily.ranking")), h("p", { class: "muted" }, t("daily.no-ranking", { error: err.message })));
      return panel;
    }
    const tbody = h("tbody", {});
    const addRows = (entries) => {
      for (const e of entries) {
        const mine = myId && e.player === myId;
        tbody.append(h("tr", { class: mine ? "mine" : "", "data-player": e.player },
          h("td", { class: "num rank" }, String(e.rank)),
          h("td", {}, e.account ? link(this.navigate, `#/u/${e.account}`, e.name, { class: "profile-link" }) : e.name,
            mine ? h("strong", { class: "you-mark" }, ` ${t("daily.you-mark")}`) : ""),
          h("td", { class: "num" }, h("strong", {}, String(e.score))),
          h("td", { class: "num time" }, fmtFinished(e.finished_at))));
      }
    };
    addRows(data.entries || []);
    let shown = (data.entries || []).length;
    const more = h("button", { class: "btn small", type: "button", id: "more-rows", onclick: async () => {
      more.disabled = true;
      try {
        const next = await fetchPage(shown);
        addRows(next.entries || []);
        shown += (next.entries || []).length;
        more.hidden = shown >= next.total || !(next.entries || []).length;
      } catch (err) { toast(err.message); }
      more.disabled = false;
    } }, t("daily.show-more"));
    if (guests) more.id = "more-guest-rows";
    more.hidden = shown >= data.total;
    panel.append(h("div", { class: "panel-head" },
      h("h3", { id: titleId }, guests ? t("daily.guests-of", { city: shortOf(this.game), date }) : t("daily.ranking-of", { city: shortOf(this.game), date })),
      h("span", { class: "muted small", "data-testid": guests ? "guests-total" : "ranking-total" },
        (guests ? (data.open ? t("daily.guests-so-far", { n: data.total }) : t("daily.guests-ranked", { n: data.total })) : (data.open ? t("daily.players-so-far", { n: data.total }) : t("daily.players-ranked", { n: data.total }))))));
    if (guests) panel.append(h("p", { class: "muted small" }, t("daily.guests-note")));
    if (!shown) {
      panel.append(h("p", { class: "muted" }, data.open ? t("daily.nobody-today") : t("daily.nobody-day")));
    } else {
      panel.append(h("div", { class: "table-scroll" }, h("table", { class: "score-table leaderboard", "data-testid": guests ? "guests" : "leaderboard" },
        h("caption", { class: "sr-only" }, t("daily.caption", { date })),
        h("thead", {}, h("tr", {}, h("th", { class: "num", scope: "col" }, t("col.rank")), h("th", { scope: "col" }, t("col.player")), h("th", { class: "num", scope: "col" }, t("col.score")), h("th", { class: "num", scope: "col" }, t("col.finished")))),
        tbody)), more, h("p", { class: "muted small" }, t("daily.ties")));
    }
    return panel;
  }

  async mePanel(date) {
    const me = API.signedIn() ? { player: API.signedIn().player, name: API.signedIn().name } : API.loadPlayer();
    if (!me || (this.badToken && !API.signedIn())) return null;
    const panel = h("section", { class: "panel my-history", "aria-labelledby": "history-title" });
    let hist;
    try {
      hist = await API.getHistory(me.player, this.game);
    } catch (err) {
      panel.append(h("h3", { id: "history-title" }, t("daily.your-days")), h("p", { class: "muted" }, err.message));
      return panel;
    }
    const days = [...(hist.days || [])].filter((d) => !d.game || d.game === this.game)
      .sort((a, b) => (a.date < b.date ? 1 : -1));
    panel.append(h("h3", { id: "history-title" }, t("daily.your-days-of", { name: hist.name || me.name })),
      h("p", { class: "streak" }, t("daily.streak"), " ", h("strong", { "data-testid": "streak" }, t("daily.days-n", { n: hist.streak })),
        " ", h("span", { class: "muted small" }, t("daily.streak-help"))));
    if (!days.length) {
      panel.append(h("p", { class: "muted" }, t("daily.no-day", { city: shortOf(this.game) })));
      return panel;
    }
    panel.append(h("table", { class: "score-table history" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("col.day")), h("th", { class: "num", scope: "col" }, t("col.score")), h("th", { class: "num", scope: "col" }, t("col.rank")))),
      h("tbody", {}, days.slice(0, 30).map((d) => h("tr", { class: d.date === date ? "current" : "" },
        h("td", {}, link(this.navigate, dailyHref(this.game, d.date), d.date)),
        h("td", { class: "num" }, d.score === null || d.score === undefined ? h("span", { class: "muted" }, t("common.in-progress")) : String(d.score)),
        h("td", { class: "num" }, d.rank ? String(d.rank) : h("span", { class: "muted" }, d.ranked ? t("daily.not-shared") : t("daily.practice-word"))))))));
    return panel;
  }

  async bestPanel() {
    const panel = h("section", { class: "panel best", "aria-labelledby": "best-title" }, h("h3", { id: "best-title" }, t("daily.best", { city: shortOf(this.game) })));
    let best;
    try {
      best = await API.getBest(this.game, 20);
    } catch (err) {
      panel.append(h("p", { class: "muted" }, err.message));
      return panel;
    }
    if (!best.length) {
      panel.append(h("p", { class: "muted" }, t("daily.no-ranked")));
      return panel;
    }
    panel.append(h("ol", { class: "best-list" }, best.map((b) => h("li", {},
      h("strong", {}, String(b.score)), " ", b.name, " · ", link(this.navigate, dailyHref(this.game, b.date), b.date)))));
    return panel;
  }
}

// The deal record alone, cut out of the /deal answer's text so its 64-bit seed stays exact.
export function dealRecordText(text) {
  const start = text.search(/"deal"\s*:\s*\{/);
  if (start < 0) return text;
  let i = text.indexOf("{", start);
  const from = i;
  let depth = 0;
  let inString = false;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return `${text.slice(from, i + 1)}\n`;
  }
  return text;
}

function saveText(text, filename) {
  const blob = new Blob([text], { type: "application/json" });
  const a = h("a", { href: URL.createObjectURL(blob), download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 2000);
}
