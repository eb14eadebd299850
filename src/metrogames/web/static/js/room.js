// A room: the lobby while it waits, the table while it plays, the results at the end.

import { h, clear, toast, fmtName, gameTitle, presetText, optionValue, botLevel, bandRange, bandPhrase, withRule } from "./dom.js";
import { t, fmtNumber, currentLang } from "./i18n.js";
import * as API from "./api.js";
import { familyOf } from "./families.js";
import { lobbyRatings } from "./account.js";
import { inviteBox } from "./friends.js";
import { analysable, analysisPanel } from "./analysis.js";
import { ChatPanel } from "./chat.js";
import { rulesLink } from "./rules.js";
import { showSpectators } from "./watch.js";

const PACE_MS = () => {
  try { const v = localStorage.getItem("metrogames.pace"); return v === null ? 350 : Number(v); } catch { return 350; }
};

// opts (all optional; the daily challenge uses them): tokens() -> {seat: token} instead of
// the room's stored seat tokens; header() -> nodes added to the header; endPanel(view,
// finalSheets) -> the panel shown at the end instead of the default one.
export class RoomScreen {
  constructor(root, room, navigate, opts = {}) {
    this.root = root;
    this.room = room;
    this.navigate = navigate;
    this.opts = opts;
    this.view = null;
    this.queue = [];
    this.pumping = false;
    this.screen = null;
    this.closed = false;
    this.seenRound = 0;
    this.start();
  }

  destroy() {
    this.closed = true;
    if (this.socket) this.socket.close();
    clearInterval(this.clockTimer);
    clearInterval(this.pollTimer);
  }

  // A new language: the same room drawn again in it (the view is kept; a move being built
  // on the board starts over).
  relang() {
    if (!this.el) return;
    this.baseTitle = null; // the page's title in the new language (app.js)
    // the socket reconnects, so the server's messages on it follow the new cookie `lang`
    if (this.socket && this.socket.ws) this.socket.ws.close();
    this.renderHeader();
    if (this.chat) {
      const chat = new ChatPanel(this.room, () => this.tokenFor(this.seat));
      this.chat.el.replaceWith(chat.el);
      this.chat = chat;
    }
    if (this.summary.status === "waiting") this.renderLobby();
    const v = this.view;
    if (v && this.screen) {
      this.screen = null;
      this.analysisEl = null;
      this.view = null;
      this.display(v);
    }
  }

  get stored() {
    if (this.opts.tokens) return { tokens: this.opts.tokens(), host: null, name: "" };
    return API.loadTokens(this.room);
  }

  mySeats() { return Object.keys(this.stored.tokens).map(Number).sort((a, b) => a - b); }

  tokenFor(seat) { return seat === null || seat === undefined ? null : this.stored.tokens[String(seat)] || null; }

  async start() {
    clear(this.root).append(h("p", { class: "muted" }, t("room.loading")));
    try {
      this.summary = await API.getRoom(this.room);
      this.board = await API.getRoomBoard(this.room, this.summary.game);
    } catch (err) {
      clear(this.root).append(h("div", { class: "panel" }, h("h2", {}, t("room.not-found")),
        h("p", {}, err.message), h("a", { href: "/#/", class: "btn" }, t("common.home"))));
      return;
    }
    await this.reclaimSeats();
    this.seat = this.mySeats()[0] ?? null;
    this.frame();
    this.socket = new API.RoomSocket(this.room, this.tokenFor(this.seat), {
      onView: (v) => this.onView(v),
      onError: (e) => this.onError(e),
      onStatus: (st) => {
        if (st === "connected" && this.connState === "reconnecting" && this.chat) this.chat.load();
        this.connState = st; this.renderHeader();
      },
      onChat: (m) => { if (this.chat) this.chat.add(m); },
    });
    if (this.summary.status === "waiting") this.renderLobby();
    this.pollTimer = setInterval(() => this.poll(), 4000);
    this.clockTimer = setInterval(() => this.tickClock(), 250);
  }

  // A seat this browser holds that is now played by a bot (we left): take it back.
  async reclaimSeats() {
    if (this.summary.status !== "playing") return;
    for (const seat of this.mySeats()) {
      const s = this.summary.seats[seat];
      if (s && s.kind === "bot") {
        try {
          this.summary = await API.reclaimSeat(this.room, seat, this.tokenFor(seat));
          toast(t("room.welcome-back", { n: seat + 1 }), "info");
        } catch (err) { toast(t("room.cannot-reclaim", { n: seat + 1, error: err.message })); }
      }
    }
  }

