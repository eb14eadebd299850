// The daily challenge (docs/web-api.md, "The daily challenge"): today's cards on the home page,
// the anonymous player (name prompt, token panel), the day's game played in an ordinary
// RoomScreen with the player token as the seat token, the result panel, and the leaderboard
// pages (#/daily/{game}/{date}). Nothing here knows a rule or a score, nor which games have a
// daily challenge: it shows what the server sends (GET /api/daily lists the games).

import { h, clear, toast, gameTitle, fmtName, bandRange, bandPhrase, withRule, narrow } from "./dom.js";
import { t, fmtDate } from "./i18n.js";
import * as API from "./api.js";
import { RoomScreen, downloadRecord } from "./room.js";
import { dailyName } from "./games.js";

// The daily games are the server's (GET /api/daily: `games`, in its order).
const titleOf = (game) => gameTitle(game);
const shortOf = (game) => dailyName(game);
const dailyGames = (daily) => (daily.games || []).map((g) => g.game);

// -- dates (UTC, YYYY-MM-DD) -----------------------------------------------------------------
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

export function addDays(date, n) {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

export function longDate(date) {
  return fmtDate(date);
}

// "5 h 12 min 03 s" until `epoch` (seconds).
export function timeLeft(epoch) {
  let s = Math.max(0, Math.floor(epoch - Date.now() / 1000));
  const hrs = Math.floor(s / 3600);
  s -= hrs * 3600;
  const min = Math.floor(s / 60);
  s -= min * 60;
  const pad = (x) => String(x).padStart(2, "0");
  return hrs ? `${hrs} h ${pad(min)} min ${pad(s)} s` : `${min} min ${pad(s)} s`;
}

// A finishing time: epoch seconds (or ms), or an ISO string; shown as UTC.
export function fmtFinished(value) {
  if (value === null || value === undefined || value === "") return "—";
  let d;
  if (typeof value === "number") d = new Date(value > 1e12 ? value : value * 1000);
  else d = new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return `${d.toISOString().slice(11, 19)} UTC`;
}

const dailyHref = (game, date) => `#/daily/${game}${date ? `/${date}` : ""}`;
const roomHref = (game, date, room) => `#/daily/${game}/${date}/r/${room}`;

function link(navigate, to, label, attrs = {}) {
  return h("a", { href: `/${to}`, ...attrs, onclick: (ev) => { ev.preventDefault(); navigate(to); } }, label);
}

// The day's information (today, closes_at, per game: played, room), with the player's token
// when it is valid; a token the server refuses is reported (and the call retried without it).
async function loadDaily() {
  try {
    return { daily: await API.getDaily(), badToken: false };
  } catch (err) {
    if (err.reason !== "bad-token") throw err;
    const daily = await API.api("GET", "/api/daily");
    return { daily, badToken: true };
  }
}

// -- the player: name prompt and token panel -------------------------------------------------
// Resolves to the stored player, creating one (after asking for a display name) if needed;
// null when the person cancels.
export function ensurePlayer() {
  const known = API.loadPlayer();
  if (known) return Promise.resolve(known);
  return new Promise((resolve) => {
    let last = "";
    try { last = localStorage.getItem("metrogames.name") || ""; } catch { /* ignore */ }
    const input = h("input", { id: "daily-name", maxlength: "24", required: true, value: last, placeholder: t("common.your-name"), autocomplete: "nickname" });
    const errorLine = h("p", { class: "error", role: "alert" });
    const dialog = h("dialog", { class: "panel name-dialog", "aria-labelledby": "daily-name-title" });
    const finish = (player) => { dialog.close(); dialog.remove(); resolve(player); };
    const form = h("form", { method: "dialog", onsubmit: async (ev) => {
      ev.preventDefault();
      const name = input.value.trim();
      if (!name) { errorLine.textContent = t("daily.name.empty"); input.focus(); return; }
      const btn = form.querySelector("button[type=submit]");
      btn.disabled = true;
      try {
        const res = await API.createPlayer(name);
        const player = { player: res.player, name: res.name, token: res.token };
        API.savePlayer(player);
        try { localStorage.setItem("metrogames.name", name); } catch { /* ignore */ }
        finish(player);
      } catch (err) {
        errorLine.textContent = t("daily.name.cannot", { error: err.message });
        btn.disabled = false;
      }
    } },
    h("h2", { id: "daily-name-title" }, t("daily.name.title")),
    h("p", { class: "muted" }, t("daily.name.help")),
    h("label", { class: "row" }, t("daily.name.label"), " ", withRule(input, "daily-name-rule", t("common.name-rule"))),
    errorLine,
    h("div", { class: "buttons" },
      h("button", { class: "btn primary", type: "submit", id: "daily-name-ok" }, t("common.continue")),
      h("button", { class: "btn", type: "button", onclick: () => finish(null) }, t("common.cancel"))));
    dialog.append(form);
    dialog.addEventListener("cancel", (ev) => { ev.preventDefault(); finish(null); });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
    input.select();
  });
}

// "Your player token": see and copy it, paste another one, rename, forget.
function tokenPanel(onChange) {
  const me = API.loadPlayer();
  const body = h("div", { class: "token-body" });
  const pasteInput = h("input", { id: "paste-token", autocomplete: "off", spellcheck: "false", placeholder: t("token.paste") });
  const usePasted = async (ev) => {
    ev.preventDefault();
    const token = pasteInput.value.trim();
    if (!token) return;
    try {
      const info = await API.getMe(token);
      API.savePlayer({ player: info.player, name: info.name, token });
      toast(t("token.now-playing", { name: info.name }), "info");
      onChange();
    } catch (err) {
      toast(err.reason === "bad-token" ? t("token.unknown") : t("token.cannot", { error: err.message }));
    }
  };
  if (me) {
    const tokenInput = h("input", { id: "my-token", readonly: true, value: me.token, "aria-label": t("token.aria"), onfocus: (ev) => ev.target.select() });
    const nameInput = h("input", { id: "rename", maxlength: "24", value: me.name || "", "aria-label": t("daily.name.label") });
    body.append(
      h("p", { class: "small" }, t("token.copy-help", { name: me.name || t("common.you") })),
      h("div", { class: "share" }, tokenInput, h("button", { class: "btn small", type: "button", id: "copy-token", onclick: () => copyText(me.token) }, t("common.copy"))),
      h("form", { class: "row", onsubmit: async (ev) => {
        ev.preventDefault();
        const name = nameInput.value.trim();
        if (!name) return;
        try {
          const res = await API.renameMe(name);
          API.savePlayer({ ...me, name: res.name || name });
          toast(t("token.renamed"), "info");
          onChange();
        } catch (err) { toast(t("token.cannot-rename", { error: err.message })); }
      } }, h("label", { class: "row" }, t("common.name"), " ", withRule(nameInput, "rename-rule", t("common.name-rule"))), h("button", { class: "btn small", type: "submit" }, t("token.rename"))));
  } else {
    body.append(h("p", { class: "small" }, t("token.none-help")));
  }
  body.append(h("form", { class: "row", onsubmit: usePasted },
    h("label", { class: "row" }, me ? t("token.another") : t("token.token"), " ", pasteInput),
    h("button", { class: "btn small", type: "submit", id: "use-token" }, t("token.use"))));
  if (me) {
    body.append(h("button", { class: "btn small", type: "button", onclick: () => {
      if (window.confirm(t("token.forget.confirm"))) { API.savePlayer(null); onChange(); }
    } }, t("token.forget")));
  }
  return h("details", { class: "token-panel", id: "token-panel" },
    h("summary", {}, me ? t("token.title-of", { name: me.name }) : t("token.title")), body);
}

function copyText(text) {
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(() => toast(t("common.copied"), "info"), () => toast(t("common.select-copy"), "info"));
  } else toast(t("common.select-copy"), "info");
}

