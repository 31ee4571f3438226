// A small line chart of round scores over time (SVG, no library): the last rounds of the
// profile, one point each, with the best marked; the figures are in the page's text too.

import { svg } from "../lib/dom.js";

const WIDTH = 320;
const HEIGHT = 110;
const PAD = 8;
const LEFT = 30; // room for the scale's figures
// Rounds drawn at most: a phone's width shows this many points apart.
export const CHART_ROUNDS = 60;

/** An <svg> drawing `records`' scores (oldest first), described by `label`. */
export function scoreChart(records, label) {
  const shown = records.slice(-CHART_ROUNDS);
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": label, class: "profile-chart" });
  if (!shown.length) return chart;
  const top = Math.max(1, ...shown.map((record) => record.score));
  const x = (index) => (shown.length === 1 ? (LEFT + WIDTH) / 2 : LEFT + (index * (WIDTH - LEFT - PAD)) / (shown.length - 1));
  const y = (score) => HEIGHT - PAD - (score / top) * (HEIGHT - 2 * PAD);
  // The scale: 0 and the best score, each with its line across.
  for (const value of [0, top]) {
    chart.append(svg("line", { x1: LEFT, y1: y(value), x2: WIDTH - PAD, y2: y(value), class: value ? "axis top" : "axis" }));
    const label = svg("text", { x: LEFT - 6, y: y(value) + 4, class: "scale", "text-anchor": "end" });
    label.textContent = String(value);
    chart.append(label);
  }
  const points = shown.map((record, index) => `${x(index).toFixed(1)},${y(record.score).toFixed(1)}`);
  chart.append(svg("polyline", { points: points.join(" "), class: "line" }));
  const best = shown.reduce((found, record, index) => (record.score > shown[found].score ? index : found), 0);
  for (const [index, record] of shown.entries()) {
    chart.append(svg("circle", { cx: x(index), cy: y(record.score), r: index === best ? 4 : 2.5, class: index === best ? "dot best" : "dot" }));
  }
  return chart;
}
