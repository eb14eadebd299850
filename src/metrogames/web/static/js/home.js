// The home page: choose a game, a mode and options; create a room; join one by code;
// watch a record file; score a paper game.

import { h, clear, toast } from "./dom.js";
import { RULES_GAMES } from "./rules.js";
import { getGames, createRoom, saveTokens, knownRooms, getRoom, loadTokens, getView } from "./api.js";
import { dailyPanel } from "./daily.js";
import { accountPanel } from "./account.js";

const MODES = [
  { id: "solo", label: "Solo", help: "one player" },
  { id: "bots", label: "Against bots", help: "you and 1–3 bots (Metro: 1–5)" },
  { id: "hotseat", label: "Hot-seat", help: "several players on this device" },
  { id: "online", label: "Online room", help: "share a link; others join from their devices" },
];

const GAME_BLURB = {
  london: "Draw four Underground lines on the map of London, one per round.",
  paris: "Draw four metro lines across Paris: monuments, bridges and the central platform.",
  metro: "Lay track tiles on an 8×8 board and run your trains as far as they go.",
};

function remember(key, value) {
  try { localStorage.setItem(`metrogames.${key}`, value); } catch { /* ignore */ }
}
function recall(key, fallback) {
  try { return localStorage.getItem(`metrogames.${key}`) ?? fallback; } catch { return fallback; }
}

