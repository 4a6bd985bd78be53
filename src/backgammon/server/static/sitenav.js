// The site's one header: Play, Study, Puzzles and Settings on every page, then the upload of match
// files to analyse, the chouette and the dice statistics. Each page's <nav class="site-nav"
// data-active="..."> is filled here; what a page adds of its own (its language menu, the player's
// name) stays after the links. The links
// carry data-i18n keys, so each page's translation pass words them. Settings is the settings
// dialog where the page has one (the play page), else the play page opened on its settings.
import { t } from "./i18n.js";
import { h } from "./dom.js";

/** @type {[string, string, string][]} */
const LINKS = [
  ["play", "/", "nav_play"],
  ["study", "/study", "study"],
  ["puzzles", "/puzzles", "puzzles"],
];
/** @type {[string, string, string][]} */
const MORE = [
  ["upload", "/upload", "nav_upload"],
  ["chouette", "/static/chouette.html", "ch_title"],
  ["dicestats", "/static/dicestats.html", "ds_title"],
];

function link([id, href, key], active) {
  const attrs = { href, id: `nav-${id}`, class: "navlink", "data-i18n": key };
  if (id === active) Object.assign(attrs, { class: "navlink active", "aria-current": "page" });
  return h("a", attrs, t(key));
}

export function mountNav() {
  const nav = /** @type {HTMLElement | null} */ (document.querySelector("nav.site-nav"));
  if (!nav) return;
  const active = nav.dataset.active;
  const own = [...nav.children];  // the page's own controls, kept after the links
  const settings = document.querySelector("#dlg-settings")
    ? h("button", { type: "button", id: "btn-settings", "data-i18n": "settings" }, t("settings"))
    : h("a", { href: "/?settings", id: "nav-settings", class: "navlink", "data-i18n": "settings" }, t("settings"));
  nav.setAttribute("aria-label", t("nav_label"));
  nav.replaceChildren(...LINKS.map((l) => link(l, active)), settings, ...MORE.map((l) => link(l, active)), ...own);
}
