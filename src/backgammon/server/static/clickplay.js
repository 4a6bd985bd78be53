// The one click model of the site's boards (the play page, chouette, the study board, lessons and
// puzzles). The browser runs no rules: the server sends the roll's legal step sequences as a move
// graph ("move_graph": {length, nodes}; node 0 is the start, each edge [from, to, child], a node
// without edges a complete play; docs/web-protocol.md), and a play is built one click or drag at a
// time by following it. Steps are in the mover's numbering (25 = the bar, 0 = off); a page keeps
// the steps made so far and the checker picked, and asks here what they allow.
import { pointAt } from "./board.js";

/** @typedef {import("./protocol-types.js").MoveGraph} MoveGraph */
/** @typedef {import("./protocol-types.js").PlayOption} PlayOption */

/**
 * The node the steps made so far lead to, or null when they left the graph (or there is none).
 * @param {MoveGraph | null} graph @param {number[][]} steps @returns {number | null}
 */
export function graphNode(graph, steps) {
  if (!graph) return null;
  let node = 0;
  for (const [a, b] of steps) {
    const edge = graph.nodes[node].find((e) => e[0] === a && e[1] === b);
    if (!edge) return null;
    node = edge[2];
  }
  return node;
}
/** The points a checker may be picked from next. @param {MoveGraph | null} graph @param {number[][]} steps */
export function sources(graph, steps) {
  const node = graphNode(graph, steps);
  return new Set(node === null ? [] : graph.nodes[node].map((e) => e[0]));
}
/**
 * Where the checker on `src` may go next, each with its die steps: one step, or several steps of the
 * same checker (the fewest that reach the point: a checker borne off by one die is not walked there
 * by two).
 * @param {MoveGraph | null} graph @param {number[][]} steps @param {number | null} src
 * @returns {Map<number, number[][]>}
 */
export function targets(graph, steps, src) {
  const map = new Map();
  const node = graphNode(graph, steps);
  if (src === null || src === undefined || node === null) return map;
  const walk = (n, at, path) => {
    for (const [a, b, child] of graph.nodes[n]) {
      if (a !== at) continue;
      const longer = path.concat([[a, b]]);
      if (!map.has(b) || map.get(b).length > longer.length) map.set(b, longer);
      if (b !== 0) walk(child, b, longer);
    }
  };
  walk(node, src, []);
  return map;
}
/** How many steps a whole play has (0: the roll cannot be played). @param {MoveGraph | null} graph */
export function playLength(graph) { return graph ? graph.length : 0; }
/** Whether the steps are a whole legal play. @param {MoveGraph | null} graph @param {number[][]} steps */
export function isComplete(graph, steps) {
  const node = graphNode(graph, steps);
  return node !== null && graph.nodes[node].length === 0;
}
/** The first complete play of the graph (a forced move's steps). @param {MoveGraph | null} graph */
export function firstPlay(graph) {
  const steps = [];
  for (let node = 0; graph && graph.nodes[node].length; node = graph.nodes[node][0][2]) steps.push(graph.nodes[node][0].slice(0, 2));
  return steps;
}
/**
 * The index in `plays` (each legal play once, with one order of its steps: the server's "plays") of
 * the play the steps make, or -1 while they are not a whole play. Two orders of the same play end on
 * the same node of the graph.
 * @param {MoveGraph | null} graph @param {PlayOption[]} plays @param {number[][]} steps
 */
export function playIndex(graph, plays, steps) {
  if (!isComplete(graph, steps)) return -1;
  const end = graphNode(graph, steps);
  return plays.findIndex((p) => graphNode(graph, p.steps) === end);
}

/**
 * The marks board.js draws for the play being built: the checkers that may move, where the picked one
 * may go, and the picked one.
 * @param {MoveGraph | null} graph @param {number[][]} steps @param {number | null} selected
 */
export function marks(graph, steps, selected) {
  return { sources: sources(graph, steps), targets: new Set(targets(graph, steps, selected).keys()), selected };
}

/**
 * Apply one step (the mover's numbering) to the mover's and the other side's checkers, in place;
 * whether it hit.
 * @param {number[]} mover @param {number[]} other @param {number} from @param {number} to
 */
export function applyStep(mover, other, from, to) {
  mover[from === 25 ? 24 : from - 1] -= 1;
  if (to === 0) return false;
  const oi = 24 - to;
  const hit = other[oi] === 1;
  if (hit) { other[oi] = 0; other[24] += 1; }
  mover[to - 1] += 1;
  return hit;
}
/**
 * The board after the steps, seen by the mover (a new board).
 * @param {{ mine: number[], theirs: number[] }} board @param {number[][]} steps
 */
export function boardAfter(board, steps) {
  const out = { mine: board.mine.slice(), theirs: board.theirs.slice() };
  for (const [from, to] of steps) applyStep(out.mine, out.theirs, from, to);
  return out;
}
/** Which of the two dice shown the steps used up (a double's: after two, after four). @param {number[] | null} dice @param {number[][]} steps */
export function usedDice(dice, steps) {
  if (!dice) return [false, false];
  const pool = dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : dice.slice();
  const used = pool.map(() => false);
  for (const [from, to] of steps) {
    const dist = (from === 25 ? 25 : from) - to;
    let i = pool.findIndex((d, j) => !used[j] && d === dist);
    if (i < 0) i = pool.findIndex((d, j) => !used[j] && d > dist);
    if (i >= 0) used[i] = true;
  }
  if (dice[0] === dice[1]) return [used.filter(Boolean).length >= 2, used.filter(Boolean).length >= 4];
  return used;
}
/** One step as text ("bar/22", "6/off"). @param {number} from @param {number} to */
export function stepText(from, to) { return `${from === 25 ? "bar" : from}/${to === 0 ? "off" : to}`; }
/**
 * The steps as move text while a play is being built, one step at a time with its hits ("13/8 8/5*");
 * a whole play's text is the server's (`plays`, {@link playIndex}).
 * @param {{ mine: number[], theirs: number[] }} board @param {number[][]} steps
 */
