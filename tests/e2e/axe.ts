// Accessibility checks for the page tests: axe-core (a devDependency) run inside the
// Chromium page, and a keyboard walk that Tabs through a page checking each stop shows
// where focus is. axe's source is evaluated through the DevTools protocol rather than
// added as a <script>: the page's CSP (script-src 'self') would refuse an inline one,
// and nothing is fetched from the network.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  /** The offending elements' selectors (at most five) and axe's summary of the first. */
  nodes: string[];
  summary: string;
}

/** Violations that fail a test: 0 of these is the bar (issue 37). */
export const BLOCKING = new Set(["serious", "critical"]);

/**
 * Runs axe on the page as it is now (open dialogs included; a modal's inert backdrop is
 * skipped by axe itself). Minor and moderate findings are printed under `label`;
 * the serious and critical ones are returned for the test to assert on.
 */
export async function axeCheck(page: Page, label: string): Promise<AxeViolation[]> {
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(axeSource);
  const violations = (await page.evaluate(`(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
      summary: (v.nodes[0] && v.nodes[0].failureSummary) || "",
    }));
  })()`)) as AxeViolation[];
  const rest = violations.filter((v) => !BLOCKING.has(v.impact ?? ""));
  for (const v of rest) console.log(`axe ${label}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(", ")}`);
  return violations.filter((v) => BLOCKING.has(v.impact ?? ""));
}

export interface FocusStop {
  /** A short description: tag, id or class, and its accessible text. */
  what: string;
  /** Whether a focus indicator is drawn: an outline or a box-shadow that differs from the element's unfocused look. */
  visible: boolean;
}

/**
 * Presses Tab up to `max` times from the top of the page and describes each element it
 * lands on, stopping when focus comes back to the first one (or leaves the page). The
 * element's look while focused is compared with its look once blurred, so a style that
 * is always there (a border) does not count as a focus indicator.
 */
export async function tabWalk(page: Page, max = 120): Promise<FocusStop[]> {
  // From the top: Tab moves on from a focused element, so a non-tabbable one before all
  // others is focused first (a blurred element would still be where Tab starts).
  await page.bringToFront();
  await page.evaluate(`(() => {
    const start = document.createElement("span");
    start.id = "walk-start";
    start.tabIndex = -1;
    const dialog = document.querySelector("dialog[open]");
    (dialog ?? document.body).prepend(start);
    start.focus();
  })()`);
  const stops: FocusStop[] = [];
  let first = "";
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    const stop = (await page.evaluate(`(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const key = el.id ? "#" + el.id : el.tagName.toLowerCase() + "." + [...el.classList].join(".") + ":" + [...el.parentNode.children].indexOf(el);
      const text = (el.getAttribute("aria-label") || el.textContent || el.getAttribute("placeholder") || "").trim().slice(0, 30);
      const look = (s) => [s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow, s.borderColor, s.backgroundColor].join("|");
      const style = getComputedStyle(el);
      const focused = look(style);
      const ring = (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== "none";
      el.setAttribute("data-walk", "1");
      el.setAttribute("data-tabbed", "");
      return { key, what: key + " " + JSON.stringify(text), focused, ring };
    })()`)) as { key: string; what: string; focused: string; ring: boolean } | null;
    if (!stop) break;
    if (i === 0) first = stop.key;
    else if (stop.key === first) break;
    // The same element's look without focus (blurred, then focused again for the next Tab).
    const unfocused = (await page.evaluate(`(() => {
      const el = document.querySelector("[data-walk]");
      el.removeAttribute("data-walk");
      el.blur();
      const s = getComputedStyle(el);
      const look = [s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow, s.borderColor, s.backgroundColor].join("|");
      el.focus({ focusVisible: true });
      return look;
    })()`)) as string;
    stops.push({ what: stop.what, visible: stop.ring && stop.focused !== unfocused });
  }
  await page.evaluate(`document.getElementById("walk-start")?.remove()`);
  return stops;
}

/**
 * Interactive elements a person can see (buttons, links, fields, summaries, anything
 * with tabindex >= 0) that the last `tabWalk` did not reach. Elements with tabindex=-1
 * are left out: a list with one Tab stop reaches its rows with the arrow keys.
 */
export async function notTabbed(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const all = document.querySelectorAll("button, a[href], input:not([type=hidden]), select, textarea, summary, [tabindex]");
    return [...all]
      // A closed <details> hides its content from Tab (its summary is the stop), but Chromium lays the
      // content out when asked for a box, so a size alone would count it as visible.
      .filter((el) => !el.hasAttribute("data-tabbed") && !el.disabled && el.getAttribute("tabindex") !== "-1" && !el.closest("[inert], dialog:not([open])"))
      .filter((el) => { const shut = el.closest("details:not([open])"); return !shut || el.parentElement === shut && el.tagName === "SUMMARY"; })
      .filter((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden"; })
      .filter((el) => !(el.tagName === "INPUT" && el.type === "radio" && !el.checked && document.querySelector('input[type=radio][name="' + el.name + '"][data-tabbed]')))
      .map((el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "." + [...el.classList].join(".")) + " " + JSON.stringify((el.getAttribute("aria-label") || el.textContent || "").trim().slice(0, 30)));
  })()`)) as string[];
}

/** Clears what `tabWalk` marked, before walking another state of the page. */
export async function clearTabbed(page: Page): Promise<void> {
  await page.evaluate(`document.querySelectorAll("[data-tabbed]").forEach((el) => el.removeAttribute("data-tabbed"))`);
}
