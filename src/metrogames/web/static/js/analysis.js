// Hindsight on a finished solo London or Paris game (docs/web-api.md: GET
// /api/rooms/{room}/analysis, POST /api/analyses): the best score found on the same deal with
// the whole deck known, the player's map and the best line's side by side, the costliest turn.

import { h, clear } from "./dom.js";
import { NextStationBoard } from "./board-nextstation.js";

// Whether a view is a game the server analyses: finished, one seat, not Metro.
export const analysable = (v) => v.status === "finished" && v.seats.length === 1 && v.game !== "metro";

// The panel: a button that calls load() (a Promise of the analysis document), then its result.
export function analysisPanel(board, load) {
  const body = h("div", { class: "analysis-body" });
  const button = h("button", { class: "btn primary", id: "analyse-btn" }, "Analyse this game");
  const panel = h("section", { class: "panel analysis", "data-testid": "analysis" },
    h("div", { class: "panel-head" }, h("h3", {}, "Hindsight"), button),
    h("p", { class: "muted small" },
      "The best score a search finds on this very deal with the whole deck known, and the turn where you lost most against the expert's estimate."),
    body);
  button.onclick = async () => {
    button.disabled = true;
    clear(body).append(h("p", { class: "muted", "data-testid": "analysis-wait" }, "Searching the deal… (a few seconds)"));
    try {
      show(body, board, await load());
      button.remove();
    } catch (err) {
      const text = err.reason === "day-open"
        ? "The analysis of a daily game shows once its day has closed."
        : `Cannot analyse: ${err.message}`;
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

function turnText(t) {
  const where = t.round ? `Round ${t.round}, turn ${t.turn}` : `Step ${t.step}`;
  const card = t.card ? ` (${t.card.replace("-", " ")} card)` : "";
  return `${where}${card}: you played ${t.played}; ${t.better} was estimated ${t.loss} points better (${t.played_estimate} against ${t.better_estimate}).`;
}

function show(body, board, doc) {
  const best = doc.best_found;
  const gain = best.gain >= 0 ? `+${best.gain}` : String(best.gain);
  const turns = doc.costly_turns || [];
  clear(body).append(
    h("p", { class: "analysis-score" },
      h("strong", { "data-testid": "analysis-best" }, `Best found: ${best.score}`),
      ` — you scored ${doc.score} (${gain}).`),
    h("p", { class: "muted small", "data-testid": "analysis-note" },
      "Best found by a search with the whole deck known, not a proven optimum: a better line may exist."),
    doc.upper_bound
      ? h("p", { class: "muted small", "data-testid": "analysis-bound" },
        `No game of this deal can score more than ${doc.upper_bound.total} (a loose bound: each scoring component bounded on its own), so the optimum lies between ${best.score} and ${doc.upper_bound.total}.`)
      : null,
    h("div", { class: "analysis-maps" },
      mapOf(board, doc.views.player, `Your map — ${doc.score}`),
      mapOf(board, doc.views.best, `Best found — ${best.score}`)),
    turns.length
      ? h("p", { "data-testid": "analysis-turn" }, h("strong", {}, "Costliest turn: "), turnText(turns[0]))
      : h("p", { "data-testid": "analysis-turn" }, "No turn lost points against the expert's estimate."),
    ...turns.slice(1).map((t) => h("p", { class: "small" }, `Also: ${turnText(t)}`)),
    h("p", { class: "muted small" },
      `Estimates: mean final scores of Monte Carlo playouts on what you could see (the deck unknown, as you played), ${doc.search.coach_playouts} per decision; estimated loss over the game ${doc.estimated_loss} points.`));
}
