"""Plane geometry on cell coordinates, for validating maps (crossings, links through stations)."""

from __future__ import annotations

Point = tuple[float, float]


def _orient(a: Point, b: Point, c: Point) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def on_segment(p: Point, a: Point, b: Point) -> bool:
    """True when ``p`` lies on the closed segment ``a``–``b``."""
    if _orient(a, b, p) != 0:
        return False
    return min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])


def segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    """True when segments ``a–b`` and ``c–d`` meet at a point interior to both.

    Touching at an endpoint, or overlapping along a line, does not count: neither happens
    between two links of a valid map (links never pass through stations).
    """
    d1 = _orient(c, d, a)
    d2 = _orient(c, d, b)
    d3 = _orient(a, b, c)
    d4 = _orient(a, b, d)
    return d1 * d2 < 0 and d3 * d4 < 0
