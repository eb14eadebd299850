// The one table the client chooses a game's screens from, keyed by the game's family (a view's
// `family`, docs/web-api.md "Views"): the table itself (board drawing and play controls), what
// the end screen details, the round results, whether a finished solo game has a hindsight
// analysis, the turn clock's words, the words of a move (coach, move log) and of chance, how others' moves are
// paced, whether a hot-seat hand-over hides the table, a guided game's progress, the editor of
// its paper score sheet (the score page, score.js). A family not
// listed (a plug-in game) gets the generic screen, drawn from its board data (play-generic.js).

import { t } from "./i18n.js";
import { cardName } from "./dom.js";
import { NextStationScreen, finalSheets, roundResult } from "./play-nextstation.js";
import { MetroScreen, finalScores as metroScores } from "./play-metro.js";
import { moveFigure } from "./board-metro.js";
import { GenericScreen, finalScores } from "./play-generic.js";
import { LinesEditor } from "./sheet-nextstation.js";
import { MetroEditor } from "./sheet-metro.js";

const never = () => false;

const GENERIC = {
  Screen: GenericScreen,
  endDetails: finalScores, // (board, view) -> the end panel's details
  roundResult: () => null, // (board, view, dismissed, close) -> the last round's panel or null
  analysis: false, // a finished solo game can be analysed (GET /api/rooms/{room}/analysis)
  timeoutText: () => t("room.timeout.played"), // what the clock did for a seat whose time ran out
  chanceText: (board, move) => move, // a chance step of the move log in words
  // (board, notation text) -> a move as shown (coach, move log): the one word "pass" in the
  // page's language; squares, stations and sections stay as written
  moveText: (board, text) => (text === "pass" ? t("ns.pass") : text),
  paced: never, // (view) -> whether it shows another seat's move, to show one by one
  concealed: never, // (view) -> whether a hot-seat hand-over hides the table (held tiles)
  progress: (v) => v.step, // (view) -> a guided game's progress, growing with the player's moves
  SheetEditor: null, // the score page's editor of a paper sheet (POST /api/score); null: no page
};

const FAMILIES = {
  nextstation: {
    ...GENERIC,
    Screen: NextStationScreen,
    endDetails: finalSheets,
    roundResult,
    analysis: true,
    timeoutText: () => t("room.timeout.pass"),
    chanceText: (board, move) => cardName(move), // a card flipped
    progress: (v) => (v.round || 0) * 100 + (v.turn || 0) + (v.status === "finished" ? 10000 : 0),
    SheetEditor: LinesEditor,
  },
  metro: {
    ...GENERIC,
    Screen: MetroScreen,
    endDetails: metroScores,
    chanceText: (board, move) => moveFigure(tilesOf(board), move), // a tile drawn, as its picture
    moveText: (board, text) => moveFigure(tilesOf(board), text), // its tile as its picture
    paced: (v) => Boolean(v.last && v.last.by !== v.you),
    concealed: (v) => v.status === "playing" && (v.hand || []).length > 0,
    progress: (v) => (v.board || []).filter((p) => p.by === v.you).length, // tiles placed
    SheetEditor: MetroEditor,
  },
};

// A board's tiles by code (Metro's board data: GET /api/games/metro/board), made once a board.
const TILES = new WeakMap();
function tilesOf(board) {
  if (!TILES.has(board)) TILES.set(board, new Map((board.tiles || []).map((tile) => [tile.code, tile])));
  return TILES.get(board);
}

// The screens of a view's (or a replay frame's, or a GET /api/games entry's) family.
export const familyOf = (view) => FAMILIES[view && view.family] || GENERIC;
