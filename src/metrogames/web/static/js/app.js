// Entry point: a tiny router over the screens. Routes: /r/{room} (a room; the share link),
// #/r/{room}, #/replay/{room}, #/replay-file, #/daily[/{game}[/{date}]] (leaderboards),
// #/daily/{game}/{date}/r/{room} (a daily game), #/score[/{game}] (score a paper game),
// #/u/{account} (a profile), #/lobby (the open tables), #/watch (now playing), #/play-now (play now: a table with strangers), #/studio (the map studio), #/rules/{game} (a rules page), #/learn/{game} (the guided first
// game), anything else: home.
// Who is signed in is asked of the server once, before the first screen.

import { h, clear } from "./dom.js";
import { renderHome } from "./home.js";
import { closeFriends } from "./friends.js";
import { RoomScreen } from "./room.js";
import { ReplayScreen } from "./replay.js";
import { dailyRoomScreen } from "./daily.js";
import { DailyBoardScreen } from "./daily-board.js";
import { ProfileScreen } from "./account.js";
import { loadAccount } from "./api.js";
import { ScoreScreen } from "./score.js";
import { RulesScreen } from "./rules.js";
import { TutorialScreen } from "./tutorial.js";
import { LobbyScreen } from "./lobby.js";
import { QuickMatchScreen } from "./quickmatch.js";
import { WatchScreen } from "./watch.js";
import { StudioScreen } from "./studio.js";
import { initI18n, languageSwitch, t } from "./i18n.js";

const main = document.getElementById("main");
let current = null;
let pendingFile = null;

function navigate(to, extra = {}) {
  if (extra.file) pendingFile = extra.file;
  history.pushState(null, "", to.startsWith("#") ? `/${to}` : to);
  route();
}

function route() {
  if (current && current.destroy) current.destroy();
  closeFriends(); // the home page's stream, if it was drawn
  current = null;
  delete document.body.dataset.step;
  delete document.body.dataset.status;
  const hash = location.hash.replace(/^#/, "");
  const path = location.pathname;
  let m;
  window.scrollTo(0, 0);
  if (!hash.startsWith("/daily")) document.title = t("app.title");
  if ((m = hash.match(/^\/daily\/([a-z]+)\/(\d{4}-\d{2}-\d{2})\/r\/([a-z0-9]+)/))) {
    current = dailyRoomScreen(main, navigate, m[1], m[2], m[3]);
  } else if ((m = hash.match(/^\/daily(?:\/([a-z]+))?(?:\/(\d{4}-\d{2}-\d{2}))?\/?$/))) {
    current = new DailyBoardScreen(main, navigate, m[1] || null, m[2] || null);
  } else if ((m = hash.match(/^\/u\/([a-z0-9]+)/))) {
    current = new ProfileScreen(main, navigate, m[1]);
  } else if ((m = hash.match(/^\/score(?:\/([a-z0-9-]+))?\/?$/))) {
    current = new ScoreScreen(main, navigate, m[1] || null);
  } else if ((m = hash.match(/^\/rules\/([a-z0-9-]+)\/?$/))) {
    current = new RulesScreen(main, navigate, m[1]);
  } else if ((m = hash.match(/^\/learn\/([a-z0-9-]+)\/?$/))) {
    current = new TutorialScreen(main, navigate, m[1]);
  } else if (/^\/lobby\/?$/.test(hash)) {
    current = new LobbyScreen(main, navigate);
  } else if (/^\/watch\/?$/.test(hash)) {
    current = new WatchScreen(main, navigate);
  } else if (/^\/studio\/?$/.test(hash)) {
    current = new StudioScreen(main, navigate);
  } else if (/^\/play-now\/?$/.test(hash)) {
    current = new QuickMatchScreen(main, navigate);
  } else if ((m = hash.match(/^\/replay\/([a-z0-9]+)/))) {
    current = new ReplayScreen(main, { room: m[1] });
  } else if (hash.startsWith("/replay-file")) {
    current = new ReplayScreen(main, { file: pendingFile });
  } else if ((m = hash.match(/^\/r\/([a-z0-9]+)/))) {
    current = new RoomScreen(main, m[1], navigate);
  } else if (!hash.replace(/^\//, "") && (m = path.match(/^\/r\/([a-z0-9]+)\/?$/))) {
    current = new RoomScreen(main, m[1], navigate);
  } else {
    renderHome(main, navigate);
  }
}

window.addEventListener("popstate", route);
window.addEventListener("hashchange", route);
document.getElementById("home-link").addEventListener("click", (ev) => {
  ev.preventDefault();
  navigate("#/");
});
// A new language redraws the screen: in place where it holds a game (relang), else anew.
window.addEventListener("langchange", () => {
  if (!location.hash.startsWith("#/daily")) document.title = t("app.title");
  if (current && current.relang) current.relang();
  else route();
});
if (!main) document.body.append(h("p", {}, "missing #main"));
else clear(main);
initI18n().then(() => {
  const slot = document.getElementById("lang-slot");
  if (slot) slot.append(languageSwitch());
  return loadAccount();
}).catch(() => null).finally(route);