  async poll() {
    if (this.closed) return;
    try {
      const sum = await API.getRoom(this.room);
      const changed = JSON.stringify(sum) !== JSON.stringify(this.summary);
      this.summary = sum;
      if (sum.status === "waiting" && changed) this.renderLobby();
      else if (sum.status === "waiting" && this.ratingsBox) this.ratingsBox.refresh();  // a seat tied to an account since
      if (changed) this.renderHeader();
    } catch { /* the next poll will catch up */ }
  }

  frame() {
    this.el = {
      header: h("header", { class: "room-header" }),
      notice: h("div", { class: "notices" }),
      body: h("div", { class: "room-body" }),
    };
    clear(this.root).append(this.el.header, this.el.notice, this.el.body);
    if (this.summary.mode === "online") {
      this.chat = new ChatPanel(this.room, () => this.tokenFor(this.seat));
      this.root.append(this.chat.el);
    }
    this.renderHeader();
  }

  renderHeader() {
    if (!this.el) return;
    const sum = this.summary;
    const el = clear(this.el.header);
    const title = this.board && this.board.game !== sum.game && this.board.title ? this.board.title : gameTitle(sum.game); // a custom map's own title
    const modes = { solo: t("mode.solo"), bots: t("mode.bots"), hotseat: t("mode.hotseat"), online: t("mode.online"), daily: t("header.daily") };
    el.append(h("h2", {}, title),
      h("span", { class: "room-code", title: t("room.code.title") }, t("room.code"), " ", h("code", { "data-testid": "room-code" }, this.room)),
      h("span", { class: "mode tag" }, modes[sum.mode] || sum.mode),
      sum.preset ? h("span", { class: "tag", "data-testid": "preset", title: t("home.rules") }, presetText(sum.preset.name, sum.preset).title) : "",
      h("span", { class: "clock-wrap" }, clockIcon(), h("span", { class: "clock", id: "clock", "aria-live": "off" })),
      this.connState === "reconnecting" ? h("span", { class: "tag warn" }, t("room.reconnecting")) : "",
      sum.mode === "online" ? h("span", { class: "tag", "data-testid": "spectators", hidden: true }) : "",
      rulesLink(sum.game) || "",
      this.opts.header ? this.opts.header() : "");
    this.showSpectators();
    if (sum.mode === "online") {
      const link = `${location.origin}/r/${this.room}`;
      el.append(h("button", { class: "btn small", onclick: () => copy(link) }, t("room.copy-link")));
    }
    this.tickClock();
  }

  showSpectators() { if (this.el) showSpectators(this.el.header.querySelector("[data-testid=spectators]"), this.view, this.summary); }

  tickClock() {
    const el = this.root.querySelector("#clock");
    if (!el) return;
    const v = this.view;
    if (!v || !v.clock || !v.clock.deadline || v.status !== "playing") { el.textContent = ""; return; }
    const left = Math.max(0, Math.ceil(v.clock.deadline - Date.now() / 1000));
    el.textContent = clockText(left);
    el.setAttribute("aria-label", t("room.clock-left", { time: clockText(left) }));
    el.classList.toggle("urgent", left <= 10);
  }

