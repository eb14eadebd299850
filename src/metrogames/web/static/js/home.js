// The home page: choose a game, a mode and options; create a room; join one by code;
// watch a record file; score a paper game.

import { h, clear, toast, gameTitle, botLabel, presetText, optionValue, withRule, fold } from "./dom.js";
import { rulesGames, gameBlurb } from "./games.js";
import { hasSheet } from "./score.js";
import { t } from "./i18n.js";
import { getGames, createRoom, saveTokens, knownRooms, getRoom, loadTokens, getView, signedIn } from "./api.js";
import { dailyPanel } from "./daily.js";
import { accountPanel } from "./account.js";
import { friendsPanel } from "./friends.js";

const MODES = () => [
  { id: "solo", label: t("mode.solo"), help: t("mode.solo.help") },
  { id: "bots", label: t("mode.bots"), help: t("mode.bots.help") },
  { id: "hotseat", label: t("mode.hotseat"), help: t("mode.hotseat.help") },
  { id: "online", label: t("mode.online"), help: t("mode.online.help") },
];

function remember(key, value) {
  try { localStorage.setItem(`metrogames.${key}`, value); } catch { /* ignore */ }
}
function recall(key, fallback) {
  try { return localStorage.getItem(`metrogames.${key}`) ?? fallback; } catch { return fallback; }
}

