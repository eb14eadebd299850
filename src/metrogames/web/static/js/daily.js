// The daily challenge (docs/web-api.md, "The daily challenge"): today's cards on the home page,
// the anonymous player (name prompt, token panel), the day's game played in an ordinary
// RoomScreen with the player token as the seat token, the result panel, and the leaderboard
// pages (#/daily/{game}/{date}). Nothing here knows a rule or a score: it shows what the
// server sends.

import { h, clear, toast } from "./dom.js";
import * as API from "./api.js";
import { RoomScreen, downloadRecord } from "./room.js";

export const DAILY_GAMES = [
  { game: "london", title: "Next Station: London", short: "London" },
  { game: "paris", title: "Next Station: Paris", short: "Paris" },
];
const titleOf = (game) => (DAILY_GAMES.find((g) => g.game === game) || { title: game }).title;
const shortOf = (game) => (DAILY_GAMES.find((g) => g.game === game) || { short: game }).short;

// -- dates (UTC, YYYY-MM-DD) -----------------------------------------------------------------
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

export function addDays(date, n) {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

export function longDate(date) {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString("en-GB", {
    weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC",
  });
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
    const input = h("input", { id: "daily-name", maxlength: "24", required: true, value: last, placeholder: "Your name", autocomplete: "nickname" });
    const errorLine = h("p", { class: "error", role: "alert" });
    const dialog = h("dialog", { class: "panel name-dialog", "aria-labelledby": "daily-name-title" });
    const finish = (player) => { dialog.close(); dialog.remove(); resolve(player); };
    const form = h("form", { method: "dialog", onsubmit: async (ev) => {
      ev.preventDefault();
      const name = input.value.trim();
      if (!name) { errorLine.textContent = "Type a name to show on the leaderboard."; input.focus(); return; }
      const btn = form.querySelector("button[type=submit]");
      btn.disabled = true;
      try {
        const res = await API.createPlayer(name);
        const player = { player: res.player, name: res.name, token: res.token };
        API.savePlayer(player);
        try { localStorage.setItem("metrogames.name", name); } catch { /* ignore */ }
        finish(player);
      } catch (err) {
        errorLine.textContent = `Cannot create the player: ${err.message}`;
        btn.disabled = false;
      }
    } },
    h("h2", { id: "daily-name-title" }, "Your name for the daily challenge"),
    h("p", { class: "muted" }, "No account: the server gives this browser a player token. Your name is shown on the leaderboard only if you share your score."),
    h("label", { class: "row" }, "Display name ", input),
    errorLine,
    h("div", { class: "buttons" },
      h("button", { class: "btn primary", type: "submit", id: "daily-name-ok" }, "Continue"),
      h("button", { class: "btn", type: "button", onclick: () => finish(null) }, "Cancel")));
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
  const pasteInput = h("input", { id: "paste-token", autocomplete: "off", spellcheck: "false", placeholder: "paste a player token" });
  const usePasted = async (ev) => {
    ev.preventDefault();
    const token = pasteInput.value.trim();
    if (!token) return;
    try {
      const info = await API.getMe(token);
      API.savePlayer({ player: info.player, name: info.name, token });
      toast(`Now playing as ${info.name}.`, "info");
      onChange();
    } catch (err) {
      toast(err.reason === "bad-token" ? "This token is not known to this server." : `Cannot use this token: ${err.message}`);
    }
  };
  if (me) {
    const tokenInput = h("input", { id: "my-token", readonly: true, value: me.token, "aria-label": "your player token", onfocus: (ev) => ev.target.select() });
    const nameInput = h("input", { id: "rename", maxlength: "24", value: me.name || "", "aria-label": "display name" });
    body.append(
      h("p", { class: "small" }, "Copy it to play as ", h("strong", {}, me.name || "you"), " on another device (paste it there). Keep it private: it is your player."),
      h("div", { class: "share" }, tokenInput, h("button", { class: "btn small", type: "button", id: "copy-token", onclick: () => copyText(me.token) }, "Copy")),
      h("form", { class: "row", onsubmit: async (ev) => {
        ev.preventDefault();
        const name = nameInput.value.trim();
        if (!name) return;
        try {
          const res = await API.renameMe(name);
          API.savePlayer({ ...me, name: res.name || name });
          toast("Name changed.", "info");
          onChange();
        } catch (err) { toast(`Cannot rename: ${err.message}`); }
      } }, h("label", { class: "row" }, "Name ", nameInput), h("button", { class: "btn small", type: "submit" }, "Rename")));
  } else {
    body.append(h("p", { class: "small" }, "You get a player token when you first play a daily challenge. Played on another device? Paste its token here."));
  }
  body.append(h("form", { class: "row", onsubmit: usePasted },
    h("label", { class: "row" }, me ? "Use another token " : "Token ", pasteInput),
    h("button", { class: "btn small", type: "submit", id: "use-token" }, "Use it")));
  if (me) {
    body.append(h("button", { class: "btn small", type: "button", onclick: () => {
      if (window.confirm("Forget this player on this device? Without its token you cannot play as it again.")) { API.savePlayer(null); onChange(); }
    } }, "Forget this player here"));
  }
  return h("details", { class: "token-panel", id: "token-panel" },
    h("summary", {}, me ? `Your player token (${me.name})` : "Your player token"), body);
}

function copyText(text) {
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(() => toast("Copied.", "info"), () => toast("Select the text and copy it.", "info"));
  } else toast("Select the text and copy it.", "info");
}

