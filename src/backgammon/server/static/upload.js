// "Analyse my matches" (/upload): the player uploads match files (or pastes one); each is sent on
// its own (POST /api/uploads, base64 in JSON), read by the server, analysed by the engine one
// after another, and opened in the study page's review. Progress is pushed on the upload's own
// socket (/ws/uploads/{id}); a page that loses it reads GET /api/uploads/{id} once a second. The
// browser keeps the ids of its uploads (a guest has no account to list them); an account's are
// listed by the server too. Text from files and the server is set as text (dom.js).
import { t, setLanguage, defaultLanguage, language, applyTranslations, errorText } from "./i18n.js";
import { h } from "./dom.js";
import { mountNav } from "./sitenav.js";

mountNav();

const $ = (sel) => document.querySelector(sel);
const LIMIT_BYTES = 512 * 1024;  // the server's uploads.MAX_FILE_BYTES
const AT_ONCE = 4;  // uploads waiting or analysed at once per player (the server's budget)
const KEEP = 30;  // ids this browser remembers
const STORE = "bg.uploads";

/** @type {Map<string, any>} id (or a local key for a refused file) -> upload as last seen */
const U = new Map();
const order = [];  // keys, newest first
const following = new Set();
let loggedIn = false;

function loadSettings() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem("bg.settings") || "{}"); } catch { saved = {}; }
  return { lang: saved.lang || defaultLanguage() };
}

