// The browser side of the web app: routing, settings, accounts, the table socket and
// moving checkers. The browser runs no rules: it follows the legal step sequences the
// server sends with each state (as a graph, "move_graph") and sends the chosen steps back.
import { renderBoard } from "./board.js";
import * as clicks from "./clickplay.js";
import { t, setLanguage, defaultLanguage, applyTranslations, errorText, httpError } from "./i18n.js";
import { renderFairDice } from "./fairdice.js";
import { h } from "./dom.js";
import { applyThemeName } from "./theme.js";
import { mountNav } from "./sitenav.js";

/** @typedef {import("./protocol-types.js").TableState} TableState */
/** @typedef {import("./protocol-types.js").LastMove} LastMove */
/** @typedef {import("./protocol-types.js").HintMessage} HintMessage */

const DEFAULTS = {
  orientation: "bottom-right", autoSwitch: false, lang: null, whiteColor: "#f4f1e8", blackColor: "#2b2b2b",
  animation: "normal", showPips: true, autoForced: true, autoRoll: false, autoConfirm: false, sound: true, theme: "classic",
  confirmActions: true, nextGame: "click",
};
const SPEED = { off: 0, fast: 120, normal: 320, slow: 700 };
// Themes: a class on <body> (theme.js; style.css colours the page and the board); some also fix the
// checker colours.
const THEME_COLOURS = { "high-contrast": { white: "#ffffff", black: "#000000" } };
const $ = (sel) => document.querySelector(sel);

let settings = loadSettings();
let user = null;
const S = {
  id: null, state: null, ws: null, token: null, pending: [], selected: null, replay: null, history: null,
  queue: Promise.resolve(), reconnect: 500, lastGameNumber: null, closing: false, autoTimer: null,
};

// ------------------------------------------------------------------ settings
function loadSettings() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem("bg.settings") || "{}"); } catch { saved = {}; }
  const s = { ...DEFAULTS, ...saved };
  if (!s.lang) s.lang = defaultLanguage();
  return s;
}
function saveSettings(patch, remote = true) {
  settings = { ...settings, ...patch };
  localStorage.setItem("bg.settings", JSON.stringify(settings));
  if (user && remote) api("PUT", "/api/me/settings", patch).catch(() => {});
  setLanguage(settings.lang);
  applyTranslations();
  fillRulesFields();
  if (S.state) render();
  if (S.history) renderMoveList();
  if (!user) $("#who").textContent = t("guest");
  applyTheme();
  renderHistory();
}
function applyTheme() { applyThemeName(settings.theme); }
function checkerColour(side) {
  const fixed = THEME_COLOURS[settings.theme];
  if (fixed) return fixed[side];
  return side === "white" ? settings.whiteColor : settings.blackColor;
}

// ---------------------------------------------------------- motion and sound
// Animations follow the speed setting and stop altogether when the system asks for reduced motion.
function reducedMotion() { return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches); }
function animationDelay() { return reducedMotion() ? 0 : (SPEED[settings.animation] ?? 300); }
// how long a moved checker slides to its point (about 200 ms; shorter at the "fast" speed; none when off)
function slideMs() { return Math.min(200, animationDelay()); }
// The slides that show steps (the mover's numbering) on the board seen by the viewer: one per checker
// path (a checker moved twice slides once, from its start to its end) and one to the bar per hit.
// `board` is the viewer's board before the steps; `fromXY`: where a dragged checker was let go.
function slidesFor(steps, mover, view, board, fromXY = null) {
  const mine = mover === view;
  const side = mine ? "me" : "them", other = mine ? "them" : "me";
  const vp = (p) => (mine || p === 25 || p === 0 ? p : 25 - p);  // the mover's point in the viewer's numbering
  const b = cloneBoard(board);
  const out = [];
  for (const [from, to] of steps) {
    const moverArr = mine ? b.mine : b.theirs, otherArr = mine ? b.theirs : b.mine;
    if (to !== 0 && otherArr[24 - to] === 1) out.push({ side: other, from: vp(to), to: 25 });
    applyStep(moverArr, otherArr, from, to);
    const last = out.findLast((x) => x.side === side);
    if (last && last.to === vp(from) && from !== 25) last.to = vp(to);  // the same checker goes on
    else out.push({ side, from: vp(from), to: vp(to), fromXY: out.some((x) => x.side === side) ? null : fromXY });
  }
  return out;
}
// Sounds (files the project makes itself: scripts/make_sounds.py) never block play: a browser that
// refuses to play (no user gesture yet, no audio device) is ignored. The last ones played are named on
// <body data-sounds> (the latest last) so the page can be checked.
const SOUNDS = {};
function playSound(name) {
  if (!settings.sound) return;
  try {
    const audio = SOUNDS[name] || (SOUNDS[name] = new Audio(`/static/sounds/${name}.wav`));
    audio.currentTime = 0;
    const p = audio.play();
    if (p && p.catch) p.catch(() => {});
    document.body.dataset.sounds = `${document.body.dataset.sounds || ""} ${name}`.trim().split(" ").slice(-8).join(" ");
  } catch { /* no audio: play on silently */ }
}

// ----------------------------------------------------------------------- api
async function api(method, path, body, headers = {}) {
  const res = await fetch(path, {
    method, headers: { "Content-Type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  const text = await res.text();
  let doc = null;
  try { doc = text ? JSON.parse(text) : null; } catch { doc = text; }
  if (!res.ok) throw httpError(res.status, doc);  // the error in the player's words, from its code and parameters
  return doc;
}

let flashTimer = 0;
function flash(message) {
  const el = $("#flash");
  el.textContent = message;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => { el.textContent = ""; }, 4000);
}

// -------------------------------------------------------------------- routing
function route() {
  const m = /^\/t\/([A-Za-z0-9_-]+)/.exec(location.pathname);
  for (const v of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".view"))) v.hidden = true;
  if (m) { $("#view-table").hidden = false; openTable(m[1]); }
  else { $("#view-home").hidden = false; closeTable(); refreshHome(); }
}
function go(path) { history.pushState({}, "", path); route(); }

