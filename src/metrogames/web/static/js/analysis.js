// Hindsight on a finished solo game of a family that has it (Next Station: docs/web-api.md, GET
// /api/rooms/{room}/analysis, POST /api/analyses): the best score found on the same deal with
// the whole deck known, the player's map and the best line's side by side, the costliest turn.

import { h, clear, cardName } from "./dom.js";
import { t } from "./i18n.js";
import { NextStationBoard } from "./board-nextstation.js";
import { familyOf } from "./families.js";

// Whether a view is a game the server analyses: finished, one seat, of a family with analyses.
export const analysable = (v) => v.status === "finished" && v.seats.length === 1 && familyOf(v).analysis;

// The panel: a button that calls load() (a Promise of the analysis document), then its result.
export function analysisPanel(board, load) {
  const body = h("div", { class: "analysis-body" });
  const button = h("button", { class: "btn primary", id: "analyse-btn" }, t("analysis.button"));
  const panel = h("section", { class: "panel analysis", "data-testid": "analysis" },
    h("div", { class: "panel-head" }, h("h3", {}, t("analysis.title")), button),
    h("p", { class: "muted small" }, t("analysis.intro")),
    body);
  button.onclick = async () => {
    button.disabled = true;
    clear(body).append(h("p", { class: "muted", "data-testid": "analysis-wait" }, t("analysis.wait")));
    try {
      show(body, board, await load());
      button.remove();
    } catch (err) {
      const text = err.reason === "day-open"
        ? t("analysis.day-open")
        : t("analysis.cannot", { error: err.message });
      clear(body).append(h("p", { class: err.reason === "day-open" ? "muted" : "error", "data-testid": "analysis-error" }, text));
      button.disabled = false;
    }
  };
  return panel;
}

function mapOf(board, view, caption) {
  const map = new NextStationBoard(board);
  map.update({ lines: view.players[0].lines });
  return h("figure", { class: "analysis-map" }, h("figcaption", {}, caption), h("div", { class: "board-wrap" }, map.svg));
}

function turnText(x) {
  const where = x.round ? t("analysis.round-turn", { round: x.round, turn: x.turn }) : t("analysis.step", { step: x.step });
  const card = x.card ? ` (${cardName(x.card)})` : "";
  return `${where}${card}: ${t("analysis.turn", { played: x.played, better: x.better, loss: x.loss, mine: x.played_estimate, best: x.better_estimate })}`;
}

function show(body, board, doc) {
  const best = doc.best_found;
  const gain = best.gain >= 0 ? `+${best.gain}` : String(best.gain);
  const turns = doc.costly_turns || [];
  clear(body).append(
    h("p", { class: "analysis-score" },
      h("strong", { "data-testid": "analysis-best" }, t("analysis.best", { score: best.score })),
      ` — ${t("analysis.you-scored", { score: doc.score, gain })}`),
    h("p", { class: "muted small", "data-testid": "analysis-note" }, t("analysis.note")),
    doc.upper_bound
      ? h("p", { class: "muted small", "data-testid": "analysis-bound" },
        t("analysis.bound", { bound: doc.upper_bound.total, best: best.score }))
      : null,
    h("div", { class: "analysis-maps" },
      mapOf(board, doc.views.player, t("analysis.your-map", { score: doc.score })),
      mapOf(board, doc.views.best, t("analysis.best-map", { score: best.score }))),
    turns.length
      ? h("p", { "data-testid": "analysis-turn" }, h("strong", {}, t("analysis.costliest")), " ", turnText(turns[0]))
      : h("p", { "data-testid": "analysis-turn" }, t("analysis.no-loss")),
    ...turns.slice(1).map((x) => h("p", { class: "small" }, t("analysis.also", { text: turnText(x) }))),
    h("p", { class: "muted small" }, t("analysis.estimates", { playouts: doc.search.coach_playouts, loss: doc.estimated_loss })));
}
