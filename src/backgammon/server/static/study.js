// The study pages: analysis board (with tactical check and rollouts), lessons and the
// coached review of a finished game. The browser runs no rules: the server reads the IDs,
// checks plays and answers; here we only edit the board and follow the move graph the server sends
// with a position (clickplay.js, the site's one click model) to make a play by clicking.
import { renderBoard, pointAt, pointXY } from "./board.js";
import { MESSAGES, setLanguage, defaultLanguage, language, errorText, httpError } from "./i18n.js";
import { STUDY_MESSAGES } from "./study-i18n.js";
import { h } from "./dom.js";
import { bindBoard, boardAfter, marks, playText, playIndex, refusal } from "./clickplay.js";
import { winChart } from "./review-chart.js";
import { mountNav } from "./sitenav.js";

mountNav();

const $ = (sel) => document.querySelector(sel);
const NS = "http://www.w3.org/2000/svg";
const ORIENT = "bottom-right";

function loadSettings() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem("bg.settings") || "{}"); } catch { saved = {}; }
  return { lang: saved.lang || defaultLanguage(), whiteColor: saved.whiteColor || "#f4f1e8", blackColor: saved.blackColor || "#2b2b2b" };
}
let settings = loadSettings();

function s(key, vars = {}) {
  const lang = language();
  let text = STUDY_MESSAGES[lang]?.[key] ?? STUDY_MESSAGES.en[key] ?? MESSAGES[lang]?.[key] ?? MESSAGES.en[key] ?? key;
  for (const [k, v] of Object.entries(vars)) text = text.replaceAll(`{${k}}`, String(v));
  return text;
}
function translate() {
  const all = (/** @type {string} */ sel) => /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll(sel));
  for (const el of all("[data-s]")) el.textContent = s(el.dataset.s);
  for (const el of all("[data-sp]")) el.placeholder = s(el.dataset.sp);
  for (const el of all("[data-i18n]")) el.textContent = s(el.dataset.i18n);
  document.title = `${s("title")} — ${s("study")}`;
}
// table rows built as DOM nodes: a head row of study texts, and rows of cells
function headRow(keys) { return h("tr", {}, keys.map((k) => h("th", {}, k === "#" ? k : s(k)))); }
function row(cells, attrs = {}) { return h("tr", attrs, cells.map((c) => h("td", {}, c))); }
function fmt(x, digits = 3) { return (x >= 0 ? "+" : "") + Number(x).toFixed(digits); }
function pct(x) { return (100 * x).toFixed(1); }

async function api(method, path, body) {
  const res = await fetch(path, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  let doc = null;
  try { doc = await res.json(); } catch { doc = null; }
  if (!res.ok) throw httpError(res.status, doc);
  return doc;
}

// ------------------------------------------------------------------ drawing
function boardModel(mine, theirs, dice, cube) {
  const sum = (a) => a.reduce((x, y) => x + y, 0);
  const pip = (side) => side.reduce((acc, n, i) => acc + n * (i + 1), 0);
  return {
    mine, theirs, dice, diceMine: true, usedDice: [], cube,
    pips: { me: pip(mine), them: pip(theirs) }, off: { me: 15 - sum(mine), them: 15 - sum(theirs) },
    sources: new Set(), targets: new Set(), selected: null,
  };
}
function draw(svg, model, asBlack = false) {
  const [mine, theirs] = asBlack ? [settings.blackColor, settings.whiteColor] : [settings.whiteColor, settings.blackColor];
  renderBoard(svg, model, { orientation: ORIENT, myColor: mine, theirColor: theirs, showPips: true });
  if (model.selected !== null && model.selected !== undefined) {
    const n = model.selected === 25 ? model.mine[24] : model.mine[model.selected - 1];
    const { x, y } = pointXY(model.selected, ORIENT, n);
    const ring = document.createElementNS(NS, "circle");
    for (const [k, v] of Object.entries({ cx: x, cy: y, r: 33, fill: "none", class: "play-src" })) ring.setAttribute(k, v);
    svg.appendChild(ring);
  }
}

// Move text -> steps [[from, to]] (25 = bar, 0 = off), for arrows.
function stepsOf(text) {
  const out = [];
  for (const raw of String(text || "").trim().split(/\s+/)) {
    if (!raw) continue;
    const m = /^(.*?)(?:\((\d)\))?$/.exec(raw);
    const times = m[2] ? Number(m[2]) : 1;
    const pts = m[1].split("/").map((w) => w.replace("*", "").toLowerCase()).map((w) => (w === "bar" ? 25 : w === "off" ? 0 : Number(w)));
    if (pts.some((p) => Number.isNaN(p))) continue;
    for (let k = 0; k < times; k++) for (let i = 0; i + 1 < pts.length; i++) out.push([pts[i], pts[i + 1]]);
  }
  return out;
}
function arrows(svg, text, cls, offset) {
  const g = document.createElementNS(NS, "g");
  g.setAttribute("class", `arrows ${cls}`);
  const seen = new Map();
  for (const [a, b] of stepsOf(text)) {
    const p = pointXY(a, ORIENT, 3), q = pointXY(b, ORIENT, 3);
    const dx = q.x - p.x, dy = q.y - p.y, len = Math.hypot(dx, dy) || 1;
    const key = `${a}/${b}`, again = seen.get(key) || 0;  // a repeated step is drawn beside the first
    seen.set(key, again + 1);
    const off = offset + Math.sign(offset) * again * 7;
    const nx = (-dy / len) * off, ny = (dx / len) * off;
    const x1 = p.x + nx, y1 = p.y + ny, x2 = q.x + nx - (dx / len) * 22, y2 = q.y + ny - (dy / len) * 22;
    const line = document.createElementNS(NS, "line");
    for (const [k, v] of Object.entries({ x1, y1, x2, y2, class: `arrow ${cls}` })) line.setAttribute(k, v);
    g.appendChild(line);
    const ux = dx / len, uy = dy / len, tipx = x2 + ux * 22, tipy = y2 + uy * 22;
    const head = document.createElementNS(NS, "polygon");
    head.setAttribute("points", `${tipx},${tipy} ${x2 - uy * 16},${y2 + ux * 16} ${x2 + uy * 16},${y2 - ux * 16}`);
    head.setAttribute("class", `arrow ${cls}`);
    g.appendChild(head);
  }
  svg.appendChild(g);
}


// ------------------------------------------------------------------ routing
function route() {
  const path = location.pathname;
  for (const v of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".view"))) v.hidden = true;
  for (const a of document.querySelectorAll(".study-tabs a")) a.classList.remove("active");
  if (path.startsWith("/study/lessons")) {
    $("#tab-lessons").classList.add("active");
    $("#view-lessons").hidden = false;
    const id = path.split("/")[3];
    id ? openLesson(decodeURIComponent(id)) : showLessonList();
  } else if (path.startsWith("/study/review")) {
    $("#tab-review").classList.add("active");
    $("#view-review").hidden = false;
    const id = path.split("/")[3];
    id ? openReview(decodeURIComponent(id)) : showReviewPick();
  } else {
    $("#tab-analysis").classList.add("active");
    $("#view-analysis").hidden = false;
    startAnalysis();
  }
}
function go(path) { history.pushState({}, "", path); route(); }

