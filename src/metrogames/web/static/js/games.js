// The words and pages of each built-in game, by game: its title (the published titles, as
// printed), its home-page blurb, its short name on the daily challenge's pages, and whether it
// has a rules page and guided first game (static/rules/, tutorials.json). A game missing here
// (a plug-in) is named by the title the server gives (GET /api/games) and has neither page.
// How a game is drawn and played is chosen by its family, not here (families.js).

import { t } from "./i18n.js";

const GAMES = {
  london: { title: () => t("game.london"), blurb: () => t("home.blurb.london"), short: () => t("daily.short.london"), rules: true },
  paris: { title: () => t("game.paris"), blurb: () => t("home.blurb.paris"), short: () => t("daily.short.paris"), rules: true },
  metro: { title: () => t("game.metro"), blurb: () => t("home.blurb.metro"), rules: true },
  // a game on any custom map (the map studio's): one game, one rating pool for every map
  nextstation: { title: () => t("game.nextstation") },
};

// Titles the server gave for games this page does not know (GET /api/games).
const served = new Map();
export function learnTitles(games) {
  for (const g of games || []) if (g && g.game && g.title) served.set(g.game, g.title);
}

// A game's name in the page's language, else the server's title, else its code.
export const gameTitle = (game) => (GAMES[game] ? GAMES[game].title() : served.get(game) || game);

// The home page's line about a game (empty for a game this page does not know).
export const gameBlurb = (game) => (GAMES[game] ? GAMES[game].blurb() : "");

// A daily game's short name ("London"), else its title.
export const dailyName = (game) => (GAMES[game] && GAMES[game].short ? GAMES[game].short() : gameTitle(game));

// [game, title] of the games with a rules page (and a guided first game).
export const rulesGames = () => Object.keys(GAMES).filter((g) => GAMES[g].rules).map((g) => [g, gameTitle(g)]);
