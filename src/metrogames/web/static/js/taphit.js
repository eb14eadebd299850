// Tap targets on a phone: each legal target of a turn gets as hit area the points nearer to
// it than to any other legal target (its Voronoi cell), cut at a radius; where a finger's tap
// lands within half a finger (FINGER / 2 px) of two legal targets' centres, they truly compete
// for it and the tap opens a magnifier of the neighbourhood to choose in; any other tap makes
// the move of the target whose area it is in (on a target's own drawing, or nearer it).
// Geometry only: which targets are legal comes from the view, as before.

import { h, s } from "./dom.js";
import { t } from "./i18n.js";

/** The smallest hit square a finger needs, in CSS px (WCAG 2.5.5, Apple's HIG). */
export const FINGER = 44;

/**
 * The Voronoi cell of points[i] among `points`, cut by a circle of `radius` (drawn as a
 * 32-gon, inside the circle): a convex polygon [[x, y], ...] in the points' units.
 */
export function cell(points, i, radius) {
  const [cx, cy] = points[i];
  let poly = [];
  for (let k = 0; k < 32; k++) {
    const a = (k * Math.PI) / 16;
    poly.push([cx + radius * Math.cos(a), cy + radius * Math.sin(a)]);
  }
  for (const [j, [ox, oy]] of points.entries()) {
    if (j === i || (ox === cx && oy === cy)) continue;
    // keep the half-plane nearer (cx, cy): n·p <= c
    const n = [ox - cx, oy - cy];
    const c = (n[0] * (ox + cx) + n[1] * (oy + cy)) / 2;
    poly = clipHalfPlane(poly, n, c);
  }
  return poly;
}

function clipHalfPlane(poly, n, c) {
  const out = [];
  const side = (p) => n[0] * p[0] + n[1] * p[1] - c;
  for (let k = 0; k < poly.length; k++) {
    const p = poly[k];
    const q = poly[(k + 1) % poly.length];
    const sp = side(p);
    const sq = side(q);
    if (sp <= 0) out.push(p);
    if ((sp < 0 && sq > 0) || (sp > 0 && sq < 0)) {
      const f = sp / (sp - sq);
      out.push([p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f]);
    }
  }
  return out;
}

function inside(poly, x, y) {
  // convex, either orientation: the point is on one side of every edge
  let sign = 0;
  for (let k = 0; k < poly.length; k++) {
    const [x1, y1] = poly[k];
    const [x2, y2] = poly[(k + 1) % poly.length];
    const cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1);
    if (Math.abs(cross) < 1e-9) continue;
    if (sign === 0) sign = Math.sign(cross);
    else if (Math.sign(cross) !== sign) return false;
  }
  return true;
}

/**
 * The side of the largest axis-aligned square inside the convex polygon `poly` that holds the
 * point (px, py), in the polygon's units (from below, to about 1/16 of the answer; 0 for an empty polygon).
 */
export function largestSquare(poly, px, py) {
  if (poly.length < 3) return 0;
  const fits = (side) => {
    const steps = 16;
    for (let i = 0; i <= steps; i++) {
      for (let j = 0; j <= steps; j++) {
        const x0 = px - side + (side * i) / steps;
        const y0 = py - side + (side * j) / steps;
        if (inside(poly, x0, y0) && inside(poly, x0 + side, y0) && inside(poly, x0, y0 + side) && inside(poly, x0 + side, y0 + side)) return true;
      }
    }
    return false;
  };
  const xs = poly.map((p) => p[0]);
  let lo = 0;
  let hi = Math.max(...xs) - Math.min(...xs);
  for (let k = 0; k < 9; k++) {
    const mid = (lo + hi) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** An SVG polygon element for a cell. */
export function cellPolygon(poly, ox = 0, oy = 0) {
  return s("polygon", { points: poly.map(([x, y]) => `${(x - ox).toFixed(1)},${(y - oy).toFixed(1)}`).join(" ") });
}

/** CSS px per viewBox unit of a board's <svg> as laid out now. */
export function cssScale(svg) {
  const vb = svg.viewBox.baseVal;
  const box = svg.getBoundingClientRect();
  return vb && vb.width ? box.width / vb.width : 1;
}

/**
 * Whether another legal target of `svg` (a hit other than `hit`) has its centre within half a
 * finger (FINGER / 2 CSS px) of the point (clientX, clientY), CSS px of the page.
 */
export function competing(svg, hit, clientX, clientY) {
  const ctm = svg.getScreenCTM();
  if (!ctm) return false;
  const tap = new DOMPoint(clientX, clientY).matrixTransform(ctm.inverse());
  const scale = cssScale(svg);
  for (const other of svg.querySelectorAll(".layer-hits .hit")) {
    if (other === hit) continue;
    const [x, y] = hitCentre(other);
    if (Math.hypot(x - tap.x, y - tap.y) * scale < FINGER / 2) return true;
  }
  return false;
}

/**
 * Wire a board's hit element: a click or Enter picks it (`pick()`), except a finger's tap
 * where another legal target competes for it (:func:`competing`), which opens the magnifier
 * around `centre` ([x, y], viewBox units) instead. `reach` (viewBox units: the side of the
 * largest square of the hit area round its target) sizes the magnifier.
 */
export function tapOrZoom(svg, hit, { reach, centre, pick }) {
  hit.dataset.reach = reach.toFixed(1);
  hit.addEventListener("click", (ev) => {
    ev.preventDefault();
    if (ev.pointerType === "touch" && competing(svg, hit, ev.clientX, ev.clientY)) openZoom(svg, centre);
    else pick();
  });
  hit.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); pick(); }
  });
}