// Start (or continue) `game` on `date` and open its room. Today: the one ranked attempt (a
// reload continues it); a closed day: a new practice room. Signed in, the account plays (its
// seat token comes with each start and is kept for the room); else a guest player.
export async function playDaily(navigate, game, date, share) {
  const player = API.signedIn() || await ensurePlayer();
  if (!player) return false;
  try {
    const res = await API.startDaily(game, date, share);
    if (res.token) API.saveTokens(res.room, { tokens: { 0: res.token } });
    navigate(roomHref(game, date, res.room));
    return true;
  } catch (err) {
    if (err.reason === "attempt-used") toast(t("daily.attempt-used"));
    else if (err.reason === "guest-limit") toast(`${err.message}.`);
    else if (err.reason === "bad-token") toast(t("daily.bad-token"));
    else toast(t("common.cannot-start", { error: err.message }));
    return false;
  }
}

// -- the home page's "Today's challenge" -----------------------------------------------------
export function dailyPanel(navigate) {
  const section = h("section", { class: "panel daily", id: "daily", "aria-labelledby": "daily-title" },
    h("h2", { id: "daily-title" }, t("daily.today")), h("p", { class: "muted" }, t("common.loading")));
  let timer = null;
  const refresh = async () => {
    clearInterval(timer);
    let info;
    try {
      info = await loadDaily();
    } catch (err) {
      clear(section).append(h("h2", { id: "daily-title" }, t("daily.today")),
        h("p", { class: "muted" }, t("daily.unavailable", { error: err.message })));
      return;
    }
    const { daily, badToken } = info;
    const me = API.signedIn() || API.loadPlayer();
    const cards = h("div", { class: "daily-cards" });
    for (const entry of daily.games || []) {
      cards.append(await dailyCard(navigate, daily, entry, badToken && !API.signedIn()));
    }
    const countdowns = () => {
      for (const el of section.querySelectorAll(".countdown")) el.textContent = timeLeft(daily.closes_at);
      if (daily.closes_at <= Date.now() / 1000) { clearInterval(timer); setTimeout(refresh, 1500); }
    };
    clear(section).append(
      h("div", { class: "panel-head" },
        h("h2", { id: "daily-title" }, t("daily.today")),
        h("span", { class: "daily-date" }, h("time", { datetime: daily.date, "data-testid": "daily-date" }, longDate(daily.date)), " (UTC)")),
      h("p", { class: "muted small" }, t("daily.rules"), " ",
        t("daily.closes-in"), " ", h("strong", { class: "countdown", "aria-live": "off" }, timeLeft(daily.closes_at)), "."),
      badToken ? h("p", { class: "note" }, t("daily.bad-token-note")) : "",
      cards,
      // what ranks: folded on a phone (a short home page), open elsewhere
      h("details", { class: "daily-notes", open: !narrow() }, h("summary", { class: "small" }, t("daily.ranking-notes")),
        h("p", { class: "small midnight-rule", "data-testid": "midnight-rule" }, h("strong", {}, t("daily.midnight")), " ", daily.midnight_rule),
        h("p", { class: "small account-rule", "data-testid": "account-rule" }, h("strong", {}, t("daily.who-ranks")), " ", daily.account_rule),
        API.signedIn() ? "" : h("p", { class: "small muted", "data-testid": "guest-note" }, t("daily.guest-note", { n: daily.guest_ranked }))),
      h("p", { class: "small" }, me ? `${t("daily.playing-as", { name: me.name })} ` : "", dailyGames(daily).length ? link(navigate, dailyHref(dailyGames(daily)[0], daily.date), t("daily.leaderboards")) : ""),
      API.signedIn() ? "" : tokenPanel(refresh));
    timer = setInterval(() => { if (!section.isConnected) clearInterval(timer); else countdowns(); }, 1000);
  };
  refresh();
  return section;
}

