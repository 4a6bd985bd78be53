// Chouette table page: box against a team, the captain moves, members suggest; REST to create and
// join, a WebSocket for the table itself.
import { renderBoard } from "./board.js";
import { bindBoard, boardAfter, marks, playIndex, refusal } from "./clickplay.js";
import { MESSAGES, t, setLanguage, defaultLanguage, applyTranslations, errorText, httpError } from "./i18n.js";
import { renderFairDice } from "./fairdice.js";
import { h } from "./dom.js";
import { mountNav } from "./sitenav.js";

mountNav();

Object.assign(MESSAGES.en, {
  ch_new: "New chouette table", ch_add_seat: "Add a seat", ch_create: "Create chouette",
  ch_join: "Join", ch_seat_help: "Seat 1 is yours (the first box). Other seats: a person who joins by link, or the computer.",
  ch_person: "A person", ch_computer: "Computer ({level})", ch_remove: "Remove",
  ch_players: "Players", ch_suggestions: "Team suggestions", ch_games: "Games",
  ch_name: "Name", ch_role: "Role", ch_cube: "Cube", ch_score: "Score",
  ch_role_box: "box", ch_role_captain: "captain", ch_role_member: "team",
  ch_out: "passed", ch_waiting: "Waiting for players: {n} seats free. Invite link:",
  ch_waiting_one: "Waiting for players: 1 seat free. Invite link:",
  ch_to_act: "To act: {names}", ch_consent_wait: "The captain doubles: waiting for {names} to agree",
  ch_box_doubled: "The box doubles: each team member takes or passes ({names})",
  ch_roll: "Roll", ch_double: "Double", ch_take: "Take", ch_pass: "Pass", ch_consent: "Agree to double",
  ch_refuse: "Refuse", ch_play: "Play", ch_suggest: "Suggest", ch_no_move: "(no move)",
  ch_clear: "Clear", ch_click_hint: "Click a checker, then where it goes, or choose the play from the list.",
  ch_game_line: "Game {n}: box {box}, captain {captain}, {winner} won; box {result}",
  ch_show_moves: "Show moves", ch_hide_moves: "Hide moves",
  ch_winner_box: "the box", ch_winner_team: "the team", ch_you: "(you)", ch_none_yet: "none yet", ch_took: "took",
  level_greedy: "Quick",
  ch_moves: "Moves", ch_log_move: "{who} ({role}) {dice}: {play}", ch_log_double: "{who} ({role}) doubles",
  ch_log_consent: "{who} agrees to double", ch_log_refuse: "{who} refuses to double",
  ch_log_take: "{who} takes", ch_log_pass: "{who} passes", ch_log_beaver: "{who} beavers",
  ch_seat_kind: "Who takes this seat",
});
Object.assign(MESSAGES.ja, {
  ch_new: "新しいシュエット卓", ch_add_seat: "席を追加", ch_create: "シュエットを作成",
  ch_join: "参加", ch_seat_help: "席1はあなた(最初のボックス)です。他の席はリンクで参加する人か、コンピュータです。",
  ch_person: "人", ch_computer: "コンピュータ({level})", ch_remove: "削除",
  ch_players: "プレイヤー", ch_suggestions: "チームの提案", ch_games: "ゲーム",
  ch_name: "名前", ch_role: "役割", ch_cube: "キューブ", ch_score: "得点",
  ch_role_box: "ボックス", ch_role_captain: "キャプテン", ch_role_member: "チーム",
  ch_out: "パス済み", ch_waiting: "参加者待ち:空席 {n}。招待リンク:",
  ch_to_act: "手番:{names}", ch_consent_wait: "キャプテンがダブル:{names} の同意待ち",
  ch_box_doubled: "ボックスがダブル:各メンバーがテイクかパス({names})",
  ch_roll: "ロール", ch_double: "ダブル", ch_take: "テイク", ch_pass: "パス", ch_consent: "ダブルに同意",
  ch_refuse: "拒否", ch_play: "指す", ch_suggest: "提案", ch_no_move: "(動かせない)",
  ch_clear: "クリア", ch_click_hint: "駒をクリックしてから移動先をクリックするか、一覧から手を選んでください。",
  ch_game_line: "第{n}ゲーム:ボックス {box}、キャプテン {captain}、{winner}の勝ち;ボックス {result}",
  ch_show_moves: "棋譜を表示", ch_hide_moves: "棋譜を隠す",
  ch_winner_box: "ボックス", ch_winner_team: "チーム", ch_you: "(あなた)", ch_none_yet: "まだありません", ch_took: "テイク済み",
  level_greedy: "速攻",
  ch_moves: "棋譜", ch_log_move: "{who}({role}){dice}の目:{play}", ch_log_double: "{who}({role})がダブル",
  ch_log_consent: "{who}がダブルに同意", ch_log_refuse: "{who}がダブルを拒否",
  ch_log_take: "{who}がテイク", ch_log_pass: "{who}がパス", ch_log_beaver: "{who}がビーバー",
  ch_seat_kind: "この席に座る人",
});

