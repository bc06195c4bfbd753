// Accessibility of every page and dialog, in Chromium against the real stack (token
// sign-in, the bridge with server-filesystem and server-everything, the fake model):
// axe-core finds no serious or critical violation in the light and dark themes at
// desktop and phone size (the rest is printed); Tab reaches every action of the chat
// page with a visible focus indicator at each stop; Escape closes every dialog.
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { everythingBin } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { type AxeViolation, axeCheck, clearTabbed, notTabbed, tabWalk } from "./axe";
import { DESKTOP, launchBrowser, noPageErrors, openPage, PHONE, sendMessage } from "./browser";

const token = `alice-${randomBytes(16).toString("hex")}`;
const ELICIT = "trigger-elicitation-request";

const LOOKS = [
  { name: "light desktop", scheme: "light", viewport: DESKTOP },
  { name: "dark desktop", scheme: "dark", viewport: DESKTOP },
  { name: "light phone", scheme: "light", viewport: PHONE },
  { name: "dark phone", scheme: "dark", viewport: PHONE },
] as const;
type Look = (typeof LOOKS)[number];

let browser: Browser;
let stack: Stack;
let context: BrowserContext;
let page: Page;
/** Serious and critical violations by page or dialog and look; checked empty by each test. */
let found: Record<string, AxeViolation[]> = {};

