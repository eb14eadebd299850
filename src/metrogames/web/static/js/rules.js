// The rules pages, #/rules/{game}: the project's rules text (docs/), shipped as HTML fragments
// in /rules/{game}.html made by scripts/build_rules.py (no network beyond this server); in
// another language /rules/{game}.{lang}.html, English when that file is absent.

import { h, clear } from "./dom.js";
import { t, currentLang } from "./i18n.js";
import { rulesGames } from "./games.js";

// A link to a game's rules page, opened in a new tab (a table stays where it is).
export function rulesLink(game, label = t("rules.link")) {
  if (!rulesGames().some(([g]) => g === game)) return null;
  return h("a", { class: "btn small rules-link", href: `/#/rules/${game}`, target: "_blank", rel: "noopener", "data-testid": "rules-link" }, label);
}

export class RulesScreen {
  constructor(root, navigate, game) {
    this.root = root;
    this.navigate = navigate;
    this.game = game;
    this.render();
  }

  relang() { this.render(); }

  render() {
    const { root, navigate, game } = this;
    const known = rulesGames().find(([g]) => g === game);
    const tabs = h("nav", { class: "seat-tabs rules-tabs" }, rulesGames().map(([g, title]) =>
      h("a", { class: `tab${g === game ? " active" : ""}`, href: `/#/rules/${g}`, "data-game": g,
        onclick: (ev) => { ev.preventDefault(); navigate(`#/rules/${g}`); } }, title)));
    this.body = h("article", { class: "panel rules-text", "data-testid": "rules-text" }, h("p", { class: "muted" }, t("rules.loading")));
    const learn = known ? h("a", { class: "btn primary", href: `/#/learn/${game}`, "data-testid": "learn-link",
      onclick: (ev) => { ev.preventDefault(); navigate(`#/learn/${game}`); } }, t("rules.learn")) : null;
    const about = h("p", { class: "muted" }, t("rules.about"));
    clear(root).append(h("div", { class: "rules-page" }, tabs, about, h("div", { class: "buttons" }, learn), this.body));
    if (!known) {
      clear(this.body).append(h("p", {}, t("rules.none", { game })));
      return;
    }
    document.title = t("rules.page-title", { game: known[1] });
    this.load(game);
  }

  async load(game) {
    try {
      const lang = currentLang();
      let res = lang === "en" ? null : await fetch(`/rules/${game}.${lang}.html`);
      if (!res || !res.ok) res = await fetch(`/rules/${game}.html`); // English when not translated
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      // our own text, rendered on the build machine with raw HTML escaped (build_rules.py)
      this.body.innerHTML = await res.text();
    } catch (err) {
      clear(this.body).append(h("p", {}, t("rules.cannot-load", { error: err.message })));
    }
  }
}