// Start (or continue) `game` on `date` and open its room. Today: the one ranked attempt (a
// reload continues it); a closed day: a new practice room.
export async function playDaily(navigate, game, date, share) {
  const player = await ensurePlayer();
  if (!player) return false;
  try {
    const res = await API.startDaily(game, date, share);
    navigate(roomHref(game, date, res.room));
    return true;
  } catch (err) {
    if (err.reason === "attempt-used") toast("You have played today's challenge already: one ranked attempt per day.");
    else if (err.reason === "bad-token") toast("The server does not know your player token: paste a valid one or forget it.");
    else toast(`Cannot start: ${err.message}`);
    return false;
  }
}

// -- the home page's "Today's challenge" -----------------------------------------------------
export function dailyPanel(navigate) {
  const section = h("section", { class: "panel daily", id: "daily", "aria-labelledby": "daily-title" },
    h("h2", { id: "daily-title" }, "Today's challenge"), h("p", { class: "muted" }, "Loading…"));
  let timer = null;
  const refresh = async () => {
    clearInterval(timer);
    let info;
    try {
      info = await loadDaily();
    } catch (err) {
      clear(section).append(h("h2", { id: "daily-title" }, "Today's challenge"),
        h("p", { class: "muted" }, `The daily challenge is not available: ${err.message}`));
      return;
    }
    const { daily, badToken } = info;
    const me = API.loadPlayer();
    const cards = h("div", { class: "daily-cards" });
    for (const g of DAILY_GAMES) {
      const entry = (daily.games || []).find((x) => x.game === g.game);
      if (entry) cards.append(await dailyCard(navigate, daily, entry, badToken));
    }
    const countdowns = () => {
      for (const el of section.querySelectorAll(".countdown")) el.textContent = timeLeft(daily.closes_at);
      if (daily.closes_at <= Date.now() / 1000) { clearInterval(timer); setTimeout(refresh, 1500); }
    };
    clear(section).append(
      h("div", { class: "panel-head" },
        h("h2", { id: "daily-title" }, "Today's challenge"),
        h("span", { class: "daily-date" }, h("time", { datetime: daily.date, "data-testid": "daily-date" }, longDate(daily.date)), " (UTC)")),
      h("p", { class: "muted small" }, "One solo deal per city per day, the same for everyone; one ranked attempt. ",
        "Closes in ", h("strong", { class: "countdown", "aria-live": "off" }, timeLeft(daily.closes_at)), "."),
      badToken ? h("p", { class: "note" }, "This server does not know the player token saved here: paste a valid one below, or forget it to start afresh.") : "",
      cards,
      h("p", { class: "small" }, me ? `Playing as ${me.name}. ` : "", link(navigate, dailyHref("london", daily.date), "Leaderboards and past days")),
      tokenPanel(refresh));
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
    state = h("p", { class: "daily-state" }, "○ Not played yet");
    play.textContent = `Play today's ${shortOf(game)}`;
    play.addEventListener("click", async () => {
      play.disabled = true;
      if (!await playDaily(navigate, game, daily.date, share.checked)) play.disabled = false;
    });
  } else if (status === "playing") {
    state = h("p", { class: "daily-state" }, "◐ In progress");
    play.textContent = "Continue my game";
    play.addEventListener("click", () => navigate(roomHref(game, daily.date, entry.room)));
  } else {
    const score = result ? ` — ${result.score} points${result.rank ? `, rank ${result.rank} of ${result.of}` : ""}` : "";
    state = h("p", { class: "daily-state done" }, `✓ Played${score}`);
    play.textContent = "See my result";
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
      h("span", {}, "Share my score on the leaderboard", h("span", { class: "muted small" }, " (optional: unticked, you still get your score and percentile)"))) : null,
    h("div", { class: "buttons" }, play, link(navigate, dailyHref(game, daily.date), "Leaderboard", { class: "btn" })));
}

