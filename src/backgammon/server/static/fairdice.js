// The verifiable-dice panel: the commitment before and during a game, the seed and the check after it.
import { MESSAGES, t } from "./i18n.js";
import { h } from "./dom.js";

Object.assign(MESSAGES.en, {
  fd_title: "Verifiable dice", fd_commitment: "Commitment (sha256 of the secret seed)",
  fd_seed: "Seed (revealed)", fd_check: "Check every roll with:",
  fd_secret: "The seed is revealed when the match ends.", fd_draws: "{n} draws so far", fd_draws_one: "1 draw so far",
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

export function renderFairDice(el, doc, title = t("fd_title"), secret = t("fd_secret")) {
  if (!el) return;
  if (!doc) { el.hidden = true; return; }
  el.hidden = false;
  const parts = [h("h3", {}, title), h("p", {}, `${t("fd_commitment")}: `, h("code", { class: "fd-commitment" }, doc.commitment))];
  if (doc.revealed && doc.seed) {
    parts.push(h("p", {}, `${t("fd_seed")}: `, h("code", { class: "fd-seed" }, doc.seed)));
    parts.push(h("p", {}, t("fd_check")), h("pre", { class: "fd-command" }, doc.command));
  } else {
    parts.push(h("p", { class: "hint" }, `${secret} ${t("fd_draws", { n: doc.draws })}`));
  }
  el.replaceChildren(...parts);
}
