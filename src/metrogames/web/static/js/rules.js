// The rules pages, #/rules/{game}: the project's rules text (docs/), shipped as HTML fragments
// in /rules/{game}.html made by scripts/build_rules.py (no network beyond this server).

import { h, clear } from "./dom.js";

export const RULES_GAMES = [
  ["london", "Next Station: London"],
  ["paris", "Next Station: Paris"],
  ["metro", "Metro"],
];

// A link to a game's rules page, opened in a new tab (a table stays where it is).
export function rulesLink(game, label = "Rules") {
  if (!RULES_GAMES.some(([g]) => g === game)) return null;
  return h("a", { class: "btn small rules-link", href: `/#/rules/${game}`, target: "_blank", rel: "noopener", "data-testid": "rules-link" }, label);
}

export class RulesScreen {
  constructor(root, navigate, game) {
    const known = RULES_GAMES.find(([g]) => g === game);
    const tabs = h("nav", { class: "seat-tabs rules-tabs" }, RULES_GAMES.map(([g, title]) =>
      h("a", { class: `tab${g === game ? " active" : ""}`, href: `/#/rules/${g}`, "data-game": g,
        onclick: (ev) => { ev.preventDefault(); navigate(`#/rules/${g}`); } }, title)));
    this.body = h("article", { class: "panel rules-text", "data-testid": "rules-text" }, h("p", { class: "muted" }, "Loading the rules…"));
    const learn = known ? h("a", { class: "btn primary", href: `/#/learn/${game}`, "data-testid": "learn-link",
      onclick: (ev) => { ev.preventDefault(); navigate(`#/learn/${game}`); } }, "Play the guided first game") : null;
    const about = h("p", { class: "muted" }, "The rules this table plays by, as the project writes them down for its engine. ",
      "Where the printed rules leave a point open, a ", h("strong", {}, "Decision"), " line says what the table does.");
    clear(root).append(h("div", { class: "rules-page" }, tabs, about, h("div", { class: "buttons" }, learn), this.body));
    if (!known) {
      clear(this.body).append(h("p", {}, `No rules page for ${game}.`));
      return;
    }
    document.title = `Rules — ${known[1]} — metrogames`;
    this.load(game);
  }

  async load(game) {
    try {
      const res = await fetch(`/rules/${game}.html`);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      // our own text, rendered on the build machine with raw HTML escaped (build_rules.py)
      this.body.innerHTML = await res.text();
    } catch (err) {
      clear(this.body).append(h("p", {}, `Cannot load the rules: ${err.message}`));
    }
  }
}