async function dailyCard(navigate, daily, entry, badToken) {
  const game = entry.game;
  let status = "new";
  let result = null;
  // `played`: today's ranked game is started; its room tells whether it has ended
  if (entry.room && !badToken) {
    status = "playing";
    try {
      const sum = await API.getRoom(entry.room);
      if (sum.status === "finished") status = "played";
    } catch { /* keep "playing" */ }
  }
  if (status === "played") {
    try { result = await API.getDailyResult(game, daily.date); } catch { /* shown without */ }
  }
  const share = h("input", { type: "checkbox", class: "daily-share", id: `share-${game}` });
  const play = h("button", { class: "btn primary daily-play", type: "button", "data-game": game }, "");
  let state;
  if (status === "new") {
    state = h("p", { class: "daily-state" }, t("daily.state.new"));
    play.textContent = t("daily.play-today", { city: shortOf(game) });
    play.addEventListener("click", async () => {
      play.disabled = true;
      if (!await playDaily(navigate, game, daily.date, share.checked)) play.disabled = false;
    });
  } else if (status === "playing") {
    state = h("p", { class: "daily-state" }, t("daily.state.playing"));
    play.textContent = t("daily.continue");
    play.addEventListener("click", () => {
      // an account's seat token may be on another device: a start hands out a new one
      if (API.signedIn()) playDaily(navigate, game, daily.date, false);
      else navigate(roomHref(game, daily.date, entry.room));
    });
  } else {
    const score = !result ? "" : result.rank ? ` — ${t("daily.score-rank", { n: result.score, rank: result.rank, of: result.of })}` : ` — ${t("common.points", { n: result.score })}`;
    state = h("p", { class: "daily-state done" }, `${t("daily.state.played")}${score}`);
    play.textContent = t("daily.see-result");
    play.classList.remove("primary");
    play.addEventListener("click", () => {
      if (entry.room) navigate(roomHref(game, daily.date, entry.room));
      else navigate(dailyHref(game, daily.date));
    });
  }
  return h("article", { class: `daily-card daily-${status}`, "data-daily-game": game, "data-status": status },
    h("h3", {}, titleOf(game)),
    state,
    status === "new" ? h("label", { class: "share-opt" }, share,
      h("span", {}, t("daily.share"), " ", h("span", { class: "muted small" }, t("daily.share.optional-long")))) : null,
    h("div", { class: "buttons" }, play, link(navigate, dailyHref(game, daily.date), t("daily.leaderboard"), { class: "btn" })));
}