const $ = (s) => document.querySelector(s);
const LEVELS = ["greedy", "beginner", "casual", "intermediate", "advanced"];
const params = new URLSearchParams(location.search);
function savedLanguage() {  // this page's choice, else the main page's setting
  try { return localStorage.getItem("bg.chouette.lang") || JSON.parse(localStorage.getItem("bg.settings") || "{}").lang; } catch { return null; }
}
let lang = params.get("lang") || savedLanguage() || defaultLanguage();
/** @typedef {import("./protocol-types.js").ChouetteState} ChouetteState */
/** @type {{ id: string | null, token: string | null, state: ChouetteState | null, ws: WebSocket | null, retry: number }} */
let S = { id: params.get("id"), token: null, state: null, ws: null, retry: 500 };
// finished games' move lists, fetched once when shown (a finished game never changes), and the ones open
const pastLogs = new Map();
const openGames = new Set();
// the play being built by clicking on the board (clickplay.js, on the state's move graph: the steps
// made and the checker picked), for the state version it was begun in
/** @type {{ steps: number[][], selected: number | null } | null} */
let clicked = null;
let clickedVersion = -1;
const startPlay = () => ({ steps: [], selected: null });

function fmtSigned(n) { return n > 0 ? `+${n}` : String(n); }

async function api(method, path, doc) {
  const headers = { "content-type": "application/json" };
  if (S.token) headers["x-seat-token"] = S.token;
  const r = await fetch(path, { method, headers, body: doc ? JSON.stringify(doc) : undefined });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw httpError(r.status, body);
  return body;
}

// ------------------------------------------------------------------ setup
function seatRow(level) {
  const li = document.createElement("li");
  const sel = h("select", {}, h("option", { value: "" }, t("ch_person")),
    LEVELS.map((l) => h("option", { value: l }, t("ch_computer", { level: t("level_" + l) }))));
  sel.value = level;
  sel.setAttribute("aria-label", t("ch_seat_kind"));
  const rm = document.createElement("button");
  rm.type = "button"; rm.textContent = t("ch_remove");
  rm.onclick = () => { if ($("#ch-seats").children.length > 2) li.remove(); };
  li.append(sel, " ", rm);
  return li;
}

function showSetup() {
  $("#ch-setup").hidden = false;
  if (S.id) { $("#ch-form").hidden = true; $("#ch-join").hidden = false; return; }
  $("#ch-seats").replaceChildren(seatRow("beginner"), seatRow("beginner"));
  $("#ch-add").onclick = () => { if ($("#ch-seats").children.length < 7) $("#ch-seats").append(seatRow("")); };
  $("#ch-form").onsubmit = async (ev) => {
    ev.preventDefault();
    const seats = [{ bot: null }, ...[...$("#ch-seats").querySelectorAll("select")].map((s) => ({ bot: s.value || null }))];
    try {
      const r = await api("POST", "/api/chouette", { name: ev.target.name.value, seats });
      enter(r.id, r.token);
    } catch (e) { $("#ch-error").textContent = e.message; }
  };
}

