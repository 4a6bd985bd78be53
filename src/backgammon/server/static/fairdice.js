// The verifiable-dice panel: the commitment before and during a game, the seed and the check after it.
import { MESSAGES, t } from "./i18n.js";

Object.assign(MESSAGES.en, {
  fd_title: "Verifiable dice", fd_commitment: "Commitment (sha256 of the secret seed)",
  fd_seed: "Seed (revealed)", fd_check: "Check every roll with:",
  fd_secret: "The seed is revealed when the match ends.", fd_draws: "{n} draws so far",
  fd_secret_game: "The seed is revealed when the game ends.",
  fd_game: "Verifiable dice, game {n}", fd_last: "Game {n} (finished): seed revealed",
});
Object.assign(MESSAGES.ja, {
  fd_title: "検証可能なダイス", fd_commitment: "コミットメント(秘密のシードのsha256)",
  fd_seed: "シード(公開済み)", fd_check: "すべてのロールを確認するコマンド:",
  fd_secret: "シードはマッチ終了時に公開されます。", fd_draws: "これまでのロール数 {n}",
  fd_secret_game: "シードはゲーム終了時に公開されます。",
  fd_game: "検証可能なダイス(第{n}ゲーム)", fd_last: "第{n}ゲーム(終了):シード公開",
});

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

export function renderFairDice(el, doc, title = t("fd_title"), secret = t("fd_secret")) {
  if (!el) return;
  if (!doc) { el.hidden = true; return; }
  el.hidden = false;
  let html = `<h3>${esc(title)}</h3><p>${t("fd_commitment")}: <code class="fd-commitment">${esc(doc.commitment)}</code></p>`;
  if (doc.revealed && doc.seed) {
    html += `<p>${t("fd_seed")}: <code class="fd-seed">${esc(doc.seed)}</code></p>`;
    html += `<p>${t("fd_check")}</p><pre class="fd-command">${esc(doc.command)}</pre>`;
  } else {
    html += `<p class="hint">${esc(secret)} ${t("fd_draws", { n: doc.draws })}</p>`;
  }
  el.innerHTML = html;
}
