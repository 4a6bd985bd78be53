// The SVG board. renderBoard() draws a model seen from the viewer; pointAt() maps a
// screen position back to a point number (viewer numbering: 1..24, 25 = bar, 0 = tray).
// Orientation names the corner of the viewer's home board: bottom-right (default),
// bottom-left, top-right, top-left. Geometry is computed for bottom-right and mirrored.
const NS = "http://www.w3.org/2000/svg";
export const W = 1000;
export const H = 760;
const R = 34;  // a checker's radius: 26 px across on a 390 px phone
const STEP = 62;  // from one checker of a stack to the next (they overlap a little)
const COL = 70;
const PAD = 12;  // the frame's extra band above and below the field, for legible point numbers

function el(name, attrs = {}, text) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function flips(orientation) {
  return { fx: orientation.endsWith("left"), fy: orientation.startsWith("top") };
}

// Base geometry (bottom-right): x0 of the point's column and whether it is in the bottom row.
function baseColumn(p) {
  if (p >= 1 && p <= 6) return { x0: 500 + (6 - p) * COL, bottom: true };
  if (p >= 7 && p <= 12) return { x0: 20 + (12 - p) * COL, bottom: true };
  if (p >= 13 && p <= 18) return { x0: 20 + (p - 13) * COL, bottom: false };
  return { x0: 500 + (p - 19) * COL, bottom: false };
}

export function geometry(orientation) {
  const { fx, fy } = flips(orientation);
  const X = (x) => (fx ? W - x : x);
  const Y = (y) => (fy ? H - y : y);
  return { X, Y, fx, fy };
}

function checker(g, cx, cy, fill, stroke, label, extra = {}) {
  const c = el("circle", { cx, cy, r: R, fill, stroke, "stroke-width": 2, class: "checker", ...extra });
  g.appendChild(c);
  if (label) {
    const dark = isDark(fill);
    g.appendChild(el("text", { x: cx, y: cy + 8, "text-anchor": "middle", class: "count", fill: dark ? "#fff" : "#222" }, label));
  }
  return c;
}

function isDark(hex) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex || "");
  if (!m) return false;
  const [r, g, b] = [1, 2, 3].map((i) => parseInt(m[i], 16));
  return r * 0.3 + g * 0.59 + b * 0.11 < 128;
}

// a die; `last`: the dice of the move just played, left on the board until the next roll
function die(g, x, y, value, used, rolling, last = false) {
  const size = 56;
  const grp = el("g", { class: "die" + (used ? " used" : "") + (rolling ? " rolling" : "") + (last ? " last" : ""), "data-value": value });
  grp.appendChild(el("rect", { x: x - size / 2, y: y - size / 2, width: size, height: size, rx: 10, fill: used ? "#bbb" : "#fffdf5", stroke: "#333", "stroke-width": 2, class: "die-face" }));
  const pips = { 1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]], 4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]], 6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]] }[value] || [];
  for (const [dx, dy] of pips) grp.appendChild(el("circle", { cx: x + dx * 15, cy: y + dy * 15, r: 5.5, fill: "#222", class: "die-pip" }));
  g.appendChild(grp);
}

