// REST + WebSocket client for the web table contract (docs/web-api.md).
// Nothing here knows a rule: it sends what the player chose and hands back what the server says
// (its messages in the language of the cookie `lang`, i18n.js).

import { t, currentLang } from "./i18n.js";
import { learnTitles } from "./games.js";

// `item`: the offending item an engine refusal names, as data (docs/web-api.md, "Errors").
export class ApiError extends Error {
  constructor(status, error, reason, item = null) {
    super(error || `HTTP ${status}`);
    this.status = status;
    this.reason = reason || "error";
    this.item = item;
  }
}

/** The refused item of a sheet, as the server names it in the refusal's `item` (a section:
 *  {colour, section: its 1-based number}; a Metro placement: {placement: 1-based, square,
 *  tile}), or null for any other refusal. */
export function refusedItem(error) {
  return error && error.status === 400 && error.reason !== "bad-request" && error.item ? error.item : null;
}

// `body` is sent as JSON; a `RawJson` body is sent as is (records: their 64-bit seeds must
// not go through JavaScript numbers).
export class RawJson {
  constructor(text) { this.text = text; }
}

export async function api(method, path, body = undefined, token = null, { raw = false } = {}) {
  // every change is said to be JSON, body or not: the server refuses any other (docs/web-api.md)
  const headers = {};
  if (body !== undefined || method !== "GET") headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : body instanceof RawJson ? body.text : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, t("api.network", { error: err.message }), "network");
  }
  const text = await res.text();
  let data = null;
  if (text && (!raw || !res.ok)) {
    try { data = JSON.parse(text); } catch { data = { error: text }; }
  }
  if (!res.ok) {
    throw new ApiError(res.status, data && data.error, data && data.reason, data && data.item);
  }
  return raw ? text : data;
}

const boardCache = new Map();
export function getBoard(game) {
  if (!boardCache.has(game)) {
    const p = api("GET", `/api/games/${encodeURIComponent(game)}/board`);
    p.catch(() => boardCache.delete(game));
    boardCache.set(game, p);
  }
  return boardCache.get(game);
}

// A room's board: its game's (cached by game), or — for a game the server does not list, such
// as a custom map's — the room's own (GET /api/rooms/{room}/board, docs/web-api.md "Maps").
export async function getRoomBoard(room, game) {
  const games = await getGames().catch(() => []);
  if (games.some((g) => g.game === game)) return getBoard(game);
  return api("GET", `/api/rooms/${encodeURIComponent(room)}/board`);
}

// Per language: the server words the bots' figures and the rule sets in the cookie's language,
// so a language switch asks again.
const gamesCache = new Map();
export function getGames() {
  const lang = currentLang();
  if (!gamesCache.has(lang)) {
    const p = api("GET", "/api/games");
    p.then(learnTitles, () => { gamesCache.delete(lang); });
    gamesCache.set(lang, p);
  }
  return gamesCache.get(lang);
}

export const createRoom = (body) => api("POST", "/api/rooms", body);
export const getRoom = (room) => api("GET", `/api/rooms/${room}`);
export const joinRoom = (room, seat, name) =>
  api("POST", `/api/rooms/${room}/join`, { seat, name });
export const startRoom = (room, hostToken) =>
  api("POST", `/api/rooms/${room}/start`, {}, hostToken);
export const seatToBot = (room, seat, bot, hostToken) =>
  api("POST", `/api/rooms/${room}/seats/${seat}/bot`, { bot }, hostToken);
export const reclaimSeat = (room, seat, token) =>
  api("POST", `/api/rooms/${room}/seats/${seat}/reclaim`, {}, token);
