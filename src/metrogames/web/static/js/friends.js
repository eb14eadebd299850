// Friends and invitations (docs/web-api.md, "Friends and invitations"): the home page's panel of
// a signed-in player — the invitations waiting for an answer (live: GET /api/friends/events,
// server-sent events, a snapshot then each new invitation; no polling), the accounts followed
// (online, playing) and blocked — and the host's "invite a player" box in an online room's lobby.

import { h, clear, toast, gameTitle } from "./dom.js";
import { t } from "./i18n.js";
import * as API from "./api.js";

const enc = encodeURIComponent;
let source = null; // the one open stream of this page (a new panel closes the last one's)

/** Close the home page's stream (the router calls it on every change of screen). */
export function closeFriends() {
  if (source) source.close();
  source = null;
}

function invitationRow(inv, navigate, drop) {
  const answer = (how) => async () => {
    try {
      const res = await API.api("POST", `/api/invitations/${enc(inv.id)}/${how}`, {});
      drop(inv.id);
      if (how === "accept") {
        API.saveTokens(res.room, { tokens: { [res.seat]: res.token }, name: API.signedIn().name });
        navigate(`/r/${res.room}`);
      }
    } catch (err) { drop(inv.id); toast(t("friends.cannot-answer", { error: err.message })); }
  };
  return h("li", { class: "invitation", "data-invitation": inv.id },
    h("span", {}, t("friends.invites-you", { name: inv.from || t("friends.a-host"), game: gameTitle(inv.game), n: inv.seat + 1 })), " ",
    h("span", { class: "buttons" },
      h("button", { class: "btn small primary", type: "button", "data-accept": inv.id, onclick: answer("accept") }, t("friends.accept")),
      h("button", { class: "btn small", type: "button", "data-decline": inv.id, onclick: answer("decline") }, t("friends.decline"))));
}

/** The home page's "Invitations and friends" panel (signed in only; ``null`` otherwise). */
export function friendsPanel(navigate) {
  if (!API.signedIn()) return null;
  const invitations = new Map();
  const list = h("ul", { class: "recent invitations", "data-testid": "invitations" });
  const friendsBox = h("div", { "data-testid": "friends" });
  const panel = h("section", { class: "panel friends", id: "friends" },
    h("h2", {}, t("friends.invitations")), list,
    h("h2", {}, t("friends.title")), friendsBox);
  const drop = (id) => { invitations.delete(id); drawInvitations(); };
  function drawInvitations() {
    clear(list);
    for (const inv of invitations.values()) list.append(invitationRow(inv, navigate, drop));
    if (!invitations.size) list.append(h("li", { class: "muted" }, t("friends.no-invitation")));
  }
  drawInvitations();
  closeFriends();
  const stream = new EventSource("/api/friends/events");
  source = stream;
  const alive = () => {
    if (document.body.contains(panel)) return true;
    stream.close(); // the page moved on
    return false;
  };
  const on = (name, act) => stream.addEventListener(name, (ev) => { if (alive()) { act(JSON.parse(ev.data)); drawInvitations(); } });
  on("invitations", (data) => { invitations.clear(); for (const inv of data.invitations) invitations.set(inv.id, inv); });
  on("invitation", (data) => { invitations.set(data.invitation.id, data.invitation); });
  on("invitationGone", (data) => { invitations.delete(data.invitation); });
  on("challengeCanceled", (data) => { invitations.delete(data.invitation); });
  on("invitationAnswered", (data) => {
    toast(data.status === "accepted" ? t("friends.accepted") : t("friends.declined"), "info");
  });
  drawFriends(friendsBox);
  return panel;
}

async function change(method, path, box) {
  try {
    await API.api(method, path, {});
  } catch (err) { toast(t("friends.cannot-change", { error: err.message })); }
  drawFriends(box);
}

async function drawFriends(box) {
  let data;
  try { data = await API.api("GET", "/api/friends"); } catch (err) {
    clear(box).append(h("p", { class: "error" }, err.message));
    return;
  }
  const name = h("input", { id: "follow-name", maxlength: "64", autocomplete: "off", placeholder: t("friends.name") });
  const act = (kind) => (ev) => {
    ev.preventDefault();
    if (name.value.trim()) change("PUT", `/api/friends/${kind}/${enc(name.value.trim())}`, box);
  };
  const status = (f) => f.playing ? h("span", { class: "tag turn" }, t("friends.playing", { game: gameTitle(f.playing) }))
    : f.online ? h("span", { class: "tag turn" }, t("friends.online")) : h("span", { class: "tag" }, t("friends.offline"));
  const blocked = data.blocked.map((b) => h("span", { "data-blocked": b }, b, " ",
    h("button", { class: "btn small", type: "button", onclick: () => change("DELETE", `/api/friends/blocks/${enc(b)}`, box) }, t("friends.unblock")), " "));
  clear(box).append(
    h("form", { class: "row", onsubmit: act("follows") }, name, " ",
      h("button", { class: "btn small primary", type: "submit", id: "follow-btn" }, t("friends.follow")), " ",
      h("button", { class: "btn small", type: "button", id: "block-btn", onclick: act("blocks") }, t("friends.block"))),
    h("ul", { class: "recent following", "data-testid": "following" },
      data.following.length ? data.following.map((f) => h("li", { "data-friend": f.name }, h("strong", {}, f.name), " ", status(f), " ",
        h("button", { class: "btn small", type: "button", onclick: () => change("DELETE", `/api/friends/follows/${enc(f.name)}`, box) }, t("friends.unfollow"))))
        : h("li", { class: "muted" }, t("friends.no-friend"))),
    ...(blocked.length ? [h("p", { class: "small", "data-testid": "blocked" }, t("friends.blocked"), " ", blocked)] : []));
}

/** The host's box in an online room's lobby: invite a signed-in player, by name, to an open seat. */
export function inviteBox(room, hostToken, seats) {
  if (!API.signedIn() || !seats.length) return null;
  const name = h("input", { id: "invite-name", maxlength: "64", autocomplete: "off", placeholder: t("friends.name") });
  const seat = h("select", { id: "invite-seat" }, seats.map((s) => h("option", { value: String(s) }, t("room.seat", { n: s + 1 }))));
  const send = async (ev) => {
    ev.preventDefault();
    const to = name.value.trim();
    if (!to) return;
    try {
      await API.api("POST", "/api/invitations", { room, seat: Number(seat.value), to }, hostToken);
      toast(t("friends.invited", { name: to }), "info");
      name.value = "";
    } catch (err) { toast(t("friends.cannot-invite", { error: err.message })); }
  };
  return h("form", { class: "row invite", "data-testid": "invite", onsubmit: send },
    h("label", { class: "row" }, t("friends.invite"), " ", name), " ", seat, " ",
    h("button", { class: "btn small primary", type: "submit", id: "invite-btn" }, t("friends.send")));
}