$("#ch-join").onsubmit = async (ev) => {
  ev.preventDefault();
  try {
    const r = await api("POST", `/api/chouette/${S.id}/join`, { name: ev.target.name.value });
    enter(r.id, r.token);
  } catch (e) { $("#ch-error").textContent = e.message; }
};

function enter(id, token) {
  S.id = id; S.token = token;
  localStorage.setItem(`bg.chouette.${id}`, token);
  history.replaceState(null, "", `?id=${encodeURIComponent(id)}`);
  $("#ch-setup").hidden = true;
  $("#ch-table").hidden = false;
  connect();
}

// ------------------------------------------------------------------ table
// One WebSocket per table: the seat token in the first (hello) message, then every state the
// server publishes; a lost connection is made again (and the state sent afresh).
function connect() {
  if (S.ws) { S.ws.onclose = null; S.ws.close(); }
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/chouette/${encodeURIComponent(S.id)}`);
  S.ws = ws;
  ws.onopen = () => { ws.send(JSON.stringify({ type: "hello", token: S.token || null })); S.retry = 500; };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "error") { $("#ch-act-error").textContent = errorText(msg); return; }
    if (msg.type !== "state") return;
    if (S.state && msg.state.version < S.state.version) return;
    S.state = msg.state;
    render();
  };
  ws.onclose = () => {
    if (S.ws !== ws) return;
    S.retry = Math.min((S.retry || 500) * 2, 8000);
    setTimeout(() => { if (S.ws === ws) connect(); }, S.retry);
  };
}

function send(doc) {
  $("#ch-act-error").textContent = "";
  if (!S.ws || S.ws.readyState !== WebSocket.OPEN || !S.state) return;
  S.ws.send(JSON.stringify({ type: "action", ...doc, version: S.state.version }));
}

// the server's text of a play (backgammon.notation: "8/5 6/5", "bar/22*", "6/off"); "" = no move
function playText(text) { return text || t("ch_no_move"); }

// one line of the game's move list: who acted (and as box or team), the dice and play, or the cube action
function logLine(e) {
  const role = t(e.side === "box" ? "ch_role_box" : "ch_role_member");
  if (e.kind === "move") {
    const dice = (e.dice || []).slice().sort((a, b) => b - a).join("");
    return t("ch_log_move", { who: e.by, role, dice, play: playText(e.play) });
  }
  return t(`ch_log_${e.kind}`, { who: e.by, role });
}

function render() {
  const st = S.state;
  applyTranslations();
  renderFairDice($("#ch-fair"), st.fair_dice, st.fair_dice ? t("fd_game", { n: st.fair_dice.game }) : "", t("fd_secret_game"));
  const last = (st.revealed_dice || []).at(-1);
  renderFairDice($("#ch-revealed"), last, last ? t("fd_last", { n: last.game }) : "");
  if (st.status === "waiting") {
    const free = st.seats.filter((s) => s.open).length;
    $("#ch-status").textContent = "";
    $("#ch-invite").textContent = t("ch_waiting", { n: free }) + " " + `${location.origin}/static/chouette.html?id=${st.id}`;
    $("#ch-players").replaceChildren();
    drawBoard(null);
    return;
  }
  $("#ch-invite").textContent = "";
  // players
  const rows = [h("tr", {}, [t("ch_name"), t("ch_role"), t("ch_cube"), t("ch_score")].map((x) => h("th", {}, x)))];
  const order = [st.box, ...st.team];
  for (const name of order) {
    const p = st.players.find((x) => x.name === name);
    const cls = [p.active ? "" : "out", name === st.you ? "you" : ""].join(" ");
    const who = `${name}${name === st.you ? " " + t("ch_you") : ""}`;
    const took = st.stage === "box_doubled" && p.role !== "box" && p.active && !st.pending.includes(name);
    const role = [h("span", { class: `ch-role ${p.role}` }, t("ch_role_" + p.role)), `${p.active ? "" : " " + t("ch_out")}${took ? " ✓ " + t("ch_took") : ""}`];
    rows.push(h("tr", { class: cls, dataset: { name } }, h("td", {}, who), h("td", {}, role),
      h("td", {}, p.role === "box" ? "" : p.cube), h("td", { class: "score" }, fmtSigned(p.score))));
  }
  $("#ch-players").replaceChildren(...rows);
  // status
  let status = t("ch_to_act", { names: st.to_act.join(", ") });
  if (st.stage === "team_consent") status = t("ch_consent_wait", { names: st.pending.join(", ") });
  if (st.stage === "box_doubled") status = t("ch_box_doubled", { names: st.pending.join(", ") });
  $("#ch-status").textContent = status;
  // controls
  const box = $("#ch-controls");
  box.replaceChildren();
  const button = (kind, doc) => {
    const b = document.createElement("button");
    b.textContent = t("ch_" + kind); b.dataset.action = kind;
    if (["roll", "play", "take"].includes(kind)) b.className = "primary";
    b.onclick = () => send(doc());
    box.append(b);
  };
  for (const kind of ["roll", "double", "take", "pass", "consent", "refuse"]) {
    if (st.allowed.includes(kind)) button(kind, () => ({ action: kind }));
  }
  if (st.allowed.includes("move") || st.allowed.includes("suggest")) {
    const sel = document.createElement("select");
    sel.id = "ch-move";
    const plays = st.plays && st.plays.length ? st.plays : [{ play: "", steps: [] }];  // each play once
    plays.forEach((p, i) => { const o = document.createElement("option"); o.value = String(i); o.textContent = playText(p.play); sel.append(o); });
    box.append(sel);
    const chosen = () => (plays[Number(sel.value)] || plays[0]).steps;
    if (st.allowed.includes("move")) button("play", () => ({ action: "move", steps: chosen() }));
    else button("suggest", () => ({ action: "suggest", steps: chosen() }));
    if (clickedVersion !== st.version) { clicked = startPlay(); clickedVersion = st.version; }
    const undo = h("button", { type: "button", id: "ch-undo", onclick: () => { clicked.steps.pop(); clicked.selected = null; clickedMoved(st); } }, t("undo_step"));
    const clear = h("button", { type: "button", id: "ch-clear", onclick: () => { clicked = startPlay(); clickedMoved(st); } }, t("ch_clear"));
    box.append(undo, " ", clear, h("p", { class: "hint" }, t("ch_click_hint")));
  } else clicked = null;
  // suggestions (team only)
  $("#ch-suggest-box").hidden = st.side !== "black";
  const sugg = st.suggestions.map((s) => { const li = document.createElement("li"); li.textContent = `${s.by}: ${s.play}`; return li; });
  if (!sugg.length) { const li = document.createElement("li"); li.className = "hint none"; li.textContent = t("ch_none_yet"); sugg.push(li); }
  $("#ch-suggestions").replaceChildren(...sugg);
  // games
  const games = st.games.map((g, i) => {
    const n = i + 1;
    const open = openGames.has(n);
    const toggle = h("button", { type: "button", class: "ch-game-moves", "aria-expanded": String(open),
      onclick: () => showGameMoves(n, !open) }, t(open ? "ch_hide_moves" : "ch_show_moves"));
    const li = h("li", { dataset: { game: n } }, t("ch_game_line", { n, box: g.box, captain: g.captain,
      winner: t(g.winner === "box" ? "ch_winner_box" : "ch_winner_team"), result: fmtSigned(g.box_result) }), " ", toggle);
    if (open && pastLogs.has(n)) li.append(h("ol", { class: "ch-log ch-past-log" }, pastLogs.get(n).map((e) => h("li", { dataset: { kind: e.kind } }, logLine(e)))));
    return li;
  });
  if (!games.length) { const li = document.createElement("li"); li.className = "hint none"; li.textContent = t("ch_none_yet"); games.push(li); }
  $("#ch-games").replaceChildren(...games);
  // this game's move list
  const log = (st.log || []).map((e) => h("li", { dataset: { kind: e.kind } }, logLine(e)));
  if (!log.length) log.push(h("li", { class: "hint none" }, t("ch_none_yet")));
  $("#ch-log").replaceChildren(...log);
  drawBoard(st);
}

// a finished game's move list, under its line in the games list (fetched the first time)
async function showGameMoves(n, open) {
  if (open && !pastLogs.has(n)) {
    try {
      const doc = await api("GET", `/api/chouette/${encodeURIComponent(S.id)}/games/${n}`);
      pastLogs.set(n, doc.log);
    } catch (e) { $("#ch-act-error").textContent = e.message; return; }
  }
  if (open) openGames.add(n); else openGames.delete(n);
  render();
}

function drawBoard(st) {
  const empty = new Array(25).fill(0);
  const view = st ? st.view : "white";
  const c = clicksNow();
  const board = c ? boardAfter(st.game.board, c.steps) : st ? st.game.board : { mine: empty, theirs: empty };
  const sum = (a) => a.reduce((x, y) => x + y, 0);
  const pip = (a) => a.reduce((acc, n, i) => acc + n * (i + 1), 0);
  const cube = st ? st.game.cube : { value: 1, owner: null, offered_by: null };
  const rel = (p) => (p === null ? null : p === view ? "me" : "them");
  renderBoard($("#board"), {
    mine: board.mine, theirs: board.theirs,
    dice: st ? st.game.dice : null, diceMine: st ? st.game.turn === view : false, usedDice: [false, false],
    cube: { value: cube.value, owner: rel(cube.owner), offered: rel(cube.offered_by), enabled: true },
    pips: { me: pip(board.mine), them: pip(board.theirs) },
    off: { me: st ? 15 - sum(board.mine) : 0, them: st ? 15 - sum(board.theirs) : 0 },
    ...(c ? marks(c.graph, c.steps, c.selected) : { sources: new Set(), targets: new Set(), selected: null }), crawford: false,
  }, { orientation: "bottom-right", myColor: view === "white" ? "#f4f1e8" : "#2b2b2b", theirColor: view === "white" ? "#2b2b2b" : "#f4f1e8", showPips: true });
}

// Moving by clicking (or dragging) on the board along the state's move graph (clickplay.js, the
// site's one click model): once the steps make a legal play (two orders of the same play end on the
// same node of the graph), that play is chosen in the list; a step no legal play makes is refused with
// its message.
function clicksNow() {
  const st = S.state;
  if (!st || !clicked || !st.move_graph || clickedVersion !== st.version) return null;
  return { graph: st.move_graph, steps: clicked.steps, selected: clicked.selected };
}
function clickedMoved(st) {
  $("#ch-act-error").textContent = "";
  const index = playIndex(st.move_graph, st.plays || [], clicked.steps);
  if (index >= 0 && clicked.steps.length) $("#ch-move").value = String(index);
  drawBoard(st);
}
function boardInput() {
  bindBoard($("#board"), {
    clicks: clicksNow,
    orientation: () => "bottom-right",
    colour: () => (S.state.view === "white" ? "#f4f1e8" : "#2b2b2b"),
    select: (p) => { clicked.selected = p; drawBoard(S.state); },
    move: (steps) => { clicked.steps.push(...steps); clicked.selected = null; clickedMoved(S.state); },
    refuse: (from, to) => { clicked.selected = null; $("#ch-act-error").textContent = errorText(refusal(from, to, S.state.game.dice)); drawBoard(S.state); },
    cancel: () => drawBoard(S.state),
  });
}

// ------------------------------------------------------------------ start
// The name boxes start with "Guest" in the page's language (and follow a change of language
// until the player types a name of their own).
function defaultNames() {
  const defaults = new Set(Object.values(MESSAGES).map((m) => m.guest));
  for (const box of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll("input[name=name]"))) {
    if (!box.value || defaults.has(box.value)) box.value = t("guest");
  }
}
function start() {
  setLanguage(lang);
  $("#ch-lang").value = lang;
  $("#ch-lang").onchange = (ev) => { lang = ev.target.value; localStorage.setItem("bg.chouette.lang", lang); setLanguage(lang); defaultNames(); if (S.state) render(); else { applyTranslations(); if (!S.id) showSetup(); } };
  applyTranslations();
  defaultNames();
  boardInput();
  const token = S.id ? localStorage.getItem(`bg.chouette.${S.id}`) : null;
  if (S.id && token) enter(S.id, token);
  else showSetup();
}
start();