// ---------------------------------------------------------------- home page
function fillRulesFields() {
  for (const fs of document.querySelectorAll(".rules-fields")) {
    const old = Object.fromEntries(new FormData(fs.closest("form")));
    const check = (name, label, checked = false) => h("label", { class: "check" }, h("input", { type: "checkbox", name, checked }), ` ${label}`);
    const select = (name, options) => h("select", { name }, options.map(([value, label]) => h("option", { value }, label)));
    const lengths = [[0, t("money")], ...Array.from({ length: 25 }, (_, i) => [i + 1, t("points", { n: i + 1 })])];
    fs.replaceChildren(
      h("legend", {}, t("variants")),
      h("label", {}, `${t("match_length")} `, select("match_length", lengths)),
      check("cube", t("cube_on"), true), check("crawford", t("crawford"), true), check("jacoby", t("jacoby")), check("beavers", t("beavers")),
      h("label", {}, `${t("auto_doubles")} `, select("automatic_doubles", [0, 1, 2, 3].map((n) => [n, n]))),
      h("label", {}, `${t("bg_value")} `, select("backgammon_value", [[3, "3"], [2, "2"]])),
      check("casual", t("casual")),
    );
    const field = (/** @type {string} */ name) => /** @type {HTMLSelectElement} */ (fs.querySelector(`[name=${name}]`));
    field("match_length").value = String(old.match_length ?? "5");
    if (old.automatic_doubles) field("automatic_doubles").value = String(old.automatic_doubles);
  }
}
function rulesFrom(form) {
  const f = (n) => form.querySelector(`[name=${n}]`);
  return {
    match_length: Number(f("match_length").value), cube: f("cube").checked, crawford: f("crawford").checked,
    jacoby: f("jacoby").checked, beavers: f("beavers").checked, automatic_doubles: Number(f("automatic_doubles").value),
    backgammon_value: Number(f("backgammon_value").value), casual: f("casual").checked,
  };
}
// A table's rules as short tags for the lobby and the table header: match length or money,
// the cube, Crawford (matches), Jacoby, beavers and automatic doubles (money), how backgammons
// count and casual mode. Rules that cannot apply (Jacoby in a match, Crawford without a cube) are left out.
function rulesTags(r) {
  if (!r) return [];
  const tags = [r.match_length ? t("to_play", { n: r.match_length }) : t("money_session")];
  const cube = r.cube && !r.casual;
  tags.push(t(cube ? "r_cube_on" : "r_cube_off"));
  if (cube && r.match_length) tags.push(t(r.crawford ? "r_crawford" : "r_no_crawford"));
  if (cube && !r.match_length) {
    tags.push(t(r.jacoby ? "r_jacoby" : "r_no_jacoby"));
    if (r.beavers) tags.push(t("r_beavers"));
    if (r.automatic_doubles) tags.push(t("r_auto_doubles", { n: r.automatic_doubles }));
  }
  tags.push(t("r_bg_value", { n: r.backgammon_value ?? 3 }));
  if (r.casual) tags.push(t("r_casual"));
  return tags;
}
function rulesList(r, attrs = {}) {
  return h("ul", { class: "rule-tags", "aria-label": t("rules_of_table"), ...attrs }, rulesTags(r).map((x) => h("li", {}, x)));
}
// Whether doubling can mean anything at this table now: never in casual mode, without the cube,
// in a 1-point match or in the Crawford game (the button is hidden even if the server offers it).
function doublingApplies(st) {
  const r = st.table.rules || {};
  return !!r.cube && !r.casual && st.match.length !== 1 && !st.match.crawford;
}
function rememberSeat(doc) {
  localStorage.setItem(`bg.seat.${doc.id}`, JSON.stringify({ token: doc.token, seat: doc.seat, at: Date.now() }));
}
async function createTable(form, mode) {
  const body = { mode, rules: rulesFrom(form), seat: form.seat.value };
  if (mode === "ai") body.level = form.level.value;
  else {
    body.name = form.name.value || t("guest");
    body.listed = form.listed.checked;
    if (Number(form.clock.value)) body.clock = { minutes: Number(form.clock.value), delay: 10 };
  }
  try {
    const doc = await api("POST", "/api/tables", body);
    rememberSeat(doc);
    go(`/t/${doc.id}`);
  } catch (e) { flash(e.message); alert(e.message); }
}
// A clock as a short tag ("5 minutes each"), or null.
function clockTag(clock) {
  if (!clock) return null;
  return t("clock_minutes", { n: clock.minutes });
}
function tagList(tags, label) {
  return h("ul", { class: "rule-tags", "aria-label": label }, tags.filter(Boolean).map((x) => h("li", {}, x)));
}
function lengthText(length) { return length ? t("to_play", { n: length }) : t("money_session"); }
async function refreshLobby() {
  if ($("#view-home").hidden) return;
  refreshLive();
  try {
    const tables = await api("GET", "/api/tables");
    const ul = $("#lobby");
    const rows = tables.map((tb) => {
      // an account's rating; a guest has none
      const rating = tb.host_rating == null ? null : h("span", { class: "host-rating" }, `${t("rating")} ${Math.round(tb.host_rating)}`);
      return h("li", { class: "lobby-entry", dataset: { id: tb.id } },
        h("div", { class: "lobby-text" }, h("span", { class: "host" }, tb.host, " ", rating),
          tagList([...rulesTags(tb.rules), clockTag(tb.clock) || t("no_clock")], t("rules_of_table"))),
        h("button", { type: "button", class: "lobby-join", "aria-label": t("join_table_of", { who: tb.host }), onclick: () => go(`/t/${encodeURIComponent(tb.id)}`) }, t("join")));
    });
    ul.replaceChildren(...(rows.length ? rows : [h("li", { class: "empty" }, t("lobby_empty"))]));
  } catch { /* ignore */ }
}
// Games between people being played now, to watch (GET /api/live).
async function refreshLive() {
  let rows;
  try { rows = await api("GET", "/api/live?limit=10"); } catch { return; }
  const items = rows.map((g) => h("li", { class: "live-entry", dataset: { id: g.id } },
    h("div", { class: "lobby-text" },
      h("span", { class: "host" }, `${g.white} ${t("vs")} ${g.black}`),
      tagList([lengthText(g.length), t("pair_score", { white: g.score.white, black: g.score.black }), clockTag(g.clock)], t("rules_of_table"))),
    h("a", { class: "button watch-link", href: `/t/${encodeURIComponent(g.id)}`, "aria-label": t("watch_game_of", { white: g.white, black: g.black }),
      onclick: (ev) => { ev.preventDefault(); go(`/t/${encodeURIComponent(g.id)}`); } }, t("watch"))));
  $("#live-games").replaceChildren(...(items.length ? items : [h("li", { class: "empty" }, t("no_live_games"))]));
}
// The seat tokens this browser holds (localStorage bg.seat.<id>), newest first, at most 50.
function heldSeats() {
  const seats = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i) || "";
    const id = key.slice("bg.seat.".length);
    if (!key.startsWith("bg.seat.") || !/^[A-Za-z0-9_-]{1,32}$/.test(id)) continue;
    try {
      const v = JSON.parse(localStorage.getItem(key) || "null");
      if (v && typeof v.token === "string" && v.token.length <= 128) seats.push({ id, token: v.token, at: v.at || 0 });
    } catch { /* not ours */ }
  }
  return seats.sort((a, b) => b.at - a.at).slice(0, 50).map(({ id, token }) => ({ id, token }));
}
// The player's unfinished games (POST /api/unfinished: the seats held here, and an account's).
async function refreshMyGames() {
  let rows;
  try { rows = await api("POST", "/api/unfinished", { seats: heldSeats() }); } catch { return; }
  const items = rows.map((g) => {
    const who = g.opponent ? `${t("vs")} ${g.opponent}` : t("pair_no_opponent_yet");
    const score = g.status === "playing" ? t("pair_score", { white: g.score.white, black: g.score.black }) : null;
    const turn = g.your_turn ? h("span", { class: "turn-badge" }, t("your_move_badge")) : null;
    return h("li", { class: "my-game", dataset: { id: g.id } },
      h("div", { class: "lobby-text" }, h("span", { class: "host" }, who, " ", turn),
        tagList([lengthText(g.length), score, clockTag(g.clock), g.held ? null : t("pair_not_held")], t("rules_of_table"))),
      h("a", { class: "button resume-link", href: `/t/${encodeURIComponent(g.id)}`,
        onclick: (ev) => { ev.preventDefault(); resumeGame(g); } }, t("resume")));
  });
  $("#my-games").replaceChildren(...(items.length ? items : [h("li", { class: "empty" }, t("no_unfinished"))]));
}
// Back to one of the player's games; an account's game started in another browser first gets this
// browser a seat token of its own (POST /api/tables/<id>/seat).
async function resumeGame(g) {
  if (!g.held) {
    try { rememberSeat(await api("POST", `/api/tables/${encodeURIComponent(g.id)}/seat`)); } catch (e) { flash(e.message); return; }
  }
  go(`/t/${encodeURIComponent(g.id)}`);
}
// Everything the home page shows, fetched again (on every visit, the site's own links included).
function refreshHome() {
  refreshLobby();
  refreshMyGames();
  renderHistory();
}