async function api(method, path, body) {
  const res = await fetch(path, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  let doc = null;
  try { doc = await res.json(); } catch { doc = null; }
  if (!res.ok) {
    throw Object.assign(new Error(doc?.error || `HTTP ${res.status}`), { status: res.status, code: doc?.code, params: doc?.params || {}, message: doc?.error });
  }
  return doc;
}

function storedIds() {
  try { const ids = JSON.parse(localStorage.getItem(STORE) || "[]"); return Array.isArray(ids) ? ids.filter((x) => typeof x === "string") : []; } catch { return []; }
}
function remember(id) {
  localStorage.setItem(STORE, JSON.stringify([id, ...storedIds().filter((x) => x !== id)].slice(0, KEEP)));
}

// ------------------------------------------------------------------ drawing
function matchLine(u) {
  const [white, black] = u.players || ["", ""];
  const what = u.match_length ? t("up_length", { n: u.match_length }) : t("up_money");
  return `${white} – ${black} · ${what} · ${t("up_games", { n: u.games })}`;
}
function stateLine(u) {
  if (u.status === "reading") return t("up_reading");
  if (u.status === "waiting") return t("up_waiting");
  if (u.status === "queued") return t("up_queued");
  if (u.status === "analysing") return t("up_analysing", { pct: u.total ? Math.floor((100 * u.done) / u.total) : 0 });
  if (u.status === "done") return t("up_done");
  if (u.status === "failed") return t("up_failed", { reason: u.failure || "" });
  return "";
}
function itemOf(key) {
  const u = U.get(key);
  const running = ["reading", "waiting", "queued", "analysing"].includes(u.status);
  const parts = [
    h("div", { class: "up-head" }, h("span", { class: "up-name" }, u.name), u.players ? h("span", { class: "small" }, matchLine(u)) : null),
  ];
  // while the file is sent and read, or waits for the engine, the bar moves without a figure
  const measured = u.status === "analysing" && u.total;
  if (running) parts.push(h("progress", { max: measured ? String(u.total) : null, value: measured ? String(u.done || 0) : null, "aria-label": t("up_progress", { name: u.name }) }));
  parts.push(h("p", { class: "up-state", role: "status" }, u.error ? u.error : stateLine(u)));
  if (u.reason) parts.push(h("p", { class: "small" }, t("up_reason", { reason: u.reason })));
  const notes = [...(u.errors || []), ...(u.warnings || [])];
  if (notes.length) {
    parts.push(h("p", { class: "small up-notes-title" }, u.errors?.length ? t("up_has_errors") : t("up_warnings", { n: notes.length })),
      h("ul", { class: "up-warnings" }, notes.map((w) => h("li", {}, w))));
  }
  if (u.account && loggedIn && u.id) parts.push(sideChooser(u));
  if (u.status === "done") parts.push(h("a", { class: "up-open", href: `/study/review/${encodeURIComponent(u.id)}` }, t("up_open")));
  const cls = `up-item ${u.error ? "refused" : u.status}`;
  return h("li", { class: cls, dataset: { key } }, parts);
}
// which player the account was (its puzzles come from that side's mistakes): set by its name, or here
function sideChooser(u) {
  const [white, black] = u.players || ["White", "Black"];
  const select = h("select", { class: "up-side", "aria-label": t("up_side") },
    h("option", { value: "" }, t("up_side_none")), h("option", { value: "White" }, white), h("option", { value: "Black" }, black));
  select.value = u.side || "";
  select.onchange = async () => {
    try {
      const fresh = await api("PUT", `/api/uploads/${encodeURIComponent(u.id)}`, { side: select.value || null });
      U.set(u.id, { ...U.get(u.id), side: fresh.side });
    } catch (e) { $("#up-message").textContent = errorText(e); select.value = U.get(u.id)?.side || ""; }
  };
  return h("label", { class: "up-side-row small" }, t("up_side"), " ", select);
}
function render(key) {
  const old = /** @type {HTMLElement | null} */ ($("#up-list").querySelector(`li[data-key="${CSS.escape(key)}"]`));
  const fresh = itemOf(key);
  if (old) old.replaceWith(fresh); else renderAll();
}
function renderAll() {
  $("#up-list").replaceChildren(...order.map(itemOf));
  $("#up-none").hidden = order.length > 0;
}
function put(key, u, first = true) {
  if (!U.has(key)) { if (first) order.unshift(key); else order.push(key); }
  U.set(key, u);
  render(key);
}

// --------------------------------------------------------------- following
function follow(id) {
  if (following.has(id)) return;
  following.add(id);
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let ended = false;
  let ws;
  try { ws = new WebSocket(`${scheme}://${location.host}/ws/uploads/${encodeURIComponent(id)}`); } catch { poll(id); return; }
  ws.onmessage = (ev) => {
    let doc;
    try { doc = JSON.parse(ev.data); } catch { return; }
    if (doc.type === "upload") {
      put(id, doc.upload);
      if (doc.upload.status === "done" || doc.upload.status === "failed") { ended = true; following.delete(id); pump(); }
    } else if (doc.type === "error") {
      ended = true;
      following.delete(id);
      if (doc.status === 404) forget(id);
    }
  };
  ws.onclose = () => { if (!ended) { following.delete(id); poll(id); } };
}
// without the socket: the upload read once a second until it ends
async function poll(id) {
  if (following.has(id)) return;
  following.add(id);
  try {
    for (;;) {
      const u = await api("GET", `/api/uploads/${encodeURIComponent(id)}`);
      put(id, u);
      if (u.status === "done" || u.status === "failed") break;
      await new Promise((r) => setTimeout(r, 1000));
    }
  } catch (e) {
    if (e.status === 404) forget(id);
  } finally {
    following.delete(id);
    pump();
  }
}
function forget(id) {
  localStorage.setItem(STORE, JSON.stringify(storedIds().filter((x) => x !== id)));
  const i = order.indexOf(id);
  if (i >= 0) order.splice(i, 1);
  U.delete(id);
  renderAll();
}

// ---------------------------------------------------------------- sending
const outbox = [];  // {key, name, body} waiting for a place (at most AT_ONCE of the player's at once)
let sending = false;

function pending() {
  return [...U.values()].filter((u) => ["queued", "analysing", "reading"].includes(u.status)).length;
}
async function pump() {
  if (sending) return;
  sending = true;
  try {
    while (outbox.length && pending() < AT_ONCE) {
      const job = outbox.shift();
      put(job.key, { name: job.name, status: "reading" });
      try {
        const u = await api("POST", "/api/uploads", job.body);
        order[order.indexOf(job.key)] = u.id;
        U.delete(job.key);
        U.set(u.id, u);
        renderAll();
        remember(u.id);
        follow(u.id);
      } catch (e) {
        put(job.key, { name: job.name, status: "refused", error: errorText(e), reason: e.params?.reason });
      }
    }
  } finally {
    sending = false;
  }
}
let counter = 0;
function queue(name, body) {
  const key = `local-${++counter}`;
  put(key, { name, status: "waiting" });
  showList();
  outbox.push({ key, name, body });
  pump();
}
function refuse(name, code, params) {
  put(`local-${++counter}`, { name, status: "refused", error: errorText({ status: 413, code, params, message: "" }) });
  showList();
}
// a file's bytes in base64 (in slices: String.fromCharCode takes a bounded number of arguments)
function base64(buffer) {
  const bytes = new Uint8Array(buffer);
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}
// the list of uploads brought into view once it has the new item (on a phone it is below the forms)
function showList() { $("#up-list-card").scrollIntoView({ block: "start" }); }
async function sendFiles(files) {
  $("#up-message").textContent = "";
  if (!files.length) { $("#up-message").textContent = t("up_pick"); return; }
  for (const file of files) {
    if (file.size > LIMIT_BYTES) { refuse(file.name, "upload_too_large", { name: file.name, limit_kb: LIMIT_BYTES / 1024 }); continue; }
    queue(file.name, { name: file.name, data: base64(await file.arrayBuffer()) });
  }
}
function sendPasted() {
  $("#up-message").textContent = "";
  const text = $("#up-paste").value;
  const name = t("up_pasted");
  if (!text.trim()) { $("#up-message").textContent = t("up_paste_empty"); return; }
  if (new TextEncoder().encode(text).length > LIMIT_BYTES) { refuse(name, "upload_too_large", { name, limit_kb: LIMIT_BYTES / 1024 }); return; }
  queue(name, { name, text });
  $("#up-paste").value = "";
}

// ------------------------------------------------------------------ start
async function loadList() {
  try { loggedIn = !!(await api("GET", "/api/me")); } catch { loggedIn = false; }
  const ids = storedIds();
  let mine = [];
  try { mine = await api("GET", "/api/uploads?limit=30"); } catch { mine = []; }
  for (const u of mine) { if (!U.has(u.id)) { order.push(u.id); U.set(u.id, u); } }
  const rest = ids.filter((id) => !U.has(id));
  const got = await Promise.all(rest.map((id) => api("GET", `/api/uploads/${encodeURIComponent(id)}`).catch((e) => (e.status === 404 ? { gone: id } : null))));
  for (const u of got) {
    if (u && u.gone) forget(u.gone);
    else if (u) { order.push(u.id); U.set(u.id, u); }
  }
  order.sort((a, b) => String(U.get(b)?.created || "").localeCompare(String(U.get(a)?.created || "")));
  renderAll();
  for (const [id, u] of U) if (u.status === "queued" || u.status === "analysing") follow(id);
}
function translate() {
  applyTranslations();
  document.title = `${t("title")} — ${t("up_title")}`;
  $("#up-limit").textContent = t("up_limit", { kb: LIMIT_BYTES / 1024 });
  renderAll();
}
function start() {
  setLanguage(loadSettings().lang);
  $("#lang").value = language();
  translate();
  $("#lang").onchange = (ev) => {
    let saved = {};
    try { saved = JSON.parse(localStorage.getItem("bg.settings") || "{}"); } catch { saved = {}; }
    localStorage.setItem("bg.settings", JSON.stringify({ ...saved, lang: ev.target.value }));
    setLanguage(ev.target.value);
    translate();
  };
  $("#up-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = /** @type {HTMLInputElement} */ ($("#up-files"));
    sendFiles([...(input.files || [])]).then(() => { input.value = ""; });
  });
  $("#up-paste-form").addEventListener("submit", (ev) => { ev.preventDefault(); sendPasted(); });
  loadList();
}
start();
