// The verifiable-dice panel: the commitment before and during a game, the seed and the check after it.
import { MESSAGES, t } from "./i18n.js";

Object.assign(MESSAGES.en, {
  fd_title: "Verifiable dice", fd_commitment: "Commitment (sha256 of the secret seed)",
  fd_seed: "Seed (revealed)", fd_check: "Check every roll of this table with:",
  fd_secret: "The seed is revealed when the match ends.", fd_draws: "{n} draws so far",
});
Object.assign(MESSAGES.ja, {
  fd_title: "検証可能なダイス", fd_commitment: "コミットメント(秘密のシードのsha256)",
  fd_seed: "シード(公開済み)", fd_check: "この卓のすべてのロールを確認するコマンド:",
  fd_secret: "シードはマッチ終了時に公開されます。", fd_draws: "これまでのロール数 {n}",
});

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

export function renderFairDice(el, doc) {
  if (!el) return;
  if (!doc) { el.hidden = true; return; }
  el.hidden = false;
  let html = `<h3>${t("fd_title")}</h3><p>${t("fd_commitment")}: <code class="fd-commitment">${esc(doc.commitment)}</code></p>`;
  if (doc.revealed && doc.seed) {
    html += `<p>${t("fd_seed")}: <code class="fd-seed">${esc(doc.seed)}</code></p>`;
    html += `<p>${t("fd_check")}</p><pre class="fd-command">${esc(doc.command)}</pre>`;
  } else {
    html += `<p class="hint">${t("fd_secret")} ${t("fd_draws", { n: doc.draws })}</p>`;
  }
  el.innerHTML = html;
}