beforeAll(async () => {
  [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack({
      vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${token}`, ADMIN_USERS: "alice" },
      mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"], alwaysAllow: [ELICIT] } },
    }),
  ]);
  context = await browser.newContext({ viewport: DESKTOP });
  page = await openPage(browser, stack, { context, ready: false });
  await page.locator("#login-token").fill(token);
  await page.locator("#login-submit").click();
  // server-everything starts slowly on a busy machine: its ready state is the event waited for.
  await page.locator('#servers li[data-server="everything"][data-state="ready"]').waitFor({ state: "attached", timeout: 60_000 });
}, 120_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
});

async function look(at: Page, which: Look): Promise<void> {
  await at.setViewportSize(which.viewport);
  await at.emulateMedia({ colorScheme: which.scheme });
  // The theme follows the system's choice through a media-query listener: wait for it.
  const theme = "document.documentElement.dataset.theme";
  await at.waitForFunction(`!${theme} || ${theme} === ${JSON.stringify(which.scheme)}`);
}

/** axe on `at` in each look (`prepare` runs after each switch, e.g. to open the phone's menu). */
async function checkEveryLook(at: Page, label: string, prepare?: (which: Look) => Promise<void>): Promise<void> {
  for (const which of LOOKS) {
    await look(at, which);
    await prepare?.(which);
    const blocking = await axeCheck(at, `${label}, ${which.name}`);
    if (blocking.length > 0) found[`${label}, ${which.name}`] = blocking;
  }
  await look(at, LOOKS[0]);
}

function expectNoneFound(): void {
  const seen = found;
  found = {};
  expect(seen).toEqual({});
}

/** The phone's sidebar (sessions, servers, models, your data) is behind the menu button. */
async function openSidebar(at: Page): Promise<void> {
  const toggle = at.locator("#menu-toggle");
  if ((await toggle.isVisible()) && (await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
}

async function closeSidebar(at: Page): Promise<void> {
  const toggle = at.locator("#menu-toggle");
  if ((await toggle.isVisible()) && (await toggle.getAttribute("aria-expanded")) === "true") await toggle.click();
}

const openDialog = (id: string) => page.locator(`dialog#${id}[open]`);

/** Checks an open dialog in every look, then Escape must close it. */
async function checkDialog(id: string, label: string): Promise<void> {
  await openDialog(id).waitFor();
  // Still open in each look: a dialog that closed on a resize would be checked as the page.
  await checkEveryLook(page, label, async () => expect(await openDialog(id).isVisible()).toBe(true));
  await page.keyboard.press("Escape");
  await openDialog(id).waitFor({ state: "detached" });
}

/** The current chat's row action (share, rename): a button of the row, or an item of its menu. */
async function rowAction(name: RegExp): Promise<void> {
  await openSidebar(page);
  const row = page.locator("#sessions li.current");
  const direct = row.locator("button", { hasText: name }).or(row.getByRole("button", { name }));
  if (await direct.first().isVisible()) return direct.first().click();
  await row
    .getByRole("button", { name: /actions|menu|more/i })
    .first()
    .click();
  await page.getByRole("menuitem", { name }).click();
}

// A test that failed half-way must not leave its dialog over the next test's page.
beforeEach(async () => {
  for (const open of await page.locator("dialog[open]").all()) await open.evaluate((dialog: { close(): void }) => dialog.close());
  await look(page, LOOKS[0]);
});

describe("axe: no serious or critical violation, light and dark, desktop and phone", () => {
  it("sign-in form", { timeout: 60_000 }, async () => {
    const signedOut = await openPage(browser, stack, { ready: false });
    await signedOut.locator("#login-form").waitFor();
    await checkEveryLook(signedOut, "sign-in");
    await signedOut.context().close();
    expectNoneFound();
  });

  it("chat with a streamed answer holding a code block and a table, and the sidebar (servers, models, your data)", { timeout: 60_000 }, async () => {
    const longLine = `const answer = ${JSON.stringify("x".repeat(240))}; // a line longer than any screen`;
    await script(stack.llm.url, stack.llmKey, [
      reply.stream([
        "Here is the code:\n\n```js\n",
        `${longLine}\n// a comment, in the comment colour\nconsole.log(answer);\n`,
        "```\n\nAnd a table:\n\n| tool | calls |\n|---|---|\n",
        "| list_directory | 3 |\n| read_text_file | 1 |\n",
      ]),
    ]);
    await sendMessage(page, "show me code and a table");
    await page.locator(".msg.assistant table").waitFor();
    await page.locator("#send:not([hidden])").waitFor();
    await checkEveryLook(page, "chat", () => closeSidebar(page));
    await checkEveryLook(page, "sidebar", () => openSidebar(page));
    // The chat's New schedule form, opened (closed, only its summary is in the page's flow).
    const openSchedule = async () => {
      await openSidebar(page);
      await page.locator("#schedule-new").evaluate((details) => details.setAttribute("open", ""));
      await page.locator("#schedule-form textarea").waitFor();
    };
    await checkEveryLook(page, "new schedule form", openSchedule);
    await page.locator("#schedule-new").evaluate((details) => details.removeAttribute("open"));
    await closeSidebar(page);
    expectNoneFound();
  });

  it("dialogs of the header and the sidebar; Escape closes each", { timeout: 120_000 }, async () => {
    const openers: [string, string, string][] = [
      ["model-settings", "model-dialog", "model settings"],
      ["my-servers-open", "my-servers-dialog", "my servers"],
      ["my-machines-open", "my-machines-dialog", "my machines"],
      ["my-providers-open", "my-providers-dialog", "my providers"],
      ["connected-apps-open", "connected-apps-dialog", "connected apps"],
      ["presets-open", "presets-dialog", "instructions and presets"],
      ["activity-open", "activity-dialog", "activity"],
      ["delete-all-sessions", "confirm-dialog", "confirm (your data)"],
    ];
    for (const [opener, dialog, label] of openers) {
      await openSidebar(page);
      await page.locator(`#${opener}`).click();
      await checkDialog(dialog, label);
    }
    await rowAction(/rename/i);
    await checkDialog("arguments-dialog", "rename");
    await rowAction(/share/i);
    await checkDialog("share-dialog", "share dialog");
    expectNoneFound();
  });

  it("an approval; Escape closes it", async () => {
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__get_file_info", { path: `${stack.fsRoot}/notes.txt` }),
      reply.text("A small file."),
    ]);
    await sendMessage(page, "how big is notes.txt");
    await checkDialog("approval-dialog", "approval");
    await page.locator("#send:not([hidden])").waitFor();
    expectNoneFound();
  });

  it("a server's question (elicitation); Escape closes it", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.callReply(`everything__${ELICIT}`, {}), reply.text("Thanks.")]);
    await sendMessage(page, "ask me something");
    await checkDialog("elicitation-dialog", "question");
    await page.locator("#send:not([hidden])").waitFor();
    expectNoneFound();
  });

  it("a shared conversation's page and the operator's /admin", { timeout: 60_000 }, async () => {
    await rowAction(/share/i);
    // The dialog lists the chat's links first (none yet), then can create one.
    await page.locator("#share-dialog[open] #share-links li.empty").waitFor();
    await page.locator("#share-create").click();
    const url = await page.locator("#share-links .share-url").first().inputValue();
    await page.keyboard.press("Escape");
    const other = await context.newPage();
    await other.goto(url);
    await other.locator(".msg.assistant table").waitFor();
    await checkEveryLook(other, "share page");
    await other.goto(`${stack.url}/admin`);
    await other.locator("h2", { hasText: /^Users$/ }).waitFor();
    await checkEveryLook(other, "admin");
    await other.close();
    expectNoneFound();
  });

  it("a new chat's welcome and the tool console; Escape closes the console", { timeout: 60_000 }, async () => {
    await openSidebar(page);
    await page.locator("#new-session").click();
    await closeSidebar(page);
    await page.locator("#welcome:not([hidden])").waitFor();
    await checkEveryLook(page, "welcome", () => closeSidebar(page));
    await page.locator("#console-toggle").click();
    await page.locator("#console").waitFor();
    await checkEveryLook(page, "tool console", async () => expect(await page.locator("#console").isVisible()).toBe(true));
    await page.keyboard.press("Escape");
    await page.locator("#console").waitFor({ state: "hidden" });
    expectNoneFound();
  });
});

describe("keyboard", () => {
  for (const size of [
    { name: "desktop", viewport: DESKTOP },
    { name: "phone", viewport: PHONE },
  ]) {
    it(`Tab reaches every action of the chat page with a visible focus indicator (${size.name})`, async () => {
      await page.setViewportSize(size.viewport);
      await openSidebar(page);
      await clearTabbed(page);
      const stops = await tabWalk(page);
      expect(stops.length).toBeGreaterThan(10);
      expect(stops.filter((s) => !s.visible).map((s) => s.what)).toEqual([]);
      expect(await notTabbed(page)).toEqual([]);
      await closeSidebar(page);
      await page.setViewportSize(DESKTOP);
    });
  }

  it("Tab stays inside an open dialog, with a visible focus indicator at each stop", async () => {
    await page.locator("#my-servers-open").click();
    await openDialog("my-servers-dialog").waitFor();
    const stops = await tabWalk(page, 60);
    expect(stops.length).toBeGreaterThan(2);
    expect(stops.filter((s) => !s.visible).map((s) => s.what)).toEqual([]);
    await page.keyboard.press("Escape");
    await openDialog("my-servers-dialog").waitFor({ state: "detached" });
    noPageErrors(page);
  });
});