export async function renderHome(root, navigate) {
  clear(root).append(h("p", { class: "muted" }, "Loading…"));
  let games;
  try {
    games = await getGames();
  } catch (err) {
    clear(root).append(h("p", { class: "error" }, `Cannot reach the server: ${err.message}`));
    return;
  }
  const st = {
    game: recall("game", "london"),
    mode: recall("mode", "solo"),
    count: 2,
    bots: ["medium", "medium", "medium", "medium", "medium"],
    online: ["human", "human", "human", "human", "human"],
    names: ["", "", "", "", "", ""],
    options: {},
    clock: "",
  };
  if (!games.find((g) => g.game === st.game)) st.game = games[0].game;
  const form = h("form", { class: "panel create", id: "create-form", onsubmit: (ev) => { ev.preventDefault(); create(); } });
  const body = h("div");
  const nameInput = h("input", { id: "your-name", name: "name", maxlength: "24", value: recall("name", ""), placeholder: "Your name", autocomplete: "nickname" });

  const game = () => games.find((g) => g.game === st.game);

  function modesFor(g) {
    return MODES.filter((m) => !(m.id === "solo" && g.players[0] > 1));
  }

  function draw() {
    const g = game();
    if (!modesFor(g).some((m) => m.id === st.mode)) st.mode = modesFor(g)[0].id;
    const [lo, hi] = g.players;
    const minCount = st.mode === "solo" ? 1 : Math.max(2, lo);
    st.count = Math.min(Math.max(st.count, minCount), hi);
    clear(body);
    body.append(
      h("fieldset", { class: "choices" }, h("legend", {}, "Game"),
        games.map((x) => h("label", { class: `choice game-choice${x.game === st.game ? " checked" : ""}` },
          h("input", { type: "radio", name: "game", value: x.game, checked: x.game === st.game, onchange: () => { st.game = x.game; remember("game", x.game); draw(); } }),
          h("span", { class: "choice-title" }, x.title),
          h("span", { class: "choice-help" }, GAME_BLURB[x.game] || "")))),
      h("fieldset", { class: "choices" }, h("legend", {}, "Mode"),
        modesFor(g).map((m) => h("label", { class: `choice${m.id === st.mode ? " checked" : ""}` },
          h("input", { type: "radio", name: "mode", value: m.id, checked: m.id === st.mode, onchange: () => { st.mode = m.id; remember("mode", m.id); draw(); } }),
          h("span", { class: "choice-title" }, m.label),
          h("span", { class: "choice-help" }, m.help)))),
    );
    const seats = h("fieldset", { class: "seats" }, h("legend", {}, "Players"));
    if (st.mode !== "solo") {
      const sel = h("select", { id: "player-count", onchange: (ev) => { st.count = Number(ev.target.value); draw(); } });
      for (let n = minCount; n <= hi; n++) sel.append(h("option", { value: n, selected: n === st.count }, String(n)));
      seats.append(h("label", { class: "row" }, "Number of players ", sel));
    }
    seats.append(h("label", { class: "row" }, st.mode === "hotseat" ? "Player 1 " : "Your name ", nameInput));
    for (let i = 1; i < (st.mode === "solo" ? 1 : st.count); i++) {
      if (st.mode === "bots") {
        seats.append(h("label", { class: "row" }, `Seat ${i + 1}: bot `, botSelect(g, i - 1)));
      } else if (st.mode === "hotseat") {
        seats.append(h("label", { class: "row" }, `Player ${i + 1} `, h("input", {
          maxlength: "24", value: st.names[i], placeholder: `Player ${i + 1}`, "data-seat": i,
          oninput: (ev) => { st.names[i] = ev.target.value; },
        })));
      } else if (st.mode === "online") {
        const sel = h("select", { "data-seat": i, onchange: (ev) => { st.online[i - 1] = ev.target.value; } },
          h("option", { value: "human", selected: st.online[i - 1] === "human" }, "a player who joins"),
          (g.bots || []).map((b) => h("option", { value: b, selected: st.online[i - 1] === b }, `bot: ${botLabel(g, b)}`)));
        seats.append(h("label", { class: "row" }, `Seat ${i + 1}: `, sel));
      }
    }
    body.append(seats);
    body.append(optionsFieldset(g));
    if (st.mode === "online") {
      const clock = h("select", { id: "turn-clock", onchange: (ev) => { st.clock = ev.target.value; draw(); } },
        [["", "no clock"], ["30", "30 s"], ["60", "1 min"], ["120", "2 min"], ["300", "5 min"],
          ["3600", "1 hour (turn-based)"], ["86400", "1 day (turn-based)"], ["259200", "3 days (turn-based)"]].map(([v, l]) =>
          h("option", { value: v, selected: st.clock === v }, l)));
      body.append(h("fieldset", {}, h("legend", {}, "Turn clock"), h("label", { class: "row" }, "Time per turn ", clock),
        Number(st.clock) >= 3600 ? h("p", { class: "muted" }, "A turn-based game waits for each move; come back to \u201cYour games\u201d on this page when it is your turn.") : null));
    }
    body.append(h("div", { class: "buttons" }, h("button", { class: "btn primary big", type: "submit", id: "create-btn" },
      st.mode === "online" ? "Create the room" : "Start the game")));
  }

  function botSelect(g, i) {
    return h("select", { "data-bot": i, onchange: (ev) => { st.bots[i] = ev.target.value; } },
      (g.bots || ["medium", "easy"]).map((b) => h("option", { value: b, selected: st.bots[i] === b }, botLabel(g, b))));
  }

  function botLabel(g, b) { return (g.bot_labels || {})[b] || b; }

  function optionsFieldset(g) {
    const fs = h("fieldset", { class: "options" }, h("legend", {}, "Options"));
    const opts = g.options || {};
    const presets = Object.entries(g.presets || {});
    const pick = (key, choices, label, help) => {
      if (!(key in opts)) return;
      const current = key in st.options ? st.options[key] : JSON.stringify(opts[key].default ?? null);
      st.options[key] = current;
      const sel = h("select", { id: `opt-${key}`, onchange: (ev) => { st.options[key] = ev.target.value; if (presets.length) draw(); } },
        choices.map(([v, l]) => h("option", { value: JSON.stringify(v), selected: JSON.stringify(v) === current }, l)));
      fs.append(h("label", { class: "row", title: help || "" }, `${label} `, sel));
    };
    if (presets.length) {
      // a published rule set sets its options; the options stay adjustable ("custom" then)
      for (const [key, spec] of Object.entries(opts)) if (!(key in st.options)) st.options[key] = JSON.stringify(spec.default ?? null);
      const [name, chosen] = presets.find(([, p]) => Object.entries(p.options).every(([k, v]) => st.options[k] === JSON.stringify(v))) || ["", null];
      const sel = h("select", { id: "opt-preset", onchange: (ev) => {
        const preset = (g.presets || {})[ev.target.value];
        if (!preset) return;
        for (const [k, v] of Object.entries(preset.options)) st.options[k] = JSON.stringify(v);
        draw();
      } }, [h("option", { value: "", selected: !name }, "custom"), ...presets.map(([n, p]) => h("option", { value: n, selected: n === name }, p.title))]);
      fs.append(h("label", { class: "row", title: "a published rule set; the options below stay adjustable" }, "Rules ", sel),
        h("p", { class: "muted preset-note", "data-testid": "preset-note" }, chosen ? chosen.note : "your own choice of options"));
    }
    pick("objectives", [[[], "none"], ["random", "2 drawn at random"]], "Shared objectives", "advanced module: +10 per objective met");
    pick("powers", [[null, "none"], ["random", "dealt at random"]], "Pencil powers", "advanced module: one power per pencil");
    if (opts.turn_mode) pick("turn_mode", opts.turn_mode.values.map((v) => [v, { draw: "draw and place", hand: "hold a tile (seed variant)", "official-hand": "hold a tile (publisher's rules)" }[v] || v]), "Turn mode");
    if (opts.one_tile_routes) pick("one_tile_routes", opts.one_tile_routes.values.map((v) => [v, v]), "One-tile routes");
    if (fs.children.length === 1) fs.append(h("p", { class: "muted" }, "No options for this game."));
    return fs;
  }

  async function create() {
    const g = game();
    const me = nameInput.value.trim();
    remember("name", me);
    const seats = [{ name: me || "Player 1" }];
    const n = st.mode === "solo" ? 1 : st.count;
    for (let i = 1; i < n; i++) {
      if (st.mode === "bots") seats.push({ bot: st.bots[i - 1] });
      else if (st.mode === "hotseat") seats.push({ name: st.names[i].trim() || `Player ${i + 1}` });
      else seats.push(st.online[i - 1] === "human" ? {} : { bot: st.online[i - 1] });
    }
    const options = {};
    for (const [k, v] of Object.entries(st.options)) {
      if (k in (g.options || {})) options[k] = JSON.parse(v);
    }
    const req = { game: g.game, mode: st.mode, options, seats };
    if (st.mode === "online" && st.clock) req.turn_clock = Number(st.clock);
    const btn = form.querySelector("#create-btn");
    btn.disabled = true;
    try {
      const res = await createRoom(req);
      const id = res.room.room;
      saveTokens(id, { tokens: res.tokens, host: res.host_token, name: me });
      navigate(`/r/${id}`);
    } catch (err) {
      toast(`Cannot create the room: ${err.message}`);
      btn.disabled = false;
    }
  }

  draw();
  form.append(h("h2", {}, "New game"), body);

  const codeInput = h("input", { id: "join-code", maxlength: "60", placeholder: "room code or link", autocomplete: "off" });
  const join = h("form", { class: "panel join", onsubmit: async (ev) => {
    ev.preventDefault();
    const raw = codeInput.value.trim();
    const m = raw.match(/([a-z0-9]{8})\/?$/i);
    if (!m) { toast("A room code is 8 letters and digits."); return; }
    const id = m[1].toLowerCase();
    try { await getRoom(id); navigate(`/r/${id}`); } catch (err) { toast(`No such room: ${err.message}`); }
  } }, h("h2", {}, "Join a room"), h("label", { class: "row" }, "Code ", codeInput),
  h("div", { class: "buttons" }, h("button", { class: "btn", type: "submit", id: "join-btn" }, "Join")));

  const file = h("input", { type: "file", id: "record-file", accept: ".json,application/json", onchange: (ev) => {
    const f = ev.target.files[0];
    if (f) navigate("#/replay-file", { file: f });
  } });
  const replay = h("section", { class: "panel" }, h("h2", {}, "Watch a record"),
    h("p", { class: "muted" }, "Upload a game record (.json) to replay it step by step."),
    h("label", { class: "row file" }, "Record file ", file));

  const paper = h("section", { class: "panel", id: "score-panel" }, h("h2", {}, "Score a paper game"),
    h("p", { class: "muted" }, "Played with the box? Redraw your sheet by clicking and get it checked and scored."),
    h("div", { class: "buttons" }, games.map((g) => h("a", { class: "btn", href: `/#/score/${g.game}`, "data-game": g.game,
      onclick: (ev) => { ev.preventDefault(); navigate(`#/score/${g.game}`); } }, g.title))));

  const learn = h("section", { class: "panel", id: "learn-panel" }, h("h2", {}, "Learn to play"),
    h("p", { class: "muted" }, "A guided first game on a fixed deal, one idea at a time, or the rules."),
    RULES_GAMES.map(([game, title]) => h("div", { class: "buttons", "data-game": game },
      h("a", { class: "btn", href: `/#/learn/${game}`, "data-testid": `learn-${game}`,
        onclick: (ev) => { ev.preventDefault(); navigate(`#/learn/${game}`); } }, title),
      h("a", { class: "btn small", href: `/#/rules/${game}`, "data-testid": `rules-${game}`,
        onclick: (ev) => { ev.preventDefault(); navigate(`#/rules/${game}`); } }, "Rules"))));

  const recentPanel = yourGames(navigate, Object.fromEntries(games.map((g) => [g.game, g.title])));

  clear(root).append(h("div", { class: "home" },
    h("div", { class: "home-main" }, dailyPanel(navigate), form),
    h("div", { class: "home-side" }, accountPanel(navigate, () => renderHome(root, navigate)), learn, recentPanel, join, replay, paper)));
}