// -- the day's game: a RoomScreen with the player token and the daily result ----------------
export function dailyRoomScreen(root, navigate, game, date, room) {
  let resultPanel = null;
  const screen = new RoomScreen(root, room, navigate, {
    tokens: () => {
      const me = API.loadPlayer();
      return me ? { 0: me.token } : {};
    },
    header: () => h("span", { class: "daily-tag" },
      link(navigate, dailyHref(game, date), `${shortOf(game)} · ${date} · leaderboard`, { class: "daily-link" })),
    endPanel: (view, sheets) => {
      if (!resultPanel) resultPanel = resultSection(navigate, game, date, room, view);
      return h("section", { class: "panel end daily-end" }, resultPanel, sheets,
        h("div", { class: "buttons" },
          link(navigate, dailyHref(game, date), "The day's leaderboard →", { class: "btn primary", id: "leaderboard-link" }),
          h("button", { class: "btn", id: "replay-btn", type: "button", onclick: () => navigate(`#/replay/${room}`) }, "▶ Replay my game"),
          h("button", { class: "btn", id: "download-btn", type: "button", onclick: () => downloadRecord(room) }, "⬇ Download the record"),
          h("a", { class: "btn", href: "/#/" }, "Home")));
    },
  });
  return screen;
}

function resultSection(navigate, game, date, room, view) {
  const score = (view.scores || [])[0];
  const box = h("div", { class: "daily-result", "data-testid": "daily-result", "aria-live": "polite" },
    h("h2", { "data-testid": "game-over" }, `Game over — ${score ?? "?"} points`),
    h("p", { class: "muted" }, "Fetching the day's ranking…"));
  API.getDailyResult(game, date).then((r) => {
    // a practice game of a day also played ranked: the server's result is the ranked game's
    const other = score !== undefined && score !== r.score;
    box.replaceChildren(h("h2", { "data-testid": "game-over" }, `Game over — ${score ?? r.score} points`),
      other ? h("p", { class: "note" }, `This practice game is not ranked. Your ranked game of ${date}:`) : "",
      resultFacts(navigate, game, date, r));
  }).catch((err) => {
    box.replaceChildren(h("h2", { "data-testid": "game-over" }, `Game over — ${score ?? "?"} points`),
      h("p", { class: "muted" }, `No ranking for this game: ${err.message}`));
  });
  return box;
}

function resultFacts(navigate, game, date, r) {
  const rows = [];
  const row = (label, value, id) => rows.push(h("div", { class: "fact", "data-fact": id }, h("dt", {}, label), h("dd", {}, value)));
  row("Score", h("strong", { "data-testid": "result-score" }, String(r.score)), "score");
  if (r.rank !== null && r.rank !== undefined) {
    row("Rank", h("span", { "data-testid": "result-rank" }, h("strong", {}, String(r.rank)), ` of ${r.of}`), "rank");
  } else {
    row("Rank", h("span", { class: "muted" }, `not ranked (${r.of} players ranked)`), "rank");
  }
  if (r.percentile !== null && r.percentile !== undefined) {
    const p = Number(r.percentile);
    const shown = p < 1 || p > 99 ? p.toFixed(1) : p.toFixed(0);
    row("Percentile", h("span", {}, h("strong", {}, shown), ` — ahead of ${shown}% of the day's ranked games (ties count half)`), "percentile");
  }
  if (r.rating) {
    row("Solo rating", h("span", {}, h("strong", {}, `band ${r.rating.band}`), ` (${r.rating.range})`,
      r.rating.phrase ? h("em", {}, ` “${r.rating.phrase}”`) : ""), "rating");
  }
  for (const [key, bot] of [["bot", r.bot], ["expert", r.expert]]) {
    if (!bot) continue;
    const label = `${bot.name[0].toUpperCase()}${bot.name.slice(1)} bot`;
    if (bot.score === null || bot.score === undefined) {
      row(label, h("span", { class: "muted" }, "still playing the deal: look again in a minute"), key);
      continue;
    }
    const diff = r.score - bot.score;
    const verdict = diff > 0 ? `you beat it by ${diff}` : diff < 0 ? `it beat you by ${-diff}` : "a tie";
    row(label, h("span", {}, h("strong", {}, String(bot.score)), ` on the same deal — ${verdict}`), key);
  }
  return h("dl", { class: "facts" }, rows);
}

