// Confirm-or-undo before a move is sent: a move built on the board waits, shown as pending,
// for Confirm (sent) or Undo (forgotten). A setting of the table, remembered in localStorage;
// by default on for phones (a narrow screen or a coarse pointer), off on desktops.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const KEY = "metrogames.confirm-moves";
const PHONE = "(max-width: 600px), (pointer: coarse)";

export function confirmMoves() {
  let stored = null;
  try { stored = localStorage.getItem(KEY); } catch { /* private mode: the default */ }
  if (stored === "1" || stored === "0") return stored === "1";
  return window.matchMedia(PHONE).matches;
}

function setConfirmMoves(on) {
  try { localStorage.setItem(KEY, on ? "1" : "0"); } catch { /* kept for this page only */ }
}

// The setting's checkbox; onChange() after it changed (e.g. a pending move is sent or kept).
export function confirmToggle(onChange) {
  const box = h("input", { type: "checkbox", id: "confirm-moves", "data-testid": "confirm-moves", checked: confirmMoves(),
    onchange: (ev) => { setConfirmMoves(ev.target.checked); onChange(); } });
  return h("label", { class: "confirm-toggle muted", title: t("confirm.title") }, box, " ", t("confirm.label"));
}

// The pending move's bar: what it is, Confirm and Undo.
export function pendingBar(text, confirm, undo) {
  return h("div", { class: "pending-move", role: "group", "aria-label": t("confirm.pending"), "data-testid": "pending-move" },
    h("p", { class: "help" }, text),
    h("div", { class: "buttons" },
      h("button", { class: "btn primary", id: "confirm-btn", onclick: confirm }, t("confirm.confirm")),
      h("button", { class: "btn", id: "undo-btn", onclick: undo }, t("confirm.undo"))));
}