  // -- lobby -----------------------------------------------------------------------------
  renderLobby() {
    const sum = this.summary;
    // once the table is drawn the lobby never returns: a room summary asked for before the
    // start (the waiting view's, a poll's, a join's) may answer after the started view
    if (sum.status !== "waiting" || this.screen) return;
    const mine = new Set(this.mySeats());
    const host = this.stored.host;
    const link = `${location.origin}/r/${this.room}`;
    if (this.joinName === undefined) this.joinName = localStorage.getItem("metrogames.name") || "";
    const nameInput = h("input", { id: "join-name", maxlength: "24", placeholder: t("common.your-name"), value: this.joinName, oninput: (ev) => { this.joinName = ev.target.value; } });
    const hadFocus = document.activeElement && document.activeElement.id === "join-name";
    const rows = sum.seats.map((s) => {
      let state;
      if (s.kind === "bot") state = h("span", { class: "tag" }, s.bot ? botLevel(s.bot) : t("common.bot"));
      else if (mine.has(s.seat)) state = h("strong", {}, t("common.you"));
      else if (s.claimed) state = h("span", {}, t("room.seat-taken"));
      else if (!mine.size) state = h("button", { class: "btn small primary", "data-join": s.seat, onclick: () => this.join(s.seat, API.signedIn() ? API.signedIn().name : nameInput.value) }, t("room.take-seat"));
      else state = h("span", { class: "muted" }, t("room.waiting-player"));
      return h("li", { class: "lobby-seat", "data-seat": s.seat }, h("span", { class: "seatno" }, t("room.seat", { n: s.seat + 1 })),
        h("span", { class: "pname" }, s.kind === "bot" ? fmtName(s.name) : s.name || "—"), state);
    });
    const open = sum.seats.filter((s) => s.kind === "human" && !s.claimed).length;
    const panel = h("section", { class: "panel lobby" },
      h("h2", {}, t("room.lobby.title")),
      h("p", {}, t("room.lobby.share"), " ", h("code", {}, this.room)),
      h("div", { class: "share" }, h("input", { readonly: true, value: link, id: "share-link", onfocus: (ev) => ev.target.select() }),
        h("button", { class: "btn small", onclick: () => copy(link) }, t("common.copy"))),
      lobbyFacts(sum),
      !mine.size && open ? (API.signedIn() ? h("p", { class: "row", "data-testid": "playing-as" }, t("common.playing-as", { name: API.signedIn().name }))
        : h("label", { class: "row" }, t("common.your-name"), " ", withRule(nameInput, "join-name-rule", t("common.name-rule-optional")))) : null,
      h("ul", { class: "lobby-seats" }, rows),
      !mine.size && !open ? h("p", { class: "notice", "data-testid": "room-full" }, t("room.full")) : null,
      host ? h("div", { class: "buttons" }, h("button", {
        class: "btn primary big", id: "start-btn", disabled: open > 0, onclick: () => this.startGame(),
      }, open ? t("room.waiting-for", { n: open }) : t("home.start-game"))) : h("p", { class: "muted" }, t("room.host-starts")));
    if (host && sum.mode === "online") panel.append(inviteBox(this.room, host, sum.seats.filter((s) => s.kind === "human" && !s.claimed).map((s) => s.seat)) || "");
    this.ratingsBox = sum.mode === "online" ? lobbyRatings(this.room, sum.seats, [...mine], (seat) => this.tokenFor(seat)) : null;
    if (this.ratingsBox) panel.append(this.ratingsBox);
    clear(this.el.body).append(panel);
    if (hadFocus) nameInput.focus();
  }

  async join(seat, name) {
    try {
      const res = await API.joinRoom(this.room, seat, (name || "").trim() || undefined);
      API.saveTokens(this.room, { tokens: { [seat]: res.token }, name });
      try { if (name && !API.signedIn()) localStorage.setItem("metrogames.name", name.trim()); } catch { /* ignore */ }
      this.seat = seat;
      this.socket.setToken(res.token);
      if (this.chat) this.chat.refresh();
      this.summary = await API.getRoom(this.room);
      this.renderLobby();
    } catch (err) { toast(t("room.cannot-take", { n: seat + 1, error: err.message })); }
  }

  // The started game's first view comes on the socket, as every view does.
  async startGame() {
    try {
      this.summary = await API.startRoom(this.room, this.stored.host);
    } catch (err) { toast(t("common.cannot-start", { error: err.message })); }
  }

  // -- views -----------------------------------------------------------------------------
  onError(e) {
    toast(e.error || t("room.refused"));
  }

  onView(v) {
    if (this.closed) return;
    this.queue.push(v);
    this.pump();
  }

