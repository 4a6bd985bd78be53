// Puzzles from the player's own games (/puzzles): the list of positions where the logged-in
// player went wrong, and one puzzle at a time, answered by clicking checkers (along the move graph
// the server sends with the puzzle: clickplay.js, the site's one click model), typing the move or
// choosing the cube action. The browser runs no rules: the server reads and judges the answer
// (a first wrong answer gets a second try, then the answer). Text is set as text (dom.js).
import { renderBoard, pointXY } from "./board.js";
import { t, setLanguage, defaultLanguage, language, applyTranslations, errorText, httpError } from "./i18n.js";
import { h, svg } from "./dom.js";
import { bindBoard, boardAfter, marks, playText, refusal } from "./clickplay.js";
import { mountNav } from "./sitenav.js";

mountNav();

const $ = (sel) => document.querySelector(sel);
const PAGE = 10;
const ORIENTATIONS = ["bottom-right", "bottom-left", "top-right", "top-left"];

function loadSettings() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem("bg.settings") || "{}"); } catch { saved = {}; }
  return {
    lang: saved.lang || defaultLanguage(),
    orientation: ORIENTATIONS.includes(saved.orientation) ? saved.orientation : "bottom-right",
    whiteColor: saved.whiteColor || "#f4f1e8",
    blackColor: saved.blackColor || "#2b2b2b",
  };
}
let settings = loadSettings();
const P = { offset: 0, order: "newest", list: [], puzzle: null, play: null, busy: false };

