// The daily challenge (docs/web-api.md, "The daily challenge"): today's cards on the home page,
// the anonymous player (name prompt, token panel), the day's game played in an ordinary
// RoomScreen with the player token as the seat token, and the result panel; the leaderboard
// pages (#/daily/{game}/{date}) are daily-board.js. Nothing here knows a rule or a score, nor
// which games have a daily challenge: it shows what the server sends (GET /api/daily lists
// the games).

import { h, clear, toast, fmtName, bandRange, bandPhrase, withRule, narrow } from "./dom.js";
import { t } from "./i18n.js";
import * as API from "./api.js";
import { RoomScreen, downloadRecord } from "./room.js";
import { titleOf, shortOf, dailyGames, longDate, timeLeft, dailyHref, roomHref, link, loadDaily } from "./daily-common.js";

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
export function tokenPanel(onChange) {
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
      h("p", { class: "small" }, me ? `${t("common.playing-as", { name: me.name })} ` : "", dailyGames(daily).length ? link(navigate, dailyHref(dailyGames(daily)[0], daily.date), t("daily.leaderboards")) : ""),
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