  // The views in the order the socket brought them, each shown once (an older position than
  // the one shown is skipped). Hot-seat: a view of a seat other than the one to move next makes
  // the socket speak for that seat; its view follows.
  async pump() {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length) {
        const v = this.queue.shift();
        const cur = this.view;
        if (cur && v.step < cur.step) continue;
        const wanted = this.wantedSeat(v);
        if (wanted !== v.you && this.tokenFor(wanted)) {
          this.socket.setToken(this.tokenFor(wanted));
          continue;
        }
        const paced = cur && v.step > cur.step && familyOf(v).paced(v);
        this.display(v);
        if (paced && this.queue.length) await sleep(PACE_MS());
        else if (paced) await sleep(Math.min(PACE_MS(), 150));
      }
    } finally {
      this.pumping = false;
    }
  }

  // The seat this browser shows: its one seat, or (hot-seat) the first of its seats to move.
  wantedSeat(v) {
    const mine = this.mySeats();
    if (mine.length <= 1) return mine.length ? mine[0] : null;
    const toMove = (v.to_move || []).filter((s) => mine.includes(s));
    if (toMove.length) return toMove[0];
    return v.you ?? mine[0];
  }

  display(v) {
    const prev = this.view;
    this.view = v;
    this.seat = v.you;
    document.body.dataset.step = String(v.step);
    document.body.dataset.status = v.status;
    this.showSpectators();
    if (v.status === "waiting") {
      this.summary.seats = this.summary.seats.map((s) => ({ ...s, ...(v.seats[s.seat] || {}) }));
      API.getRoom(this.room).then((sum) => { this.summary = sum; this.renderLobby(); }).catch(() => {});
      return;
    }
    if (!this.screen) {
      clear(this.el.body);
      this.el.table = h("div", { class: "table" });
      this.el.extra = h("div", { class: "extra" });
      this.el.moves = h("details", { class: "panel moves", "data-testid": "moves", ontoggle: () => this.renderMoves() },
        h("summary", {}, t("room.move-log")), h("ol", { class: "move-log" }));
      this.el.body.append(this.el.extra, this.el.table, this.el.moves);
      const ctx = { act: (a, step) => this.act(a, step), interactive: true, online: this.summary.mode === "online" };
      this.screen = new (familyOf(v).Screen)(this.el.table, this.board, ctx);
      // on a phone the table opens scrolled to the board: the whole map above the turn's dock
      if (window.matchMedia("(max-width: 600px)").matches) requestAnimationFrame(() => this.el.table.scrollIntoView({ block: "start" }));
    }
    if (v.status === "finished") clear(this.el.notice); // no hand-over once the game is over
    else if (prev && prev.you !== v.you && prev.you !== null && this.mySeats().length > 1) {
      const name = fmtName((v.seats[v.you] || {}).name);
      if (familyOf(v).concealed(v)) {
        // hot-seat with held tiles: hide them until the next player is at the screen
        this.el.table.classList.add("concealed");
        const node = h("div", { class: "notice handover" }, t("room.pass-device", { name }), " ",
          h("button", { class: "btn small", id: "reveal-btn", onclick: () => { this.el.table.classList.remove("concealed"); node.remove(); } }, t("room.reveal", { name })));
        clear(this.el.notice).append(node);
      } else {
        this.showNotice(h("div", { class: "notice handover" }, t("room.now-playing", { name })));
      }
    }
    this.announceTurn(prev, v);
    this.screen.update(v);
    this.renderMoves();
    this.renderExtra(v);
    this.renderHeader();
    this.renderTimeout(v);
  }

  // The turn clock ran out for this seat: say what the server played for it, until it acts.
  renderTimeout(v) {
    const old = this.el.notice.querySelector("[data-testid=timeout-notice]");
    const told = v.status === "playing" ? v.timed_out : null;
    if (old && (!told || old.dataset.step !== String(told.step))) old.remove();
    if (!told || (old && old.isConnected)) return;
    const what = familyOf(v).timeoutText();
    this.el.notice.append(h("div", { class: "notice timeout", role: "alert", "data-testid": "timeout-notice", "data-step": String(told.step) }, what));
  }

  // "Your turn": in the tab's title while it is, and a notice when it becomes so (for a
  // turn-based game left open in a background tab).
  announceTurn(prev, v) {
    const mine = new Set(this.mySeats());
    const yours = v.status === "playing" && (v.to_move || []).some((s) => mine.has(s));
    const base = this.baseTitle || (this.baseTitle = document.title);
    document.title = yours ? t("room.your-turn-title", { title: base }) : base;
    const was = prev && prev.status === "playing" && (prev.to_move || []).some((s) => mine.has(s));
    if (yours && !was && prev && this.summary.mode === "online") {
      this.showNotice(h("div", { class: "notice your-turn", "data-testid": "your-turn" }, t("room.your-turn")));
    }
  }

  // The move log, while its panel is open: every step as this seat may know it.
  async renderMoves() {
    const panel = this.el.moves;
    if (!panel || !panel.open) return;
    const ticket = (this.movesTicket = (this.movesTicket || 0) + 1);
    let moves;
    try { ({ moves } = await API.getMoves(this.room, this.tokenFor(this.seat))); } catch { return; }
    if (ticket !== this.movesTicket) return; // a newer request is on its way
    const seats = (this.view && this.view.seats) || [];
    const family = familyOf(this.view);
    const list = clear(panel.querySelector(".move-log"));
    for (const m of moves) {
      const who = m.player === null ? h("span", { class: "muted" }, t("room.log.chance")) : fmtName((seats[m.player] || {}).name || t("room.seat", { n: m.player + 1 }));
      // a flipped card in words, a Metro tile as its picture
      const move = m.player === null ? family.chanceText(this.board, m.move) : family.moveText(this.board, m.move);
      list.append(h("li", { value: m.step }, who, ": ", m.move === "?" ? h("span", { class: "muted", title: t("room.log.hidden.title") }, t("room.log.hidden")) : h("code", {}, move)));
    }
    list.scrollTop = list.scrollHeight;
  }

  showNotice(node) {
    clear(this.el.notice).append(node);
    setTimeout(() => { if (node.isConnected) node.remove(); }, 3000);
  }

  // A move of the seat shown, on the room's socket (docs/web-api.md, "Playing"): the view
  // after it comes as every view does; a refusal is said and thrown (the screen starts the
  // move over). Hot-seat: refused here while the socket passes to another seat.
  async act(action, step) {
    const token = this.tokenFor(this.view.you);
    try {
      if (!token || token !== this.socket.token) throw new API.ApiError(409, t("room.seat-changing"), "not-your-turn");
      return await this.socket.act(action, step);
    } catch (err) {
      toast(err.message);
      throw err;
    }
  }

  // Round results, end of game, host controls.
  renderExtra(v) {
    const el = clear(this.el.extra);
    const round = familyOf(v).roundResult(this.board, v, this.dismissed || 0, (r) => { this.dismissed = r; this.renderExtra(this.view); });
    if (v.status === "finished") {
      el.append(this.endPanel(v));
      if (analysable(v) && this.summary.day_open) {
        // a ranked daily game: the server shows its analysis once the day has closed
        el.append(h("section", { class: "panel analysis", "data-testid": "analysis-later" },
          h("h3", {}, t("analysis.title")), h("p", { class: "muted" }, t("analysis.day-open"))));
      } else if (analysable(v)) {
        this.analysisEl = this.analysisEl || analysisPanel(this.board, () => API.getAnalysis(this.room));
        el.append(this.analysisEl);
      }
    } else if (round) {
      el.append(round);
    }
    const coach = this.coachPanel(v);
    if (coach) el.append(coach);
    const hostControls = this.hostControls(v);
    if (hostControls) el.append(hostControls);
  }

  // The coach: on this seat's turn, a Hint button asking the server for the best three moves
  // (its seat's view only) and the estimate of the move being built, if any. The server
  // refuses hints in a ranked daily game (`ranked-game`; the summary's `day_open`): the panel
  // says so instead of offering the button.
  coachPanel(v) {
    if (v.status !== "playing" || v.you === null || v.you === undefined || !(v.legal || []).length) return null;
    const panel = h("section", { class: "panel coach", "data-testid": "coach", "aria-live": "polite" });
    const off = this.summary.day_open ? t("coach.ranked") : this.hintsOff;  // the server would refuse
    if (off) {
      panel.append(h("p", { class: "muted", "data-testid": "hints-off" }, off));
      return panel;
    }
    const hint = this.hint && this.hint.step === v.step && this.hint.seat === v.you ? this.hint : null;
    const busy = !!(hint && hint.busy);
    panel.append(h("div", { class: "panel-head" }, h("h3", {}, t("coach.title")),
      h("button", { class: "btn small", id: "hint-btn", disabled: busy, onclick: () => this.askHint() }, busy ? t("coach.thinking") : t("coach.hint"))));
    if (hint && hint.data) panel.append(hintList(hint.data, v.seats.length, (text) => familyOf(v).moveText(this.board, text)));
    return panel;
  }

  async askHint() {
    const v = this.view;
    const seat = v.you;
    const pending = this.screen && this.screen.pendingAction ? this.screen.pendingAction() : null;
    this.hint = { step: v.step, seat, busy: true };
    this.renderExtra(v);
    let shown = false;
    try {
      const data = await API.getHint(this.room, v.step, pending, this.tokenFor(seat));
      if (this.hint && this.hint.step === data.step && this.hint.seat === seat) {
        this.hint = { step: data.step, seat, data };
        if (this.screen && this.screen.showHints) this.screen.showHints({ step: data.step, moves: data.moves });
        shown = true;
      }
    } catch (err) {
      this.hint = null;
      if (err.reason === "ranked-game") this.hintsOff = t("coach.ranked");
      else if (err.reason !== "stale-step") toast(err.message);
    }
    if (this.view) this.renderExtra(this.view);
    if (shown) requestAnimationFrame(showBestHint); // once the panels have their new size
  }

  endPanel(v) {
    const winners = (v.winners || []).map((s) => fmtName((v.seats[s] || {}).name));
    const title = v.seats.length === 1 ? t("end.solo", { n: (v.scores || [])[0] })
      : winners.length ? t("end.winners", { n: winners.length, names: new Intl.ListFormat(currentLang()).format(winners) }) : t("end.over");
    const head = h("div", { class: "panel-head" }, h("h2", { "data-testid": "game-over" }, title));
    const buttons = h("div", { class: "buttons" },
      h("button", { class: "btn primary", id: "replay-btn", onclick: () => this.navigate(`#/replay/${this.room}`) }, t("end.replay")),
      h("button", { class: "btn", id: "download-btn", onclick: () => downloadRecord(this.room) }, t("end.download")),
      h("a", { class: "btn", href: "/#/" }, t("home.new-game")));
    const details = familyOf(v).endDetails(this.board, v);
    if (this.opts.endPanel) return this.opts.endPanel(v, details);
    return h("section", { class: "panel end" }, head, soloResult(v.solo), details, buttons);
  }

  hostControls(v) {
    const host = this.stored.host;
    if (this.summary.mode !== "online" || v.status !== "playing") return null;
    const mine = new Set(this.mySeats());
    const items = [];
    for (const s of v.seats) {
      if (host && s.kind === "human" && !s.connected && !mine.has(s.seat)) {
        items.push(h("button", { class: "btn small", "data-bot-seat": s.seat, onclick: async () => {
          try { this.summary = await API.seatToBot(this.room, s.seat, "medium", host); toast(t("room.bot-plays", { n: s.seat + 1 }), "info"); } catch (err) { toast(err.message); }
        } }, t("room.left-bot", { name: fmtName(s.name) })));
      }
      if (mine.has(s.seat) && s.kind === "bot") {
        items.push(h("button", { class: "btn small primary", onclick: async () => {
          try { this.summary = await API.reclaimSeat(this.room, s.seat, this.tokenFor(s.seat)); } catch (err) { toast(err.message); }
        } }, t("room.take-back", { n: s.seat + 1 })));
      }
    }
    return items.length ? h("div", { class: "panel host-controls" }, ...items) : null;
  }
}