// ========================================================== analysis board
const INITIAL = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0];
const A = {
  setup: { mine: INITIAL.slice(), theirs: INITIAL.slice(), dice: null, cube: 1, owner: "centre", match_length: 0, score: [0, 0], crawford: false, jacoby: false },
  play: { steps: [], selected: null }, graph: null, plays: [], started: false, job: null, timer: null, seq: 0,
};
// A fresh clicked play: no step made, no checker picked (the setup's move graph stays).
function freshPlay() { A.play = { steps: [], selected: null }; }
// the setup's move graph and plays (with its dice), as the server sent them for it
function takeMoves(doc) { A.graph = doc.move_graph || null; A.plays = doc.plays || []; }
// The play being built when the board is in "make a play" mode with dice, else null.
function analysisClicks() {
  if ($("#click-mode").value !== "play" || !A.setup.dice || !A.graph) return null;
  return { graph: A.graph, steps: A.play.steps, selected: A.play.selected };
}

function fillSelects() {
  for (const id of ["#die1", "#die2"]) $(id).replaceChildren(h("option", { value: "" }, "–"), ...[1, 2, 3, 4, 5, 6].map((d) => h("option", {}, d)));
  $("#cube").replaceChildren(...[1, 2, 4, 8, 16, 32, 64].map((v) => h("option", {}, v)));
}
function formToSetup() {
  const d1 = $("#die1").value, d2 = $("#die2").value;
  A.setup.dice = d1 && d2 ? [Number(d1), Number(d2)] : null;
  A.setup.cube = Number($("#cube").value);
  A.setup.owner = $("#owner").value;
  A.setup.match_length = Number($("#match-length").value) || 0;
  A.setup.score = [Number($("#score-me").value) || 0, Number($("#score-them").value) || 0];
  A.setup.crawford = $("#crawford").checked;
  A.setup.jacoby = $("#jacoby").checked;
}
function setupToForm(st) {
  $("#die1").value = st.dice ? String(st.dice[0]) : "";
  $("#die2").value = st.dice ? String(st.dice[1]) : "";
  $("#cube").value = String(st.cube);
  $("#owner").value = st.owner;
  $("#match-length").value = st.match_length;
  $("#score-me").value = st.score[0];
  $("#score-them").value = st.score[1];
  $("#crawford").checked = st.crawford;
  $("#jacoby").checked = st.jacoby;
}
function drawAnalysis() {
  const st = A.setup;
  const c = analysisClicks();
  const shown = c ? boardAfter(st, c.steps) : st;
  const cube = { value: st.cube, owner: st.owner === "centre" ? null : st.owner, enabled: true };
  const model = { ...boardModel(shown.mine, shown.theirs, st.dice, cube), ...(c ? marks(c.graph, c.steps, c.selected) : {}) };
  draw($("#board"), model);
  $("#pips").textContent = `${model.pips.me} (${s("on_roll")}) – ${model.pips.them} (${s("opponent")})`;
}
function resetResults() {
  freshPlay();
  $("#play-text").value = "";
  $("#check-result").hidden = true;
  $("#analysis").hidden = true;
  $("#rollout-table").replaceChildren();
  $("#rollout-status").textContent = "";
  $("#rollout-progress").hidden = true;
  clearTimeout(STUDY_ROLLOUT.timer);
  STUDY_ROLLOUT.job = null;  // a poll still on its way is dropped
}
async function changed() {
  takeMoves({});  // no clicking until the server has sent this setup's move graph
  resetResults();
  drawAnalysis();
  const seq = ++A.seq;
  try {
    const doc = await api("POST", "/api/study/setup", { setup: A.setup });
    if (seq !== A.seq) return;
    takeMoves(doc);
    drawAnalysis();
    showIds(doc);
    $("#analysis-error").textContent = "";
  } catch (e) {
    if (seq !== A.seq) return;
    showIds({ position_id: "", gnubg_id: "", xgid: "" });
    $("#analysis-error").textContent = e.message;
  }
}
function showIds(doc) {
  $("#id-pos").textContent = doc.position_id || "";
  $("#id-gnubg").textContent = doc.gnubg_id || "";
  $("#id-xgid").textContent = doc.xgid || "";
}
async function loadText(text) {
  try {
    const doc = await api("POST", "/api/study/parse", { text });
    A.setup = { mine: doc.mine, theirs: doc.theirs, dice: doc.dice, cube: doc.cube, owner: doc.owner, match_length: doc.match_length, score: doc.score, crawford: doc.crawford, jacoby: doc.jacoby };
    setupToForm(A.setup);
    ++A.seq;  // an edit's answer still on its way is dropped
    takeMoves(doc);
    resetResults();
    drawAnalysis();
    showIds(doc);
    $("#analysis-error").textContent = "";
  } catch (e) {
    $("#analysis-error").textContent = e.message;
  }
}
// A click while editing the position: add or remove a checker (making a play is clickplay.js's).
function editClick(p) {
  const mode = $("#click-mode").value;
  if (mode === "play") {
    if (!A.setup.dice) $("#analysis-error").textContent = s("err_no_dice");
    return;
  }
  if (p === null || p === 0) return;
  const mi = p === 25 ? 24 : p - 1, ti = p === 25 ? 24 : 24 - p;
  const st = A.setup;
  const total = (a) => a.reduce((x, y) => x + y, 0);
  if (mode === "mine") {
    if (p !== 25 && st.theirs[ti] > 0) st.theirs[ti]--;
    else if (total(st.mine) < 15) st.mine[mi]++;
  } else if (mode === "theirs") {
    if (p !== 25 && st.mine[mi] > 0) st.mine[mi]--;
    else if (total(st.theirs) < 15) st.theirs[ti]++;
  } else if (st.mine[mi] > 0) st.mine[mi]--;
  else if (st.theirs[ti] > 0) st.theirs[ti]--;
  changed();
}
// The play made by clicking follows the setup's move graph: a step no legal play makes is refused
// with its message ("6/3 is not possible with 5-2.") and not made, so the board never shows a
// position the roll cannot make; once the steps make a play, the box shows the server's text of it.
function clickedText() {
  $("#play-text").value = playText(A.setup, A.graph, A.plays, A.play.steps);
}
function analysisInput() {
  const moved = () => { $("#analysis-error").textContent = ""; clickedText(); drawAnalysis(); };
  bindBoard($("#board"), {
    clicks: analysisClicks,
    orientation: () => ORIENT,
    colour: () => settings.whiteColor,
    select: (p) => { A.play.selected = p; drawAnalysis(); },
    move: (steps) => { A.play.steps.push(...steps); A.play.selected = null; moved(); },
    refuse: (from, to) => { A.play.selected = null; $("#analysis-error").textContent = errorText(refusal(from, to, A.setup.dice)); drawAnalysis(); },
    cancel: drawAnalysis,
  });
  $("#btn-undo-play").onclick = () => { A.play.steps.pop(); A.play.selected = null; moved(); };
}
function renderAnalysis(doc, mine) {
  // every equity states its depth and kind ("1-ply cubeful match, EMG"); a loss is shown only
  // against plays of the same depth (plays the filters dropped early come last, at their depth)
  // the kind ("cubeful money") is the same for every play: said once above the table; each row keeps its
  // depth, with the full label as the cell's tooltip
  const kinds = [...new Set((doc.plays || []).map((p) => p.label.replace(/^\d+-ply\s*/, "")))];
  $("#plays-kind").textContent = kinds.length ? s("equities_kind", { kind: kinds.join(", ") }) : "";
  const depthCell = (p) => h("span", { title: p.label }, `${p.plies}-ply`);
  const rows = (doc.plays || []).map((p) => row([p.rank, p.play || "—", fmt(p.equity), p.loss ? fmt(-p.loss) : "", depthCell(p), pct(p.win), pct(p.win_gammon), pct(p.lose_gammon)], { class: [p.play === mine ? "mine" : "", p.plies !== doc.plays[0].plies ? "shallow" : ""].join(" ").trim() }));
  $("#plays").replaceChildren(...(doc.plays
    ? [headRow(["#", "play", "equity", "loss", "depth", "win", "gammon", "lose_gammon"]), ...rows]
    : [row([s("err_no_dice")])]));
  const c = doc.cube;
  const act = { "no double": "act_no_double", "double, take": "act_double_take", "double, pass": "act_double_pass", "too good to double, take": "act_too_good_take", "too good to double, pass": "act_too_good_pass" };
  $("#cubetable").replaceChildren(
    row([s("depth_kind"), c.label]),
    row([s("no_double"), fmt(c.no_double)]), row([s("double_take"), fmt(c.double_take)]), row([s("double_pass"), fmt(c.double_pass)]),
    h("tr", {}, h("td", {}, s("action")), h("td", { class: "cube-action" }, s(act[c.action] || c.action))),
    row([`${s("win")} / ${s("gammon")}`, `${pct(c.win)} / ${pct(c.win_gammon)}`]));
  $("#btn-rollout").disabled = !doc.plays;
  $("#analysis").hidden = false;
}
async function runAnalysis(mine) {
  $("#analysis-error").textContent = "";
  try {
    const doc = await api("POST", "/api/study/analyze", { setup: A.setup, depth: Number($("#depth").value) });
    renderAnalysis(doc, mine);
  } catch (e) { $("#analysis-error").textContent = e.message; }
}
async function checkPlay() {
  $("#analysis-error").textContent = "";
  if (!A.setup.dice) { $("#analysis-error").textContent = s("err_no_dice"); return; }
  try {
    const text = $("#play-text").value;
    // a play made by clicking goes as its steps (read by the server's find_play), typed text as text
    const clicked = A.play.steps.length && playIndex(A.graph, A.plays, A.play.steps) >= 0 && text === playText(A.setup, A.graph, A.plays, A.play.steps);
    const r = await api("POST", "/api/study/check", { setup: A.setup, ...(clicked ? { steps: A.play.steps } : { play: text }), depth: Number($("#depth").value) });
    const box = $("#check-result");
    box.className = `verdict grade-${r.grade}`;
    box.replaceChildren(h("b", { class: "grade" }, `${s("grade")}: ${r.label[language()] || r.grade} ${r.mark}`), h("br"),
      s("your_choice", { play: r.play || "—", rank: r.rank, count: r.count }), h("br"),
      s("equity_loss", { best: r.best || "—", loss: r.loss.toFixed(3) }), ` (${r.equity_label})`);
    box.hidden = false;
    await runAnalysis(r.play);
  } catch (e) { $("#analysis-error").textContent = e.message; }
}
// ------------------------------------------------------------ rollouts
// A rollout job runs on the server's worker pool and pushes itself to the page over its own
// WebSocket after every small block of trials (no polling): each candidate's running equity, 95%
// interval (as numbers and as a bar on one scale, so the intervals are seen to shrink and separate)
// and the depth and kind of the ranking it came from. "Stop" cancels it (the start's token).
// `ui` holds the elements of one rollout panel (study board or review) and the job it follows.
async function startRolloutJob(ui, body) {
  try {
    const job = await api("POST", "/api/study/rollouts", body);
    ui.error.textContent = "";
    followRolloutJob(ui, job);
  } catch (e) { ui.error.textContent = e.message; }
}
function followRolloutJob(ui, job) {
  ui.socket?.close();
  ui.job = job.id;
  ui.token = job.token;
  ui.bar.hidden = false;
  ui.bar.value = 0;
  ui.button.disabled = true;
  stopButton(ui).hidden = false;
  showRollout(ui, job);
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/study/rollouts/${encodeURIComponent(job.id)}`);
  ui.socket = ws;
  let last = job;
  ws.onmessage = (e) => {
    if (ui.socket !== ws) return;  // a newer rollout took over this panel
    const doc = JSON.parse(e.data);
    if (doc.type === "rollout") { last = doc.rollout; showRollout(ui, last); }
    else if (doc.type === "error") ui.error.textContent = errorText(doc);
  };
  ws.onclose = () => {
    if (ui.socket !== ws) return;
    ui.socket = null;
    if (last.status === "running") {  // the connection dropped mid-way: follow it again shortly
      ui.retry = setTimeout(() => { if (ui.job === job.id && !ui.socket) followRolloutJob(ui, last); }, 1000);
      return;
    }
    ui.button.disabled = false;
    stopButton(ui).hidden = true;
  };
}
// the panel's "Stop" button, made once and kept beside its start button
function stopButton(ui) {
  if (!ui.stop || !ui.stop.isConnected) {
    ui.stop = h("button", { type: "button", class: "rollout-stop", hidden: "" }, s("rollout_stop"));
    ui.stop.onclick = () => {
      if (ui.socket && ui.socket.readyState === WebSocket.OPEN) ui.socket.send(JSON.stringify({ type: "cancel", token: ui.token }));
    };
    ui.button.after(" ", ui.stop);
  }
  return ui.stop;
}
function showRollout(ui, job) {
  ui.bar.max = job.total || 1;
  ui.bar.value = job.done;
  const where = job.cluster ? ` ${s("rollout_on_cluster")}` : "";
  if (job.status === "running" && job.queued) ui.status.textContent = s("rollout_queued");
  else if (job.status === "running") ui.status.textContent = s("rollout_running", { done: job.done, total: job.total || "…" }) + where;
  else if (job.status === "failed") ui.status.textContent = s("rollout_failed", { error: job.error });
  else if (job.status === "cancelled") ui.status.textContent = s("rollout_cancelled", { done: job.done, total: job.total });
  else ui.status.textContent = s("rollout_done", { trials: job.results.length ? job.results[0].trials : job.trials, ply: job.ply }) + where;
  ui.table.replaceChildren(...rolloutRows(job, ui.rankLabel));
}
// `rankLabel`, if given, replaces the server's ranking label (the review's own depth and kind)
function rolloutRows(job, rankLabel) {
  const rows = job.results.length ? job.results : job.candidates.map((play, i) => ({ play, rank_label: job.rank_labels[i] }));
  const known = rows.filter((r) => r.ci95 !== undefined && r.ci95 !== null);
  const lo = Math.min(...known.map((r) => r.equity - r.ci95));
  const hi = Math.max(...known.map((r) => r.equity + r.ci95));
  const live = job.status === "running";
  // the play, with the depth and kind the ranking gave it on a line of its own (narrow enough for a phone)
  return [headRow(["#", "play", "equity", "ci", "interval", "trials"]),
    ...rows.map((r, i) => {
      const has = r.equity !== undefined;
      const ci = has && r.ci95 !== null ? `±${r.ci95.toFixed(3)}` : "…";
      const play = [h("span", { class: "rollout-play" }, r.play || "—"), h("br"),
        h("span", { class: "small rollout-ranked", title: s("ranked_at") }, rankLabel || r.rank_label || "")];
      return row([i + 1, play, has ? fmt(r.equity) : "…", ci, has ? intervalBar(r, lo, hi) : "", has ? r.trials : 0],
        { class: live ? "live" : "", title: has ? `${s("win")} ${pct(r.win)}%, ${s("gammon")} ${pct(r.win_gammon)}%` : "" });
    })];
}
// one candidate's 95% interval on the common scale [lo, hi] of the job's intervals
function intervalBar(r, lo, hi) {
  const W = 64, H = 12;
  const span = hi > lo ? hi - lo : 1;
  const x = (v) => Math.max(0, Math.min(W, ((v - lo) / span) * (W - 8) + 4));
  const low = r.ci95 === null ? r.equity : r.equity - r.ci95, high = r.ci95 === null ? r.equity : r.equity + r.ci95;
  const el = document.createElementNS(NS, "svg");
  for (const [k, v] of Object.entries({ class: "ci-bar", width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": s("interval_of", { low: fmt(low), high: fmt(high) }) })) el.setAttribute(k, String(v));
  const add = (tag, attrs) => { const n = document.createElementNS(NS, tag); for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v)); el.append(n); };
  add("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, stroke: "#bbb", "stroke-width": 1 });
  add("rect", { x: x(low), y: 2, width: Math.max(1, x(high) - x(low)), height: H - 4, fill: "#6a9fd8", rx: 2 });
  add("line", { x1: x(r.equity), y1: 0, x2: x(r.equity), y2: H, stroke: "#1b3f6b", "stroke-width": 2 });
  return el;
}
const STUDY_ROLLOUT = { get bar() { return $("#rollout-progress"); }, get status() { return $("#rollout-status"); },
  get table() { return $("#rollout-table"); }, get button() { return $("#btn-rollout"); }, get error() { return $("#analysis-error"); } };
function startRollout() {
  startRolloutJob(STUDY_ROLLOUT, { setup: A.setup, top: Number($("#rollout-top").value), trials: Number($("#rollout-trials").value),
    ply: Number($("#rollout-ply").value), depth: Number($("#depth").value) });
}
function startAnalysis() {
  if (A.started) return;
  A.started = true;
  fillSelects();
  const params = new URLSearchParams(location.search);
  setupToForm(A.setup);
  const given = params.get("id") && params.get("id").trim().replace(/ /g, "+");  // an unescaped '+' arrives as a space
  if (given) { $("#paste-text").value = given; loadText(given); } else changed();
  $("#paste").addEventListener("submit", (e) => { e.preventDefault(); loadText($("#paste-text").value); });
  for (const id of ["#die1", "#die2", "#cube", "#owner", "#match-length", "#score-me", "#score-them", "#crawford", "#jacoby"]) {
    $(id).addEventListener("change", () => { formToSetup(); changed(); });
  }
  $("#click-mode").addEventListener("change", () => { freshPlay(); $("#play-text").value = ""; drawAnalysis(); });
  $("#board").addEventListener("click", (e) => editClick(pointAt($("#board"), e.clientX, e.clientY, ORIENT)));
  analysisInput();
  $("#btn-initial").onclick = () => { A.setup.mine = INITIAL.slice(); A.setup.theirs = INITIAL.slice(); changed(); };
  $("#btn-clear").onclick = () => { A.setup.mine = Array(25).fill(0); A.setup.theirs = Array(25).fill(0); changed(); };
  $("#btn-swap").onclick = () => {
    const st = A.setup;
    [st.mine, st.theirs] = [st.theirs, st.mine];
    st.owner = st.owner === "me" ? "them" : st.owner === "them" ? "me" : "centre";
    st.score = [st.score[1], st.score[0]];
    setupToForm(st);
    changed();
  };
  $("#btn-reset-play").onclick = () => { freshPlay(); $("#play-text").value = ""; drawAnalysis(); };
  $("#check-form").addEventListener("submit", (e) => { e.preventDefault(); checkPlay(); });
  $("#btn-analyze").onclick = () => runAnalysis(null);
  $("#btn-rollout").onclick = startRollout;
}

// ================================================================= lessons
// `play`: the play being built by clicking (the exercise's board, dice, move graph and plays, the steps
// made and the checker picked), or null
const L = { lesson: null, index: 0, play: null, hint: 0, started: false, misses: 0 };

async function showLessonList() {
  $("#lesson").hidden = true;
  const box = $("#lesson-list");
  box.hidden = false;
  try {
    const list = await api("GET", `/api/study/lessons?lang=${language()}`);
    const link = (l) => {
      const href = `/study/lessons/${encodeURIComponent(l.id)}`;
      return h("a", { href, dataset: { id: l.id }, onclick: (e) => { e.preventDefault(); go(href); } }, l.title);
    };
    box.replaceChildren(h("h2", {}, s("lessons_title")),
      h("ol", { class: "lessons" }, list.map((l) => h("li", {}, link(l), " ", h("span", { class: "small" }, `(${l.exercises})`)))));
  } catch (e) { box.textContent = e.message; }
}
async function openLesson(id) {
  $("#lesson-list").hidden = true;
  $("#lesson").hidden = false;
  if (!L.started) {
    L.started = true;
    const moved = () => { $("#lesson-error").textContent = ""; $("#lesson-play").value = playText(L.play.board, L.play.graph, L.play.plays, L.play.steps); drawLesson(); };
    bindBoard($("#lesson-board"), {
      clicks: () => L.play,
      orientation: () => ORIENT,
      colour: () => settings.whiteColor,
      select: (p) => { L.play.selected = p; drawLesson(); },
      move: (steps) => { L.play.steps.push(...steps); L.play.selected = null; moved(); },
      refuse: (from, to) => { L.play.selected = null; $("#lesson-error").textContent = errorText(refusal(from, to, L.play.dice)); drawLesson(); },
      cancel: drawLesson,
    });
    $("#lesson-undo").onclick = () => { if (L.play) { L.play.steps.pop(); L.play.selected = null; moved(); } };
    $("#lesson-reset").onclick = () => { resetLessonPlay(); drawLesson(); };
    $("#lesson-form").addEventListener("submit", (e) => { e.preventDefault(); answerLesson($("#lesson-play").value); });
    $("#lesson-hint").onclick = () => {
      const hints = L.lesson.exercises[L.index].hints;
      if (hints.length) { $("#lesson-hinttext").textContent = hints[Math.min(L.hint, hints.length - 1)]; L.hint++; }
    };
    $("#lesson-next").onclick = () => { L.index++; showExercise(); };
    $("#lesson-back").onclick = (e) => { e.preventDefault(); go("/study/lessons"); };
  }
  try {
    L.lesson = await api("GET", `/api/study/lessons/${encodeURIComponent(id)}?lang=${language()}`);
  } catch (e) { $("#lesson-title").textContent = e.message; return; }
  L.index = 0;
  $("#lesson-title").textContent = L.lesson.title;
  $("#lesson-intro").textContent = L.lesson.intro;
  showExercise();
}
function resetLessonPlay() {
  const ex = L.lesson.exercises[L.index];
  // a play exercise with a position is played by clicking along its move graph (clickplay.js)
  L.play = ex && ex.mine && ex.move_graph
    ? { board: { mine: ex.mine, theirs: ex.theirs }, dice: ex.dice, graph: ex.move_graph, plays: ex.plays || [], steps: [], selected: null }
    : null;
  $("#lesson-play").value = "";
  $("#lesson-error").textContent = "";
}
function drawLesson() {
  const ex = L.lesson.exercises[L.index];
  const svg = $("#lesson-board");
  if (!ex || !ex.mine) { svg.hidden = !ex; if (ex) svg.hidden = true; return; }
  svg.hidden = false;
  const c = L.play;
  const shown = c ? boardAfter(c.board, c.steps) : ex;
  const model = boardModel(shown.mine, shown.theirs, ex.dice || null, { value: 1, owner: null, enabled: true });
  draw(svg, c ? { ...model, ...marks(c.graph, c.steps, c.selected) } : model);
}
function showExercise() {
  const exs = L.lesson.exercises;
  $("#lesson-feedback").hidden = true;
  $("#lesson-next").hidden = true;
  $("#lesson-hinttext").textContent = "";
  L.hint = 0;
  L.misses = 0;
  if (L.index >= exs.length) {
    $("#lesson-count").textContent = s("lesson_done");
    $("#lesson-prompt").textContent = "";
    $("#lesson-form").hidden = true;
    $("#lesson-choices").replaceChildren();
    $("#lesson-hint").hidden = true;
    return;
  }
  const ex = exs[L.index];
  $("#lesson-hint").hidden = !ex.hints.length;
  $("#lesson-count").textContent = s("exercise", { n: L.index + 1, m: exs.length });
  $("#lesson-prompt").textContent = ex.prompt;
  $("#lesson-form").hidden = !ex.dice;
  $("#lesson-choices").replaceChildren();
  if (ex.choices) {
    ex.choices.forEach((c, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = c;
      b.onclick = () => answerLesson(i);
      $("#lesson-choices").appendChild(b);
    });
  }
  resetLessonPlay();
  drawLesson();
}
async function answerLesson(answer) {
  const box = $("#lesson-feedback");
  try {
    const r = await api("POST", `/api/study/lessons/${encodeURIComponent(L.lesson.id)}/exercises/${L.index}/answer`, { answer, lang: language() });
    box.className = `verdict ${r.correct ? "right" : "wrong"}`;
    // a first wrong (or illegal) answer gets a second try: only the rule broken and what the play
    // does are shown, not the explanation or the engine's best play, which give the answer away
    if (!r.correct && r.verdict !== "unreadable" && ++L.misses < 2) {
      const parts = [h("b", {}, s("try_again"))];
      if (r.diagnosis) parts.push(h("br"), r.diagnosis);
      if (r.summary) parts.push(h("br"), h("span", { class: "small" }, r.summary));
      box.replaceChildren(...parts);
      box.hidden = false;
      $("#lesson-next").hidden = true;
      resetLessonPlay(); drawLesson();
      return;
    }
    const head = s(r.correct ? "right" : "wrong");
    const repeats = r.text.toLowerCase().startsWith(head.replace(/[!!。.]$/, "").toLowerCase());
    const parts = repeats ? [r.text] : [h("b", {}, head), ` ${r.text}`];
    if (r.summary) parts.push(h("br"), h("span", { class: "small" }, r.summary));
    if (r.engine) parts.push(h("br"), h("span", { class: "small engine" }, s("engine_says", { best: r.engine.best, loss: r.engine.loss.toFixed(3), label: r.engine.label })));
    box.replaceChildren(...parts);
    box.hidden = false;
    $("#lesson-next").hidden = !r.correct;
    if (!r.correct) { resetLessonPlay(); drawLesson(); }
  } catch (e) {
    box.className = "verdict wrong";
    box.textContent = e.message;
    box.hidden = false;
  }
}

// ================================================================== review
const R = { data: null, current: null, started: false, side: null, id: null, shown: 0 };

async function showReviewPick() {
  $("#review").hidden = true;
  $("#review-pick").hidden = false;
  if (!R.started) {
    R.started = true;
    $("#review-form").addEventListener("submit", (e) => { e.preventDefault(); const id = $("#review-id").value.trim(); if (id) go(`/study/review/${encodeURIComponent(id)}`); });
    $("#only-errors").addEventListener("change", renderReviewList);
  }
  const ul = $("#review-games");
  try {
    const rows = (await api("GET", "/api/me/history")).filter((r) => r.status === "over");
    const done = new Set((await api("GET", "/api/study/reviews")).map((r) => r.table_id));
    const items = rows.map((r) => h("li", {}, h("span", {}, `${r.created.slice(0, 16).replace("T", " ")} ${s("vs")} ${r.opponent}`), " ",
      h("a", { href: `/study/review/${encodeURIComponent(r.id)}` }, s(done.has(r.id) ? "reviewed" : "review"))));
    ul.replaceChildren(...(items.length ? items : [h("li", {}, s("no_games"))]));
  } catch { ul.replaceChildren(h("li", {}, s("no_games"))); }
}
async function openReview(id) {
  if (!R.started) { R.started = true; $("#only-errors").addEventListener("change", renderReviewList); }
  $("#review-pick").hidden = true;
  $("#review").hidden = true;
  $("#review-status").textContent = s("reviewing");
  try {
    if (isUpload(id)) {  // a match uploaded on /upload: its review was made when it was analysed
      R.data = await api("GET", `/api/uploads/${encodeURIComponent(id)}/review`);
    } else {
      try { R.data = await api("GET", `/api/study/reviews/${encodeURIComponent(id)}`); } catch (e) {
        if (e.status !== 404) throw e;
        R.data = null;
      }
      // none yet, or one stored before the charts (no per-game series): make it now
      if (!R.data || !R.data.games) R.data = await api("POST", `/api/study/reviews/${encodeURIComponent(id)}`);
    }
  } catch (e) { $("#review-status").textContent = e.message; return; }
  $("#review-status").textContent = "";
  $("#review").hidden = false;
  R.id = id;
  renderUploadNotes();
  const players = Object.values(R.data.players);
  $("#review-totals").replaceChildren(headRow(["player", "decisions", "pr", "pr_checker", "pr_cube", "luck"]),
    ...players.map((p) => row([p.name, p.unforced, p.pr.toFixed(1), (p.pr_checker ?? 0).toFixed(1), (p.pr_cube ?? 0).toFixed(1),
      p.luck === undefined ? "—" : fmt(p.luck, 2)])));
  setupChartSide(id);
  renderMistakes();
  renderReviewList();
  const firstErr = R.data.decisions.findIndex((d) => d.grade !== "good");
  showDecision(firstErr >= 0 ? firstErr : 0);
}
// An uploaded match's id ("up-" and 24 hex digits; a table's has 11 characters).
function isUpload(id) { return /^up-[0-9a-f]{24}$/.test(id); }
// an uploaded match's file name and what its reader warned of, above the totals
function renderUploadNotes() {
  $("#review-upload")?.remove();
  const up = R.data.upload;
  if (!up) return;
  const notes = [...(up.errors || []), ...(up.warnings || [])];
  const box = h("div", { id: "review-upload", class: "small" }, h("p", {}, s("up_review_file", { name: up.name })),
    notes.length ? h("ul", { class: "review-upload-notes" }, notes.map((w) => h("li", {}, w))) : null);
  $("#review-totals").before(box);
}
// whose winning chances the charts show: the seat this browser played at that table (an upload:
// the uploader's side, when known), else White
function setupChartSide(id) {
  let side = R.data.upload?.side || "White";
  try { const seat = JSON.parse(localStorage.getItem(`bg.seat.${id}`) || "null"); if (seat && seat.seat === "black") side = "Black"; } catch { /* none */ }
  const sel = $("#chart-side");
  sel.replaceChildren(...Object.entries(R.data.players).map(([k, v]) => h("option", { value: k }, v.name)));
  sel.value = R.side && R.data.players[R.side] ? R.side : side;
  R.side = sel.value;
  sel.onchange = () => { R.side = sel.value; renderCharts(); };
}
function renderCharts() {
  const box = $("#review-charts");
  const games = R.data.games || [];
  if (!games.length) { box.replaceChildren(); $("#review-graphs").hidden = true; return; }
  $("#review-graphs").hidden = false;
  const name = R.data.players[R.side]?.name || R.side;
  box.replaceChildren(...games.map((g) => h("figure", { class: "chart-box" },
    h("figcaption", {}, s("chart_title", { n: g.game, name })),
    winChart(g.points, R.side, {
      width: 600, height: 170, current: R.current, onPick: showDecision, aria: s("chart_title", { n: g.game, name }),
      label: (p, c) => {
        const d = R.data.decisions[p.decision];
        let text = s("chart_point", { i: p.decision + 1, p: (100 * c).toFixed(1) });
        if (p.luck !== null && p.luck !== undefined) {
          const l = (R.side === "Black" ? -1 : 1) * p.luck;
          text += ` · ${d.dice ? d.dice.join("") : ""} ${s("luck")} ${fmt(l, 3)} (${s(l >= 0 ? "lucky" : "unlucky")})`;
        }
        return text;
      },
    }))));
}
// the five largest errors of each player, each showing its position when clicked
function renderMistakes() {
  const blocks = Object.entries(R.data.players).map(([key, p]) => {
    const worst = R.data.decisions.map((d, i) => ({ d, i })).filter(({ d }) => d.player === key && d.error > 0 && d.grade !== "good")
      .sort((a, b) => b.d.error - a.d.error || a.i - b.i).slice(0, 5);
    // a list item holding a button (a list item that is itself a button breaks the list for screen readers)
    const items = worst.map(({ d, i }) => h("li", { class: "mistake", dataset: { i } },
      h("button", { type: "button", class: "mistake-button", onclick: () => showDecision(i) },
        h("span", { class: "mistake-where" }, `${s("game_short", { n: d.game })} ${d.dice ? d.dice.join("") : s(`kind_${d.kind}`)}`), " ",
        h("span", { class: "mistake-played" }, `${s("chosen")}: ${d.chosen || "—"}`), " ",
        h("span", { class: "mistake-best" }, `${s("better")}: ${d.best || "—"}`), " ",
        h("b", { class: "mistake-loss" }, `${s("lost")} ${fmt(-d.error)}`))));
    return h("div", { class: "mistakes" }, h("h4", {}, p.name),
      items.length ? h("ol", { class: "mistake-list" }, items) : h("p", { class: "small" }, s("no_mistakes")));
  });
  $("#review-mistakes").replaceChildren(...blocks);
}
function renderReviewList() {
  if (!R.data) return;
  const only = $("#only-errors").checked;
  const names = Object.fromEntries(Object.entries(R.data.players).map(([k, v]) => [k, v.name]));
  const items = [];
  R.data.decisions.forEach((d, i) => {
    if (only && d.grade === "good") return;
    const err = d.grade !== "good";
    const dice = d.dice ? d.dice.join("") + " " : "";
    const mark = err ? ` — ${d.label[language()] || d.grade} (${fmt(-d.error)})` : "";
    const cls = `${err ? "err" : ""}${d.kind !== "play" && !err ? " quiet" : ""}${i === R.current ? " current" : ""}`;
    items.push(h("li", { dataset: { i }, class: cls, onclick: () => showDecision(i) }, `${names[d.player] || d.player}: ${dice}${d.chosen || "—"}${mark}`));
  });
  $("#review-list").replaceChildren(...items);
}
async function showDecision(i) {
  const d = R.data.decisions[i];
  if (!d) return;
  R.current = i;
  renderReviewList();
  renderCharts();
  for (const li of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("#review-mistakes li"))) li.classList.toggle("current", Number(li.dataset.i) === i);
  // only the latest click draws: an earlier click's answer arriving late is dropped
  const shown = ++R.shown;
  let doc;
  try { doc = await api("POST", "/api/study/parse", { text: d.position_id }); } catch (e) {
    if (shown === R.shown) $("#review-caption").textContent = e.message;
    return;
  }
  if (shown !== R.shown) return;
  const svg = $("#review-board");
  draw(svg, boardModel(doc.mine, doc.theirs, d.dice, { value: 1, owner: null, enabled: false }), d.player === "Black");
  const names = Object.fromEntries(Object.entries(R.data.players).map(([k, v]) => [k, v.name]));
  const who = names[d.player] || d.player;
  if (d.kind === "play" && d.grade !== "good") {
    arrows(svg, d.best, "arrow-best", -9);
    arrows(svg, d.chosen, "arrow-played", 9);
  }
  const kind = s(`kind_${d.kind}`);
  let caption = `${who} (${kind}): ${s("chosen")} ${d.chosen || "—"}, ${s("best")} ${d.best || "—"}`;
  if (d.grade !== "good") caption += ` — ${d.label[language()] || d.grade} (${fmt(-d.error)})`;
  if (d.equity_label) caption += ` [${d.equity_label}]`;  // the depth and kind of the equities judged
  if (d.file) caption = `${s("review_ours")}: ${caption}`;  // beside the file's own analysis: say whose is whose
  $("#review-caption").textContent = caption;
  reviewFileNote(d.file);
  reviewRolloutPanel(d, doc, `${R.id}:${i}:${language()}`);
}
// Under the caption of an uploaded file's decision: what the program that wrote the file said
// (XG's analysis in .xg, gnubg's in .sgf), labelled with its name, depth and equity kind.
const CUBE_WORDS = { "no double": "act_no_double", "double, take": "act_double_take", "double, pass": "act_double_pass", "too good": "act_too_good_pass" };
function reviewFileNote(note) {
  let p = $("#review-file");
  if (!p) {
    p = h("p", { id: "review-file", class: "status small" });
    $("#review-caption").after(p);
  }
  if (!note) { p.textContent = ""; p.hidden = true; return; }
  const eq = (x) => (x === null || x === undefined ? "—" : fmt(x));
  const best = note.best in CUBE_WORDS ? s(CUBE_WORDS[note.best]) : (note.best || "—");
  let text;
  if (note.no_double !== undefined) {
    text = note.mwc && note.no_double === null
      ? s("file_cube_mwc", { source: note.source, depth: note.depth || "—", best, nd: note.mwc[0].toFixed(3), dt: note.mwc[1].toFixed(3) })
      : s("file_cube", { source: note.source, depth: note.depth || "—", best, nd: eq(note.no_double), dt: eq(note.double_take), dp: eq(note.double_pass) });
  } else {
    const vars = { source: note.source, depth: note.depth || "—", kind: s(note.cubeful === true ? "file_kind_cubeful" : note.cubeful === false ? "file_kind_cubeless" : "file_kind_unknown"), best, best_eq: eq(note.best_equity) };
    text = note.chosen_equity === null
      ? s("file_play_unlisted", vars)
      : s("file_play", { ...vars, played_eq: eq(note.chosen_equity), error: (note.error ?? 0).toFixed(3) });
  }
  p.textContent = text;
  p.hidden = false;
}
// Under the caption of a checker-play mistake: roll out the played move against the better play.
const REVIEW_ROLLOUT = {};
// `key` names the review, decision and language: showing the same decision again keeps its panel
// (a chosen trial count, or a rollout running or finished) instead of starting it afresh.
function reviewRolloutPanel(d, doc, key) {
  let box = $("#review-rollout");
  if (!box) {
    box = h("div", { id: "review-rollout", class: "review-rollout" });
    ($("#review-file") || $("#review-caption")).after(box);  // below the file's own analysis, if any
  }
  if (REVIEW_ROLLOUT.key === key && box.childElementCount) return;
  REVIEW_ROLLOUT.key = key;
  clearTimeout(REVIEW_ROLLOUT.retry);
  REVIEW_ROLLOUT.socket?.close();  // the previous decision's rollout is no longer followed here
  REVIEW_ROLLOUT.socket = null;
  REVIEW_ROLLOUT.job = null;
  if (!(d.kind === "play" && d.grade !== "good" && d.best && d.chosen && d.dice && d.best !== d.chosen)) { box.replaceChildren(); return; }
  const trials = h("select", { id: "review-rollout-trials", "aria-label": s("trials") },
    ...[36, 144, 432, 1296].map((n) => h("option", n === 144 ? { selected: "" } : {}, String(n))));
  Object.assign(REVIEW_ROLLOUT, {
    rankLabel: d.equity_label,  // the depth and kind at which the review judged the two plays
    button: h("button", { type: "button", id: "btn-review-rollout" }, s("review_rollout")),
    bar: h("progress", { id: "review-rollout-progress", max: "1", value: "0", hidden: "" }),
    status: h("p", { id: "review-rollout-status", class: "small" }),
    table: h("table", { id: "review-rollout-table", class: "plays" }),
    error: h("p", { class: "error small" }),
  });
  const setup = { mine: doc.mine, theirs: doc.theirs, dice: d.dice, cube: doc.cube, owner: doc.owner, match_length: doc.match_length,
    score: doc.score, crawford: doc.crawford, jacoby: doc.jacoby };
  REVIEW_ROLLOUT.button.onclick = () => startRolloutJob(REVIEW_ROLLOUT, { setup, plays: [d.best, d.chosen], trials: Number(trials.value), ply: 0, depth: 0 });
  box.replaceChildren(h("div", { class: "row" }, REVIEW_ROLLOUT.button, " ", trials, " ", h("span", {}, s("trials"))),
    REVIEW_ROLLOUT.bar, REVIEW_ROLLOUT.status, REVIEW_ROLLOUT.table, REVIEW_ROLLOUT.error);
}

// ================================================================== start
function init() {
  setLanguage(settings.lang);
  $("#lang").value = language();
  $("#lang").addEventListener("change", () => {
    let saved = {};
    try { saved = JSON.parse(localStorage.getItem("bg.settings") || "{}"); } catch { saved = {}; }
    localStorage.setItem("bg.settings", JSON.stringify({ ...saved, lang: $("#lang").value }));
    settings = loadSettings();
    setLanguage(settings.lang);
    translate();
    A.started = A.started && true;
    route();
  });
  translate();
  for (const a of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".study-tabs a"))) a.onclick = (e) => { e.preventDefault(); go(a.getAttribute("href")); };
  window.addEventListener("popstate", route);
  route();
}
init();
