// The map studio's report panel: how the drawn map plays (POST /api/maps/report, docs/web-api.md
// "Maps"): the solo mean score of each bot level on the server's fixed deals, its spread, the
// share of each score component, beside London and Paris; and the heat map of the stations and
// links the bots' lines used, drawn over the board.

import { h, s } from "./dom.js";
import { t, fmtNumber } from "./i18n.js";
import { gameTitle } from "./games.js";

// each score component and level in words (keys written out: the catalogs' test finds them)
const COMPONENTS = {
  lines: () => t("studio.report.lines"), tourist: () => t("studio.report.tourist"),
  interchanges: () => t("studio.report.interchanges"), bridges: () => t("studio.report.bridges"),
  objectives: () => t("studio.report.objectives"),
};
const LEVELS = { medium: () => t("bot.medium"), hard: () => t("bot.hard") };

/** The panel: a button while no report is shown, then the table of figures. */
export function reportPanel(state, { valid, run }) {
  const panel = h("div", { class: "panel", id: "studio-play-report", "aria-live": "polite", "data-pending": state.running ? "" : null },
    h("h3", {}, t("studio.report")));
  const r = state.report;
  if (!r) {
    panel.append(h("p", { class: "muted" }, t("studio.report.intro")),
      h("button", { class: "btn", id: "studio-report-run", disabled: !valid || state.running, title: valid ? "" : t("studio.try.invalid"), onclick: run },
        state.running ? t("studio.report.running") : t("studio.report.run")));
    return panel;
  }
  panel.append(h("p", { class: "muted" }, t("studio.report.deals", { n: r.deals.length, seeds: r.deals.join(", ") })));
  const names = [...new Set(r.maps.flatMap((m) => r.levels.flatMap((l) => Object.keys(m.levels[l].shares))))];
  const head = h("tr", {}, h("th", {}, t("studio.report.map")), h("th", {}, t("studio.report.level")), h("th", {}, t("studio.report.mean")),
    h("th", {}, t("studio.report.spread")), ...names.map((n) => h("th", {}, COMPONENTS[n] ? COMPONENTS[n]() : n)));
  const rows = [];
  for (const m of r.maps) {
    for (const level of r.levels) {
      const x = m.levels[level];
      rows.push(h("tr", { "data-map": m.game === r.maps[0].game ? "this" : m.game, "data-level": level },
        h("th", {}, m === r.maps[0] ? t("studio.report.this-map") : gameTitle(m.game)),
        h("td", {}, LEVELS[level] ? LEVELS[level]() : level),
        h("td", { "data-figure": "mean" }, fmtNumber(x.mean, 1)),
        h("td", { "data-figure": "spread" }, t("studio.report.spread-of", { std: fmtNumber(x.std, 1), min: fmtNumber(x.min), max: fmtNumber(x.max) })),
        ...names.map((n) => h("td", { "data-share": n }, n in x.shares ? `${fmtNumber(100 * x.shares[n])} %` : "–"))));
    }
  }
  panel.append(h("div", { class: "table-wrap" }, h("table", { class: "studio-figures", "data-testid": "studio-figures" }, h("thead", {}, head), h("tbody", {}, rows))),
    h("p", { class: "muted" }, t("studio.report.heat")),
    h("button", { class: "btn small", id: "studio-report-close", onclick: () => { state.report = null; run(false); } }, t("studio.report.close")));
  return panel;
}

/** The heat map over the board: each used station ringed and each drawn link shaded, by the
 * share of the report's games that used it (names as the report writes them: "A1-B1"). */
export function drawHeat(svg, report, stations, links) {
  if (!report) return;
  for (const st of stations) {
    const share = report.stations[st.name] || 0;
    if (share) svg.append(s("circle", { class: "heat-station", cx: st.col, cy: st.row, r: 0.4, "fill-opacity": (0.08 + 0.5 * share).toFixed(2), "data-heat": st.name, "data-share": String(share) }));
  }
  for (const l of links) {
    const key = [l.a.name, l.b.name].sort().join("-");
    const share = report.links[key] || 0;
    if (share) svg.append(s("line", { class: "heat-link", x1: l.a.col, y1: l.a.row, x2: l.b.col, y2: l.b.row, "stroke-opacity": (0.1 + 0.6 * share).toFixed(2), "data-heat": key, "data-share": String(share) }));
  }
}
