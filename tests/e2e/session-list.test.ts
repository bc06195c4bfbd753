// The calm chat list, a new chat's example prompts and the short no-model notice, in
// Chromium against the real stack (wrangler dev without a model, the bridge with
// server-filesystem): the list is one Tab stop with arrows inside, each row's actions
// behind one menu (its ⋯ button, Shift+F10, a right-click, a long press on touch), 44 px
// targets on a phone; the welcome's prompts come from the session's servers; the
// no-model banner names the one command for `wrangler dev`.
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, PHONE, shots } from "./browser";
import { rowAction, sessionRow } from "./session-menu";

/** Where the list's screenshots go: LIST_SHOTS, else the page tests' folder (E2E_SHOTS, else a temp folder). */
const SHOTS = process.env.LIST_SHOTS ?? shots;
const WIDE = { width: 1280, height: 800 };
const LONG_TITLE = "Planning the vegetable garden for spring, with a watering rota";

let browser: Browser;
let stack: Stack;
let page: Page;
const made: Record<string, string> = {};
/** The id of a chat made in beforeAll, by its first title. */
const idOf = (title: string): string => made[title] ?? "";

beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack({ model: false })]);
  page = await openPage(browser, stack, { viewport: WIDE });
  await page.locator("#sessions li.current").waitFor();
  // Three titled chats (made as the page makes them: POST, then a PATCH of the title).
  for (const title of ["Cats and their habits", "Budget review", LONG_TITLE]) {
    made[title] = (await page.evaluate(async (title) => {
      const json = { "content-type": "application/json" };
      const made = (await (await fetch("/sessions", { method: "POST", headers: json, body: "{}" })).json()) as { id: string };
      await fetch(`/sessions/${made.id}`, { method: "PATCH", headers: json, body: JSON.stringify({ title }) });
      return made.id;
    }, title)) as string;
  }
  // Opened from its address, as a person would (a hash alone does not load the page again).
  await page.goto(`${stack.url}/#s=${idOf(LONG_TITLE)}`);
  await page.reload();
  await sessionRow(page, idOf(LONG_TITLE)).locator(".link", { hasText: LONG_TITLE }).waitFor();
  // The page's own first chat, left unused, was dropped as the page reloaded: these three are listed.
  await page.waitForFunction('document.querySelectorAll("#sessions li[data-session]").length === 3');
});
afterAll(async () => {
  await page?.context().close();
  await stack?.stop();
  await browser?.close();
});

/** The id of the element with focus, or its row's chat id and part (link, menu button, menu item). */
const focused = () =>
  page.evaluate(`(() => {
    const el = document.activeElement;
    return {
      session: el?.closest("li[data-session]")?.getAttribute("data-session") ?? null,
      part: el?.classList.contains("link") ? "link" : el?.getAttribute("role") === "menuitem" ? "item:" + el.dataset.action : (el?.id ?? ""),
    };
  })()`) as Promise<{ session: string | null; part: string }>;
/** An element's computed style property. */
const styleOf = (el: any, property: string): string => el.ownerDocument.defaultView.getComputedStyle(el)[property];
/** A screenshot in the dark theme (the system's, which the page follows), then back to light. */
async function darkShot(on: Page, name: string, check?: () => Promise<void>): Promise<void> {
  await on.emulateMedia({ colorScheme: "dark" });
  await on.waitForFunction('document.documentElement.dataset.theme === "dark"');
  await on.screenshot({ path: join(SHOTS, name), animations: "disabled" });
  await check?.();
  await on.emulateMedia({ colorScheme: "light" });
  await on.waitForFunction('document.documentElement.dataset.theme === "light"');
}
const rowIds = () => page.locator("#sessions li[data-session]").evaluateAll((els) => els.map((e) => e.getAttribute("data-session")));
const menu = () => page.locator("#session-menu");

