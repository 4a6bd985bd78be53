// The colour theme of every page (a class on <body>: style.css and the pages' own sheets colour
// by it), from the saved settings. app.js applies it again whenever the settings change; the other
// pages (study, review, lessons, chouette, dice statistics) load this module to follow the setting.
export const THEMES = ["classic", "dark", "high-contrast"];

export function applyThemeName(name) {
  const theme = THEMES.includes(name) ? name : "classic";
  for (const t of THEMES) document.body.classList.toggle(`theme-${t}`, t === theme);
  return theme;
}

function savedTheme() {
  try { return JSON.parse(localStorage.getItem("bg.settings") || "{}").theme; } catch { return null; }
}

applyThemeName(savedTheme());
// another tab changed the settings: follow them here too
window.addEventListener("storage", (ev) => { if (ev.key === "bg.settings") applyThemeName(savedTheme()); });