// -- the leaderboard pages -------------------------------------------------------------------
export class DailyBoardScreen {
  constructor(root, navigate, game, date) {
    this.root = root;
    this.navigate = navigate;
    this.game = DAILY_GAMES.some((g) => g.game === game) ? game : "london";
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
    clear(root).append(h("p", { class: "muted" }, "Loading the leaderboard…"));
    let info;
    try {
      info = await loadDaily();
    } catch (err) {
      clear(root).append(h("div", { class: "panel" }, h("h2", {}, "Daily challenge"), h("p", { class: "error" }, `Cannot reach the server: ${err.message}`)));
      return;
    }
    if (this.closed) return;
    this.daily = info.daily;
    this.badToken = info.badToken;
    const today = this.daily.date;
    const date = this.date || today;
    this.date = date;
    const game = this.game;
    document.title = `Daily ${shortOf(game)} ${date} — metrogames`;
    const isToday = date === today;
    const future = date > today;
    const main = h("div", { class: "daily-main" });
    const side = h("div", { class: "daily-side" });
    clear(root).append(
      h("header", { class: "daily-header" },
        h("h2", {}, "Daily challenge"),
        h("nav", { class: "game-tabs", "aria-label": "game" }, DAILY_GAMES.map((g) =>
          link(this.navigate, dailyHref(g.game, date), g.short, { class: `tab${g.game === game ? " active" : ""}`, "aria-current": g.game === game ? "page" : false, "data-game-tab": g.game })))),
      this.dateNav(date, today),
      h("div", { class: "daily-layout" }, main, side));
    main.append(this.dayPanel(date, isToday, future));
    if (!future) main.append(await this.rankingPanel(date));
    if (this.closed) return;
    const sidePanels = await Promise.all([this.mePanel(date), this.bestPanel()]);
    if (this.closed) return;
    side.append(...sidePanels.filter(Boolean), h("section", { class: "panel" }, tokenPanel(() => this.render())));
  }

  dateNav(date, today) {
    const go = (d) => this.navigate(dailyHref(this.game, d));
    const picker = h("input", { type: "date", id: "daily-date-pick", value: date, max: today, "aria-label": "go to a date", onchange: (ev) => { if (DATE_RE.test(ev.target.value)) go(ev.target.value); } });
    const next = addDays(date, 1);
    return h("nav", { class: "date-nav", "aria-label": "days" },
      link(this.navigate, dailyHref(this.game, addDays(date, -1)), `← ${addDays(date, -1)}`, { class: "btn small", id: "prev-day", rel: "prev" }),
      h("strong", { class: "date-now" }, h("time", { datetime: date }, longDate(date)), date === today ? " · today" : ""),
      next <= today
        ? link(this.navigate, dailyHref(this.game, next), `${next} →`, { class: "btn small", id: "next-day", rel: "next" })
        : h("span", { class: "btn small", "aria-disabled": "true", id: "next-day" }, `${next} →`),
      date !== today ? link(this.navigate, dailyHref(this.game, today), "Today", { class: "btn small", id: "today-link" }) : null,
      picker);
  }