describe("the chat list", () => {
  it("gives titles the row, and is one Tab stop with arrows, Home, End and Enter inside", async () => {
    // Titles use the row: no icons beside them (the ⋯ shows over the row's end on hover or focus).
    const row = sessionRow(page, idOf("Budget review"));
    const [linkWidth, rowWidth] = await row.evaluate((li) => [li.querySelector(".link")?.getBoundingClientRect().width ?? 0, li.getBoundingClientRect().width]);
    expect(linkWidth).toBeGreaterThan(rowWidth - 2);
    expect(await row.locator(".row-menu").evaluate(styleOf, "opacity")).toBe("0");
    await row.hover();
    await expect.poll(() => row.locator(".row-menu").evaluate(styleOf, "opacity")).toBe("1");
    // The long title is cut only by the row's width: over 20 characters at 1280 px with the ⋯ showing (was 9).
    const longLink = sessionRow(page, idOf(LONG_TITLE)).locator(".link");
    const shownChars = await longLink.evaluate((el) => Math.floor((el.clientWidth / el.scrollWidth) * (el.textContent ?? "").length));
    expect(shownChars).toBeGreaterThanOrEqual(20);

    // One Tab stop: from the search box, Tab lands on the current chat's row, and the next Tab leaves the list.
    expect(await page.locator("#sessions [tabindex='0'], #sessions a[href], #sessions button:not([tabindex])").count()).toBe(1);
    await page.locator("#session-search").focus();
    await page.keyboard.press("Tab");
    expect(await focused()).toEqual({ session: idOf(LONG_TITLE), part: "link" });
    await page.keyboard.press("Tab");
    expect((await focused()).session).toBeNull();
    await page.keyboard.press("Shift+Tab");
    expect(await focused()).toEqual({ session: idOf(LONG_TITLE), part: "link" });

    const order = await rowIds();
    await page.keyboard.press("Home");
    expect((await focused()).session).toBe(order[0]);
    await page.keyboard.press("ArrowUp");
    expect((await focused()).session).toBe(order[0]);
    await page.keyboard.press("ArrowDown");
    expect((await focused()).session).toBe(order[1]);
    await page.keyboard.press("End");
    expect((await focused()).session).toBe(order[order.length - 1]);
    // The Tab stop moved with focus: leaving and coming back returns to the same row.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Shift+Tab");
    expect((await focused()).session).toBe(order[order.length - 1]);

    // Enter opens the chat under focus.
    const target = idOf("Cats and their habits");
    while ((await focused()).session !== target) await page.keyboard.press("ArrowUp");
    await page.keyboard.press("Enter");
    await page.locator(`#sessions li.current[data-session="${target}"]`).waitFor();
    expect(new URL(page.url()).hash).toBe(`#s=${target}`);
    noPageErrors(page);
  });

  it("opens a row's menu from the keyboard, walks it with arrows, and Escape gives focus back to the row", async () => {
    const id = idOf("Budget review");
    await sessionRow(page, id).locator(".link").focus();
    await page.keyboard.press("Shift+F10");
    await menu().waitFor();
    expect(await menu().getAttribute("role")).toBe("menu");
    expect(await menu().locator("[role=menuitem]").allTextContents()).toEqual(["Pin to top", "Share…", "People…", "Rename…", "Delete…"]);
    expect(await focused()).toEqual({ session: null, part: "item:pin" });
    await page.keyboard.press("ArrowDown");
    expect((await focused()).part).toBe("item:share");
    await page.keyboard.press("End");
    expect((await focused()).part).toBe("item:delete");
    await page.keyboard.press("ArrowDown");
    expect((await focused()).part).toBe("item:pin");
    expect(await sessionRow(page, id).locator(".row-menu").getAttribute("aria-expanded")).toBe("true");
    await page.keyboard.press("Escape");
    await menu().waitFor({ state: "hidden" });
    expect(await focused()).toEqual({ session: id, part: "link" });
    expect(await sessionRow(page, id).locator(".row-menu").getAttribute("aria-expanded")).toBe("false");
    // The context-menu key opens it too; Enter on an item runs it (rename, focus back on the row after the dialog).
    await page.keyboard.press("ContextMenu");
    await menu().waitFor();
    for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowDown");
    expect((await focused()).part).toBe("item:rename");
    await page.keyboard.press("Enter");
    const field = page.locator("#arguments-dialog[open] input[name=title]");
    await field.fill("Budget review, renamed by keyboard");
    await page.keyboard.press("Enter");
    await sessionRow(page, id).locator(".link", { hasText: "Budget review, renamed by keyboard" }).waitFor();
    await expect.poll(focused).toEqual({ session: id, part: "link" });
    noPageErrors(page);
  });

  it("pins, renames and deletes (after asking) from the row's menu, and the list is drawn again around them", async () => {
    const cats = idOf("Cats and their habits");
    // A redraw moves the rows it had rather than making new ones: the list is drawn again
    // whenever a turn ends, and a click pressed before that and released after must still
    // land on its row (a new element under the pointer would get no click).
    const budget = sessionRow(page, idOf("Budget review"));
    await budget.evaluate((li: { setAttribute(name: string, value: string): void }) => li.setAttribute("data-drawn-before", "yes"));
    await rowAction(page, cats, "pin");
    await expect.poll(() => page.locator("#sessions .session-group h3").first().textContent()).toBe("Pinned");
    expect((await rowIds())[0]).toBe(cats);
    expect(await budget.getAttribute("data-drawn-before")).toBe("yes");
    await sessionRow(page, cats).locator(".row-menu").click();
    expect(await menu().locator('[data-action="pin"]').textContent()).toBe("Unpin");
    await page.keyboard.press("Escape");

    await rowAction(page, cats, "rename");
    await page.locator("#arguments-dialog[open] input[name=title]").fill("Cats, renamed");
    await page.locator("#arguments-submit").click();
    await sessionRow(page, cats).locator(".link", { hasText: "Cats, renamed" }).waitFor();

    // Delete asks first: Cancel keeps the chat, Delete removes it (from the server too).
    const victim = idOf(LONG_TITLE);
    await rowAction(page, victim, "delete");
    await page.locator("#confirm-dialog[open]").waitFor();
    expect(await page.locator("#confirm-text").textContent()).toContain(LONG_TITLE);
    await page.locator("#confirm-cancel").click();
    await page.locator("#confirm-dialog[open]").waitFor({ state: "detached" });
    expect(await sessionRow(page, victim).count()).toBe(1);
    await rowAction(page, victim, "delete");
    await page.locator("#confirm-dialog[open] #confirm-ok").click();
    await sessionRow(page, victim).waitFor({ state: "detached" });
    const listed = (await page.evaluate("fetch('/api/sessions').then(r => r.json())")) as { sessions: { id: string }[] };
    expect(listed.sessions.map((s) => s.id)).not.toContain(victim);
    noPageErrors(page);
  });

  it("opens the menu where a right-click was, and its Share item opens the share dialog", async () => {
    const row = sessionRow(page, idOf("Cats and their habits"));
    const box = await row.boundingBox();
    if (!box) throw new Error("no row");
    const at = { x: box.x + 40, y: box.y + box.height / 2 };
    await page.mouse.click(at.x, at.y, { button: "right" });
    await menu().waitFor();
    const placed = await menu().boundingBox();
    expect(Math.abs((placed?.x ?? 0) - at.x)).toBeLessThan(2);
    expect(placed?.y).toBeGreaterThanOrEqual(at.y);
    // A click elsewhere closes it without doing anything.
    await page.mouse.click(700, 400);
    await menu().waitFor({ state: "hidden" });
    await page.mouse.click(at.x, at.y, { button: "right" });
    await menu().locator('[data-action="share"]').click();
    await page.locator("#share-dialog[open]").waitFor();
    await page.screenshot({ path: join(SHOTS, "list-desktop-share.png") });
    await page.keyboard.press("Escape");
    await page.locator("#share-dialog[open]").waitFor({ state: "detached" });
    noPageErrors(page);
  });

  it("takes screenshots of the list at 1280x800, light and dark", async () => {
    await page.locator("#session-search").focus();
    await page.keyboard.press("Tab");
    await page.screenshot({ path: join(SHOTS, "list-desktop-light.png") });
    await page.keyboard.press("Shift+F10");
    await menu().waitFor();
    await page.screenshot({ path: join(SHOTS, "list-desktop-menu-light.png") });
    await page.keyboard.press("Escape");
    await page.keyboard.press("Shift+F10");
    await menu().waitFor();
    await darkShot(page, "list-desktop-menu-dark.png", async () => {
      // Delete is red and light on the dark panel (a dark red, or .danger's dark text, would be unreadable).
      // The computed colour may be color(srgb …) (color-mix): a canvas gives it as 0-255 channels.
      const [r, g, b] = (await menu()
        .locator('[data-action="delete"]')
        .evaluate((el: any) => {
          const context = el.ownerDocument.createElement("canvas").getContext("2d");
          context.fillStyle = el.ownerDocument.defaultView.getComputedStyle(el).color;
          context.fillRect(0, 0, 1, 1);
          return [...context.getImageData(0, 0, 1, 1).data] as number[];
        })) as number[];
      expect(r).toBeGreaterThan(200);
      expect(r).toBeGreaterThan((g ?? 0) + 30);
      expect(r).toBeGreaterThan((b ?? 0) + 30);
    });
    await page.keyboard.press("Escape");
  });
});