// model: {mine[25], theirs[25], dice, diceMine, usedDice[], rolling (the dice just appeared: CSS animates them), cube:{value, owner:'me'|'them'|null, offered, enabled},
//         pips:{me, them}, off:{me, them}, sources:Set, targets:Set, selected, crawford, labels}
export function renderBoard(svg, model, opts) {
  const { X, Y } = geometry(opts.orientation);
  svg.setAttribute("viewBox", `0 ${-PAD} ${W} ${H + 2 * PAD}`);
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const myFill = opts.myColor, theirFill = opts.theirColor;
  const root = el("g");
  svg.appendChild(root);
  // frame, trays, bar
  root.appendChild(el("rect", { x: 0, y: -PAD, width: W, height: H + 2 * PAD, fill: "#5b3a1e", rx: 14, class: "frame" }));
  root.appendChild(el("rect", { x: Math.min(X(20), X(920)), y: 20, width: 900, height: 720, fill: "#e9d8b4", class: "field" }));
  root.appendChild(el("rect", { x: Math.min(X(440), X(500)), y: 20, width: 60, height: 720, fill: "#4a2f18", class: "bar" }));
  const trayX = Math.min(X(925), X(990));
  const myTray = { x: trayX, y: Math.min(Y(420), Y(740)), width: 65, height: 320 };
  const theirTray = { x: trayX, y: Math.min(Y(20), Y(340)), width: 65, height: 320 };
  root.appendChild(el("rect", { ...theirTray, fill: "#3d2714", rx: 6, class: "tray their-tray" }));
  root.appendChild(el("rect", { ...myTray, fill: "#3d2714", rx: 6, class: "tray my-tray" + (model.targets?.has(0) ? " target" : ""), "data-point": 0 }));
  // points
  for (let p = 1; p <= 24; p++) {
    const { x0, bottom } = baseColumn(p);
    const baseY = bottom ? 740 : 20;
    const tipY = bottom ? 440 : 320;
    const fill = p % 2 ? "#a0522d" : "#d2b48c";
    const pts = [[x0, baseY], [x0 + COL, baseY], [x0 + COL / 2, tipY]].map(([x, y]) => `${X(x)},${Y(y)}`).join(" ");
    const cls = "point " + (p % 2 ? "odd" : "even") + (model.targets?.has(p) ? " target" : "");
    root.appendChild(el("polygon", { points: pts, fill, class: cls, "data-point": p }));
    const labelY = bottom ? 740 + (20 + PAD) / 2 : (20 - PAD) / 2;  // the middle of the frame's band
    root.appendChild(el("text", { x: X(x0 + COL / 2), y: Y(labelY), "text-anchor": "middle", "dominant-baseline": "central", class: "pointnum" }, String(p)));
  }
  // the last move: the points its checkers left and reached (viewer numbering; 25 = bar, 0 = a tray)
  if (model.lastMove) markLastMove(root, model.lastMove, opts, X, Y);
  // checkers on points
  const checkers = el("g", { class: "checkers" });
  root.appendChild(checkers);
  for (let p = 1; p <= 24; p++) {
    const mineN = model.mine[p - 1];
    const theirN = model.theirs[24 - p];
    const n = mineN || theirN;
    if (!n) continue;
    const fill = mineN ? myFill : theirFill;
    const { x0, bottom } = baseColumn(p);
    const shown = Math.min(n, 5);
    for (let i = 0; i < shown; i++) {
      const y = bottom ? 740 - R - 2 - i * STEP : 20 + R + 2 + i * STEP;
      const top = i === shown - 1;
      const extra = { "data-point": p, "data-side": mineN ? "me" : "them" };
      if (top && mineN && model.sources?.has(p)) extra.class = "checker movable" + (model.selected === p ? " selected" : "");
      const c = checker(checkers, X(x0 + COL / 2), Y(y), fill, isDark(fill) ? "#ddd" : "#333", top && n > 5 ? String(n) : "", extra);
      if (extra.class) c.setAttribute("class", extra.class);
    }
  }
  // bar checkers: mine in the half towards the top of the base geometry, theirs below
  const barX = X(470);
  for (const [count, fill, side, base, step] of [[model.mine[24], myFill, "me", 310, -55], [model.theirs[24], theirFill, "them", 450, 55]]) {
    const shown = Math.min(count, 4);
    for (let i = 0; i < shown; i++) {
      const top = i === shown - 1;
      const extra = { "data-point": 25, "data-side": side };
      const c = checker(checkers, barX, Y(base + i * step), fill, isDark(fill) ? "#ddd" : "#333", top && count > 4 ? String(count) : "", extra);
      if (top && side === "me" && model.sources?.has(25)) c.setAttribute("class", "checker movable" + (model.selected === 25 ? " selected" : ""));
    }
  }
  // borne-off checkers in the trays
  for (const [count, fill, tray, fromBottom, side] of [[model.off.me, myFill, myTray, Y(740) > Y(420), "me"], [model.off.them, theirFill, theirTray, Y(20) > Y(340), "them"]]) {
    for (let i = 0; i < count; i++) {
      const y = fromBottom ? tray.y + tray.height - 6 - (i + 1) * 19 : tray.y + 6 + i * 19;
      checkers.appendChild(el("rect", { x: tray.x + 6, y, width: tray.width - 12, height: 16, rx: 4, fill, stroke: isDark(fill) ? "#ddd" : "#333", class: "offchecker", "data-side": side }));
    }
  }
  // pip counts, beside the trays
  // each count on a chip of its side's checker colour (the opponent's towards their tray), with a
  // tooltip naming it, so which number is whose is clear
  if (opts.showPips) {
    const tx = X(957);
    for (const [value, fill, y, cls, title] of [
      [model.pips.them, theirFill, Y(362), "pips pips-them", opts.pipsTheirLabel],
      [model.pips.me, myFill, Y(398), "pips pips-me", opts.pipsMyLabel],
    ]) {
      const g = el("g", { class: cls });
      g.appendChild(el("rect", { x: tx - 29, y: y - 15, width: 58, height: 30, rx: 7, fill, stroke: isDark(fill) ? "#ddd" : "#333", "stroke-width": 1.5 }));
      g.appendChild(el("text", { x: tx, y: y + 7, "text-anchor": "middle", class: "pipval", fill: isDark(fill) ? "#fff" : "#222" }, String(value)));
      if (title) g.appendChild(el("title", {}, `${title}: ${value}`));
      root.appendChild(g);
    }
  }
  // dice
  if (model.dice) {
    const xs = model.diceMine ? [665, 755] : [185, 275];
    const [a, b] = model.dice;
    die(root, X(xs[0]), Y(380), a, model.usedDice?.[0], model.rolling, model.diceLast);
    die(root, X(xs[1]), Y(380), b, model.usedDice?.[1], model.rolling, model.diceLast);
  }
  if (model.opening) {
    // the opening roll: one die for each side
    die(root, X(710), Y(380), model.opening.me, false);
    die(root, X(230), Y(380), model.opening.them, false);
  }
  // cube
  if (model.cube && model.cube.enabled) {
    let cy = 380;
    if (model.cube.owner === "me") cy = 700;
    if (model.cube.owner === "them") cy = 60;
    let cx = 470;
    if (model.cube.offered) cx = model.cube.offered === "me" ? 820 : 110;
    const value = model.cube.offered ? model.cube.value * 2 : model.cube.value;
    const g = el("g", { class: "cube", "data-owner": model.cube.owner || "centre" });
    g.appendChild(el("rect", { x: X(cx) - 26, y: Y(cy) - 26, width: 52, height: 52, rx: 8, fill: "#fdfdfd", stroke: "#111", "stroke-width": 3 }));
    g.appendChild(el("text", { x: X(cx), y: Y(cy) + 9, "text-anchor": "middle", class: "cubeval" }, String(value === 1 ? 64 : value)));
    root.appendChild(g);
  }
  if (model.slides && model.slides.length) slideCheckers(svg, model, opts);
  if (model.crawford) {
    const lx = model.dice && !model.diceMine ? 710 : 230;
    root.appendChild(el("text", { x: X(lx), y: Y(380) + 8, "text-anchor": "middle", class: "crawford" }, opts.crawfordLabel || "Crawford"));
  }
}