  dayPanel(date, isToday, future) {
    const panel = h("section", { class: "panel day-panel" });
    if (future) {
      panel.append(h("p", {}, "This day has not opened yet: its deal is secret until 00:00 UTC."));
      return panel;
    }
    if (isToday) {
      const entry = (this.daily.games || []).find((x) => x.game === this.game) || {};
      const countdown = h("strong", { class: "countdown" }, timeLeft(this.daily.closes_at));
      this.timer = setInterval(() => { countdown.textContent = timeLeft(this.daily.closes_at); }, 1000);
      panel.append(h("p", {}, h("span", { class: "tag open-tag" }, "open"), ` ${titleOf(this.game)}: open until 24:00 UTC — closes in `, countdown, "."));
      const share = h("input", { type: "checkbox", class: "daily-share", id: "board-share" });
      if (entry.room && !this.badToken) {
        panel.append(h("div", { class: "buttons" }, link(this.navigate, roomHref(this.game, date, entry.room), "My game of today", { class: "btn primary", id: "my-game-link" })));
      } else {
        const btn = h("button", { class: "btn primary", type: "button", id: "board-play", onclick: async () => {
          btn.disabled = true;
          if (!await playDaily(this.navigate, this.game, date, share.checked)) btn.disabled = false;
        } }, `Play today's ${shortOf(this.game)}`);
        panel.append(h("label", { class: "share-opt" }, share, h("span", {}, "Share my score on the leaderboard", h("span", { class: "muted small" }, " (optional)"))),
          h("div", { class: "buttons" }, btn));
      }
      panel.append(h("p", { class: "muted small" }, "The deal and every ranked game are published once the day closes."));
      return panel;
    }
    panel.append(h("p", {}, h("span", { class: "tag" }, "closed"), ` ${titleOf(this.game)}: this day is closed; its deal is public.`));
    const seedLine = h("p", { class: "small seed-line" }, "Loading the deal…");
    const practice = h("button", { class: "btn primary", type: "button", id: "practice-btn", onclick: async () => {
      practice.disabled = true;
      if (!await playDaily(this.navigate, this.game, date, false)) practice.disabled = false;
    } }, "▶ Replay / verify this deal (practice)");
    const dl = h("button", { class: "btn", type: "button", id: "deal-download", onclick: () => this.downloadDeal(date, "deal") }, "⬇ Download the deal record");
    const dlAll = h("button", { class: "btn", type: "button", id: "games-download", onclick: () => this.downloadDeal(date, "all") }, "⬇ Every ranked game (JSON)");
    panel.append(seedLine, h("div", { class: "buttons" }, practice, dl, dlAll),
      h("p", { class: "muted small" }, "Practice games are not ranked. The deal record replays with ", h("code", {}, "metrogames replay"), "; the ranked games' records check every score."));
    API.getDealText(this.game, date).then((text) => {
      this.dealText = text;
      const seed = (text.match(/"seed"\s*:\s*(\d+)/) || [])[1];
      seedLine.replaceChildren("Seed ", h("code", { "data-testid": "deal-seed" }, seed || "?"));
    }).catch((err) => { seedLine.textContent = `The deal is not available: ${err.message}`; dl.disabled = true; dlAll.disabled = true; });
    return panel;
  }

  async downloadDeal(date, what) {
    try {
      const text = this.dealText || await API.getDealText(this.game, date);
      const body = what === "deal" ? dealRecordText(text) : text;
      saveText(body, what === "deal" ? `${this.game}-daily-${date}-deal.json` : `${this.game}-daily-${date}-games.json`);
    } catch (err) { toast(`Cannot download the deal: ${err.message}`); }
  }