describe("the chat list on a phone", () => {
  it("opens a row's menu on a long press, with 44 px targets, and a tap still opens a chat", async () => {
    const context = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true });
    const phone = await openPage(browser, stack, { context, path: `/#s=${idOf("Cats and their habits")}` });
    await phone.locator("#menu-toggle").tap();
    const rows = phone.locator("#sessions li[data-session]");
    await rows.first().waitFor();
    for (const part of [".link", ".row-menu"]) {
      for (const box of await rows
        .locator(part)
        .evaluateAll((els) => els.map((e) => ({ width: e.getBoundingClientRect().width, height: e.getBoundingClientRect().height })))) {
        expect(box.height).toBeGreaterThanOrEqual(44);
        if (part === ".row-menu") expect(box.width).toBeGreaterThanOrEqual(44);
      }
    }
    await phone.screenshot({ path: join(SHOTS, "list-phone-light.png") });

    const row = rows.filter({ hasText: "Budget review" });
    const id = await row.getAttribute("data-session");
    const box = await row.locator(".link").boundingBox();
    if (!box) throw new Error("no row");
    const point = { x: Math.round(box.x + 30), y: Math.round(box.y + box.height / 2) };
    const cdp = await context.newCDPSession(phone);
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [point] });
    // The menu opens while the finger rests.
    await phone.locator("#session-menu").waitFor();
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
    for (const item of await phone.locator("#session-menu [role=menuitem]").evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height))) {
      expect(item).toBeGreaterThanOrEqual(44);
    }
    // Lifting the finger neither closed it nor opened the chat.
    expect(await phone.locator("#session-menu").isVisible()).toBe(true);
    expect(await phone.locator("#sessions li.current").getAttribute("data-session")).not.toBe(id);
    await phone.screenshot({ path: join(SHOTS, "list-phone-menu-light.png") });
    await darkShot(phone, "list-phone-menu-dark.png");
    // A tap elsewhere in the drawer (its empty foot, away from anything a tap snaps to) closes it; a tap on the row opens the chat.
    await phone.touchscreen.tap(150, PHONE.height - 20);
    await phone.locator("#session-menu").waitFor({ state: "hidden" });
    expect(await phone.locator("#sessions").isVisible()).toBe(true);
    await row.locator(".link").tap();
    await phone.locator(`#sessions li.current[data-session="${id}"]`).waitFor({ state: "attached" });
    noPageErrors(phone);
    await context.close();
  });
});

