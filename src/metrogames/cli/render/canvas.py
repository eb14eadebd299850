"""What every terminal picture shares: a grid of characters turned into rich Text, and the
screen colours of the games' colour names (pencils, seats)."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text

from metrogames.cli.lang import tr

COLOUR_HEX: dict[str, str] = {
    "blue": "#4a90ff",
    "pink": "#ff5fb4",
    "purple": "#b07cff",
    "green": "#35c46a",
    "orange": "#ff9a1f",
    "red": "#ff4d4d",
    "yellow": "#ffd23f",
    "black": "#000000",
}
"""Screen colours of the games' colour names (unknown names fall back to white)."""
ON_LIGHT = frozenset({"black"})
"""Colours a dark terminal cannot show on its background: drawn on a light cell instead."""
LIGHT_BG = "#d0d4dc"
"""The light cell under a colour of :data:`ON_LIGHT`."""


def colour_hex(colour: str) -> str:
    """The screen colour of a colour name (``blue`` -> ``#4a90ff``; ``white`` when unknown)."""
    return COLOUR_HEX.get(colour, "white")


def colour_style(colour: str, *, bold: bool = False, dim: bool = False) -> Style:
    """The style of text in ``colour``: its screen colour, on a light cell when the colour is
    one a dark terminal hides (:data:`ON_LIGHT`: Metro's black seat)."""
    background = LIGHT_BG if colour in ON_LIGHT else None
    return Style(color=colour_hex(colour), bgcolor=background, bold=bold, dim=dim)


class Fitted:
    """A picture (``body``, rows of characters) drawn for the terminal's width: whole when its
    widest row fits, else each row cut at the terminal's edge (never wrapped onto the next row)
    under a line saying how many columns the whole picture needs."""

    def __init__(self, body: Text) -> None:
        self.body = body
        self.rows = body.split("\n")
        self.width = max((len(row.plain.rstrip()) for row in self.rows), default=0)
        """Columns the picture needs: its widest row without its trailing blanks."""

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(self.width, options.max_width), self.width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        have = options.max_width
        if have < self.width:
            note = tr(
                "(this map needs {need} columns and has {have}: widen the terminal to see it "
                "whole)",
                need=self.width,
                have=have,
            )
            yield Text(note, style="dim")
        for row in self.rows:
            shown = row.copy()
            shown.rstrip()
            shown.truncate(have, overflow="crop")
            shown.no_wrap = True
            yield shown


class Canvas:
    """``width`` × ``height`` characters with a background colour each; subclasses say how
    each cell is styled (:meth:`cell_style`)."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.ch = [[" "] * width for _ in range(height)]
        self.bg: list[list[str | None]] = [[None] * width for _ in range(height)]

    def inside(self, x: int, y: int) -> bool:
        """True when ``(x, y)`` is on the canvas."""
        return 0 <= x < self.width and 0 <= y < self.height

    def cell_style(self, x: int, y: int) -> Style:
        """The style of the cell at ``(x, y)``."""
        raise NotImplementedError

    def text(self) -> Text:
        """The canvas as one :class:`Text`, runs of equal style merged, rows ending in newlines."""
        out = Text(no_wrap=True, overflow="crop")
        for y in range(self.height):
            run = ""
            run_style: Style | None = None
            for x in range(self.width):
                style = self.cell_style(x, y)
                if style != run_style and run:
                    out.append(run, run_style)
                    run = ""
                run_style = style
                run += self.ch[y][x]
            if run:
                out.append(run, run_style)
            if y < self.height - 1:
                out.append("\n")
        return out