  async rankingPanel(date) {
    const panel = h("section", { class: "panel ranking", "aria-labelledby": "ranking-title" });
    const me = API.loadPlayer();
    let data;
    try {
      data = await API.getLeaderboard(this.game, date, 100, 0);
    } catch (err) {
      panel.append(h("h3", { id: "ranking-title" }, "Ranking"), h("p", { class: "muted" }, `No ranking: ${err.message}`));
      return panel;
    }
    const tbody = h("tbody", {});
    const addRows = (entries) => {
      for (const e of entries) {
        const mine = me && e.player === me.player;
        tbody.append(h("tr", { class: mine ? "mine" : "", "data-player": e.player },
          h("td", { class: "num rank" }, String(e.rank)),
          h("td", {}, e.name, mine ? h("strong", { class: "you-mark" }, " (you)") : ""),
          h("td", { class: "num" }, h("strong", {}, String(e.score))),
          h("td", { class: "num time" }, fmtFinished(e.finished_at))));
      }
    };
    addRows(data.entries || []);
    let shown = (data.entries || []).length;
    const more = h("button", { class: "btn small", type: "button", id: "more-rows", onclick: async () => {
      more.disabled = true;
      try {
        const next = await API.getLeaderboard(this.game, date, 100, shown);
        addRows(next.entries || []);
        shown += (next.entries || []).length;
        more.hidden = shown >= next.total || !(next.entries || []).length;
      } catch (err) { toast(err.message); }
      more.disabled = false;
    } }, "Show more");
    more.hidden = shown >= data.total;
    panel.append(h("div", { class: "panel-head" },
      h("h3", { id: "ranking-title" }, `Ranking — ${shortOf(this.game)}, ${date}`),
      h("span", { class: "muted small", "data-testid": "ranking-total" }, `${data.total} player${data.total === 1 ? "" : "s"} ranked${data.open ? " so far" : ""}`)));
    if (!shown) {
      panel.append(h("p", { class: "muted" }, data.open ? "Nobody has shared a finished game yet today." : "Nobody shared a game this day."));
    } else {
      panel.append(h("div", { class: "table-scroll" }, h("table", { class: "score-table leaderboard", "data-testid": "leaderboard" },
        h("caption", { class: "sr-only" }, `Ranking of ${date}: equal scores share a rank`),
        h("thead", {}, h("tr", {}, h("th", { class: "num", scope: "col" }, "rank"), h("th", { scope: "col" }, "player"), h("th", { class: "num", scope: "col" }, "score"), h("th", { class: "num", scope: "col" }, "finished"))),
        tbody)), more, h("p", { class: "muted small" }, "Equal scores share a rank; ties are listed by finishing time."));
    }
    return panel;
  }

  async mePanel(date) {
    const me = API.loadPlayer();
    if (!me || this.badToken) return null;
    const panel = h("section", { class: "panel my-history", "aria-labelledby": "history-title" });
    let hist;
    try {
      hist = await API.getHistory(me.player, this.game);
    } catch (err) {
      panel.append(h("h3", { id: "history-title" }, "Your days"), h("p", { class: "muted" }, err.message));
      return panel;
    }
    const days = [...(hist.days || [])].filter((d) => !d.game || d.game === this.game)
      .sort((a, b) => (a.date < b.date ? 1 : -1));
    panel.append(h("h3", { id: "history-title" }, `Your days — ${hist.name || me.name}`),
      h("p", { class: "streak" }, "Streak: ", h("strong", { "data-testid": "streak" }, `${hist.streak} day${hist.streak === 1 ? "" : "s"}`),
        h("span", { class: "muted small" }, " (consecutive days with a ranked game)")));
    if (!days.length) {
      panel.append(h("p", { class: "muted" }, `No ${shortOf(this.game)} day played yet.`));
      return panel;
    }
    panel.append(h("table", { class: "score-table history" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "day"), h("th", { class: "num", scope: "col" }, "score"), h("th", { class: "num", scope: "col" }, "rank"))),
      h("tbody", {}, days.slice(0, 30).map((d) => h("tr", { class: d.date === date ? "current" : "" },
        h("td", {}, link(this.navigate, dailyHref(this.game, d.date), d.date)),
        h("td", { class: "num" }, d.score === null || d.score === undefined ? h("span", { class: "muted" }, "in progress") : String(d.score)),
        h("td", { class: "num" }, d.rank ? String(d.rank) : h("span", { class: "muted" }, d.ranked ? "not shared" : "practice")))))));
    return panel;
  }

  async bestPanel() {
    const panel = h("section", { class: "panel best", "aria-labelledby": "best-title" }, h("h3", { id: "best-title" }, `All-time best — ${shortOf(this.game)}`));
    let best;
    try {
      best = await API.getBest(this.game, 20);
    } catch (err) {
      panel.append(h("p", { class: "muted" }, err.message));
      return panel;
    }
    if (!best.length) {
      panel.append(h("p", { class: "muted" }, "No ranked game yet."));
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