// The last move's marks, under the checkers: each point (or the bar, or the mover's tray) a checker
// left is outlined, each point it reached is lit; every mark carries data-last-move="from" or "to".
// lastMove: {side: "me"|"them", from: [points], to: [points]} in the viewer's numbering.
function markLastMove(root, lastMove, opts, X, Y) {
  const marks = el("g", { class: "last-move", "data-side": lastMove.side });
  const mark = (p, kind) => {
    const attrs = { class: `last-move-mark ${kind}`, "data-last-move": kind, "data-mark-point": p };
    if (p === 25) {
      marks.appendChild(el("rect", { ...attrs, x: Math.min(X(440), X(500)), y: 20, width: 60, height: 720 }));
    } else if (p === 0) {
      const mine = lastMove.side === "me";
      const y = mine ? Math.min(Y(420), Y(740)) : Math.min(Y(20), Y(340));
      marks.appendChild(el("rect", { ...attrs, x: Math.min(X(925), X(990)), y, width: 65, height: 320, rx: 6 }));
    } else {
      const { x0, bottom } = baseColumn(p);
      const baseY = bottom ? 740 : 20;
      const tipY = bottom ? 440 : 320;
      const pts = [[x0 + 3, baseY], [x0 + COL - 3, baseY], [x0 + COL / 2, tipY]].map(([x, y]) => `${X(x)},${Y(y)}`).join(" ");
      marks.appendChild(el("polygon", { ...attrs, points: pts }));
    }
  };
  const to = new Set(lastMove.to);
  for (const p of new Set(lastMove.from)) if (!to.has(p)) mark(p, "from");
  for (const p of to) mark(p, "to");
  root.appendChild(marks);
}