export function stepsText(board, steps) {
  const b = { mine: board.mine.slice(), theirs: board.theirs.slice() };
  return steps.map(([from, to]) => stepText(from, to) + (applyStep(b.mine, b.theirs, from, to) ? "*" : "")).join(" ");
}
/**
 * The text of the steps made: the server's text of the play once they make one (`plays`), else step
 * by step ({@link stepsText}).
 * @param {{ mine: number[], theirs: number[] }} board @param {MoveGraph | null} graph @param {PlayOption[]} plays @param {number[][]} steps
 */
export function playText(board, graph, plays, steps) {
  const i = playIndex(graph, plays, steps);
  return i >= 0 ? plays[i].play : stepsText(board, steps);
}
/**
 * A refused click as an error the pages word with i18n.js errorText: "6/3 is not possible with 5-2."
 * @param {number} from @param {number} to @param {number[] | null} dice
 */
export function refusal(from, to, dice) {
  return { code: "illegal_play_for_roll", params: { play: stepText(from, to), dice: dice ? `${dice[0]}-${dice[1]}` : "" } };
}

/**
 * What a press on point `p` does, given the steps made and the checker picked: move the picked
 * checker there (`steps`: its die steps), pick the checker there (`select`), refuse (`refuse`: the
 * picked checker cannot go there), or nothing.
 * @param {MoveGraph | null} graph @param {number[][]} steps @param {number | null} selected @param {number | null} p
 * @returns {{ kind: "move", steps: number[][] } | { kind: "select", point: number } | { kind: "refuse", from: number, to: number } | { kind: "none" }}
 */
export function press(graph, steps, selected, p) {
  if (p === null || p === undefined) return { kind: "none" };
  if (selected !== null && selected !== p) {
    const path = targets(graph, steps, selected).get(p);
    if (path) return { kind: "move", steps: path };
  }
  if (sources(graph, steps).has(p)) return { kind: "select", point: p };
  if (selected !== null && selected !== p) return { kind: "refuse", from: selected, to: p };
  return { kind: "none" };
}

/**
 * @typedef {object} BoardInput
 * @property {() => { graph: MoveGraph | null, steps: number[][], selected: number | null } | null} clicks
 *   the play being built, or null while the board takes no move
 * @property {() => string} orientation the board's orientation (board.js)
 * @property {() => string} colour the colour of the mover's checkers (the dragged one)
 * @property {(point: number) => void} select a checker was picked (the page marks it and redraws)
 * @property {(steps: number[][], dropped: { x: number, y: number } | null) => void} move
 *   the picked checker goes on by these steps (`dropped`: where a dragged checker was let go)
 * @property {(from: number, to: number) => void} refuse the picked checker cannot go there
 * @property {() => void} [cancel] a drag was cancelled (the page redraws)
 */
/**
 * Click-click and drag-and-drop moving on a board (an SVG drawn by board.js): press a checker to pick
 * it, then press where it goes, or drag it there. The pages keep the steps; this only reads them.
 * @param {SVGSVGElement} svg @param {BoardInput} input
 */
export function bindBoard(svg, input) {
  /** @type {{ from: number, x: number, y: number, moved: boolean, ghost: SVGCircleElement | null } | null} */
  let drag = null;
  svg.addEventListener("pointerdown", (ev) => {
    const c = input.clicks();
    if (!c) return;
    const p = pointAt(svg, ev.clientX, ev.clientY, input.orientation());
    const what = press(c.graph, c.steps, c.selected, p);
    if (what.kind === "move") input.move(what.steps, null);
    else if (what.kind === "refuse") input.refuse(what.from, what.to);
    else if (what.kind === "select") {
      input.select(what.point);
      drag = { from: what.point, x: ev.clientX, y: ev.clientY, moved: false, ghost: null };
      svg.setPointerCapture(ev.pointerId);
    }
  });
  svg.addEventListener("pointermove", (ev) => {
    const d = drag;
    if (!d) return;
    if (Math.hypot(ev.clientX - d.x, ev.clientY - d.y) > 6) d.moved = true;
    if (!d.moved) return;
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    if (!d.ghost) {
      d.ghost = document.createElementNS("http://www.w3.org/2000/svg", "circle");
      for (const [k, v] of Object.entries({ r: 34, class: "ghost", fill: input.colour(), stroke: "#ffd400", "stroke-width": 4 })) d.ghost.setAttribute(k, String(v));
      svg.appendChild(d.ghost);
    }
    d.ghost.setAttribute("cx", String(p.x));
    d.ghost.setAttribute("cy", String(p.y));
  });
  svg.addEventListener("pointerup", (ev) => {
    const d = drag;
    drag = null;
    if (!d) return;
    const dropped = d.ghost ? { x: Number(d.ghost.getAttribute("cx")), y: Number(d.ghost.getAttribute("cy")) } : null;
    if (d.ghost) d.ghost.remove();
    if (!d.moved) return; // a click: the checker stays picked, the next press chooses where it goes
    const c = input.clicks();
    if (!c) return;
    const q = pointAt(svg, ev.clientX, ev.clientY, input.orientation());
    const path = q === null ? null : targets(c.graph, c.steps, d.from).get(q);
    if (path) input.move(path, dropped); // it glides from where it was let go
    else input.refuse(d.from, q ?? d.from);
  });
  svg.addEventListener("pointercancel", () => {
    if (drag?.ghost) drag.ghost.remove();
    drag = null;
    input.cancel?.();
  });
}