/** Close the magnifier, if open. */
export function closeZoom() {
  const old = document.querySelector(".tap-zoom");
  if (old) old.remove();
}

// The magnifier: a copy of the board around `centre`, enlarged so that the smallest hit
// square near the tap is at least FINGER + 8 px (and the map at least ×1.5); a tap on a copied
// target clicks the board's own (so the guided game's filter and the turn builder see it).
function openZoom(svg, [cx, cy]) {
  closeZoom();
  const scale = cssScale(svg);
  const vb = svg.viewBox.baseVal;
  let near = Infinity;
  for (const hit of svg.querySelectorAll(".layer-hits .hit")) {
    const [x, y] = hitCentre(hit);
    if (Math.hypot(x - cx, y - cy) < vb.width / 6) near = Math.min(near, Number(hit.dataset.reach) || near);
  }
  const factor = Math.max(1.5, (FINGER + 8) / (near * scale));
  const width = Math.min(window.innerWidth - 16, 420);
  const height = Math.min(width, window.innerHeight * 0.5);
  const uw = width / (scale * factor);
  const uh = height / (scale * factor);
  const x0 = Math.max(vb.x, Math.min(cx - uw / 2, vb.x + vb.width - uw));
  const y0 = Math.max(vb.y, Math.min(cy - uh / 2, vb.y + vb.height - uh));
  const copy = svg.cloneNode(true);
  copy.setAttribute("viewBox", `${x0} ${y0} ${uw} ${uh}`);
  copy.style.width = `${width}px`;
  copy.style.height = `${height}px`;
  copy.setAttribute("aria-label", t("zoom.title"));
  copy.classList.add("zoom-board");
  for (const hit of copy.querySelectorAll(".hit")) {
    const key = hit.dataset.station ? `[data-station="${hit.dataset.station}"]` : `[data-square="${hit.dataset.square}"]`;
    const original = svg.querySelector(`.layer-hits .hit${key}`);
    const choose = (ev) => {
      ev.preventDefault();
      closeZoom();
      if (original) original.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
    };
    hit.addEventListener("click", choose);
    hit.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") choose(ev); });
  }
  const close = h("button", { class: "btn zoom-close", type: "button", "aria-label": t("zoom.close"), onclick: closeZoom }, "✕");
  const box = h("div", { class: "tap-zoom", role: "dialog", "aria-label": t("zoom.title"), "data-testid": "tap-zoom" },
    h("div", { class: "zoom-head" }, h("span", {}, t("zoom.title")), close), copy);
  box.addEventListener("keydown", (ev) => { if (ev.key === "Escape") closeZoom(); });
  // the magnifier lives in the board's own column, so the guided game's click filter sees it
  (svg.closest(".board-wrap") || svg.parentNode).append(box);
  close.focus({ preventScroll: true });
}

function hitCentre(hit) {
  const m = /translate\(([-\d.]+)[ ,]+([-\d.]+)\)/.exec(hit.getAttribute("transform") || "");
  if (m) return [Number(m[1]), Number(m[2])];
  const b = hit.getBBox();
  return [b.x + b.width / 2, b.y + b.height / 2];
}
