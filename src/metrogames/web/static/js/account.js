// Accounts (docs/web-api.md, "Accounts" and "Ratings"): the home page's sign-up / sign-in
// panel, the profile page (#/u/{account}: ratings, recent online games, finished ones with their replays,
// daily history) and the ratings shown in an online room's lobby. The session is an HttpOnly
// cookie: this page never sees it, it only asks the server who is signed in.

import { h, clear, toast, gameTitle } from "./dom.js";
import { t, fmtNumber } from "./i18n.js";
import * as API from "./api.js";

const titleOf = (game) => gameTitle(game);
export const profileHref = (id) => `#/u/${id}`;

function link(navigate, to, label, attrs = {}) {
  return h("a", { href: `/${to}`, ...attrs, onclick: (ev) => { ev.preventDefault(); navigate(to); } }, label);
}

// -- the home page's account panel -----------------------------------------------------------
export function accountPanel(navigate, onChange) {
  const section = h("section", { class: "panel account", id: "account", "aria-labelledby": "account-title" });
  const me = API.signedIn();
  if (me) {
    const guest = API.loadPlayer();
    section.append(h("h2", { id: "account-title" }, t("account.yours")),
      h("p", { "data-testid": "signed-in" }, t("account.signed-in-as"), " ", h("strong", {}, me.name), ". ",
        link(navigate, profileHref(me.account), t("account.profile"), { id: "profile-link" })),
      h("p", { class: "muted small" }, t("account.signed-in-help")));
    if (guest) {
      section.append(h("p", { class: "small" }, t("account.guest-held", { name: guest.name }), " ",
        h("button", { class: "btn small", type: "button", id: "claim-guest", onclick: async () => {
          try {
            await API.claimGuest();
            toast(t("account.claimed", { name: guest.name }), "info");
            onChange();
          } catch (err) { toast(t("account.cannot-claim", { error: err.message })); }
        } }, t("account.claim"))));
    }
    section.append(h("button", { class: "btn small", type: "button", id: "sign-out", onclick: async () => {
      try { await API.signOut(); onChange(); } catch (err) { toast(t("account.cannot-sign-out", { error: err.message })); }
    } }, t("account.sign-out")), exportsPanel(me), securityPanel());
    return section;
  }
  const name = h("input", { id: "account-name", maxlength: "64", autocomplete: "username", required: true, "aria-describedby": "name-rule" });
  const password = h("input", { id: "account-password", type: "password", minlength: "8", maxlength: "256", autocomplete: "current-password", required: true, "aria-describedby": "password-rule" });
  const errorLine = h("p", { class: "error", role: "alert", "data-testid": "account-error" });
  let busy = false; // one request at a time: a double click sends it once
  const submit = (how) => async (ev) => {
    ev.preventDefault();
    if (busy) return;
    if (!name.value.trim() || password.value.length < 8) {
      errorLine.textContent = t("account.need");
      return;
    }
    busy = true;
    for (const b of form.querySelectorAll("button")) b.disabled = true;
    try {
      if (how === "up") await API.signUp(name.value.trim(), password.value);
      else await API.signIn(name.value.trim(), password.value);
      onChange();
    } catch (err) {
      errorLine.textContent = err.reason === "bad-password" ? t("account.bad-password")
        : err.reason === "name-taken" ? t("account.name-taken")
        : err.message;
    } finally {
      busy = false;
      for (const b of form.querySelectorAll("button")) b.disabled = false;
    }
  };
  const form = h("form", { class: "account-form", onsubmit: submit("in") },
    h("label", { class: "row" }, t("common.name"), " ", h("span", { class: "field" }, name,
      h("span", { class: "muted small", id: "name-rule", "data-testid": "name-rule" }, t("account.name-rule")))),
    h("label", { class: "row" }, t("account.password"), " ", h("span", { class: "field" }, password,
      h("span", { class: "muted small", id: "password-rule", "data-testid": "password-rule" }, t("account.password-rule")))),
    errorLine,
    h("div", { class: "buttons" },
      h("button", { class: "btn primary", type: "submit", id: "sign-in" }, t("account.sign-in")),
      h("button", { class: "btn", type: "button", id: "sign-up", onclick: submit("up") }, t("account.sign-up"))));
  section.append(h("h2", { id: "account-title" }, t("account.sign-in")),
    h("p", { class: "muted small" }, t("account.guest-help")),
    form);
  return section;
}

