// Light or dark: the system's choice (prefers-color-scheme) unless the user picked one in
// the sidebar's "This browser" section, remembered in this browser's localStorage (the
// only thing the page keeps there). <html data-theme> holds what is shown, so the CSS
// (chat-looks.css) needs one selector per theme; it follows the system as it changes.
import { byId } from "./dom.js";

const KEY = "edgehost.theme";
const CHOICES = /** @type {const} */ (["system", "light", "dark"]);
const dark = matchMedia("(prefers-color-scheme: dark)");

/** @returns {"system" | "light" | "dark"} */
function chosen() {
  let value = null;
  try {
    value = localStorage.getItem(KEY);
  } catch {
    // Storage refused (private mode, a policy): follow the system.
  }
  return CHOICES.find((c) => c === value) ?? "system";
}

function apply() {
  const choice = chosen();
  const shown = choice === "system" ? (dark.matches ? "dark" : "light") : choice;
  document.documentElement.dataset.theme = shown;
  document.documentElement.dataset.themeChoice = choice;
  const select = document.getElementById("theme-choice");
  if (select instanceof HTMLSelectElement) select.value = choice;
}

dark.addEventListener("change", apply);
apply();

/** The "This browser" section at the end of the sidebar: the theme, and room for more. */
export function browserSettings() {
  let section = document.getElementById("browser-settings");
  if (section) return section;
  section = document.createElement("section");
  section.id = "browser-settings";
  section.className = "browser-settings";
  section.innerHTML = `<div class="section-head"><h2>This browser</h2></div>
    <div class="setting"><label for="theme-choice">Theme</label>
    <select id="theme-choice"><option value="system">As the system</option><option value="light">Light</option><option value="dark">Dark</option></select></div>`;
  byId("sidebar").append(section);
  const select = /** @type {HTMLSelectElement} */ (section.querySelector("#theme-choice"));
  select.addEventListener("change", () => {
    try {
      if (select.value === "system") localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, select.value);
    } catch {
      // Not kept: it still applies until the page reloads.
      document.documentElement.dataset.theme = select.value === "system" ? (dark.matches ? "dark" : "light") : select.value;
      return;
    }
    apply();
  });
  apply();
  return section;
}

browserSettings();