// --------------------------------------------------------------- quick pairing
// One request at a time, asked about every `poll` seconds while this page shows the home view (a
// request nobody asks about expires on the server); cancelled when the player leaves. Told `expired`
// (the server lost it), the browser asks again with the same choice.
const PAIR = { req: null, choice: null, timer: null, ticker: null, since: 0 };
function showPairing(on) {
  $("#pair-wait").hidden = !on;
  $("#btn-pair").hidden = on;
  for (const el of $("#form-pair").querySelectorAll("select, input")) el.disabled = on;
  clearInterval(PAIR.ticker);
  if (on) {
    const tick = () => { $("#pair-elapsed").textContent = t("pair_elapsed", { s: Math.round((Date.now() - PAIR.since) / 1000) }); };
    tick();
    PAIR.ticker = setInterval(tick, 1000);
  }
}
function startPairing(form) {
  if (PAIR.choice) return;
  const choice = { length: Number(form.length.value), clock: Number(form.clock.value) };
  const name = form.name.value.trim();
  if (!user && name) choice.name = name;
  PAIR.choice = choice;
  PAIR.since = Date.now();
  $("#pair-what").textContent = [lengthText(choice.length), clockTag(choice.clock ? { minutes: choice.clock } : null) || t("no_clock")].join(" · ");
  showPairing(true);
  seekPair();
}
async function seekPair() {
  const choice = PAIR.choice;
  try {
    const doc = await api("POST", "/api/pair", choice);
    if (PAIR.choice !== choice) {  // cancelled while the request was on its way
      api("DELETE", `/api/pair/${encodeURIComponent(doc.id)}`, undefined, { "x-seat-token": doc.token }).then((d) => paired(d, doc.token)).catch(() => {});
      return;
    }
    PAIR.req = doc;
    pairAnswer(doc);
  } catch (e) { stopPairing(); flash(e.message); $("#pair-error").textContent = e.message; }
}
function paired(doc, token) {
  if (!doc || doc.status !== "paired") return false;
  rememberSeat({ id: doc.table, token, seat: doc.seat });
  stopPairing();
  go(`/t/${encodeURIComponent(doc.table)}`);
  return true;
}
function pairAnswer(doc) {
  if (!PAIR.req || paired(doc, PAIR.req.token)) return;
  if (doc.status === "waiting") {
    clearTimeout(PAIR.timer);
    PAIR.timer = setTimeout(pollPair, Math.max(0.5, doc.poll || 2) * 1000);
  } else { PAIR.req = null; seekPair(); }  // expired: the server forgot it (restarted): ask again
}
async function pollPair() {
  const req = PAIR.req;
  if (!req) return;
  if ($("#view-home").hidden) { cancelPairing(); return; }  // the player went elsewhere on the site
  try {
    const doc = await api("GET", `/api/pair/${encodeURIComponent(req.id)}`, undefined, { "x-seat-token": req.token });
    if (PAIR.req === req) pairAnswer(doc);
  } catch { if (PAIR.req === req) PAIR.timer = setTimeout(pollPair, 2000); }  // the network blinked: go on asking
}
function stopPairing() {
  clearTimeout(PAIR.timer);
  PAIR.req = null;
  PAIR.choice = null;
  showPairing(false);
}
async function cancelPairing() {
  const req = PAIR.req;
  stopPairing();
  if (!req) return;
  try { paired(await api("DELETE", `/api/pair/${encodeURIComponent(req.id)}`, undefined, { "x-seat-token": req.token }), req.token); }
  catch { /* it expires by itself */ }
}
function setupHome() {
  $("#form-pair").onsubmit = (ev) => { ev.preventDefault(); $("#pair-error").textContent = ""; startPairing(ev.target); };
  $("#btn-pair-cancel").onclick = () => cancelPairing();
  window.addEventListener("pagehide", () => {  // leaving the page: stop waiting at once
    const req = PAIR.req;
    if (req) fetch(`/api/pair/${encodeURIComponent(req.id)}`, { method: "DELETE", keepalive: true, headers: { "x-seat-token": req.token } }).catch(() => {});
  });
}

// ------------------------------------------------------------------ accounts
async function loadUser() {
  try { user = await api("GET", "/api/me"); } catch { user = null; }
  if (user && user.settings) saveSettings(user.settings, false);
  renderAccount();
}
async function renderAccount() {
  $("#who").textContent = user ? `${user.username} (${user.rating})` : t("guest");
  $("#form-login").hidden = !!user;
  $("#account-info").hidden = !user;
  if (!user) return;
  $("#acct-name").textContent = user.username;
  $("#acct-rating").textContent = user.rating;
  $("#acct-exp").textContent = user.experience;
  renderHistory();
}
async function renderHistory() {
  $("#form-pair .pair-name").hidden = !!user;  // an account plays under its own name
  if (!user) return;
  let rows = [];
  try { rows = await api("GET", "/api/me/history"); } catch { rows = []; }
  const ul = $("#history");
  const items = rows.map((r) => {
    const len = r.length ? t("to_play", { n: r.length }) : t("money_session");
    return h("li", {}, h("a", { href: `/t/${encodeURIComponent(r.id)}` }, `${t("vs")} ${r.opponent}`), " ",
      h("span", {}, `${len} ${r.score.white}–${r.score.black}`));
  });
  ul.replaceChildren(...(items.length ? items : [h("li", {}, t("no_history"))]));
}
async function account(path) {
  const f = $("#form-login");
  try {
    user = await api("POST", path, { username: f.username.value, password: f.password.value });
    $("#account-error").textContent = "";
    // settings: the account's win over the browser's where it has them
    saveSettings({ ...(user.settings || {}) }, false);
    if (path === "/api/register") api("PUT", "/api/me/settings", settings).catch(() => {});
    renderAccount();
  } catch (e) { $("#account-error").textContent = e.message; }
}

