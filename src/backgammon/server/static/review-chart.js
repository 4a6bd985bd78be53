// The winning-chances chart of a reviewed game, drawn as inline SVG with dom.js (no HTML strings):
// a line of one side's winning chances after each decision over a 50 % midline, and below it a
// strip of bars, one per roll, for that side's luck (green: lucky, red: unlucky). Used by the
// review page (study.js) and, small and without the strip's labels, by the end-of-match dialog.
import { svg } from "./dom.js";

const LUCK_SCALE = 0.25;  // a roll worth twice this much equity (or more) fills half the luck strip

// points: the review's games[i].points ({decision, win: White's chance, luck: for White or null}).
// side: "White" or "Black", whose chances are drawn. opts: width, height, strip (the luck
// strip's height, 0 for none), current (a decision index to mark), onPick(decision), label(point).
export function winChart(points, side, opts = {}) {
  const W = opts.width || 600, H = opts.height || 160;
  const strip = opts.strip ?? Math.round(H * 0.25);
  const top = 4, chartH = H - strip - (strip ? 10 : 8);
  const n = points.length;
  const x = (i) => (n <= 1 ? W / 2 : 6 + (i * (W - 12)) / (n - 1));
  const sign = side === "Black" ? -1 : 1;
  const chance = (p) => (side === "Black" ? 1 - p.win : p.win);
  const y = (c) => top + (1 - c) * chartH;
  const kids = [
    svg("rect", { class: "chart-bg", fill: "#f7f7f2", stroke: "#ccc", x: 0, y: top, width: W, height: chartH }),
    svg("line", { class: "chart-mid", stroke: "#999", "stroke-dasharray": "4 3", x1: 0, x2: W, y1: y(0.5), y2: y(0.5) }),
  ];
  if (n) {
    const d = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(chance(p)).toFixed(1)}`).join(" ");
    kids.push(svg("path", { class: "chart-line", fill: "none", stroke: "#1d4fa0", "stroke-width": 2, d }));
  }
  if (strip) {
    const base = H - strip / 2 - 2;
    kids.push(svg("line", { class: "chart-mid", stroke: "#999", "stroke-dasharray": "4 3", x1: 0, x2: W, y1: base, y2: base }));
    const bw = Math.max(2, Math.min(10, (W - 12) / Math.max(n, 1) - 1));
    points.forEach((p, i) => {
      if (p.luck === null || p.luck === undefined) return;
      const l = sign * p.luck;
      const len = Math.max(1, Math.min(1, Math.abs(l) / (2 * LUCK_SCALE)) * (strip / 2 - 1));
      kids.push(svg("rect", {
        class: `luck-mark ${l >= 0 ? "luck-good" : "luck-bad"}`, fill: l >= 0 ? "#1f9d55" : "#c0202a",
        x: (x(i) - bw / 2).toFixed(1), y: (l >= 0 ? base - len : base).toFixed(1), width: bw.toFixed(1), height: len.toFixed(1),
        dataset: { decision: p.decision },
      }));
    });
  }
  if (opts.onPick && n) {  // a column per decision, wide enough to tap on a phone
    const cw = n <= 1 ? W : (W - 12) / (n - 1);
    points.forEach((p, i) => kids.push(svg("rect", { class: "chart-hit", fill: "transparent", x: (x(i) - cw / 2).toFixed(1), y: 0,
      width: cw.toFixed(1), height: H, dataset: { decision: p.decision }, onclick: () => opts.onPick(p.decision) })));
  }
  points.forEach((p, i) => {
    const attrs = { class: `chart-dot${p.decision === opts.current ? " current" : ""}`, fill: "#1d4fa0", cx: x(i).toFixed(1), cy: y(chance(p)).toFixed(1),
      r: p.decision === opts.current ? 5 : (opts.onPick ? 3 : 0), dataset: { decision: p.decision } };
    if (opts.onPick) attrs.onclick = () => opts.onPick(p.decision);
    kids.push(svg("circle", attrs, opts.label ? svg("title", {}, opts.label(p, chance(p))) : null));
  });
  if (opts.current !== undefined && opts.current !== null) {
    const i = points.findIndex((p) => p.decision === opts.current);
    if (i >= 0) kids.splice(2, 0, svg("line", { class: "chart-now", stroke: "#ffb000", "stroke-width": 2, x1: x(i), x2: x(i), y1: top, y2: H }));
  }
  return svg("svg", { class: `win-chart${opts.className ? ` ${opts.className}` : ""}`, viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": opts.aria || "chart" }, kids);
}
