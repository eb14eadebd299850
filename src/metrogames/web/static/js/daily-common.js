// What the daily challenge's pages share (daily.js: the home page's cards, the player, the
// day's game; daily-board.js: the leaderboard pages): the server's list of daily games, UTC
// dates (YYYY-MM-DD), the pages' links and the day's information.

import { h, gameTitle } from "./dom.js";
import { fmtDate } from "./i18n.js";
import * as API from "./api.js";
import { dailyName } from "./games.js";

// The daily games are the server's (GET /api/daily: `games`, in its order).
export const titleOf = (game) => gameTitle(game);
export const shortOf = (game) => dailyName(game);
export const dailyGames = (daily) => (daily.games || []).map((g) => g.game);

// -- dates (UTC, YYYY-MM-DD) -----------------------------------------------------------------
export const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

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

export const dailyHref = (game, date) => `#/daily/${game}${date ? `/${date}` : ""}`;
export const roomHref = (game, date, room) => `#/daily/${game}/${date}/r/${room}`;

export function link(navigate, to, label, attrs = {}) {
  return h("a", { href: `/${to}`, ...attrs, onclick: (ev) => { ev.preventDefault(); navigate(to); } }, label);
}

// The day's information (today, closes_at, per game: played, room), with the player's token
// when it is valid; a token the server refuses is reported (and the call retried without it).
export async function loadDaily() {
  try {
    return { daily: await API.getDaily(), badToken: false };
  } catch (err) {
    if (err.reason !== "bad-token") throw err;
    const daily = await API.api("GET", "/api/daily");
    return { daily, badToken: true };
  }
}