/** "Your games": the rooms this browser holds a seat in, those where it is your turn first
 *  (the list of a turn-based player); each row says the game, the state and whose turn it is. */
function yourGames(navigate, titles) {
  const ids = knownRooms().slice(0, 12);
  if (!ids.length) return null;
  const list = h("ul", { class: "recent your-games", "data-testid": "your-games" });
  const panel = h("section", { class: "panel" }, h("h2", {}, "Your games"), list);
  const open = (id) => (ev) => { ev.preventDefault(); navigate(`/r/${id}`); };
  Promise.all(ids.map(async (id) => {
    const tokens = loadTokens(id).tokens;
    const seats = Object.keys(tokens).map(Number);
    try {
      const v = await getView(id, tokens[seats[0]] || null);
      const mine = seats.filter((s) => (v.to_move || []).includes(s));
      return { id, v, yours: v.status === "playing" && mine.length > 0 };
    } catch { return null; }
  })).then((rows) => {
    const known = rows.filter(Boolean).sort((a, b) => Number(b.yours) - Number(a.yours) || (a.v.status === "finished") - (b.v.status === "finished"));
    for (const { id, v, yours } of known) {
      const state = v.status === "finished" ? "finished" : v.status === "waiting" ? "waiting for players" : yours ? "your turn" : "their turn";
      list.append(h("li", { class: yours ? "your-turn" : "", "data-room": id },
        h("a", { href: `/r/${id}`, onclick: open(id) }, `${titles[v.game] || v.game} · ${id}`), " ",
        h("span", { class: yours ? "tag turn" : "tag" }, state)));
    }
    if (!known.length) list.append(h("li", { class: "muted" }, "No game to show."));
  });
  return panel;
}