// -- open data: the account's name or its pseudonym in the monthly exports (docs/exports.md) --
function exportsPanel(me) {
  const box = h("input", { id: "export-name", type: "checkbox", "aria-describedby": "export-name-help" });
  box.checked = Boolean(me.export_name);
  box.addEventListener("change", async () => {
    box.disabled = true;
    try {
      const saved = await API.setExportName(box.checked);
      box.checked = Boolean(saved.export_name);
      toast(t("account.export-name-saved"), "info");
    } catch (err) {
      box.checked = !box.checked;
      toast(t("account.cannot-save", { error: err.message }));
    } finally { box.disabled = false; }
  });
  return h("div", { class: "account-exports" },
    h("label", { class: "share-opt" }, box, " ", t("account.export-name")),
    h("p", { class: "muted small", id: "export-name-help" }, t("account.export-name-help")));
}

// -- password and sessions, signed in ---------------------------------------------------------
// Change the password (the other sessions end) or sign out the other browsers alone; each says
// how many sessions it ended.
function securityPanel() {
  const current = h("input", { id: "current-password", type: "password", maxlength: "256", autocomplete: "current-password", required: true });
  const fresh = h("input", { id: "new-password", type: "password", minlength: "8", maxlength: "256", autocomplete: "new-password", required: true, "aria-describedby": "new-password-rule" });
  const status = h("p", { class: "small", role: "status", "data-testid": "security-status" });
  const errorLine = h("p", { class: "error", role: "alert", "data-testid": "security-error" });
  const say = (ok, text) => { status.textContent = ok ? text : ""; errorLine.textContent = ok ? "" : text; };
  let busy = false;
  const run = async (form, call, done) => {
    if (busy) return;
    busy = true;
    for (const b of form.querySelectorAll("button")) b.disabled = true;
    try { done(await call()); } catch (err) { say(false, err.message); } finally {
      busy = false;
      for (const b of form.querySelectorAll("button")) b.disabled = false;
    }
  };
  const form = h("form", { class: "account-form", id: "password-form", novalidate: true, onsubmit: (ev) => {
    ev.preventDefault();
    if (!current.value || fresh.value.length < 8 || fresh.value.length > 256) {
      say(false, t("account.new-password-need"));
      return;
    }
    run(form, () => API.changePassword(current.value, fresh.value), (r) => {
      current.value = fresh.value = "";
      say(true, t("account.password-changed", { n: r.sessions_ended }));
    });
  } },
    h("h3", {}, t("account.security")),
    h("label", { class: "row" }, t("account.current-password"), " ", current),
    h("label", { class: "row" }, t("account.new-password"), " ", h("span", { class: "field" }, fresh,
      h("span", { class: "muted small", id: "new-password-rule" }, t("account.password-rule")))),
    h("div", { class: "buttons" },
      h("button", { class: "btn", type: "submit", id: "change-password" }, t("account.change-password")),
      h("button", { class: "btn", type: "button", id: "sign-out-others", onclick: () => {
        if (!window.confirm(t("account.sign-out-others-confirm"))) return;
        run(form, () => API.signOutOthers(), (r) => say(true, t("account.others-signed-out", { n: r.sessions_ended })));
      } }, t("account.sign-out-others"))),
    status, errorLine);
  return form;
}

// -- the profile page ------------------------------------------------------------------------
export class ProfileScreen {
  constructor(root, navigate, account) {
    this.root = root;
    this.navigate = navigate;
    this.account = account;
    this.render();
  }

