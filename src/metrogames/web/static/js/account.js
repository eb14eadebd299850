// Accounts (docs/web-api.md, "Accounts" and "Ratings"): the home page's sign-up / sign-in
// panel, the profile page (#/u/{account}: ratings, recent online games with their replays,
// daily history) and the ratings shown in an online room's lobby. The session is an HttpOnly
// cookie: this page never sees it, it only asks the server who is signed in.

import { h, clear, toast } from "./dom.js";
import * as API from "./api.js";

const GAME_TITLES = { london: "Next Station: London", paris: "Next Station: Paris", metro: "Metro" };
const titleOf = (game) => GAME_TITLES[game] || game;
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
    section.append(h("h2", { id: "account-title" }, "Your account"),
      h("p", { "data-testid": "signed-in" }, "Signed in as ", h("strong", {}, me.name), ". ",
        link(navigate, profileHref(me.account), "Your profile", { id: "profile-link" })),
      h("p", { class: "muted small" }, "Your daily games rank on the leaderboard (one ranked attempt a day), and your seats in online rooms are rated."));
    if (guest) {
      section.append(h("p", { class: "small" }, `This browser also holds the guest player “${guest.name}”. `,
        h("button", { class: "btn small", type: "button", id: "claim-guest", onclick: async () => {
          try {
            await API.claimGuest();
            toast(`${guest.name}'s daily history is now on your profile.`, "info");
            onChange();
          } catch (err) { toast(`Cannot claim it: ${err.message}`); }
        } }, "Add its history to my account")));
    }
    section.append(h("button", { class: "btn small", type: "button", id: "sign-out", onclick: async () => {
      try { await API.signOut(); onChange(); } catch (err) { toast(`Cannot sign out: ${err.message}`); }
    } }, "Sign out"));
    return section;
  }
  const name = h("input", { id: "account-name", maxlength: "64", autocomplete: "username", required: true });
  const password = h("input", { id: "account-password", type: "password", minlength: "8", maxlength: "256", autocomplete: "current-password", required: true });
  const errorLine = h("p", { class: "error", role: "alert", "data-testid": "account-error" });
  let busy = false; // one request at a time: a double click sends it once
  const submit = (how) => async (ev) => {
    ev.preventDefault();
    if (busy) return;
    if (!name.value.trim() || password.value.length < 8) {
      errorLine.textContent = "A name, and a password of at least 8 characters.";
      return;
    }
    busy = true;
    for (const b of form.querySelectorAll("button")) b.disabled = true;
    try {
      if (how === "up") await API.signUp(name.value.trim(), password.value);
      else await API.signIn(name.value.trim(), password.value);
      onChange();
    } catch (err) {
      errorLine.textContent = err.reason === "bad-password" ? "No account has this name and password."
        : err.reason === "name-taken" ? "This name is taken: choose another, or sign in."
        : err.message;
    } finally {
      busy = false;
      for (const b of form.querySelectorAll("button")) b.disabled = false;
    }
  };
  const form = h("form", { class: "account-form", onsubmit: submit("in") },
    h("label", { class: "row" }, "Name ", name),
    h("label", { class: "row" }, "Password ", password),
    errorLine,
    h("div", { class: "buttons" },
      h("button", { class: "btn primary", type: "submit", id: "sign-in" }, "Sign in"),
      h("button", { class: "btn", type: "button", id: "sign-up", onclick: submit("up") }, "Create an account")));
  section.append(h("h2", { id: "account-title" }, "Sign in"),
    h("p", { class: "muted small" }, "Without an account you play the daily challenge as a guest: guests are listed apart from the leaderboard. Online games are rated for accounts."),
    form);
  return section;
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
    clear(this.root).append(h("p", { class: "muted" }, "Loading the profile…"));
    let p;
    try {
      p = await API.getProfile(this.account);
    } catch (err) {
      clear(this.root).append(h("div", { class: "panel" }, h("h2", {}, "No such player"), h("p", {}, err.message),
        h("a", { class: "btn", href: "/#/" }, "Home")));
      return;
    }
    document.title = `${p.name} — metrogames`;
    const ratings = p.ratings.length
      ? h("table", { class: "score-table", "data-testid": "ratings" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "game"), h("th", { class: "num", scope: "col" }, "players"),
          h("th", { class: "num", scope: "col" }, "rating"), h("th", { class: "num", scope: "col" }, "games"))),
        h("tbody", {}, p.ratings.map((r) => h("tr", {}, h("td", {}, titleOf(r.game)), h("td", { class: "num" }, String(r.players)),
          h("td", { class: "num" }, h("strong", { title: `mu ${r.mu.toFixed(2)}, sigma ${r.sigma.toFixed(2)}` }, r.rating.toFixed(1))),
          h("td", { class: "num" }, String(r.games))))))
      : h("p", { class: "muted" }, "No rated game yet: online games with two players or more are rated.");
    const games = p.games.length
      ? h("ul", { class: "recent-games", "data-testid": "recent-games" }, p.games.map((g) => h("li", {},
        `${titleOf(g.game)}, ${g.players} players — `,
        g.status === "finished"
          ? link(this.navigate, `#/replay/${g.room}`, "▶ replay", { "data-replay": g.room })
          : link(this.navigate, `#/r/${g.room}`, g.status === "waiting" ? "lobby" : "in progress"),
        g.rated ? h("span", { class: "tag" }, "rated") : "")))
      : h("p", { class: "muted" }, "No online game yet.");
    const days = p.daily.length
      ? h("table", { class: "score-table history", "data-testid": "profile-daily" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "day"), h("th", { scope: "col" }, "game"),
          h("th", { class: "num", scope: "col" }, "score"), h("th", { class: "num", scope: "col" }, "rank"))),
        h("tbody", {}, p.daily.map((d) => h("tr", {},
          h("td", {}, link(this.navigate, `#/daily/${d.game}/${d.date}`, d.date)), h("td", {}, titleOf(d.game)),
          h("td", { class: "num" }, d.score === null ? h("span", { class: "muted" }, "in progress") : String(d.score)),
          h("td", { class: "num" }, d.rank ? String(d.rank) : h("span", { class: "muted" }, d.ranked ? "not shared" : "practice"))))))
      : h("p", { class: "muted" }, "No daily game yet.");
    clear(this.root).append(h("div", { class: "profile" },
      h("h2", { "data-testid": "profile-name" }, p.name),
      h("section", { class: "panel" }, h("h3", {}, "Ratings"), ratings,
        h("p", { class: "muted small" }, "Rating = mu − 3 sigma (OpenSkill, per game and player count).")),
      h("section", { class: "panel" }, h("h3", {}, "Recent online games"), games),
      h("section", { class: "panel" }, h("h3", {}, "Daily challenge"), days)));
  }
}