// -- the day's game: a RoomScreen with the player token and the daily result ----------------
export function dailyRoomScreen(root, navigate, game, date, room) {
  let resultPanel = null;
  const screen = new RoomScreen(root, room, navigate, {
    tokens: () => {
      if (API.signedIn()) return API.loadTokens(room).tokens;
      const me = API.loadPlayer();
      return me ? { 0: me.token } : {};
    },
    header: () => h("span", { class: "daily-tag" },
      link(navigate, dailyHref(game, date), `${shortOf(game)} · ${date} · ${t("daily.leaderboard-word")}`, { class: "daily-link" })),
    endPanel: (view, sheets) => {
      if (!resultPanel) resultPanel = resultSection(navigate, game, date, room, view);
      return h("section", { class: "panel end daily-end" }, resultPanel, sheets,
        h("div", { class: "buttons" },
          link(navigate, dailyHref(game, date), t("daily.day-leaderboard"), { class: "btn primary", id: "leaderboard-link" }),
          h("button", { class: "btn", id: "replay-btn", type: "button", onclick: () => navigate(`#/replay/${room}`) }, t("daily.replay-mine")),
          h("button", { class: "btn", id: "download-btn", type: "button", onclick: () => downloadRecord(room) }, t("end.download")),
          h("a", { class: "btn", href: "/#/" }, t("common.home"))));
    },
  });
  return screen;
}