describe("a new chat's welcome", () => {
  it("offers example prompts from the session's servers; one fills the message box without sending", async () => {
    const before = await page.evaluate("location.hash");
    const welcome = page.locator("#welcome");
    const prompts = welcome.locator(".welcome-prompts button");
    // The chat open now is empty: its welcome shows its prompts. Every prompt ever drawn is recorded.
    await prompts.filter({ hasText: "List the files in my folder" }).waitFor();
    await page.evaluate(`(() => {
      const box = document.querySelector("#welcome .welcome-prompts");
      window.__promptsDrawn = [];
      new MutationObserver(() => window.__promptsDrawn.push(...[...box.children].map((b) => b.textContent))).observe(box, { childList: true });
    })()`);
    // The new chat opens slowly: its POST is held until a prompt was used, and its socket's
    // frames from the first servers frame on are held until the welcome has been looked at.
    let releasePost = () => {};
    const postHeld = new Promise<void>((resolve) => (releasePost = resolve));
    let posted = () => {};
    const postAsked = new Promise<void>((resolve) => (posted = resolve));
    await page.route("**/sessions", async (route) => {
      if (route.request().method() !== "POST") return route.fallback();
      posted();
      await postHeld;
      await route.fallback();
    });
    /** Sends the held frames on and stops holding (set once the new chat's socket is routed). */
    let releaseFrames = () => {};
    let routed = false;
    await page.routeWebSocket(/\/sessions\/[^/]+\/ws$/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((message) => server.send(message));
      // Only the first socket (the new chat's) is held; any later one passes straight through.
      let held: string[] | null = routed ? null : [];
      routed = true;
      releaseFrames = () => {
        for (const frame of held ?? []) ws.send(frame);
        held = null;
      };
      server.onMessage((message) => {
        const text = String(message);
        if (held && (held.length > 0 || text.includes('"type":"servers"'))) held.push(text);
        else ws.send(text);
      });
    });
    await page.locator("#new-session").click();
    await postAsked;
    // Used while the new chat opens: it stays in the box (the switch never clears what was put there since).
    await prompts.filter({ hasText: "Read the notes in my folder" }).click();
    releasePost();
    await expect.poll(() => page.evaluate("location.hash")).not.toBe(before);
    await page.unroute("**/sessions");
    // Its history is in (empty: the welcome shows), its servers not yet: no prompts to click,
    // not the chat left's (they would be swapped under a click as the new chat's servers come).
    await welcome.waitFor();
    expect(await prompts.count()).toBe(0);
    releaseFrames();
    // Then its own prompts, never "Add an MCP server" while its servers were connecting; the box kept the one used.
    await prompts.filter({ hasText: "List the files in my folder" }).waitFor();
    expect(await page.evaluate("window.__promptsDrawn")).not.toContain("Add an MCP server");
    expect(await page.locator("#composer-input").inputValue()).toBe("Read the notes in my folder and summarise them.");
    // server-filesystem has list_directory, read_text_file, search_files, list_allowed_directories…: two from it.
    expect(await prompts.allTextContents()).toEqual([
      "List the files in my folder and say what each one is.",
      "Read the notes in my folder and summarise them.",
    ]);
    await prompts.nth(0).click();
    expect(await page.locator("#composer-input").inputValue()).toBe("List the files in my folder and say what each one is.");
    expect(await page.evaluate("document.activeElement?.id")).toBe("composer-input");
    expect(await page.locator("#messages .msg.user").count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, "list-welcome-desktop.png") });

    // The session's server switched off: no tool prompts, one that helps add a server.
    await page.locator("#composer-input").fill("");
    await page.locator("#server-filesystem").uncheck();
    const add = welcome.locator(".welcome-prompts button", { hasText: "Add an MCP server" });
    await add.waitFor();
    expect(await prompts.count()).toBe(1);
    await add.click();
    await page.locator("#my-servers-dialog[open]").waitFor();
    await page.keyboard.press("Escape");
    await page.locator("#server-filesystem").check();
    await prompts.filter({ hasText: "List the files in my folder" }).waitFor();
    noPageErrors(page);
  });
});