  async render() {
    clear(this.root).append(h("p", { class: "muted" }, t("profile.loading")));
    let p;
    try {
      p = await API.getProfile(this.account);
    } catch (err) {
      clear(this.root).append(h("div", { class: "panel" }, h("h2", {}, t("profile.none")), h("p", {}, err.message),
        h("a", { class: "btn", href: "/#/" }, t("common.home"))));
      return;
    }
    document.title = `${p.name} — metrogames`;
    const ratings = p.ratings.length
      ? h("table", { class: "score-table", "data-testid": "ratings" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("col.game")), h("th", { class: "num", scope: "col" }, t("col.players")),
          h("th", { class: "num", scope: "col" }, t("col.rating")), h("th", { class: "num", scope: "col" }, t("col.games")))),
        h("tbody", {}, p.ratings.map((r) => h("tr", {}, h("td", {}, titleOf(r.game)), h("td", { class: "num" }, String(r.players)),
          h("td", { class: "num" }, h("strong", { title: `mu ${fmtNumber(r.mu, 2)}, sigma ${fmtNumber(r.sigma, 2)}` }, fmtNumber(r.rating, 1))),
          h("td", { class: "num" }, String(r.games))))))
      : h("p", { class: "muted" }, t("profile.no-rated"));
    const games = p.games.length
      ? h("ul", { class: "recent-games", "data-testid": "recent-games" }, p.games.map((g) => h("li", {},
        `${titleOf(g.game)}, ${t("profile.players", { n: g.players })} — `,
        g.status === "finished"
          ? link(this.navigate, `#/replay/${g.room}`, t("profile.replay"), { "data-replay": g.room })
          : link(this.navigate, `#/r/${g.room}`, g.status === "waiting" ? t("profile.lobby") : t("common.in-progress")),
        g.rated ? h("span", { class: "tag" }, t("profile.rated")) : "")))
      : h("p", { class: "muted" }, t("profile.no-online"));
    const finished = p.finished.length
      ? h("ul", { class: "recent-games", "data-testid": "finished-games" }, p.finished.map((g) => h("li", {},
        `${titleOf(g.game)}, ${t("profile.players", { n: g.players })} — `,
        link(this.navigate, `#/replay/${g.room}`, t("profile.replay"), { "data-replay": g.room }),
        g.rated ? h("span", { class: "tag" }, t("profile.rated")) : "")))
      : h("p", { class: "muted" }, t("profile.no-finished"));
    const days = p.daily.length
      ? h("table", { class: "score-table history", "data-testid": "profile-daily" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("col.day")), h("th", { scope: "col" }, t("col.game")),
          h("th", { class: "num", scope: "col" }, t("col.score")), h("th", { class: "num", scope: "col" }, t("col.rank")))),
        h("tbody", {}, p.daily.map((d) => h("tr", {},
          h("td", {}, link(this.navigate, `#/daily/${d.game}/${d.date}`, d.date)), h("td", {}, titleOf(d.game)),
          h("td", { class: "num" }, d.score === null ? h("span", { class: "muted" }, t("common.in-progress")) : String(d.score)),
          h("td", { class: "num" }, d.rank ? String(d.rank) : h("span", { class: "muted" }, d.ranked ? t("daily.not-shared") : t("daily.practice-word")))))))
      : h("p", { class: "muted" }, t("profile.no-daily"));
    clear(this.root).append(h("div", { class: "profile" },
      h("h2", { "data-testid": "profile-name" }, p.name),
      h("section", { class: "panel" }, h("h3", {}, t("profile.ratings")), ratings,
        h("p", { class: "muted small" }, t("profile.rating-help"))),
      h("section", { class: "panel" }, h("h3", {}, t("profile.recent")), games),
      h("section", { class: "panel" }, h("h3", {}, t("profile.finished")), finished),
      h("section", { class: "panel" }, h("h3", {}, t("header.daily")), days)));
  }
}

// -- the lobby's ratings ---------------------------------------------------------------------
// Shown under an online room's seats; a signed-in player's seat is tied to the account (so the
// game is rated) the first time the lobby shows it.
// The lobby's ratings box; `box.refresh()` fetches them again (the room's page calls it while
// the lobby waits: a player who joins signed in ties the seat to the account just after).
export function lobbyRatings(room, seats, mySeats, tokenFor) {
  const box = h("div", { class: "lobby-ratings", "data-testid": "lobby-ratings" }, h("p", { class: "muted small" }, t("ratings.loading")));
  const rating = (r) => h("span", { class: "rating" }, `${t("ratings.rating", { rating: fmtNumber(r.rating, 1) })} ${r.games === null ? t("ratings.fixed") : t("ratings.games", { n: r.games })}`);
  const show = (r) => {
    const rows = r.seats.map((s) => h("li", { "data-seat": s.seat },
      `${t("room.seat", { n: s.seat + 1 })}: `,
      s.account ? h("strong", {}, s.name)
        : h("span", { class: "muted" }, s.rating ? t("common.bot") : seats[s.seat].claimed ? t("ratings.guest") : t("ratings.open")),
      s.rating ? [" — ", rating(s.rating)] : s.account ? [" — ", h("span", { class: "muted" }, t("ratings.new"))] : ""));
    box.replaceChildren(h("h3", {}, t("ratings.title", { game: titleOf(r.game), n: r.players })), h("ul", {}, rows));
  };
  box.refresh = async () => {
    try { show(await API.getRoomRatings(room)); } catch { /* the next refresh tries again */ }
  };
  (async () => {
    try {
      let r = await API.getRoomRatings(room);
      const seat = mySeats[0]; // one rated seat per account
      if (API.signedIn() && seat !== undefined && !r.seats[seat].account && tokenFor(seat)) {
        r = await API.linkSeat(room, seat, tokenFor(seat));
      }
      show(r);
    } catch (err) {
      box.replaceChildren(h("p", { class: "muted small" }, t("ratings.none", { error: err.message })));
    }
  })();
  return box;
}