function resultSection(navigate, game, date, room, view) {
  const score = (view.scores || [])[0];
  const box = h("div", { class: "daily-result", "data-testid": "daily-result", "aria-live": "polite" },
    h("h2", { "data-testid": "game-over" }, t("end.solo", { n: score ?? "?" })),
    h("p", { class: "muted" }, t("daily.fetching")));
  API.getDailyResult(game, date).then((r) => {
    // a practice game of a day also played ranked: the server's result is the ranked game's
    const other = score !== undefined && score !== r.score;
    box.replaceChildren(h("h2", { "data-testid": "game-over" }, t("end.solo", { n: score ?? r.score })),
      other ? h("p", { class: "note" }, t("daily.practice-not-ranked", { date })) : "",
      resultFacts(navigate, game, date, r));
  }).catch((err) => {
    box.replaceChildren(h("h2", { "data-testid": "game-over" }, t("end.solo", { n: score ?? "?" })),
      h("p", { class: "muted" }, t("daily.no-ranking-game", { error: err.message })));
  });
  return box;
}

function resultFacts(navigate, game, date, r) {
  const rows = [];
  const row = (label, value, id) => rows.push(h("div", { class: "fact", "data-fact": id }, h("dt", {}, label), h("dd", {}, value)));
  row(t("daily.fact.score"), h("strong", { "data-testid": "result-score" }, String(r.score)), "score");
  // rank and percentile are figures of one list, the player's (`board`), and each names it
  const guests = r.board === "guests";
  if (r.rank !== null && r.rank !== undefined) {
    const of = guests ? t("daily.of.guests", { n: r.of }) : t("daily.of.accounts", { n: r.of });
    row(t("daily.fact.rank"), h("span", { "data-testid": "result-rank" }, h("strong", {}, String(r.rank)), ` ${of}`), "rank");
  } else {
    const none = guests ? t("daily.not-ranked.guests", { n: r.of }) : t("daily.not-ranked.accounts", { n: r.of });
    row(t("daily.fact.rank"), h("span", { class: "muted", "data-testid": "result-rank" }, none), "rank");
  }
  if (r.percentile !== null && r.percentile !== undefined) {
    const p = Number(r.percentile);
    const shown = p < 1 || p > 99 ? p.toFixed(1) : p.toFixed(0);
    row(t("daily.fact.percentile"), h("span", { "data-testid": "result-percentile" }, h("strong", {}, shown), ` — ${guests ? t("daily.ahead-of.guests", { pct: shown }) : t("daily.ahead-of.accounts", { pct: shown })}`), "percentile");
  }
  if (r.rating) {
    row(t("daily.fact.rating"), h("span", {}, h("strong", {}, t("end.band", { band: r.rating.band })), ` (${bandRange(r.rating)})`,
      r.rating.phrase ? h("em", {}, ` “${bandPhrase(r.rating)}”`) : ""), "rating");
  }
  for (const [key, bot] of [["bot", r.bot], ["expert", r.expert]]) {
    if (!bot) continue;
    const name = fmtName(`bot:${bot.name}`);
    const label = `${name[0].toUpperCase()}${name.slice(1)}`;
    if (bot.score === null || bot.score === undefined) {
      row(label, h("span", { class: "muted" }, t("daily.bot-playing")), key);
      continue;
    }
    const diff = r.score - bot.score;
    const verdict = diff > 0 ? t("daily.you-beat", { n: diff }) : diff < 0 ? t("daily.it-beat", { n: -diff }) : t("daily.tie");
    row(label, h("span", {}, h("strong", {}, String(bot.score)), ` ${t("daily.same-deal")} — ${verdict}`), key);
  }
  return h("dl", { class: "facts" }, rows);
}

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
