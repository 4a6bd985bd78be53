// Per-player dice statistics: distribution of the 21 rolls, doubles, pips, dancing, with chi-squared tests.
import { MESSAGES, t, setLanguage, defaultLanguage, applyTranslations, httpError } from "./i18n.js";
import { h, svg } from "./dom.js";
import { mountNav } from "./sitenav.js";

mountNav();

Object.assign(MESSAGES.en, {
  ds_help: "Every roll a player made in the stored games, compared with fair dice.",
  ds_player: "Player", ds_show: "Show", ds_distribution: "The 21 rolls",
  ds_summary: "{name}: {rolls} rolls in {n} tables.", ds_summary_one: "{name}: {rolls} rolls in 1 table.",
  ds_stat: "Statistic", ds_observed: "Observed", ds_expected: "Expected", ds_chi2: "Chi-squared", ds_p: "p-value",
  ds_roll: "Roll", ds_doubles: "Doubles", ds_pips: "Pips", ds_dancing: "Dancing (from the bar)",
  ds_all: "All 21 rolls ({dof} degrees of freedom)",
  ds_verdict_ok: "Nothing unusual: every p-value is above 0.01.",
  ds_verdict_low: "A p-value below 0.01: unusual, but with many players someone always gets one.",
});
Object.assign(MESSAGES.ja, {
  ds_help: "保存されたゲームでそのプレイヤーが振ったすべてのロールを、公正なダイスと比べます。",
  ds_player: "プレイヤー", ds_show: "表示", ds_distribution: "21種類のロール",
  ds_summary: "{name}:{n}卓で{rolls}回のロール。",
  ds_stat: "統計量", ds_observed: "観測値", ds_expected: "期待値", ds_chi2: "カイ二乗", ds_p: "p値",
  ds_roll: "ロール", ds_doubles: "ゾロ目", ds_pips: "ピップ", ds_dancing: "ダンス(バーから)",
  ds_all: "21種類すべて(自由度 {dof})",
  ds_verdict_ok: "特に異常はありません:すべてのp値が0.01を超えています。",
  ds_verdict_low: "p値が0.01未満:珍しいですが、多くのプレイヤーがいれば誰かには起こります。",
});

const $ = (s) => document.querySelector(s);
const params = new URLSearchParams(location.search);
function savedLanguage() {  // this page's choice, else the main page's setting
  try { return localStorage.getItem("bg.chouette.lang") || JSON.parse(localStorage.getItem("bg.settings") || "{}").lang; } catch { return null; }
}
let lang = params.get("lang") || savedLanguage() || defaultLanguage();
let last = null;

const num = (x, d = 1) => (x === null || x === undefined ? "–" : Number(x).toFixed(d));

function render(doc) {
  last = doc;
  const r = doc.report;
  $("#ds-out").hidden = false;
  $("#ds-summary").textContent = t("ds_summary", { name: doc.name, rolls: r.rolls, n: doc.tables });
  const row = (cells, attrs = {}) => h("tr", attrs, cells.map((c) => h("td", {}, c)));
  const head = (cells) => h("tr", {}, cells.map((c) => h("th", {}, c)));
  const rows = [head([t("ds_stat"), t("ds_observed"), t("ds_expected"), t("ds_chi2"), t("ds_p")])];
  const ps = [];
  for (const key of ["doubles", "pips", "dancing"]) {
    const s = r[key];
    if (!s) continue;
    if (s.test) ps.push(s.test.p_value);
    rows.push(row([t("ds_" + key), num(s.observed, 0), num(s.expected), s.test ? num(s.test.statistic, 2) : "–", s.test ? num(s.test.p_value, 3) : "–"], { "data-stat": key }));
  }
  const d = r.distribution;
  if (d.test) {
    ps.push(d.test.p_value);
    rows.push(row([t("ds_all", { dof: d.test.dof }), "", "", num(d.test.statistic, 2), num(d.test.p_value, 3)], { "data-stat": "distribution" }));
  }
  rows.push(h("tr", {}, h("td", { colspan: 5, class: "hint" }, t(ps.some((p) => p < 0.01) ? "ds_verdict_low" : "ds_verdict_ok"))));
  $("#ds-tests").replaceChildren(...rows);
  const max = Math.max(1, ...d.observed, ...d.expected);
  const dist = [head([t("ds_roll"), t("ds_observed"), t("ds_expected"), ""])];
  d.labels.forEach((label, i) => {
    const o = d.observed[i], e = d.expected[i];
    const x = (150 * e) / max;
    const bar = svg("svg", { width: 160, height: 12 },
      svg("rect", { width: (150 * o) / max, height: 12, fill: "#2d6a4f" }),
      svg("line", { x1: x, x2: x, y1: 0, y2: 12, stroke: "#c00", "stroke-width": 2 }));
    dist.push(row([label, o, num(e), bar]));
  });
  $("#ds-dist").replaceChildren(...dist);
}

async function load(name) {
  $("#ds-error").textContent = "";
  const r = await fetch(`/api/dice-stats?name=${encodeURIComponent(name)}`);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) { $("#ds-error").textContent = httpError(r.status, body).message; $("#ds-out").hidden = true; return; }
  render(body);
}

setLanguage(lang);
$("#ds-lang").value = lang;
applyTranslations();
$("#ds-lang").onchange = (ev) => { lang = ev.target.value; localStorage.setItem("bg.chouette.lang", lang); setLanguage(lang); applyTranslations(); if (last) render(last); };
$("#ds-form").onsubmit = (ev) => { ev.preventDefault(); load(ev.target.name.value); };
if (params.get("name")) { $("#ds-form").name.value = params.get("name"); load(params.get("name")); }