// The best hint's marker on the board, scrolled to the middle of the screen when it is off
// it or under the pinned turn dock (a phone).
function showBestHint() {
  const badge = document.querySelector(".hint-badge");
  if (!badge) return;
  const r = badge.getBoundingClientRect();
  const dock = document.querySelector(".turn-dock");
  const pinned = dock && getComputedStyle(dock).position === "sticky" ? dock.getBoundingClientRect().height : 0;
  if (r.top < 0 || r.bottom > innerHeight - pinned) badge.scrollIntoView({ block: "center" });
}

// The coach's answer: the moves best first with the game's figure (expected final score, or
// the win probability in Metro), the other figure after it when several play, then the move
// being built; `moveText` shows a move's notation (the family's: families.js).
function hintList(data, players, moveText) {
  const figures = (m) => {
    const points = t("coach.points", { score: fmtNumber(m.score, 1) });
    const win = t("coach.win", { pct: Math.round(100 * m.win) });
    if (players < 2) return points;
    return data.figure === "win" ? `${win} (${points})` : `${points} (${win})`;
  };
  const item = (m, i) => h("li", { class: "hint-move", "data-hint": String(i) },
    h("code", { class: "hint-text" }, moveText(m.text)), " ", h("strong", {}, figures(m)));
  return h("div", { class: "hints" },
    h("p", { class: "muted small" }, data.figure === "win" ? t("coach.best-by-win") : t("coach.best-by-score")),
    h("ol", { class: "hint-list", "data-testid": "hint-list" }, data.moves.map(item)),
    data.about ? h("p", { class: "hint-about", "data-testid": "hint-about" }, t("coach.your-move"), " ", h("code", {}, moveText(data.about.text)), ": ", h("strong", {}, figures(data.about))) : "");
}

