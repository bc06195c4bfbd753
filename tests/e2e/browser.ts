// Shared by the page tests: Debian's Chromium driven by playwright-core, a page
// per browser context (so cookies are per "person"), a watch on external
// requests and uncaught page errors, and helpers that wait on DOM state.
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page, type Request } from "playwright-core";
import { expect } from "vitest";
import type { Stack } from "../fixtures/stack";

/** Screenshots land here (E2E_SHOTS, else <tmp>/edgehost-shots) to be looked at. */
export const shots = process.env.E2E_SHOTS ?? join(tmpdir(), "edgehost-shots");
mkdirSync(shots, { recursive: true });

/** E2E_NETLOG=DIR: each browser writes Chromium's NetLog there (to see where a request waited). */
const netLog = (): string[] => {
  const dir = process.env.E2E_NETLOG;
  if (!dir) return [];
  mkdirSync(dir, { recursive: true });
  return [`--log-net-log=${join(dir, `netlog-${process.pid}-${Date.now()}.json`)}`];
};

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      ...netLog(),
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1200, height: 800 };

export interface OpenOptions {
  viewport?: { width: number; height: number };
  /** Path and hash after the stack URL, e.g. "/#s=ID". */
  path?: string;
  /** Wait for the filesystem server to show as ready (false for the login form). */
  ready?: boolean;
  context?: BrowserContext;
}

/** Uncaught errors of each page, checked by `noPageErrors`. */
const pageErrors = new WeakMap<Page, string[]>();

export async function openPage(browser: Browser, stack: Stack, options: OpenOptions = {}): Promise<Page> {
  const context = options.context ?? (await browser.newContext({ viewport: options.viewport ?? DESKTOP }));
  // Below the test timeout, so a failure names the locator it waited for.
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const external: string[] = [];
  const errors: string[] = [];
  pageErrors.set(page, errors);
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(stack.url) && !url.startsWith("ws://127.0.0.1") && !url.startsWith("data:")) external.push(url);
  });
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("close", () => expect(external).toEqual([]));
  // What has not finished loading, named should the page not come up (a CI run once waited 15 s for "load").
  const loading = new Set<Request>();
  const answered = new Set<Request>();
  page.on("request", (request) => loading.add(request));
  page.on("response", (response) => answered.add(response.request()));
  page.on("requestfinished", (request) => loading.delete(request));
  page.on("requestfailed", (request) => loading.delete(request));
  try {
    // Not until "load": the app runs once its module has (DOMContentLoaded), and what the tests wait for is below.
    await page.goto(`${stack.url}${options.path ?? "/"}`, { waitUntil: "domcontentloaded" });
    // Attached, not visible: at phone width the panel is behind the menu button.
    if (options.ready !== false) await page.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor({ state: "attached" });
  } catch (error) {
    // Whether the server's headers came (then the body stalled) or not, and when it was sent (ms after the request started; -1: not sent).
    const stuck = [...loading];
    const pending = stuck.map(
      (request) =>
        `${request.method()} ${new URL(request.url()).pathname} (${answered.has(request) ? "headers came" : "no headers"}, sent at ${request.timing().requestStart.toFixed(0)} ms)`,
    );
    // Whether wrangler dev answers the same URL now, from here: a stalled server, or one request lost on its way.
    const first = stuck[0];
    const now = first
      ? await fetch(first.url(), { signal: AbortSignal.timeout(3_000) }).then(
          async (response) => `${response.status} with ${(await response.arrayBuffer()).byteLength} bytes`,
          (probe: Error) => probe.name,
        )
      : "";
    // A runtime reload of wrangler dev's cuts what is in flight (tests/fixtures/stack.ts waits out the one it makes at start).
    const reloads = stack.workerLog().split("Reloading local server").length - 1;
    throw new Error(
      `the page did not come up; still loading: ${pending.join(", ") || "nothing"}${first ? `; the first asked again from Node: ${now}` : ""}; wrangler dev reloaded ${reloads} times`,
      { cause: error },
    );
  }
  return page;
}

export function noPageErrors(page: Page): void {
  expect(pageErrors.get(page) ?? []).toEqual([]);
}

export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.locator("#composer-input").fill(text);
  await page.locator("#composer-input").press("Enter");
}

/** Text of an element, polled until it matches (the DOM changes with WebSocket frames). */
export async function textOf(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).textContent()) ?? "";
}

/** The next POST to a path, with its JSON body and headers. */
export async function nextPost(page: Page, path: string | RegExp): Promise<{ request: Request; body: Record<string, unknown> }> {
  const request = await page.waitForRequest(
    (r) => r.method() === "POST" && (typeof path === "string" ? new URL(r.url()).pathname === path : path.test(new URL(r.url()).pathname)),
  );
  return { request, body: request.postDataJSON() as Record<string, unknown> };
}

/** True when the element at the centre of `selector` is it (nothing covers it). */
export async function reachable(page: Page, selector: string): Promise<boolean> {
  return (await page.evaluate(
    `(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return false; const b = el.getBoundingClientRect(); if (!b.width) return false; const hit = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2); return el.contains(hit); })()`,
  )) as boolean;
}

/** Where focus is: the id of the active element and of the dialog around it (if any). */
export async function focus(page: Page): Promise<{ id: string; dialog: string | null }> {
  return (await page.evaluate(
    `(() => { const el = document.activeElement; return { id: el ? el.id : "", dialog: el && el.closest("dialog") ? el.closest("dialog").id : null }; })()`,
  )) as {
    id: string;
    dialog: string | null;
  };
}

/** Page elements wider than the viewport (a phone layout must have none). */
export async function overflow(page: Page): Promise<{ overflow: number; wide: string[] }> {
  const overflow = (await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")) as number;
  const wide = (await page.evaluate(
    "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && getComputedStyle(e).display !== 'none' && e.getClientRects().length).map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 5)",
  )) as string[];
  return { overflow, wide };
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

/** Opens the tool console unless it is open already. */
export async function openConsole(page: Page): Promise<void> {
  if (await page.locator("#console").isHidden()) await page.locator("#console-toggle").click();
  await page.locator("#console").waitFor();
}

/**
 * A screenshot at the page's size and one at phone width (390×844), as `${name}-desktop`
 * and `${name}-phone`; the page is put back to its size. The docs' `chat-*.png` are these,
 * taken with E2E_SHOTS pointing at a folder and copied to docs/ (docs/developing.md).
 */
export async function shotBoth(page: Page, name: string, phoneFocus?: () => Promise<void>): Promise<void> {
  const size = page.viewportSize() ?? DESKTOP;
  await shot(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  await phoneFocus?.();
  await shot(page, `${name}-phone`);
  await page.setViewportSize(size);
}

/**
 * Headless Chromium reports every tab visible (another tab in front, a minimized window:
 * still "visible"), so the test says the tab is hidden the way the browser would: the
 * document's visibilityState and its visibilitychange event.
 */
export async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate(`(() => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => ${hidden ? '"hidden"' : '"visible"'} });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => ${hidden} });
    document.dispatchEvent(new Event("visibilitychange"));
  })()`);
}