// -- the lobby's ratings ---------------------------------------------------------------------
// Shown under an online room's seats; a signed-in player's seat is tied to the account (so the
// game is rated) the first time the lobby shows it.
export function lobbyRatings(room, seats, mySeats, tokenFor) {
  const box = h("div", { class: "lobby-ratings", "data-testid": "lobby-ratings" }, h("p", { class: "muted small" }, "Loading the ratings…"));
  const show = (r) => {
    const rows = r.seats.map((s) => h("li", { "data-seat": s.seat },
      `Seat ${s.seat + 1}: `,
      s.account ? h("strong", {}, s.name)
        : h("span", { class: "muted" }, s.rating ? "bot" : seats[s.seat].claimed ? "guest (not rated)" : "open seat"),
      " — ", s.rating ? h("span", { class: "rating" }, `rating ${s.rating.rating.toFixed(1)}${s.rating.games === null ? " (fixed)" : ` (${s.rating.games} games)`}`)
        : h("span", { class: "muted" }, s.account ? "new" : "—")));
    box.replaceChildren(h("h3", {}, `Ratings (${titleOf(r.game)}, ${r.players} players)`), h("ul", {}, rows));
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
      box.replaceChildren(h("p", { class: "muted small" }, `No ratings: ${err.message}`));
    }
  })();
  return box;
}