export const getView = (room, token) => api("GET", `/api/rooms/${room}/view`, undefined, token);
export const getMoves = (room, token) => api("GET", `/api/rooms/${room}/moves`, undefined, token);
// The coach's best three moves for the token's seat at `step`, and `about`'s estimate (a move
// the player is about to make, or null).
export const getChat = (room) => api("GET", `/api/rooms/${room}/chat`);
export const postChat = (room, text, token) => api("POST", `/api/rooms/${room}/chat`, { text }, token);
export const getHint = (room, step, about, token) =>
  api("POST", `/api/rooms/${room}/hint`, about === null || about === undefined ? { step } : { step, about }, token);
// The record as the server wrote it (text): never parsed and re-serialised, so the seed
// (a 64-bit integer) stays exact.
export const getRecordText = (room) => asViewer(room, (token) =>
  api("GET", `/api/rooms/${room}/record`, undefined, token, { raw: true }));
export const getReplay = (room) => asViewer(room, (token) => api("GET", `/api/rooms/${room}/replay`, undefined, token));

// A room's record or replay as this browser may see it: with a seat token kept for the room,
// else as a spectator — and a daily game of a day still open (refused to spectators:
// `day-open`) with the player token it was played with.
async function asViewer(room, call) {
  const seats = Object.values(loadTokens(room).tokens);
  if (seats.length) return call(seats[0]);
  try {
    return await call(null);
  } catch (err) {
    const token = playerToken();
    if (err.reason === "day-open" && token) return call(token);
    throw err;
  }
}
export const postReplayText = (text) => api("POST", "/api/replays", new RawJson(text));
export const getAnalysis = (room) => asViewer(room, (token) => api("GET", `/api/rooms/${room}/analysis`, undefined, token));
export const postAnalysisText = (text) => api("POST", "/api/analyses", new RawJson(text));

// -- seat tokens, kept per room in localStorage -------------------------------------------
const KEY = (room) => `metrogames.room.${room}`;

export function loadTokens(room) {
  try {
    const raw = localStorage.getItem(KEY(room));
    if (raw) {
      const data = JSON.parse(raw);
      return { tokens: data.tokens || {}, host: data.host || null, name: data.name || "" };
    }
  } catch { /* unreadable storage: no tokens */ }
  return { tokens: {}, host: null, name: "" };
}

export function saveTokens(room, data) {
  const old = loadTokens(room);
  const merged = {
    tokens: { ...old.tokens, ...(data.tokens || {}) },
    host: data.host || old.host,
    name: data.name || old.name,
  };
  try {
    localStorage.setItem(KEY(room), JSON.stringify(merged));
    const rooms = JSON.parse(localStorage.getItem("metrogames.rooms") || "[]")
      .filter((r) => r !== room);
    rooms.unshift(room);
    localStorage.setItem("metrogames.rooms", JSON.stringify(rooms.slice(0, 20)));
  } catch { /* storage full or disabled: the game still works this session */ }
  return merged;
}

export function knownRooms() {
  try { return JSON.parse(localStorage.getItem("metrogames.rooms") || "[]"); } catch { return []; }
}

// -- WebSocket: the room's live channel (docs/web-api.md, "Playing") ----------------------
// The one way this client plays: views are pushed (at once after each hello, then after every
// change: each view arrives once), moves go as {"type": "action"} messages, and a refused move
// comes back as an error naming its step. A dropped socket opens again and says hello again.
const ACT_DEADLINE_MS = 15000;
const HELLO_DEADLINE_MS = 10000; // a hello unanswered this long: the socket opens again
const PASSING = new Set(["unavailable", "server-error", "rate-limited"]); // refusals worth a retry

export class RoomSocket {
  constructor(room, token, { onView, onError, onStatus, onChat }) {
    this.room = room;
    this.token = token;
    this.onView = onView;
    this.onChat = onChat || (() => {});
    this.onError = onError || (() => {});
    this.onStatus = onStatus || (() => {});
    this.closed = false;
    this.retry = 0;
    this.greeted = false; // the server answered this socket's latest hello
    this.pending = null; // the move in flight: {action, step, sent, resolve, reject, timer}
    this.open();
  }