// Which point (viewer numbering) is under the client position: 1..24, 25 (bar), 0 (my tray), or null.
export function pointAt(svg, clientX, clientY, orientation) {
  const pt = svg.createSVGPoint();
  pt.x = clientX;
  pt.y = clientY;
  const ctm = svg.getScreenCTM();
  if (!ctm) return null;
  const { x: sx, y: sy } = pt.matrixTransform(ctm.inverse());
  const { fx, fy } = flips(orientation);
  const x = fx ? W - sx : sx;
  const y = fy ? H - sy : sy;
  if (x >= 920 && x <= 1000 && y >= 380) return 0;
  if (x >= 440 && x < 500) return 25;
  if (y < 20 || y > 740 || x < 20 || x >= 920) return null;
  const bottom = y >= 380;
  if (x >= 500) {
    const col = Math.floor((x - 500) / COL);
    return bottom ? 6 - col : 19 + col;
  }
  const col = Math.floor((x - 20) / COL);
  return bottom ? 12 - col : 13 + col;
}

// Where to draw a marker for a point (viewer numbering; 25 = bar, 0 = my tray), in SVG units.
export function pointXY(p, orientation, stacked = 1) {
  const { X, Y } = geometry(orientation);
  if (p === 25) return { x: X(470), y: Y(330) };
  if (p === 0) return { x: X(957), y: Y(560) };
  const { x0, bottom } = baseColumn(p);
  const depth = Math.max(0, Math.min(stacked, 5) - 1);
  const y = bottom ? 740 - R - 2 - depth * STEP : 20 + R + 2 + depth * STEP;
  return { x: X(x0 + COL / 2), y: Y(y) };
}

// Where the checker number `index` (0 = the lowest) of a side stands on a point (viewer numbering
// 1..24), on the bar (25) or in its tray (0), in SVG units: the middle of the circle (or tray chip).
export function checkerXY(side, p, index, orientation) {
  const { X, Y } = geometry(orientation);
  if (p === 25) {
    const shown = Math.min(index, 3);
    return side === "me" ? { x: X(470), y: Y(310 - shown * 55) } : { x: X(470), y: Y(450 + shown * 55) };
  }
  if (p === 0) {
    const tray = side === "me" ? { top: 420, bottom: 740 } : { top: 20, bottom: 340 };
    const fromBottom = side === "me" ? Y(740) > Y(420) : Y(20) > Y(340);
    const y0 = Math.min(Y(tray.top), Y(tray.bottom));
    const y = fromBottom ? y0 + 320 - 6 - (index + 1) * 19 + 8 : y0 + 6 + index * 19 + 8;
    return { x: Math.min(X(925), X(990)) + 32.5, y };
  }
  const { x0, bottom } = baseColumn(p);
  const i = Math.min(index, 4);
  const y = bottom ? 740 - R - 2 - i * STEP : 20 + R + 2 + i * STEP;
  return { x: X(x0 + COL / 2), y: Y(y) };
}

// Checker slides: each {side: "me"|"them", from, to} (viewer numbering; 25 = bar, 0 = tray) moves
// the checker now drawn on top of `to` from where it stood on `from` (or from `fromXY`, where a
// dragged checker was let go), by a CSS transform over `opts.slideMs` (about 200 ms). The element
// is marked `sliding` while it runs. Nothing slides when opts.slideMs is 0 (the animation setting
// "off", or the system's reduced motion: the caller decides).
function slideCheckers(svg, model, opts) {
  const ms = opts.slideMs || 0;
  if (!ms) return;
  const count = (side, p) => {
    if (p === 0) return side === "me" ? model.off.me : model.off.them;
    if (p === 25) return side === "me" ? model.mine[24] : model.theirs[24];
    return side === "me" ? model.mine[p - 1] : model.theirs[24 - p];
  };
  for (const s of model.slides) {
    const sel = s.to === 0 ? `.offchecker[data-side="${s.side}"]` : `.checker[data-side="${s.side}"][data-point="${s.to}"]`;
    const all = svg.querySelectorAll(sel);
    const node = all[all.length - 1];  // the top one: drawn last
    if (!node) continue;
    const dest = checkerXY(s.side, s.to, Math.max(0, count(s.side, s.to) - 1), opts.orientation);
    const from = s.fromXY || checkerXY(s.side, s.from, count(s.side, s.from), opts.orientation);
    const dx = from.x - dest.x, dy = from.y - dest.y;
    if (!dx && !dy) continue;
    const label = node.nextSibling && node.nextSibling.classList && node.nextSibling.classList.contains("count") ? node.nextSibling : null;
    for (const target of label ? [node, label] : [node]) {
      target.classList.add("sliding");
      target.style.transform = `translate(${dx}px, ${dy}px)`;
      const anim = target.animate
        ? target.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0px, 0px)" }], { duration: ms, easing: "ease-out" })
        : null;
      target.style.transform = "";
      const done = () => target.classList.remove("sliding");
      if (anim) anim.onfinish = anim.oncancel = done;
      else done();
    }
  }
}