// Save the record file exactly as the server wrote it (or `text`, an uploaded record).
export async function downloadRecord(room, text = null) {
  try {
    const body = text ?? await API.getRecordText(room);
    let game = "game";
    try { game = JSON.parse(body).game || game; } catch { /* name only */ }
    const blob = new Blob([body], { type: "application/json" });
    const a = h("a", { href: URL.createObjectURL(blob), download: `${game}-${room || "record"}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 2000);
  } catch (err) { toast(t("end.cannot-download", { error: err.message })); }
}

function clockIcon() {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("width", "16");
  svg.setAttribute("height", "16");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "clock-icon");
  svg.innerHTML = '<circle cx="8" cy="9" r="6" fill="none" stroke="currentColor" stroke-width="2"/><path d="M8 5v4l3 2M6 1h4" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>';
  return svg;
}

function copy(text) {
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(() => toast(t("common.copied"), "info"), () => toast(text, "info"));
  } else toast(text, "info");
}

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

/** A finished solo game's rating band and percentile (`solo` of the view), or nothing. */
function soloResult(solo) {
  if (!solo) return null;
  const r = solo.rating;
  const parts = [];
  const adjusted = r && r.penalty ? ` ${t("end.solo-adjusted", { score: solo.score, penalty: r.penalty, adjusted: r.adjusted })}` : "";
  if (r) parts.push(h("span", {}, t("end.solo-rating"), " ", h("strong", {}, t("end.band", { band: r.band })), ` (${bandRange(r)})${adjusted}`, r.phrase ? h("em", {}, ` “${bandPhrase(r)}”`) : ""));
  if (solo.percentile != null) parts.push(h("span", {}, t("end.percentile", { pct: Math.round(solo.percentile), bot: fmtName(`bot:${solo.reference.bot}`) })));
  // a separator only between two figures: Paris prints no band, a game with modules no percentile
  const shown = parts.flatMap((part, i) => (i ? [" · ", part] : [part]));
  return parts.length ? h("p", { class: "solo-result", "data-testid": "solo-result" }, ...shown) : null;
}

/** The lobby's facts: the rule set, the options and the turn clock. */
function lobbyFacts(sum) {
  const shown = (v) => v === null || (Array.isArray(v) && !v.length) ? t("option.none") : Array.isArray(v) ? v.join(", ") : typeof v === "object" ? Object.entries(v).map(([k, x]) => `${k}: ${x}`).join(", ") : optionValue(String(v));
  const names = {
    objectives: t("option.objectives"), powers: t("option.powers"), turn_mode: t("option.turn_mode"),
    one_tile_routes: t("option.one_tile_routes"), colour_cycle: t("option.colour_cycle"), map: t("option.map"),
  };
  const value = (k, v) => (k === "map" && v && typeof v === "object" ? String(v.title || v.city || "") : shown(v)); // a map: its title
  const opts = Object.entries(sum.options || {}).map(([k, v]) => `${names[k] || k.replace(/_/g, " ")}: ${value(k, v)}`);
  const clock = turnClockText(sum.turn_clock);
  return h("dl", { class: "lobby-facts", "data-testid": "lobby-facts" },
    sum.preset ? [h("dt", {}, t("home.rules")), h("dd", {}, presetText(sum.preset.name, sum.preset).title)] : [],
    h("dt", {}, t("home.options")), h("dd", {}, opts.length ? opts.join(" · ") : t("room.defaults")),
    h("dt", {}, t("room.clock")), h("dd", {}, clock));
}

/** ``42 s``, ``12 min``, ``5 h 3 min``, ``2 d 4 h``: a clock's time left. */
/** A room's turn clock in words: "2 min per turn", "1 d per turn (turn-based)", "no turn clock". */
export function turnClockText(seconds) {
  if (!seconds) return t("room.clock.none");
  const per = clockText(seconds).replace(/ 0 (min|h)$/, "");
  return seconds >= 3600 ? t("room.clock.turn-based", { time: per }) : t("room.clock.per-turn", { time: per });
}

function clockText(left) {
  if (left < 120) return `${left} s`;
  if (left < 3600) return `${Math.floor(left / 60)} min`;
  if (left < 86400) return `${Math.floor(left / 3600)} h ${Math.floor((left % 3600) / 60)} min`;
  return `${Math.floor(left / 86400)} ${t("clock.day-unit")} ${Math.floor((left % 86400) / 3600)} h`;
}