describe("without a model", () => {
  it("says in one line the one command for wrangler dev, with the Worker's whole sentence folded", async () => {
    const banner = page.locator("#notice");
    await banner.waitFor();
    const line = banner.locator(".no-model-line");
    await line.waitFor();
    expect(await line.textContent()).toBe("No model yet. Run echo 'GEMINI_API_KEY=your-key' >> .dev.vars, then restart npm run dev.");
    expect(await line.locator("code").allTextContents()).toEqual(["echo 'GEMINI_API_KEY=your-key' >> .dev.vars", "npm run dev"]);
    // Two lines at most at 1280 px (the line, then the key link, own provider and Details).
    const height = (await banner.boundingBox())?.height ?? 0;
    const lineHeight = Number.parseFloat(await banner.evaluate(styleOf, "lineHeight")) || 20;
    expect(height).toBeLessThanOrEqual(lineHeight * 2 + 40);
    expect(await banner.locator("a", { hasText: "Get a Gemini key" }).getAttribute("href")).toBe("https://aistudio.google.com/apikey");
    const why = banner.locator("details.no-model-why");
    expect(await why.locator("p").isVisible()).toBe(false);
    expect(await why.locator("p").textContent()).toContain("No model is configured: set GEMINI_API_KEY in .dev.vars for wrangler dev");
    await page.screenshot({ path: join(SHOTS, "list-no-model-desktop.png") });

    // A message without a model: its answer says the same line.
    await page.locator("#composer-input").fill("is anyone there?");
    await page.locator("#composer-input").press("Enter");
    const answer = page.locator(".msg.user:has-text('is anyone there?') + li.msg.assistant.no-model");
    await answer.waitFor();
    expect(await answer.locator(".no-model-line code").first().textContent()).toBe("echo 'GEMINI_API_KEY=your-key' >> .dev.vars");
    // "Add your own provider" opens My providers.
    await banner.locator("button", { hasText: "Add your own provider" }).click();
    await page.locator("#my-providers-dialog[open]").waitFor();
    await page.keyboard.press("Escape");
    noPageErrors(page);
  });
});