async function api(method, path, body) {
  const res = await fetch(path, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  let doc = null;
  try { doc = await res.json(); } catch { doc = null; }
  if (!res.ok) throw httpError(res.status, doc);
  return doc;
}
const num = (x) => Number(x).toFixed(3);
function diceText(d) { return d ? `${d[0]}-${d[1]}` : ""; }
function choiceText(c) { return t({ double: "pz_double", "no double": "pz_no_double", take: "pz_take", pass: "pz_pass" }[c] || "") || c; }
function kindText(p) { return p.kind === "play" ? t("pz_kind_play", { dice: diceText(p.dice) }) : t(`pz_kind_${p.kind}`); }
function scoreText(sc) { return t("pz_score", { points: sc.points, solved: sc.solved, done: sc.done, first: sc.first_try }); }

// ------------------------------------------------------------------ routing
function route() {
  const m = /^\/puzzles\/([^/]+)$/.exec(location.pathname);
  $("#pz-list-view").hidden = !!m;
  $("#pz-view").hidden = !m;
  if (m) openPuzzle(decodeURIComponent(m[1])); else showList();
}
function go(path) { history.pushState({}, "", path); route(); }
window.addEventListener("popstate", route);

// --------------------------------------------------------------------- list
async function showList() {
  const box = $("#pz-list");
  $("#pz-message").textContent = t("pz_loading");
  let doc;
  try {
    doc = await api("GET", `/api/puzzles?limit=${PAGE}&offset=${P.offset}&order=${P.order}`);
  } catch (e) {
    box.replaceChildren();
    $("#pz-controls").hidden = true;
    $("#pz-pager").hidden = true;
    $("#pz-score").textContent = "";
    if (e.status === 401) {
      $("#pz-message").replaceChildren(t("pz_login"), " ", h("a", { href: "/" }, t("pz_login_link")));
    } else {
      $("#pz-message").textContent = e.message;
    }
    return;
  }
  P.list = doc.puzzles;
  $("#pz-controls").hidden = false;
  $("#pz-score").textContent = scoreText(doc.score);
  $("#pz-pending").hidden = !doc.unreviewed;
  $("#pz-more").hidden = !doc.unreviewed;
  $("#pz-pending").textContent = t("pz_unreviewed", { n: doc.unreviewed });
  $("#pz-message").textContent = doc.total ? "" : t("pz_none");
  box.replaceChildren(...doc.puzzles.map((p) => h("li", {},
    h("span", {}, h("b", {}, kindText(p)), " ", h("span", { class: "small" }, `${p.played.slice(0, 10)} · ${t("pz_lost", { loss: num(p.error) })} · ${t(`pz_status_${p.status}`)}`)),
    h("a", { href: `/puzzles/${encodeURIComponent(p.id)}`, class: "pz-open", onclick: (ev) => { ev.preventDefault(); go(`/puzzles/${encodeURIComponent(p.id)}`); } }, t("pz_open")))));
  $("#pz-pager").hidden = doc.total <= PAGE;
  $("#pz-range").textContent = t("pz_page", { from: doc.total ? doc.offset + 1 : 0, to: doc.offset + doc.puzzles.length, total: doc.total });
  $("#pz-prev").disabled = doc.offset === 0;
  $("#pz-next-page").disabled = doc.offset + PAGE >= doc.total;
}

// ------------------------------------------------------------------- puzzle
function drawPuzzle() {
  const pz = P.puzzle;
  if (!pz) return;
  const st = pz.setup;
  const c = clicksNow();
  const shown = c ? boardAfter(st, c.steps) : st;
  const sum = (a) => a.reduce((x, y) => x + y, 0);
  const pip = (side) => side.reduce((acc, n, i) => acc + n * (i + 1), 0);
  const owner = st.owner === "centre" ? null : st.owner;
  const model = {
    mine: shown.mine, theirs: shown.theirs, dice: st.dice, diceMine: true, usedDice: [],
    cube: { value: pz.offered || st.cube, owner, offered: !!pz.offered, enabled: true },
    pips: { me: pip(shown.mine), them: pip(shown.theirs) }, off: { me: 15 - sum(shown.mine), them: 15 - sum(shown.theirs) },
    ...(c ? marks(c.graph, c.steps, c.selected) : { sources: new Set(), targets: new Set(), selected: null }),
  };
  const [mine, theirs] = pz.player === "Black" ? [settings.blackColor, settings.whiteColor] : [settings.whiteColor, settings.blackColor];
  renderBoard($("#pz-board"), model, { orientation: settings.orientation, myColor: mine, theirColor: theirs, showPips: true });
}
// Move text -> die steps [[from, to]] (25 = bar, 0 = off), to draw a play as arrows.
function stepsOf(text) {
  const out = [];
  for (const raw of String(text || "").trim().split(/\s+/)) {
    const m = /^(.*?)(?:\((\d)\))?$/.exec(raw);
    if (!m || !m[1]) continue;
    const pts = m[1].split("/").map((w) => w.replace("*", "").toLowerCase()).map((w) => (w === "bar" ? 25 : w === "off" ? 0 : Number(w)));
    if (pts.some((p) => Number.isNaN(p))) continue;
    for (let k = 0; k < (m[2] ? Number(m[2]) : 1); k++) for (let i = 0; i + 1 < pts.length; i++) out.push([pts[i], pts[i + 1]]);
  }
  return out;
}
// the best play (green) and the one played in the game (red) on the puzzle's starting position
function drawAnswer(best, played) {
  P.play = null;
  drawPuzzle();
  const board = $("#pz-board");
  for (const [text, cls, offset] of [[played, "arrow-played", -9], [best, "arrow-best", 9]]) {
    const g = svg("g", { class: `arrows ${cls}` });
    for (const [a, b] of stepsOf(text)) {
      const p = pointXY(a, settings.orientation, 3), q = pointXY(b, settings.orientation, 3);
      const dx = q.x - p.x, dy = q.y - p.y, len = Math.hypot(dx, dy) || 1, ux = dx / len, uy = dy / len;
      const x1 = p.x - uy * offset, y1 = p.y + ux * offset, x2 = q.x - uy * offset - ux * 22, y2 = q.y + ux * offset - uy * 22;
      g.append(svg("line", { x1, y1, x2, y2, class: `arrow ${cls}` }),
        svg("polygon", { points: `${x2 + ux * 22},${y2 + uy * 22} ${x2 - uy * 16},${y2 + ux * 16} ${x2 + uy * 16},${y2 - ux * 16}`, class: `arrow ${cls}` }));
    }
    board.append(g);
  }
}
// The play being built by clicking (`P.play`: the steps made and the checker picked) on the puzzle's
// move graph, or null when the board takes no move (a cube puzzle, or the answer shown).
function resetPlay() {
  P.play = P.puzzle && P.puzzle.kind === "play" && P.puzzle.setup.move_graph ? { steps: [], selected: null } : null;
  $("#pz-play").value = "";
  $("#pz-error").textContent = "";
  drawPuzzle();
}
function clicksNow() {
  return P.play && P.puzzle ? { graph: P.puzzle.setup.move_graph, steps: P.play.steps, selected: P.play.selected } : null;
}
function clicked() {
  const st = P.puzzle.setup;
  $("#pz-error").textContent = "";
  $("#pz-play").value = playText(st, st.move_graph, st.plays || [], P.play.steps);
  drawPuzzle();
}

async function openPuzzle(id) {
  $("#pz-heading").textContent = t("pz_loading");
  $("#pz-prompt").textContent = "";
  $("#pz-form").hidden = true;
  $("#pz-choices").replaceChildren();
  $("#pz-feedback").hidden = true;
  $("#pz-next").hidden = true;
  $("#pz-score2").textContent = "";
  try {
    P.puzzle = await api("GET", `/api/puzzles/${encodeURIComponent(id)}`);
  } catch (e) {
    P.puzzle = null;
    $("#pz-heading").textContent = "";
    if (e.status === 401) $("#pz-prompt").replaceChildren(t("pz_login"), " ", h("a", { href: "/" }, t("pz_login_link")));
    else $("#pz-prompt").textContent = e.message;
    $("#pz-board").replaceChildren();
    return;
  }
  const pz = P.puzzle;
  $("#pz-heading").textContent = kindText(pz);
  if (pz.kind === "play") {
    $("#pz-prompt").textContent = t("pz_ask_play", { dice: diceText(pz.dice) });
    $("#pz-form").hidden = false;
  } else {
    $("#pz-prompt").textContent = t(pz.kind === "take" ? "pz_ask_take" : "pz_ask_cube", { cube: pz.offered || pz.setup.cube });
    $("#pz-choices").replaceChildren(...pz.choices.map((c) => h("button", { type: "button", class: "pz-choice", "data-choice": c, onclick: () => answer({ choice: c }) }, choiceText(c))));
  }
  resetPlay();
  if (pz.answer) showResult({ correct: pz.status === "first_try" || pz.status === "solved", answer: null, result: { best: pz.answer.best, original: pz.answer.original, original_loss: pz.answer.original_loss, equity_label: pz.equity_label } }, true);
}

function nextPuzzle() {
  const i = P.list.findIndex((p) => p.id === P.puzzle?.id);
  const next = i >= 0 ? P.list[i + 1] : null;
  go(next ? `/puzzles/${encodeURIComponent(next.id)}` : "/puzzles");
}

function showResult(doc, earlier = false) {
  const box = $("#pz-feedback");
  const r = doc.result;
  const parts = [];
  if (!earlier) parts.push(h("b", {}, t(doc.correct ? "pz_right" : "pz_wrong")), " ");
  let best = r.best;
  if (P.puzzle.kind !== "play") {  // the better of the two answers, and the engine's cube action beside it
    const right = P.puzzle.choices.find((c) => c !== r.original);
    best = right && right !== r.best ? `${choiceText(right)} (${r.best})` : choiceText(right || r.best);
  }
  parts.push(t("pz_best", { best }));
  if (!earlier && doc.answer) parts.push(h("br"), t("pz_your_loss", { answer: P.puzzle.kind === "play" ? doc.answer : choiceText(doc.answer), loss: num(r.loss) }));
  parts.push(h("br"), t("pz_original_loss", { original: P.puzzle.kind === "play" ? r.original : choiceText(r.original), loss: num(r.original_loss) }));
  if (r.equity_label) parts.push(h("br"), h("span", { class: "small" }, t("pz_depth", { label: r.equity_label })));
  if (P.puzzle.kind === "play") parts.push(h("br"), h("span", { class: "small" }, t("pz_arrows")));
  if (P.puzzle.kind === "play") drawAnswer(r.best, r.original);
  box.className = `verdict ${doc.correct ? "right" : "wrong"}`;
  box.replaceChildren(...parts);
  box.hidden = false;
  $("#pz-next").hidden = false;
}

async function answer(body) {
  if (P.busy || !P.puzzle) return;
  P.busy = true;
  const box = $("#pz-feedback");
  try {
    const doc = await api("POST", `/api/puzzles/${encodeURIComponent(P.puzzle.id)}/answer`, { ...body, lang: language() });
    if (doc.score) $("#pz-score2").textContent = scoreText(doc.score);
    if (!doc.done) {
      box.className = "verdict wrong";
      box.replaceChildren(h("b", {}, t("pz_wrong_again")));
      box.hidden = false;
      resetPlay();
      return;
    }
    showResult(doc);
  } catch (e) {
    box.className = "verdict wrong";
    box.textContent = e.message;  // an illegal or unreadable play: not counted as a try
    box.hidden = false;
  } finally {
    P.busy = false;
  }
}

// ---------------------------------------------------------------- start
function start() {
  setLanguage(settings.lang);
  $("#lang").value = language();
  applyTranslations();
  document.title = `${t("title")} — ${t("puzzles")}`;
  $("#lang").onchange = (ev) => {
    let saved = {};
    try { saved = JSON.parse(localStorage.getItem("bg.settings") || "{}"); } catch { saved = {}; }
    localStorage.setItem("bg.settings", JSON.stringify({ ...saved, lang: ev.target.value }));
    settings = loadSettings();
    setLanguage(settings.lang);
    applyTranslations();
    document.title = `${t("title")} — ${t("puzzles")}`;
    route();
  };
  $("#pz-order").onchange = (ev) => { P.order = ev.target.value; P.offset = 0; showList(); };
  $("#pz-prev").onclick = () => { P.offset = Math.max(0, P.offset - PAGE); showList(); };
  $("#pz-next-page").onclick = () => { P.offset += PAGE; showList(); };
  $("#pz-more").onclick = () => showList();
  $("#pz-back").onclick = (ev) => { ev.preventDefault(); go("/puzzles"); };
  $("#pz-next").onclick = nextPuzzle;
  $("#pz-reset").onclick = resetPlay;
  $("#pz-form").addEventListener("submit", (ev) => { ev.preventDefault(); answer({ play: $("#pz-play").value }); });
  bindBoard($("#pz-board"), {
    clicks: clicksNow,
    orientation: () => settings.orientation,
    colour: () => (P.puzzle?.player === "Black" ? settings.blackColor : settings.whiteColor),
    select: (p) => { P.play.selected = p; drawPuzzle(); },
    move: (steps) => { P.play.steps.push(...steps); P.play.selected = null; clicked(); },
    refuse: (from, to) => { P.play.selected = null; $("#pz-error").textContent = errorText(refusal(from, to, P.puzzle.setup.dice)); drawPuzzle(); },
    cancel: drawPuzzle,
  });
  $("#pz-undo").onclick = () => { if (P.play) { P.play.steps.pop(); P.play.selected = null; clicked(); } };
  // the account's board orientation (the main page's settings), when logged in
  api("GET", "/api/me").then((me) => {
    const o = me?.settings?.orientation;
    if (ORIENTATIONS.includes(o) && o !== settings.orientation) { settings.orientation = o; drawPuzzle(); }
  }).catch(() => {});
  route();
}
start();