// --------------------------------------------------------------------- table
function closeTable() {
  S.closing = true;
  if (S.ws) S.ws.close();
  S.ws = null; S.id = null; S.state = null; S.history = null; S.replay = null; S.held = null;
  clearTimeout(S.heldTimer);
}
function openTable(id) {
  if (S.id === id && S.ws) return;
  closeTable();
  S.closing = false;
  S.id = id;
  S.lastGameNumber = null;
  const saved = JSON.parse(localStorage.getItem(`bg.seat.${id}`) || "null");
  S.token = saved ? saved.token : null;
  $("#export-link").href = `/api/tables/${id}/export.mat`;
  $("#result").hidden = true;
  connect();
}
function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/tables/${S.id}`);
  S.ws = ws;
  ws.onopen = () => {  // the seat token goes in the first message, never in the URL
    ws.send(JSON.stringify({ type: "hello", token: S.token || null }));
    $("#chat-lines").replaceChildren();  // the server sends the recent chat again after the state
    S.reconnect = 500; $("#status").classList.remove("lost");
  };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    S.queue = S.queue.then(() => handle(msg)).catch((e) => console.error(e));
  };
  ws.onclose = () => {
    if (S.closing || S.ws !== ws) return;
    $("#status").textContent = t("connection_lost");
    setTimeout(() => { if (!S.closing && S.ws === ws) connect(); }, S.reconnect);
    S.reconnect = Math.min(S.reconnect * 2, 5000);
  };
}
function send(doc) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify(doc));
  else flash(t("connection_lost"));
}
async function handle(msg) {
  if ((msg.type === "state" || msg.type === "event") && S.held) { holdUpdate(msg.state); return; }
  if (msg.type === "state") { S.sent = null; setState(msg.state); }
  else if (msg.type === "event") {
    if (S.state && msg.state.version > S.state.version + 1) send({ type: "resync" });
    // the other side's moves play out on the board; so do this seat's moves it did not make on the
    // board (a forced move played by itself, a move typed as text); a move made by clicks is there already
    const unseen = msg.event && (msg.event.player !== S.state?.you || !S.pending.length);
    if (S.state && msg.event && msg.event.kind === "move" && unseen && S.replay === null) {
      await animate(msg.event, S.state);
    }
    if (S.state && msg.event && S.replay === null && gameEnded(S.state, msg.state)) holdEnd(S.state, msg.state, msg.event);
    else setState(msg.state);
  } else if (msg.type === "error") { S.sent = null; flash(errorText(msg)); }
  else if (msg.type === "hint") showHints(msg);
  else if (msg.type === "presence" && S.state) { S.state.present = msg.present; notePresence(msg.present); renderStatus(); }
  else if (msg.type === "chat") showChat(msg.lines);
}

// Table chat: the players write (the server checks and keeps the last lines), everyone reads;
// each line is text, never markup. "Mute" hides the other player's lines, per table, in this browser.
function chatMuted() { return localStorage.getItem(`bg.mute.${S.id}`) === "1"; }
function showChat(lines) {
  const list = $("#chat-lines");
  for (const line of lines) {
    if (chatMuted() && line.seat !== S.state?.you) continue;
    const who = h("span", { class: "who" }, `${line.name}:`);
    list.appendChild(h("li", {}, who, line.text));
  }
  while (list.children.length > 50) list.firstChild.remove();
  list.scrollTop = list.scrollHeight;
}
function renderChat() {
  const st = S.state;
  const box = $("#chat");
  box.hidden = !st || st.table.mode !== "human";
  if (box.hidden) return;
  $("#chat-form").hidden = !st.you;
  $("#chat-mute").checked = chatMuted();
}

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }
function cloneBoard(b) { return { mine: b.mine.slice(), theirs: b.theirs.slice() }; }
const applyStep = clicks.applyStep;  // one step in the mover's numbering, on (mover, other) arrays
async function animate(event, state) {
  const delay = animationDelay();
  if (!delay || !event.steps || !event.steps.length) return;
  const view = state.view;
  const b = cloneBoard(state.game.board);
  const dice = event.dice || state.game.dice;
  for (const [from, to] of event.steps) {
    const slides = slidesFor([[from, to]], event.player, view, b);
    if (event.player === view) applyStep(b.mine, b.theirs, from, to);
    else applyStep(b.theirs, b.mine, from, to);
    draw(state, b, { dice, diceMine: event.player === view, slides });
    playSound("move");
    S.stepsSounded = true;  // each step clicked: the state that follows makes no sound of its own
    await sleep(delay);
  }
}

// The end of a game stays on the board: the final position (the last move played out, or the
// position where a double was passed or a resignation accepted), the result and the score, until
// the player asks for the next game (or the "next game" setting's delay runs out). The states that
// come meanwhile (the next game's opening roll, even the computer's first move) wait in S.held.
function gameEnded(prev, next) {
  return next.match.game_number > prev.match.game_number || (next.match.over && !prev.match.over);
}
/** @param {TableState} prev @param {TableState} next @param {any} event */
function holdEnd(prev, next, event) {
  const board = cloneBoard(prev.game.board);
  let last = null;
  if (event.kind === "move" && event.steps) {
    for (const [from, to] of event.steps) {
      if (event.player === prev.view) applyStep(board.mine, board.theirs, from, to);
      else applyStep(board.theirs, board.mine, from, to);
    }
    last = { player: event.player, dice: event.dice, steps: event.steps };
  }
  S.held = { latest: next, game: prev.match.game_number };
  S.pending = []; S.selected = null; S.sent = null;
  clearFlash();
  $("#hints").hidden = true;
  // the game just ended, with the score it gave (the next game's number, Crawford mark and position wait)
  const match = { ...next.match, game_number: prev.match.game_number, crawford: prev.match.crawford, post_crawford: prev.match.post_crawford };
  S.state = {
    ...next, allowed: [], move_graph: null, plays: 0, match,
    game: { ...prev.game, board, dice: null, last_move: last, cube: { ...prev.game.cube, offered_by: null } },
  };
  S.lastGameNumber = next.match.game_number;
  playSound("end");
  render();
  showResult(next);
  loadHistory();
  clearTimeout(S.heldTimer);
  const wait = Number(settings.nextGame) || (prev.you ? 0 : 5);  // a spectator watches on after 5 s
  if (!next.match.over && wait > 0) S.heldTimer = setTimeout(releaseHeld, wait * 1000);
}
// a state that came while the end of a game is shown: kept for later; a finished match's table
// (the rematch offer), presence and clock are shown at once
function holdUpdate(st) {
  S.held.latest = st;
  if (st.match.over) {
    S.state = { ...S.state, table: st.table, present: st.present, clock: st.clock, version: st.version, match: st.match };
    render();
  }
}
// on to the next game: the latest state, as it is now
function releaseHeld() {
  clearTimeout(S.heldTimer);
  if (!S.held) return;
  const latest = S.held.latest;
  S.held = null;
  $("#result").hidden = true;
  setState(latest);
}

function clearFlash() {
  clearTimeout(flashTimer);
  $("#flash").textContent = "";
}
/** @param {TableState} st */
function setState(st) {
  const prev = S.state;
  if (prev && prev.version !== st.version) clearFlash();  // a message about the last position is stale now
  if (!prev || prev.version !== st.version) { S.pending = []; S.selected = null; S.preview = null; $("#hints").hidden = true; }
  if (prev && prev.version !== st.version) {
    $("#move-text").value = "";
    feedback(prev, st);
  }
  S.state = st;
  notePresence(st.present);
  S.receivedAt = performance.now();
  const gn = st.match.game_number;
  if (S.lastGameNumber !== null && (gn > S.lastGameNumber || (st.match.over && !prev?.match.over)) && (st.match.last_result || st.match.timeout || st.match.ended_by)) {
    showResult(st);
  } else if (st.match.over && S.lastGameNumber === null) showResult(st);
  S.lastGameNumber = gn;
  render();
  loadHistory();
  maybeAutoPlay();
}

// sounds and the dice animation for what changed between two states of the table
function feedback(prev, st) {
  const d = st.game.dice;
  const newDice = d && (!prev.game.dice || prev.game.on_roll !== st.game.on_roll || prev.game.dice.join() !== d.join());
  S.rolling = !!newDice && animationDelay() > 0;
  const ended = st.match.game_number > prev.match.game_number || (st.match.over && !prev.match.over);
  if (ended) playSound("end");
  else if (newDice) playSound("dice");
  else if (!S.stepsSounded && JSON.stringify(prev.game.board) !== JSON.stringify(st.game.board)) playSound("move");
  S.stepsSounded = false;
}

function displayName(names, side, aiSeat, level) {
  if (side === aiSeat) return `${t("computer")} (${t(`level_${level}`)})`;
  const n = names[side];
  return !n || n === "Guest" ? t("guest") : n;
}
function nameOf(st, side) {
  if (!side) return "";
  return `${displayName(st.table.names, side, st.table.ai_seat, st.table.level)} (${t(side)})`;
}
// a roll written the usual way, higher die first: "31"
function diceText(dice) { return dice ? dice.slice().sort((a, b) => b - a).join("") : ""; }
function eventText(e, prev) {
  switch (e.kind) {
    case "start": return t("start_position");
    case "opening_roll": return t("ev_opening_roll", { a: e.raw.dice[0], b: e.raw.dice[1] });
    case "roll": return t("ev_roll", { d: diceText(e.dice) });
    case "move": {
      const text = e.raw.play || t("ev_no_move");
      return prev && prev.kind === "roll" ? `${diceText(prev.dice)}: ${text}` : text;
    }
    case "resign": return t("ev_resign", { level: t(`resign_${e.raw.level}`) });
    default: return t(`ev_${e.kind}`);
  }
}
// After a match: a rematch with the same settings. The first player to ask makes the new table;
// the other is offered its free seat (the state names it); whoever already sits there goes to it.
// `id`: the controls' button is act-rematch, the result box's btn-result-rematch (ids are unique on a page)
function rematchButton(st, id = "act-rematch") {
  const offered = st.table.rematch;
  const mine = offered && localStorage.getItem(`bg.seat.${offered}`);
  const label = mine ? t("rematch_open") : offered ? t("rematch_accept") : t("rematch");
  return button(id, label, async () => {
    if (mine) { go(`/t/${encodeURIComponent(offered)}`); return; }
    try {
      const doc = await api("POST", `/api/tables/${encodeURIComponent(S.id)}/rematch`, undefined, { "x-seat-token": S.token });
      rememberSeat(doc);
      $("#result").hidden = true;
      go(`/t/${encodeURIComponent(doc.id)}`);
    } catch (e) { flash(e.message); }
  }, true);
}
function sessionOverText(st) {
  const view = st.you || st.view;
  const other = view === "white" ? "black" : "white";
  return t("session_over", { who: nameOf(st, st.match.ended_by), a: st.match.score[view], b: st.match.score[other] });
}
// what the last game's end gave: "White wins 2 points", a draw, a loss on time
function resultText(st) {
  const r = st.match.last_result;
  let text = "";
  if (r) text = r.winner ? t("wins_points", { who: nameOf(st, r.winner), n: r.points }) : t("draw");
  if (st.match.timeout) text = t("lost_on_time", { who: nameOf(st, st.match.timeout) });
  return text;
}
function showResult(st) {
  const box = $("#result");
  /** @type {(string | Node)[]} */
  const parts = [resultText(st)];
  if (st.match.ended_by) parts.splice(0, 1, sessionOverText(st));  // a money session ended: its final score
  else if (st.match.over) parts.push(h("br"), t("match_over", { who: nameOf(st, st.match.winner), a: st.match.score.white, b: st.match.score.black }));
  const ok = () => { box.hidden = true; if (!st.match.over) releaseHeld(); };
  parts.push(h("br"), h("button", { class: "primary", id: "btn-result-ok", onclick: ok }, st.match.over ? t("close") : t("next_game")));
  if (st.match.over) {
    parts.push(" ", h("button", { id: "btn-result-home", onclick: () => { box.hidden = true; go("/"); } }, t("home")));
    if (st.you) parts.push(" ", rematchButton(st, "btn-result-rematch"));
    parts.push(" ", h("a", { id: "result-review", href: `/study/review/${encodeURIComponent(S.id)}` }, t(st.match.ended_by ? "review_session" : "review_game")));
  }
  box.replaceChildren(...parts);
  box.hidden = false;
  if (!st.match.over) return;
  // Both players' PR and the last game's winning chances, from the review (made now if there is
  // none yet, at the review's default depth): "…" until it comes; the dialog never waits for it.
  const tableId = S.id;
  const pr = h("span", { id: "result-pr-values" }, "…");
  const summary = h("div", { id: "result-summary", class: "result-summary" }, h("span", { id: "result-pr-label" }, "PR"), ": ", pr);
  box.querySelector("#btn-result-ok").before(summary);
  (async () => {
    const [{ STUDY_MESSAGES }, { winChart }, { language }] = await Promise.all(
      [import("./study-i18n.js"), import("./review-chart.js"), import("./i18n.js")]);
    const m = (k) => STUDY_MESSAGES[language()]?.[k] ?? STUDY_MESSAGES.en[k];
    summary.firstChild.textContent = m("result_pr");
    const path = `/api/study/reviews/${encodeURIComponent(tableId)}?decisions=false`;  // the summary only
    let res = await fetch(path);
    if (res.status === 404) res = await fetch(path, { method: "POST" });
    if (!res.ok) res = await fetch(path);  // the other player's browser may have just stored it
    if (!res.ok) throw new Error(res.statusText);
    const doc = await res.json();
    if (!summary.isConnected) return;
    pr.replaceChildren(...["White", "Black"].flatMap((k, i) => {
      const p = doc.players[k];
      return p ? [i ? " · " : "", `${nameOf(st, k.toLowerCase())} `, h("b", { class: "result-pr", dataset: { side: k } }, p.pr.toFixed(1))] : [];
    }));
    const last = (doc.games || []).at(-1);  // a review stored before the charts has none
    if (last && last.points.length > 1) {
      const side = st.you === "black" ? "Black" : "White";
      summary.append(h("br"), h("span", { class: "small" }, `${m("result_chart")} (${nameOf(st, side.toLowerCase())})`),
        winChart(last.points, side, { width: 300, height: 60, strip: 0, className: "sparkline", aria: m("result_chart") }));
    }
  })().catch(async () => {
    if (!summary.isConnected) return;
    const { STUDY_MESSAGES } = await import("./study-i18n.js");
    pr.textContent = (STUDY_MESSAGES[settings.lang] || STUDY_MESSAGES.en).result_pr_failed;
  });
}

// effective orientation: the setting, mirrored left-right in every other game when switching sides
function orientation() {
  let o = settings.orientation;
  const gn = S.state ? S.state.match.game_number : 1;
  if (settings.autoSwitch && gn % 2 === 0) o = o.endsWith("right") ? o.replace("right", "left") : o.replace("left", "right");
  return o;
}

function pipsOf(side) {
  let n = 0;
  for (let i = 0; i < 24; i++) n += side[i] * (i + 1);
  return n + side[24] * 25;
}

// The legal step sequences come as a graph ("move_graph"), followed by the site's one click model
// (clickplay.js) from the steps made so far (S.pending).
function maxSteps() { return clicks.playLength(S.state.move_graph); }
function sources() { return clicks.sources(S.state.move_graph, S.pending); }
/** @param {number | null} src */
function targets(src) { return clicks.targets(S.state.move_graph, S.pending, src); }

/** @param {TableState} st @param {{ mine: number[], theirs: number[] }} board @param {Record<string, any>} extra */
function draw(st, board, extra = {}) {
  const view = st.view;
  const other = view === "white" ? "black" : "white";
  const colour = checkerColour;
  const cube = st.game.cube;
  const rel = (p) => (p === null ? null : p === view ? "me" : "them");
  const moving = st.allowed.includes("move");
  const srcs = moving && S.replay === null ? sources() : new Set();
  const tg = moving && S.selected !== null ? targets(S.selected) : new Map();
  // the last move stays on the board until the next roll: its dice, and marks on the points it left and reached
  const last = extra.replay || extra.dice !== undefined ? null : st.game.last_move;
  const showLastDice = !!last && !st.game.dice;
  const model = {
    mine: board.mine, theirs: board.theirs,
    dice: extra.dice !== undefined ? extra.dice : showLastDice ? last.dice : st.game.dice,
    diceMine: extra.diceMine !== undefined ? extra.diceMine : showLastDice ? last.player === view : st.game.on_roll === view,
    diceLast: showLastDice,
    lastMove: extra.preview ? lastMoveMarks({ player: view, dice: [], steps: extra.preview }, view) : last && !S.pending.length ? lastMoveMarks(last, view) : null,
    usedDice: extra.usedDice || [false, false], rolling: !!extra.rolling,
    cube: { value: extra.cubeValue || cube.value, owner: rel(extra.cubeOwner !== undefined ? extra.cubeOwner : cube.owner), offered: extra.replay ? null : rel(cube.offered_by), enabled: cube.enabled && st.match.length !== 1 },
    pips: { me: pipsOf(board.mine), them: pipsOf(board.theirs) },
    off: { me: 15 - board.mine.reduce((a, b) => a + b, 0), them: 15 - board.theirs.reduce((a, b) => a + b, 0) },
    sources: srcs, targets: new Set(tg.keys()), selected: S.selected,
    crawford: st.match.crawford, slides: extra.slides || null,
  };
  renderBoard($("#board"), model, {
    orientation: orientation(), slideMs: slideMs(), myColor: colour(view), theirColor: colour(other), showPips: settings.showPips,
    crawfordLabel: t("crawford_game"), pipsMyLabel: t("pips_mine"), pipsTheirLabel: t("pips_theirs"),
  });
}

// The points the last move's checkers left and reached, in the viewer's numbering (25 = the bar,
// 0 = the mover's tray): a checker moved twice counts once, from its start to its end.
/** @param {LastMove} last @param {string} view */
function lastMoveMarks(last, view) {
  const mine = last.player === view;
  const vp = (p) => (mine || p === 25 || p === 0 ? p : 25 - p);
  const paths = [];
  for (const [from, to] of last.steps) {
    const going = from === 25 ? null : paths.findLast((x) => x.to === from);
    if (going) going.to = to;
    else paths.push({ from, to });
  }
  return { side: mine ? "me" : "them", from: paths.map((x) => vp(x.from)), to: paths.map((x) => vp(x.to)) };
}

function render() {
  const st = S.state;
  if (!st) return;
  const view = st.view;
  const other = view === "white" ? "black" : "white";
  if (S.replay !== null && S.history) return renderReplay();
  const board = cloneBoard(st.game.board);
  // a hint pointed at shows its play on the board (nothing is chosen until it is clicked)
  const shown = S.preview && !S.pending.length ? S.preview : S.pending;
  for (const [from, to] of shown) applyStep(board.mine, board.theirs, from, to);
  draw(st, board, { usedDice: clicks.usedDice(st.game.dice, shown), rolling: S.rolling, slides: S.slides,
    preview: S.preview && !S.pending.length ? S.preview : null });
  S.rolling = false;  // the dice roll in once, not on every redraw
  S.slides = null;  // and a moved checker slides once
  $("#board").setAttribute("aria-label", t("board_aria", {
    me: pipsOf(board.mine), them: pipsOf(board.theirs), dice: st.game.dice ? st.game.dice.join("-") : "—",
  }));
  // players, match info
  const pl = (side) => {
    if (st.table.mode === "human" && !st.table.seated[side]) return t("seat_waiting", { side: t(side) });
    const pips = settings.showPips ? ` · ${t("pips")} ${side === view ? pipsOf(board.mine) : pipsOf(board.theirs)}` : "";
    return `${nameOf(st, side)}${st.you === side ? ` — ${t("you")}` : ""}${pips}`;
  };
  $("#player-top").textContent = pl(other);
  $("#player-bottom").textContent = pl(view);
  $("#player-top").classList.toggle("turn", st.game.turn === other);
  $("#player-bottom").classList.toggle("turn", st.game.turn === view);
  const m = st.match;
  let info = m.length ? t("to_play", { n: m.length }) : t("money_session");
  info += ` · ${t("score")} ${m.score[view]}–${m.score[other]} · ${t("game_n", { n: m.game_number })}`;
  if (m.crawford) info += ` · ${t("crawford_game")}`;
  else if (m.post_crawford) info += ` · ${t("post_crawford")}`;
  $("#matchinfo").textContent = info;
  const tags = rulesTags(st.table.rules);
  if (st.table.mode === "human") tags.push(t("r_disconnect", { s: RECONNECT_GRACE }));
  $("#table-rules").replaceChildren(...tags.map((x) => h("li", {}, x)));
  renderClocks();
  $("#pos-id").textContent = st.game.position_id;
  $("#xgid-line").hidden = !st.game.xgid;
  $("#xgid").textContent = st.game.xgid || "";
  $("#mid-line").hidden = !st.game.match_id;
  $("#match-id").textContent = st.game.match_id || "";
  renderControls();
  renderStatus();
  renderChat();
  renderFairDice($("#fair-dice"), st.fair_dice);
  // share / join panels
  const link = `${location.origin}/t/${st.table.id}`;
  $("#share").hidden = !(st.you && st.table.status === "waiting");
  $("#share-link").value = link;
  const free = st.table.mode === "human" && !st.you && (!st.table.seated.white || !st.table.seated.black);
  $("#join").hidden = !free;
  if (free) $("#join-title").textContent = t("join_title", { invite: inviteText(st) });
}

// "Ann's 5-point match" / "Ann's money session", with its clock: what an invitation offers
function inviteText(st) {
  const host = st.table.seated.white ? "white" : "black";
  const len = st.match.length;
  const what = len ? t("invite_match", { who: displayName(st.table.names, host), n: len }) : t("invite_money", { who: displayName(st.table.names, host) });
  return st.clock ? `${what} (${t("clock_minutes", { n: st.clock.minutes })})` : what;
}

// the clocks: the server's remaining time, counted down locally for the side to act
function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
function renderClocks() {
  const st = S.state;
  const c = st && st.clock;
  const view = st ? st.view : "white";
  const other = view === "white" ? "black" : "white";
  for (const [side, id] of [[other, "#clock-top"], [view, "#clock-bottom"]]) {
    const el = $(id);
    if (!c || c.remaining[side] === undefined) { el.textContent = ""; continue; }
    let left = c.remaining[side];
    if (c.running === side) {
      const e = (performance.now() - S.receivedAt) / 1000;
      left -= Math.max(0, c.elapsed + e - c.delay) - Math.max(0, c.elapsed - c.delay);
    }
    el.textContent = clockText(left);
    el.classList.toggle("running", c.running === side);
    el.classList.toggle("low", left < 30);
  }
}
setInterval(() => { if (S.state && S.state.clock && S.state.clock.running) renderClocks(); }, 500);

function renderStatus() {
  const st = S.state;
  const el = $("#status");
  const turnName = nameOf(st, st.game.turn);
  const a = st.allowed;
  let text;
  if (S.held && !st.match.over) text = `${resultText(S.held.latest)} ${t("score_now", { a: st.match.score[st.view], b: st.match.score[st.view === "white" ? "black" : "white"] })}`;
  else if (st.match.ended_by) text = sessionOverText(st);
  else if (st.match.over) {
    text = t("match_over", { who: nameOf(st, st.match.winner), a: st.match.score.white, b: st.match.score.black });
    if (st.match.timeout) text = `${t("lost_on_time", { who: nameOf(st, st.match.timeout) })} ${text}`;
  }
  else if (st.table.status === "waiting") text = st.you ? t("waiting_opponent") : t("invited", { invite: inviteText(st) });
  else if (!st.you) text = `${t("spectating")} ${t("waiting_for", { who: turnName })}`;
  else if (a.includes("move")) {
    // with forced moves played automatically, a roll that cannot be played passes by itself
    const none = settings.autoForced ? "no_moves_auto" : "no_moves";
    text = st.move_graph && st.move_graph.length === 0 ? t(none) : t("your_turn_move", { d: st.game.dice.join("-") });
  } else if (a.includes("roll")) text = a.includes("double") && doublingApplies(st) ? t("your_turn_roll") : t("your_turn_roll_only");
  else if (a.includes("take")) text = t("your_turn_take", { who: nameOf(st, st.game.cube.offered_by), v: st.game.cube.value * 2 });
  else if (a.includes("accept_resignation")) text = t("your_turn_resign", { who: nameOf(st, st.game.on_roll === st.you ? null : st.game.on_roll) || "", level: t(`resign_${st.game.resignation}`) });
  else if (a.includes("accept_draw")) text = t("your_turn_draw", { who: nameOf(st, st.you === "white" ? "black" : "white") });
  else text = t("waiting_for", { who: turnName });
  // a person at the table who is not connected: a countdown while they may reconnect, then the
  // game is adjourned (it waits for them; their clock runs, if there is one)
  // (a spectator sees it for either player)
  const others = st.you === "white" ? ["black"] : st.you === "black" ? ["white"] : ["white", "black"];
  for (const other of others) {
    if (st.table.mode !== "human" || st.table.status !== "playing" || st.match.over || !st.present || st.present[other] !== false) continue;
    const left = reconnectLeft(other);
    text = left > 0 ? `${t("opponent_dropped", { who: nameOf(st, other), left: clockText(left) })} ${text}`
      : `${t("opponent_away", { who: nameOf(st, other) })} ${text}`;
  }
  el.textContent = text;
}

// Presence seen by this page: when a seat's player dropped (this page's clock), for the countdown.
// A player who was already away when the page opened gets no countdown: the game is adjourned.
const RECONNECT_GRACE = 60;
function notePresence(present) {
  if (!present) return;
  S.awaySince = S.awaySince || {};
  for (const side of ["white", "black"]) {
    if (present[side]) S.awaySince[side] = null;
    else if (S.awaySince[side] === undefined) S.awaySince[side] = 0;  // away from the start: no countdown
    else if (S.awaySince[side] === null) S.awaySince[side] = performance.now();
  }
}
function reconnectLeft(side) {
  const since = S.awaySince && S.awaySince[side];
  if (!since) return 0;
  return Math.max(0, Math.ceil(RECONNECT_GRACE - (performance.now() - since) / 1000));
}
setInterval(() => {
  if (S.state && S.awaySince && Object.values(S.awaySince).some((v) => v)) renderStatus();
}, 1000);

function button(id, label, onclick, primary = false) {
  const b = document.createElement("button");
  b.id = id; b.textContent = label; b.onclick = onclick; b.type = "button";
  if (primary) b.className = "primary";
  return b;
}
// one action per state: the buttons are disabled until the server answers (an event or an error)
function act(action, extra = {}) {
  if (S.sent === S.state.version) return;
  if (!S.ws || S.ws.readyState !== WebSocket.OPEN) { flash(t("connection_lost")); return; }
  S.sent = S.state.version;
  send({ type: "action", action, version: S.state.version, ...extra });
  renderControls();
}

function renderControls() {
  const st = S.state;
  const c = $("#controls");
  c.replaceChildren();
  $("#move-form").hidden = !(S.replay === null && st.you && st.allowed.includes("move"));
  if (S.replay !== null) return;
  const a = S.sent === st.version ? [] : st.allowed;
  if (a.includes("roll")) c.appendChild(button("act-roll", t("roll"), () => act("roll"), true));
  if (a.includes("double") && doublingApplies(st)) {
    c.appendChild(button("act-double", t("double"), () => confirmed(t("confirm_double", { v: st.game.cube.value * 2 }), t("double"), () => act("double"))));
  }
  if (a.includes("take")) c.appendChild(button("act-take", t("take"), () => act("take"), true));
  if (a.includes("pass")) {
    c.appendChild(button("act-pass", t("pass"), () => confirmed(t("confirm_pass", { n: st.game.cube.value }), t("pass"), () => act("pass"))));
  }
  if (a.includes("beaver")) c.appendChild(button("act-beaver", t("beaver"), () => act("beaver")));
  if (a.includes("accept_resignation")) {
    c.appendChild(button("act-accept-resignation", t("accept"), () => act("accept_resignation"), true));
    c.appendChild(button("act-reject-resignation", t("reject"), () => act("reject_resignation")));
  }
  if (a.includes("accept_draw")) {
    c.appendChild(button("act-accept-draw", t("accept"), () => act("accept_draw"), true));
    c.appendChild(button("act-reject-draw", t("reject"), () => act("reject_draw")));
  }
  if (a.includes("move")) {
    const complete = S.pending.length === maxSteps();
    const undo = button("act-undo", t("undo"), () => { S.pending.pop(); S.selected = null; render(); });
    undo.disabled = !S.pending.length;
    c.appendChild(undo);
    const confirm = button("act-confirm", t("confirm"), () => { act("move", { steps: S.pending }); }, true);
    confirm.disabled = !complete;
    c.appendChild(confirm);
    if (st.table.mode === "ai") c.appendChild(button("act-hint", t("hint"), () => send({ type: "hint" })));
  }
  if (a.includes("offer_draw")) c.appendChild(button("act-offer-draw", t("offer_draw"), () => act("offer_draw")));
  if (S.held && !st.match.over) c.appendChild(button("act-next-game", t("next_game"), releaseHeld, true));
  if (st.match.over && st.you) c.appendChild(rematchButton(st));
  // a money session goes on until a player ends it (then its dice seed is revealed and it can be reviewed)
  if (st.you && st.match.length === 0 && st.table.status === "playing" && !st.match.over && S.sent !== st.version && !S.held) {
    c.appendChild(button("act-end-session", t("end_session"), () => confirmed(t("end_session_confirm"), t("end_session"), () => act("end_session"), true)));
  }
  // resigning always asks: how much (single game, gammon, backgammon), then the player confirms
  if (a.includes("resign")) c.appendChild(button("act-resign", t("resign"), () => askResign()));
}

// ------------------------------------------------------------ confirmations
// Nothing that cannot be taken back happens on one click: resigning always opens a dialog to choose
// how much and confirm; doubling, passing and ending a money session ask first unless the
// "confirmActions" setting is off (as lichess's "confirm resignation and draw offers").
// `ask(text, okLabel, choices)` opens #dlg-confirm; it resolves to the chosen value ("ok" without
// choices) or null when cancelled.
function ask(text, okLabel, choices = null) {
  const dlg = $("#dlg-confirm");
  $("#confirm-text").textContent = text;
  $("#confirm-ok").textContent = okLabel;
  const box = $("#confirm-choice");
  box.hidden = !choices;
  box.replaceChildren(...(choices || []).map(([value, label], i) => h("label", {},
    h("input", { type: "radio", name: "confirm-choice", value, checked: i === 0 }), ` ${label}`)));
  return new Promise((resolve) => {
    dlg.onclose = () => {
      if (dlg.returnValue !== "ok") { resolve(null); return; }
      const picked = box.querySelector("input:checked");
      resolve(choices ? (picked ? picked.value : null) : "ok");
    };
    dlg.returnValue = "";
    dlg.showModal();
    $("#confirm-cancel").focus();
  });
}
async function confirmed(text, okLabel, then, always = false) {
  if (!settings.confirmActions && !always) { then(); return; }
  const version = S.state.version;
  if ((await ask(text, okLabel)) && S.state && S.state.version === version) then();
}
async function askResign() {
  const st = S.state;
  const version = st.version;
  const levels = ["single", "gammon", "backgammon"].map((lv) => [lv, t(`resign_${lv}_points`, { n: resignPoints(st, lv) })]);
  const level = await ask(t("confirm_resign"), t("resign"), levels);
  if (level && S.state && S.state.version === version) act("resign", { level });
}
// what a resignation at each level gives the opponent now (the server counts it: cube, Jacoby rule,
// backgammon value)
function resignPoints(st, level) {
  return st.resign_points ? st.resign_points[level] : st.game.cube.value;
}

// What plays itself, each by its own setting: a forced move (one legal play, or none), the roll
// when there is no cube decision to make (auto-roll: the cube cannot be turned now), and the
// confirmation once the play on the board is complete (auto-confirm, from applyPending).
function maybeAutoPlay() {
  clearTimeout(S.autoTimer);
  const st = S.state;
  if (S.replay !== null || !st.you) return;
  const version = st.version;
  const later = (ms, fn) => { S.autoTimer = setTimeout(() => { if (S.state.version === version) fn(); }, ms); };
  const a = st.allowed;
  if (settings.autoForced && a.includes("move") && st.plays === 1) {
    later(700, () => { if (S.pending.length === 0) act("move", { steps: clicks.firstPlay(S.state.move_graph) }); });
  } else if (settings.autoRoll && a.includes("roll") && !(a.includes("double") && doublingApplies(st))) {
    later(400, () => act("roll"));
  }
}
function maybeAutoConfirm() {
  if (!settings.autoConfirm || S.replay !== null || !S.state.allowed.includes("move")) return;
  if (!S.pending.length || S.pending.length !== maxSteps()) return;
  const version = S.state.version;
  const steps = [...S.pending];
  clearTimeout(S.autoTimer);
  // after the last checker's slide, unless the player took it back in the meantime (undo)
  S.autoTimer = setTimeout(() => {
    if (S.state.version === version && S.pending.length === steps.length
        && S.pending.every((st, i) => st[0] === steps[i][0] && st[1] === steps[i][1])) act("move", { steps });
  }, Math.max(400, slideMs() + 100));
}

// The hint: the ranked plays with their equity, winning and gammon chances and the depth they were
// judged at. Pointing at a play (or focusing it) shows it on the board; choosing it puts it on the
// board as the move to confirm (Undo takes it back).
/** @param {HintMessage} msg */
function showHints(msg) {
  const box = $("#hints");
  box.hidden = false;
  const pct = (x) => (x === undefined ? "" : `${(100 * x).toFixed(1)}%`);
  const signed = (x) => (x >= 0 ? `+${x.toFixed(3)}` : `−${(-x).toFixed(3)}`);
  const best = msg.plays.length && msg.plays[0].equity !== undefined ? msg.plays[0].equity : null;
  const rows = msg.plays.map((p, i) => {
    const equity = p.equity !== undefined ? signed(p.equity) : String(p.score);
    const diff = best !== null && i > 0 ? ` (${signed(p.equity - best)})` : "";
    const row = h("tr", { class: "hint-row", tabindex: 0, dataset: { index: i } },
      h("td", {}, String(i + 1)), h("td", { class: "hint-play" }, p.play || t("ev_no_move")),
      h("td", { class: "num" }, equity + diff), h("td", { class: "num" }, pct(p.win)), h("td", { class: "num" }, pct(p.gammon)));
    const show = () => { S.preview = p.steps || null; render(); };
    const hide = () => { if (S.preview === (p.steps || null)) { S.preview = null; render(); } };
    row.addEventListener("pointerenter", show);
    row.addEventListener("pointerleave", hide);
    row.addEventListener("focus", show);
    row.addEventListener("blur", hide);
    const choose = () => {
      if (!S.state.allowed.includes("move") || !p.steps) return;
      S.preview = null; S.pending = p.steps.map((s) => s.slice()); S.selected = null;
      render(); maybeAutoConfirm();
    };
    row.addEventListener("click", choose);
    row.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); ev.stopPropagation(); choose(); } });
    return row;
  });
  const label = msg.plays.length ? msg.plays[0].label : "";
  box.replaceChildren(h("b", {}, t("hints_title")), label ? h("span", { class: "small hint-depth" }, ` · ${label}`) : "",
    h("table", { class: "hint-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("hint_play")), h("th", { class: "num" }, t("hint_equity")),
        h("th", { class: "num" }, t("hint_win")), h("th", { class: "num" }, t("hint_gammon")))),
      h("tbody", {}, rows)),
    h("p", { class: "small" }, t("hint_help")));
}

// ------------------------------------------------------- moving checkers
function applyPending(steps, fromXY = null) {
  clearFlash();
  playSound("move");
  const before = cloneBoard(S.state.game.board);
  for (const [from, to] of S.pending) applyStep(before.mine, before.theirs, from, to);
  S.slides = slidesFor(steps, S.state.view, S.state.view, before, fromXY);
  S.pending.push(...steps);
  S.selected = null;
  render();
  maybeAutoConfirm();
}
function refuse() {
  flash(t("illegal_drop"));
  S.selected = null;
  render();
}
// Click-click and drag-and-drop moving: clickplay.js's board input, on the steps made so far.
function setupBoardInput() {
  clicks.bindBoard($("#board"), {
    clicks: () => {
      const st = S.state;
      if (!st || !st.allowed.includes("move") || S.replay !== null) return null;
      return { graph: st.move_graph, steps: S.pending, selected: S.selected };
    },
    orientation,
    colour: () => checkerColour(S.state.view),
    select: (p) => { S.selected = p; render(); },
    move: (steps, dropped) => applyPending(steps, dropped),
    refuse: () => refuse(),
    cancel: () => render(),
  });
}

// ------------------------------------------------------- history & replay
async function loadHistory() {
  if (!S.id) return;
  const id = S.id;
  try {
    const h = await api("GET", `/api/tables/${id}/history?positions=false`);  // the list only: positions on demand
    if (S.id !== id) return;
    S.history = h;
    renderMoveList();
  } catch { /* ignore */ }
}
function renderMoveList() {
  const h = S.history;
  const ol = $("#movelist");
  ol.replaceChildren();
  let game = 0;
  h.entries.forEach((e, i) => {
    if (e.kind === "start" || e.kind === "roll") return;
    if (S.held && e.game > S.held.game) return;  // the next game waits until the player asks for it
    if (e.game !== game) {
      game = e.game;
      const head = document.createElement("li");
      head.className = "gamehead";
      head.textContent = t("game_n", { n: game });
      ol.appendChild(head);
    }
    const li = document.createElement("li");
    const st = S.state;
    const who = e.player ? displayName(h.names, e.player, st?.table.ai_seat, st?.table.level) : "";
    const text = eventText(e, h.entries[i - 1]);
    li.textContent = who ? `${who}: ${text}` : text;
    li.dataset.index = i;
    if (S.replay === i) { li.className = "current"; li.setAttribute("aria-current", "step"); }
    li.onclick = () => { S.replay = i; render(); renderMoveList(); };
    ol.appendChild(li);
  });
  // followed live: the latest move (or cube action) is the current one
  const items = ol.querySelectorAll("li[data-index]");
  if (S.replay === null && items.length) { items[items.length - 1].classList.add("latest"); items[items.length - 1].setAttribute("aria-current", "step"); }
  if (S.replay === null) ol.scrollTop = ol.scrollHeight;
}
// One entry's position (board, dice, cube, IDs) for the replay, fetched when first shown and kept
// (a stored action's entry never changes).
const ENTRIES = new Map();
function replayEntry(seq) {
  const key = `${S.id}:${seq}`;
  if (ENTRIES.has(key)) return ENTRIES.get(key);
  ENTRIES.set(key, null);
  api("GET", `/api/tables/${encodeURIComponent(S.id)}/history/${seq}`)
    .then((e) => { ENTRIES.set(key, e); if (S.replay === seq) render(); })
    .catch(() => ENTRIES.delete(key));
  return null;
}
function renderReplay() {
  const st = S.state;
  const e = replayEntry(S.replay);
  if (!e) return;
  const white = e.board;
  const board = st.view === "white" ? cloneBoard(white) : { mine: white.theirs.slice(), theirs: white.mine.slice() };
  draw(st, board, { dice: e.dice, diceMine: e.on_roll === st.view, cubeValue: e.cube, cubeOwner: e.cube_owner, replay: true });
  $("#pos-id").textContent = e.position_id;
  $("#xgid-line").hidden = !e.xgid;
  $("#xgid").textContent = e.xgid || "";
  $("#mid-line").hidden = !e.match_id;
  $("#match-id").textContent = e.match_id || "";
  renderControls();
  $("#status").textContent = `${t("replay")}: ${S.replay} / ${S.history.entries.length - 1}`;
}
function stepReplay(delta) {
  if (!S.history) return;
  const n = S.history.entries.length;
  S.replay = Math.max(0, Math.min(n - 1, (S.replay === null ? n - 1 : S.replay) + delta));
  render();
  renderMoveList();
}

// ------------------------------------------------------------------ setup
function setupSettingsDialog() {
  const dlg = $("#dlg-settings");
  const form = $("#form-settings");
  $("#btn-settings").onclick = () => {
    for (const [k, v] of Object.entries(settings)) {
      const input = form.elements[k];
      if (!input) continue;
      if (input.type === "checkbox") input.checked = !!v;
      else input.value = v;
    }
    dlg.showModal();
  };
  form.addEventListener("change", (ev) => {
    const input = ev.target;
    saveSettings({ [input.name]: input.type === "checkbox" ? input.checked : input.value });
  });
  $("#btn-rules").onclick = () => $("#dlg-rules").showModal();
}

// ------------------------------------------------------------ keyboard play
// r roll, d double, Enter confirm, Backspace/u undo, t take, p pass, m type a move, ? the list of keys.
// A key does what its button does, only when that button is on screen and enabled; keys typed into a
// text box (chat, a typed move) or with a dialog open are left alone.
const KEYS = { r: "#act-roll", d: "#act-double", Enter: "#act-confirm", Backspace: "#act-undo", u: "#act-undo", t: "#act-take", p: "#act-pass" };
function typing(target) {
  return !!target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}
function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) return;
  if ($("#view-table").hidden || !S.state || document.querySelector("dialog[open]")) return;
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (key === "?") { const help = $("#keys-help"); help.open = !help.open; ev.preventDefault(); return; }
  if (key === "m") {
    // the board stays where it is: the move box is just below it
    if (!$("#move-form").hidden) { $("#move-text").focus({ preventScroll: true }); ev.preventDefault(); }
    return;
  }
  if (key === "Enter" && ["BUTTON", "A", "SUMMARY"].includes(ev.target.tagName)) return;  // it answers Enter itself
  const b = KEYS[key] && $(KEYS[key]);
  if (b && !b.disabled) { ev.preventDefault(); b.click(); }
}
function setupKeys() {
  document.addEventListener("keydown", onKey);
  $("#move-form").onsubmit = (ev) => {
    ev.preventDefault();
    const text = $("#move-text").value.trim();
    if (!text || !S.state || !S.state.allowed.includes("move")) return;
    act("move", { play: text });  // the server reads the text (a wrong one comes back as an error message)
  };
  $("#move-text").onkeydown = (ev) => { if (ev.key === "Escape") ev.target.blur(); };
}

function init() {
  mountNav();
  setLanguage(settings.lang);
  applyTheme();
  applyTranslations();
  fillRulesFields();
  setupSettingsDialog();
  setupBoardInput();
  setupKeys();
  $("#home-link").onclick = (ev) => { ev.preventDefault(); go("/"); };
  $("#form-ai").onsubmit = (ev) => { ev.preventDefault(); createTable(ev.target, "ai"); };
  $("#form-human").onsubmit = (ev) => { ev.preventDefault(); createTable(ev.target, "human"); };
  setupHome();
  $("#form-login").onsubmit = (ev) => { ev.preventDefault(); account("/api/login"); };
  $("#btn-register").onclick = () => account("/api/register");
  // Log out forgets this browser's seat tokens: tables' (bg.seat.<id>) and chouettes' (bg.chouette.<id>; not its language)
  const seatKey = (k) => k.startsWith("bg.seat.") || (/^bg\.chouette\.[A-Za-z0-9_-]{1,32}$/.test(k) && k !== "bg.chouette.lang");
  $("#btn-logout").onclick = async () => { await api("POST", "/api/logout"); Object.keys(localStorage).filter(seatKey).forEach((k) => localStorage.removeItem(k)); user = null; renderAccount(); };
  $("#chat-form").onsubmit = (ev) => {
    ev.preventDefault();
    const text = $("#chat-text").value.trim();
    if (!text) return;
    send({ type: "chat", text });
    $("#chat-text").value = "";
  };
  $("#chat-mute").onchange = (ev) => { localStorage.setItem(`bg.mute.${S.id}`, ev.target.checked ? "1" : "0"); };
  $("#btn-copy").onclick = async () => { try { await navigator.clipboard.writeText($("#share-link").value); flash(t("copied")); } catch { $("#share-link").select(); } };
  $("#btn-join").onclick = async () => {
    try {
      const doc = await api("POST", `/api/tables/${S.id}/join`, { name: $("#join-name").value || t("guest") });
      rememberSeat(doc);
      const id = S.id;
      closeTable();
      openTable(id);
    } catch (e) { flash(e.message); }
  };
  $("#btn-prev").onclick = () => stepReplay(-1);
  $("#btn-next").onclick = () => stepReplay(1);
  $("#btn-live").onclick = () => { S.replay = null; $("#xgid-line").hidden = true; render(); renderMoveList(); };
  window.addEventListener("popstate", route);
  setInterval(refreshLobby, 4000);
  loadUser();
  route();
  if (new URLSearchParams(location.search).has("settings")) {  // another page's Settings link
    history.replaceState({}, "", "/");
    $("#btn-settings").click();
  }
}
init();
