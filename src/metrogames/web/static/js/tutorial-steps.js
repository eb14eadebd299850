// The guided first games' steps, one list per game, written for the fixed tutorial deals of
// web/tutorial.py (the same cards, colours and tiles every time). Data only, so it can be
// translated. A step is {text, and at most one of:
//   move: [[from, to], ...]  (Next Station) the sections of the one move accepted;
//   square: "D1"             (Metro) the square the drawn tile must go on;
//   play: true               any move of the player's (then the step goes on);
//   round: n                 play freely until round n begins;
//   final: true              the last step: the game goes on, the guide is done;
// none of them: an explanation, with a Next button;
// and optionally mark: [...] stations or squares to ring ("centre": Metro's central block),
// refused: [...] stations to show as refused, line: colour (show that line's score), hint:
// said after a click that is not the expected one}.

export const TUTORIALS = {
  london: {
    mode: "solo",
    seats: [{ name: "You" }],
    steps: [
      { text: "Welcome to Next Station: London. Over 4 rounds you draw 4 metro lines on your map, one pencil colour a round. This round your pencil is green: its line starts at the departure station D3, the one blinking on the map." },
      { text: "Each turn a card is flipped. This one is a pentagon: draw one section, along a grey dotted link, from your departure station to a station showing the card's symbol. Click D7, a pentagon.", move: [["D3", "D7"]], mark: ["D7"], hint: "Click D7, the pentagon below D3." },
      { text: "An underground joker: this turn the card stands for any symbol. Your line now has two ends, D3 and D7, and you may draw from either. Click D3, then C4.", move: [["D3", "C4"]], mark: ["D3", "C4"], hint: "Click D3 first (the end to draw from), then C4." },
      { text: "A triangle. E4 is a triangle next to C4, but the link C4–E4 would cross your section D3–D7: lines never cross, they only meet at stations, so E4 is not offered. Draw C4 → B5 instead.", move: [["C4", "B5"]], mark: ["B5"], refused: ["E4"], hint: "E4 is refused (the link would cross your line): click B5." },
      { text: "A switch card flips the next card at once, and this turn you may start from any station of your line, not only an end. The next card is a joker. A4 has a star: it is a tourist site. Draw B5 → A4: at the end of the round each tourist site on the line crosses off a box of your tourist track (10 boxes, worth up to 25 points).", move: [["B5", "A4"]], mark: ["B5", "A4"], hint: "Click B5, then the tourist site A4." },
      { text: "Now play the rest of the round yourself: click a line end, then a station with the card's symbol, or Pass. The round ends on the turn the 5th underground card (pink back) is flipped: watch the counter above the cards.", round: 2 },
      { text: "The round is over and your green line has been scored: the number of districts it visits × the most of its stations in one district, plus 2 for each section crossing the Thames. Its row on the score sheet shows the sum.", line: "green" },
      { text: "Round 2: a new pencil, purple, starting at C6. A station on two of your lines is an interchange: 2 points at the end of the game (5 on three lines, 9 on four). Draw your first purple section; joining a station of your green line makes an interchange.", play: true },
      { text: "That is the whole game: one section per card, lines never cross, score each line at the round's end, then tourist sites and interchanges at the end. Now finish the game — the guide stays here if you need it.", final: true },
    ],
  },
  paris: {
    mode: "solo",
    seats: [{ name: "You" }],
    steps: [
      { text: "Welcome to Next Station: Paris. It plays like London — 4 rounds, one line a round, one section per flipped card — with a few differences this guide shows. Your first pencil is purple, from H8." },
      { text: "A pentagon: draw H8 → H6. This link passes an overhead crossing (◇): the only places where two links may cross each other.", move: [["H8", "H6"]], mark: ["H6"], hint: "Click H6, the pentagon above H8." },
      { text: "A metro joker: any symbol. Draw from your other end: click H8, then I8.", move: [["H8", "I8"]], mark: ["H8", "I8"], hint: "Click H8 first, then I8." },
      { text: "A triangle. The central platform (the big station E5) matches every card. Draw I8 → E5: this section crosses your H6–H8 section at the overhead crossing. Each crossing used scores 2 at the end of the game (6 when two of your lines use it).", move: [["I8", "E5"]], mark: ["I8", "E5"], hint: "Click I8, then the central platform E5." },
      { text: "After a switch comes a free entry card: your section may go to a station of any symbol, and when it ends on a monument (◆, a station that matches every card and is worth +2 to its line) you draw one extra section from it. Draw E5 → F7, the monument, then F7 → E8.", move: [["E5", "F7"], ["F7", "E8"]], mark: ["E5", "F7", "E8"], hint: "Click E5, then F7 (the monument), then E8." },
      { text: "Now play the rest of the round yourself. It ends on the turn the 5th metro card is flipped: watch the counter above the cards.", round: 2 },
      { text: "Scoring a line in Paris: the districts it visits × the most of its stations in one district, plus 2 for each monument on it. There is no river and no tourist track; interchanges score as in London.", line: "purple" },
      { text: "Now finish the game: three more lines, one a round. Good luck!", final: true },
    ],
  },
  metro: {
    mode: "bots",
    seats: [{ name: "You" }, { bot: "easy" }],
    steps: [
      { text: "Welcome to Metro. You play yellow against a bot. Around the board are 32 stations; yours are the yellow ones, each with a train waiting to leave. Each turn you draw a tile and place it; tiles are never turned." },
      { text: "Placing a tile: it goes on an empty square at the edge of the board or next to a placed tile. Click D1: the train of your station 5 enters the tile and follows its track.", square: "D1", mark: ["D1"], hint: "Click the square D1, in the top row." },
      { text: "Routes: a train follows the tracks tile after tile. When its track reaches a station, the route is complete and scores 1 point per tile crossed. Place this tile on B2: the train of your station 7 reaches a station after 3 tiles, and you score 3 points (the station gets a tick).", square: "B2", mark: ["B2"], hint: "Click the square B2." },
      { text: "The centre: the four middle squares are the central stations. A route that ends there scores double. Lead your trains towards the centre — and keep the bot's away.", mark: ["centre"] },
      { text: "Now finish the game: all 60 tiles get placed, and the highest score wins.", final: true },
    ],
  },
};