  open() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/rooms/${this.room}`);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      this.onStatus("connected");
      this.hello();
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      if (msg.type === "view") {
        this.greeted = true;
        this.settle(msg.view);
        this.onView(msg.view);
      } else if (msg.type === "error") {
        if (this.refused(msg)) return;
        this.onError(msg);
        // the hello refused for a passing reason (the database restarting, …): try again
        if (!this.greeted && msg.step === undefined && PASSING.has(msg.reason)) ws.close();
      } else if (msg.type === "chat") this.onChat(msg.message);
    };
    ws.onclose = () => {
      this.greeted = false;
      // a move sent on the lost socket may or may not have arrived: the next hello's view says
      if (this.pending) this.pending.sent = false;
      if (this.closed) return;
      this.onStatus("reconnecting");
      const delay = Math.min(5000, 300 * 2 ** this.retry++);
      this.timer = setTimeout(() => this.open(), delay);
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  hello() {
    this.greeted = false;
    const ws = this.ws;
    ws.send(JSON.stringify({ type: "hello", token: this.token || null }));
    clearTimeout(this.helloTimer);
    this.helloTimer = setTimeout(() => { if (!this.greeted && this.ws === ws) ws.close(); }, HELLO_DEADLINE_MS);
  }

  // Play `action` at `step` (the step of the view it was chosen on). Resolves with the first
  // view past `step` (the move made, or the game moved on); rejects with an ApiError holding
  // the server's refusal, or after ACT_DEADLINE_MS without an answer (the socket then opens
  // again, and its hello brings the current view). One move at a time.
  act(action, step) {
    if (this.pending) return Promise.reject(new ApiError(409, t("api.move-in-flight"), "busy"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending = null;
        reject(new ApiError(0, t("api.no-answer"), "network"));
        if (this.ws) this.ws.close();
      }, ACT_DEADLINE_MS);
      this.pending = { action, step, sent: false, resolve, reject, timer };
      this.flush();
    });
  }

  // Send the move in flight once the socket has been answered (after a reconnection, only if
  // the hello's view shows the move's step still current).
  flush() {
    const p = this.pending;
    if (!p || p.sent || !this.greeted || this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(JSON.stringify({ type: "action", action: p.action, step: p.step }));
    p.sent = true;
  }

  settle(view) {
    const p = this.pending;
    if (!p) return;
    if (view.step > p.step) this.finish().resolve(view);
    else this.flush();
  }

  // An error answering the move in flight (it names the move's step): the move is refused.
  refused(msg) {
    const p = this.pending;
    if (!p || !p.sent || msg.step !== p.step) return false;
    this.finish().reject(new ApiError(0, msg.error, msg.reason, msg.item));
    return true;
  }

  finish() {
    const p = this.pending;
    clearTimeout(p.timer);
    this.pending = null;
    return p;
  }

  // Speak for another seat (hot-seat: the seat to move next); its view follows. A move not
  // yet sent for the seat before is dropped.
  setToken(token) {
    if (token === this.token) return;
    this.token = token;
    if (this.pending && !this.pending.sent) this.finish().reject(new ApiError(409, t("api.seat-changed"), "busy"));
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.hello();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.helloTimer);
    if (this.pending) this.finish(); // the screen is gone: nobody waits for the answer
    if (this.ws) this.ws.close();
  }
}

// -- the daily challenge (docs/web-api.md, "The daily challenge") ---------------------------
// The anonymous player: {player, name, token}, kept in localStorage (copy the token to play
// on another device).
const PLAYER_KEY = "metrogames.player";

export function loadPlayer() {
  try {
    const data = JSON.parse(localStorage.getItem(PLAYER_KEY) || "null");
    if (data && typeof data.token === "string" && data.token) return data;
  } catch { /* unreadable: no player */ }
  return null;
}

export function savePlayer(data) {
  try {
    if (data) localStorage.setItem(PLAYER_KEY, JSON.stringify(data));
    else localStorage.removeItem(PLAYER_KEY);
  } catch { /* storage disabled: the player lasts this session */ }
}

const playerToken = () => (loadPlayer() || {}).token || null;
const enc = encodeURIComponent;

// -- accounts (docs/web-api.md, "Accounts") --------------------------------------------------
// The session is an HttpOnly cookie this page never sees: the server says who is signed in
// (GET /api/accounts/me), and the answer is kept here. Signed in, the daily challenge is played
// with the account (the cookie) rather than a guest's player token.
let account = null;
export const signedIn = () => account;

export async function loadAccount() {
  const me = await api("GET", "/api/accounts/me");  // {"account": null} when nobody signed in
  account = me.account ? me : null;
  return account;
}

export async function signUp(name, password) {
  account = await api("POST", "/api/accounts", { name, password });
  return account;
}

export async function signIn(name, password) {
  account = await api("POST", "/api/sessions", { name, password });
  return account;
}

export async function signOut() {
  await api("DELETE", "/api/sessions/current");
  account = null;
}

// The password changes and every other session of the account ends: {"sessions_ended": n}.
export const changePassword = (password, newPassword) =>
  api("POST", "/api/accounts/me/password", { password, new_password: newPassword });
// Whether the monthly exports show the account's name (else a stable pseudonym): the account.
export async function setExportName(show) {
  account = await api("PUT", "/api/accounts/me/export-name", { show });
  return account;
}
// Every other session of the account ends (the other browsers are signed out).
export const signOutOthers = () => api("DELETE", "/api/sessions/others");

// The guest player of this browser becomes the account's (its token stops working).
export async function claimGuest() {
  account = await api("POST", "/api/accounts/me/claim", {}, playerToken());
  savePlayer(null);
  return account;
}

export const getProfile = (id) => api("GET", `/api/accounts/${enc(id)}/profile`);
export const getRoomRatings = (room) => api("GET", `/api/rooms/${enc(room)}/ratings`);
export const linkSeat = (room, seat, token) =>
  api("POST", `/api/rooms/${enc(room)}/seats/${seat}/account`, {}, token);
export const getGuests = (game, date, limit = 100, offset = 0) =>
  api("GET", `/api/daily/${enc(game)}/${enc(date)}/guests?limit=${limit}&offset=${offset}`);
// The daily player's credential: none when signed in (the cookie), else the guest's token.
const dailyToken = () => (account ? null : playerToken());
// The daily player's id: the account's own player, else the guest's.
export const dailyPlayerId = () => (account ? account.player : (loadPlayer() || {}).player || null);

export const createPlayer = (name) => api("POST", "/api/players", { name });
export const getMe = (token = playerToken()) => api("GET", "/api/players/me", undefined, token);
export const renameMe = (name) => api("PATCH", "/api/players/me", { name }, playerToken());
export const getDaily = () => api("GET", "/api/daily", undefined, dailyToken());
export const startDaily = (game, date, share) =>
  api("POST", `/api/daily/${enc(game)}/${enc(date)}/start`, { share: !!share }, dailyToken());
export const getDailyResult = (game, date) =>
  api("GET", `/api/daily/${enc(game)}/${enc(date)}/result`, undefined, dailyToken());
export const getLeaderboard = (game, date, limit = 100, offset = 0) =>
  api("GET", `/api/daily/${enc(game)}/${enc(date)}/leaderboard?limit=${limit}&offset=${offset}`);
// The deal as the server wrote it (text): its seeds are 64-bit integers.
export const getDealText = (game, date) =>
  api("GET", `/api/daily/${enc(game)}/${enc(date)}/deal`, undefined, null, { raw: true });
// With the daily credential: the owner also sees their unshared ranked games.
export const getHistory = (player, game) =>
  api("GET", `/api/players/${enc(player)}/history?game=${enc(game)}`, undefined, dailyToken());
export const getBest = (game, limit = 20) => api("GET", `/api/daily/${enc(game)}/best?limit=${limit}`);