export async function renderHome(root, navigate) {
  clear(root).append(h("p", { class: "muted" }, t("common.loading")));
  let games;
  try {
    games = await getGames();
  } catch (err) {
    clear(root).append(h("p", { class: "error" }, t("common.no-server", { error: err.message })));
    return;
  }
  const st = {
    game: recall("game", null), // else the first game the server lists
    mode: recall("mode", "solo"),
    count: 2,
    bots: ["medium", "medium", "medium", "medium", "medium"],
    online: ["human", "human", "human", "human", "human"],
    names: ["", "", "", "", "", ""],
    options: {},
    clock: "",
    listed: recall("listed", "") === "1",
  };
  if (!games.find((g) => g.game === st.game)) st.game = games[0].game;
  const form = h("form", { class: "panel create", id: "create-form", onsubmit: (ev) => { ev.preventDefault(); create(); } });
  const body = h("div");
  const nameInput = h("input", { id: "your-name", name: "name", maxlength: "24", value: recall("name", ""), placeholder: t("common.your-name"), autocomplete: "nickname" });

  const game = () => games.find((g) => g.game === st.game);

  function modesFor(g) {
    return MODES().filter((m) => !(m.id === "solo" && g.players[0] > 1));
  }

  function draw() {
    const g = game();
    if (!modesFor(g).some((m) => m.id === st.mode)) st.mode = modesFor(g)[0].id;
    const [lo, hi] = g.players;
    const minCount = st.mode === "solo" ? 1 : Math.max(2, lo);
    st.count = Math.min(Math.max(st.count, minCount), hi);
    clear(body);
    body.append(
      h("fieldset", { class: "choices" }, h("legend", {}, t("home.game")),
        games.map((x) => h("label", { class: `choice game-choice${x.game === st.game ? " checked" : ""}` },
          h("input", { type: "radio", name: "game", value: x.game, checked: x.game === st.game, onchange: () => { st.game = x.game; remember("game", x.game); draw(); } }),
          h("span", { class: "choice-title" }, gameTitle(x.game)),
          h("span", { class: "choice-help" }, gameBlurb(x.game))))),
      h("fieldset", { class: "choices" }, h("legend", {}, t("home.mode")),
        modesFor(g).map((m) => h("label", { class: `choice${m.id === st.mode ? " checked" : ""}` },
          h("input", { type: "radio", name: "mode", value: m.id, checked: m.id === st.mode, onchange: () => { st.mode = m.id; remember("mode", m.id); draw(); } }),
          h("span", { class: "choice-title" }, m.label),
          h("span", { class: "choice-help" }, m.help)))),
    );
    const seats = h("fieldset", { class: "seats" }, h("legend", {}, t("home.players")));
    if (st.mode !== "solo") {
      const sel = h("select", { id: "player-count", onchange: (ev) => { st.count = Number(ev.target.value); draw(); } });
      for (let n = minCount; n <= hi; n++) sel.append(h("option", { value: n, selected: n === st.count }, String(n)));
      seats.append(h("label", { class: "row" }, t("home.player-count"), " ", sel));
    }
    const account = st.mode === "hotseat" ? null : signedIn();
    if (account) seats.append(h("p", { class: "row", "data-testid": "playing-as" }, t("common.playing-as", { name: account.name })));
    else seats.append(h("label", { class: "row" }, st.mode === "hotseat" ? t("home.player-n", { n: 1 }) : t("common.your-name"), " ", withRule(nameInput, "your-name-rule", t("common.name-rule-optional"))));
    for (let i = 1; i < (st.mode === "solo" ? 1 : st.count); i++) {
      if (st.mode === "bots") {
        seats.append(h("label", { class: "row" }, t("home.seat-bot", { n: i + 1 }), " ", botSelect(g, i - 1)));
      } else if (st.mode === "hotseat") {
        const input = h("input", {
          maxlength: "24", value: st.names[i], placeholder: t("home.player-n", { n: i + 1 }), "data-seat": i,
          oninput: (ev) => { st.names[i] = ev.target.value; },
        });
        seats.append(h("label", { class: "row" }, t("home.player-n", { n: i + 1 }), " ",
          withRule(input, `seat-name-rule-${i}`, t("common.name-rule-optional"))));
      } else if (st.mode === "online") {
        const sel = h("select", { "data-seat": i, onchange: (ev) => { st.online[i - 1] = ev.target.value; } },
          h("option", { value: "human", selected: st.online[i - 1] === "human" }, t("home.seat-human")),
          (g.bots || []).map((b) => h("option", { value: b, selected: st.online[i - 1] === b }, t("home.seat-bot-option", { bot: botLabel(g, b) }))));
        seats.append(h("label", { class: "row" }, t("home.seat-n", { n: i + 1 }), " ", sel));
      }
    }
    body.append(seats);
    body.append(optionsFieldset(g));
    if (st.mode === "online") {
      const clock = h("select", { id: "turn-clock", onchange: (ev) => { st.clock = ev.target.value; draw(); } },
        [["", t("clock.none")], ["30", t("clock.seconds", { n: 30 })], ["60", t("clock.minutes", { n: 1 })], ["120", t("clock.minutes", { n: 2 })], ["300", t("clock.minutes", { n: 5 })],
          ["3600", t("clock.hours-turn-based", { n: 1 })], ["86400", t("clock.days-turn-based", { n: 1 })], ["259200", t("clock.days-turn-based", { n: 3 })]].map(([v, l]) =>
          h("option", { value: v, selected: st.clock === v }, l)));
      body.append(h("fieldset", {}, h("legend", {}, t("home.turn-clock")), h("label", { class: "row" }, t("home.time-per-turn"), " ", clock),
        Number(st.clock) >= 3600 ? h("p", { class: "muted" }, t("home.turn-based-note")) : null));
      body.append(h("label", { class: "row" },
        h("input", { type: "checkbox", id: "listed", checked: st.listed, onchange: (ev) => { st.listed = ev.target.checked; remember("listed", st.listed ? "1" : ""); } }),
        " ", t("home.listed")), h("p", { class: "muted" }, t("home.listed.help")));
    }
    body.append(h("div", { class: "buttons" }, h("button", { class: "btn primary big", type: "submit", id: "create-btn" },
      st.mode === "online" ? t("home.create-room") : t("home.start-game"))));
  }

  function botSelect(g, i) {
    return h("select", { "data-bot": i, onchange: (ev) => { st.bots[i] = ev.target.value; } },
      (g.bots || ["medium", "easy"]).map((b) => h("option", { value: b, selected: st.bots[i] === b }, botLabel(g, b))));
  }

  function optionsFieldset(g) {
    const fs = h("fieldset", { class: "options" }, h("legend", {}, t("home.options")));
    const opts = g.options || {};
    const presets = Object.entries(g.presets || {});
    const pick = (key, choices, label, help) => {
      if (!(key in opts)) return;
      const current = key in st.options ? st.options[key] : JSON.stringify(opts[key].default ?? null);
      st.options[key] = current;
      const sel = h("select", { id: `opt-${key}`, onchange: (ev) => { st.options[key] = ev.target.value; if (presets.length) draw(); } },
        choices.map(([v, l]) => h("option", { value: JSON.stringify(v), selected: JSON.stringify(v) === current }, l)));
      fs.append(h("label", { class: "row", title: help || "" }, label, " ", sel));
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
      } }, [h("option", { value: "", selected: !name }, t("preset.custom")), ...presets.map(([n, p]) => h("option", { value: n, selected: n === name }, presetText(n, p).title))]);
      fs.append(h("label", { class: "row", title: t("preset.title") }, t("home.rules"), " ", sel),
        h("p", { class: "muted preset-note", "data-testid": "preset-note" }, chosen ? presetText(name, chosen).note : t("preset.custom.note")));
    }
    pick("objectives", [[[], t("option.none")], ["random", t("option.objectives.random")]], t("option.objectives"), t("option.objectives.help"));
    pick("powers", [[null, t("option.none")], ["random", t("option.powers.random")]], t("option.powers"), t("option.powers.help"));
    if (opts.turn_mode) pick("turn_mode", opts.turn_mode.values.map((v) => [v, optionValue(v)]), t("option.turn_mode"));
    if (opts.one_tile_routes) pick("one_tile_routes", opts.one_tile_routes.values.map((v) => [v, optionValue(v)]), t("option.one_tile_routes"));
    if (fs.children.length === 1) fs.append(h("p", { class: "muted" }, t("home.no-options")));
    return fs;
  }

  async function create() {
    const g = game();
    const account = st.mode === "hotseat" ? null : signedIn();
    const me = account ? account.name : nameInput.value.trim();
    if (!account) remember("name", me);
    const seats = [{ name: me || t("home.player-n", { n: 1 }) }];
    const n = st.mode === "solo" ? 1 : st.count;
    for (let i = 1; i < n; i++) {
      if (st.mode === "bots") seats.push({ bot: st.bots[i - 1] });
      else if (st.mode === "hotseat") seats.push({ name: st.names[i].trim() || t("home.player-n", { n: i + 1 }) });
      else seats.push(st.online[i - 1] === "human" ? {} : { bot: st.online[i - 1] });
    }
    const options = {};
    for (const [k, v] of Object.entries(st.options)) {
      if (k in (g.options || {})) options[k] = JSON.parse(v);
    }
    const req = { game: g.game, mode: st.mode, options, seats };
    if (st.mode === "online" && st.clock) req.turn_clock = Number(st.clock);
    if (st.mode === "online" && st.listed) req.listed = true;
    const btn = form.querySelector("#create-btn");
    btn.disabled = true;
    try {
      const res = await createRoom(req);
      const id = res.room.room;
      saveTokens(id, { tokens: res.tokens, host: res.host_token, name: me });
      navigate(`/r/${id}`);
    } catch (err) {
      toast(t("home.cannot-create", { error: err.message }));
      btn.disabled = false;
    }
  }

  draw();
  form.append(h("h2", {}, t("home.new-game")), body);

  const codeInput = h("input", { id: "join-code", maxlength: "60", placeholder: t("home.join.placeholder"), autocomplete: "off", "aria-describedby": "join-error" });
  const joinError = h("p", { class: "error", id: "join-error", role: "alert", "data-testid": "join-error" });
  const join = h("form", { class: "panel join", onsubmit: async (ev) => {
    ev.preventDefault();
    const raw = codeInput.value.trim();
    const m = raw.match(/(?:^|\/r\/)([a-z0-9]{8})\/?$/i);
    joinError.textContent = "";
    codeInput.removeAttribute("aria-invalid");
    const fail = (text) => { joinError.textContent = text; codeInput.setAttribute("aria-invalid", "true"); codeInput.focus(); };
    if (!raw) { fail(t("home.join.empty")); return; }
    if (!m) { fail(t("home.join.malformed", { code: raw.length > 40 ? `${raw.slice(0, 40)}…` : raw })); return; }
    const id = m[1].toLowerCase();
    try { await getRoom(id); navigate(`/r/${id}`); } catch (err) {
      fail(err.status === 404 ? t("home.join.unknown", { code: id }) : t("home.join.cannot", { error: err.message }));
    }
  } }, h("h2", {}, t("home.join.title")), h("label", { class: "row" }, t("home.join.code"), " ", codeInput), joinError,
  h("div", { class: "buttons" }, h("button", { class: "btn", type: "submit", id: "join-btn" }, t("home.join.button")),
    h("a", { class: "btn", href: "/#/lobby", "data-testid": "lobby-link", onclick: (ev) => { ev.preventDefault(); navigate("#/lobby"); } }, t("lobby.browse")),
    h("a", { class: "btn", href: "/#/watch", "data-testid": "watch-link", onclick: (ev) => { ev.preventDefault(); navigate("#/watch"); } }, t("watch.browse"))));

  const file = h("input", { type: "file", id: "record-file", accept: ".json,application/json", onchange: (ev) => {
    const f = ev.target.files[0];
    if (f) navigate("#/replay-file", { file: f });
  } });
  const replay = h("section", { class: "panel" }, h("h2", {}, t("home.record.title")),
    h("p", { class: "muted" }, t("home.record.help")),
    h("label", { class: "row file" }, t("home.record.file"), " ", file));

  const paper = h("section", { class: "panel", id: "score-panel" }, h("h2", {}, t("score.title")),
    h("p", { class: "muted" }, t("home.paper.help")),
    h("div", { class: "buttons" }, games.filter(hasSheet).map((g) => h("a", { class: "btn", href: `/#/score/${g.game}`, "data-game": g.game,
      onclick: (ev) => { ev.preventDefault(); navigate(`#/score/${g.game}`); } }, gameTitle(g.game)))));

  const learn = h("section", { class: "panel", id: "learn-panel" }, h("h2", {}, t("home.learn.title")),
    h("p", { class: "muted" }, t("home.learn.help")),
    rulesGames().map(([game, title]) => h("div", { class: "buttons", "data-game": game },
      h("a", { class: "btn", href: `/#/learn/${game}`, "data-testid": `learn-${game}`,
        onclick: (ev) => { ev.preventDefault(); navigate(`#/learn/${game}`); } }, title),
      h("a", { class: "btn small", href: `/#/rules/${game}`, "data-testid": `rules-${game}`,
        onclick: (ev) => { ev.preventDefault(); navigate(`#/rules/${game}`); } }, t("rules.link")))));

  const recentPanel = yourGames(navigate, Object.fromEntries(games.map((g) => [g.game, gameTitle(g.game)])));

  // the four ways to play, in the first screen (a phone's too): each opens its panel below
  const way = (id, title, help, go) => h("button", { type: "button", class: "way", "data-way": id, onclick: go },
    h("span", { class: "way-title" }, title), h("span", { class: "way-help" }, help));
  const openForm = (mode) => () => {
    const g = game();
    st.mode = modesFor(g).some((m) => m.id === mode) ? mode : modesFor(g)[0].id;
    remember("mode", st.mode);
    draw();
    form.scrollIntoView({ block: "start", behavior: "smooth" });
    nameInput.focus({ preventScroll: true });
  };
  const daily = dailyPanel(navigate);
  const ways = h("nav", { class: "home-ways", "aria-label": t("home.ways"), "data-testid": "home-ways" },
    way("solo", t("home.way.solo"), t("home.way.solo.help"), openForm("solo")),
    way("online", t("home.way.online"), t("home.way.online.help"), openForm("online")),
    way("play-now", t("home.way.play-now"), t("home.way.play-now.help"), () => navigate("#/play-now")),
    way("daily", t("home.way.daily"), t("home.way.daily.help"), () => daily.scrollIntoView({ block: "start", behavior: "smooth" })));

  clear(root).append(ways, h("div", { class: "home" },
    h("div", { class: "home-main" }, daily, form),
    h("div", { class: "home-side" }, fold(accountPanel(navigate, () => renderHome(root, navigate))), friendsPanel(navigate), fold(learn), recentPanel,
      fold(join), fold(replay), fold(paper))));
}

/** "Your games": the rooms this browser holds a seat in, those where it is your turn first
 *  (the list of a turn-based player); each row says the game, the state and whose turn it is. */
function yourGames(navigate, titles) {
  const ids = knownRooms().slice(0, 12);
  if (!ids.length) return null;
  const list = h("ul", { class: "recent your-games", "data-testid": "your-games" });
  const panel = h("section", { class: "panel" }, h("h2", {}, t("home.your-games")), list);
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
      const state = v.status === "finished" ? t("status.finished") : v.status === "waiting" ? t("status.waiting") : yours ? t("status.your-turn") : t("status.their-turn");
      list.append(h("li", { class: yours ? "your-turn" : "", "data-room": id },
        h("a", { href: `/r/${id}`, onclick: open(id) }, `${titles[v.game] || v.game} · ${id}`), " ",
        h("span", { class: yours ? "tag turn" : "tag" }, state)));
    }
    if (!known.length) list.append(h("li", { class: "muted" }, t("home.no-game")));
  });
  return panel;
}
