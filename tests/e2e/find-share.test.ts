// Finding, sharing and importing conversations as a user does it, in Chromium against
// the real stack (wrangler dev, the fake model, the bridge): the search box with marked
// matches that opens a session at the message found, date groups and pins; a title that
// holds HTML shown as text.
import { randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { DESKTOP, launchBrowser, noPageErrors, openPage, PHONE, sendMessage, shot, shotBoth } from "./browser";
import { rowAction } from "./session-menu";

// Two people (token sign-in): a shared link is read by someone else.
const tokens = { alice: `alice-${randomBytes(16).toString("hex")}`, bob: `bob-${randomBytes(16).toString("hex")}` };

let browser: Browser;
let stack: Stack;
let page: Page;
beforeAll(async () => {
  [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack({ vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${tokens.alice},bob:${tokens.bob}` } }),
  ]);
});

/** A page of its own (cookies are per context), signed in with `token`, or left signed out. */
async function person(token?: string, viewport = DESKTOP): Promise<Page> {
  const context = await browser.newContext({ viewport });
  const p = await openPage(browser, stack, { context, ready: false });
  if (token === undefined) return p;
  await p.locator("#login-token").fill(token);
  await p.locator("#login-submit").click();
  await p.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor({ state: "attached" });
  return p;
}
afterAll(async () => {
  await page?.context().close();
  await stack?.stop();
  await browser?.close();
});

/** One turn in the open session: `text`, answered `answer`, settled. */
async function turn(p: Page, text: string, answer: string): Promise<void> {
  await script(stack.llm.url, stack.llmKey, [reply.text(answer)]);
  const answers = await p.locator("#messages li.assistant").count();
  await sendMessage(p, text);
  await p.locator("#messages li.assistant").nth(answers).waitFor();
  await p.locator("#messages li.assistant.streaming").waitFor({ state: "detached" });
}

describe("finding a conversation", () => {
  it("searches titles and messages, marks the words found, and opens the session at the message", async () => {
    page = await person(tokens.alice);
    await page.locator("#sessions li.current").waitFor();
    const first = await page.locator("#sessions li.current").getAttribute("data-session");
    await turn(page, "How deep is a wombat burrow?", "Wombats dig <b>deep</b> burrows, up to 3 m.");
    const long = Array.from({ length: 30 }, (_, i) => `Line ${i + 1} of a long answer.`).join("\n\n");
    for (const n of [1, 2, 3]) await turn(page, `Tell me more, part ${n}`, long);

    await page.locator("#new-session").click();
    await expect.poll(() => page.locator("#sessions li.current").getAttribute("data-session")).not.toBe(first);
    await turn(page, "Something else entirely", "Fine.");
    // Session list by date: both are today's.
    expect(await page.locator("#sessions .session-group h3").allTextContents()).toEqual(["Today"]);

    await page.locator("#session-search").fill("wombat");
    const result = page.locator(`#search-results li.search-result[data-session="${first}"]`);
    await result.waitFor();
    expect(await page.locator("#sessions").isHidden()).toBe(true);
    const userLine = result.locator(".result-line.user");
    expect((await userLine.locator("mark").allTextContents()).map((t) => t.toLowerCase())).toEqual(["wombat"]);
    // The answer's HTML is text in the result line, never markup.
    const answerLine = result.locator(".result-line.assistant");
    expect(await answerLine.textContent()).toContain("<b>deep</b>");
    expect(await answerLine.locator("b").count()).toBe(0);
    await shotBoth(page, "search", async () => {
      await page.locator("#menu-toggle").click();
      await page.locator("#search-results").waitFor();
    });
    if ((page.viewportSize()?.width ?? 0) <= PHONE.width) await page.locator("#menu-toggle").click();

    await userLine.click();
    await expect.poll(() => page.locator("#sessions li.current").getAttribute("data-session")).toBe(first);
    const found = page.locator("#messages li.user.found");
    await found.waitFor();
    expect(await found.textContent()).toContain("How deep is a wombat burrow?");
    // In view, and the list is not at its end (three long answers follow it).
    expect(
      await found.evaluate((el) => {
        const list = el.closest("#messages");
        if (!list) return false;
        const box = el.getBoundingClientRect();
        const view = list.getBoundingClientRect();
        return box.top >= view.top - 1 && box.bottom <= view.bottom + 1 && list.scrollHeight - list.scrollTop - list.clientHeight > 50;
      }),
    ).toBe(true);
    noPageErrors(page);
  });

  it("shows a title that holds HTML as text in the results, and pins a session to the top", async () => {
    const current = page.locator("#sessions li.current");
    await page.locator("#session-search").fill("");
    await page.locator("#sessions").waitFor();
    const id = await current.getAttribute("data-session");
    await rowAction(page, current, "rename");
    await page.locator("#arguments-dialog[open] input[name=title]").fill('<img src=x onerror="window.pwned=1">zebra notes');
    await page.locator("#arguments-submit").click();
    await page.locator("#sessions li.current .link", { hasText: "zebra notes" }).waitFor();

    await page.locator("#session-search").fill("zebra");
    // The results of the earlier search (same session, its old title) may still be shown until this one answers.
    const title = page.locator(`#search-results li[data-session="${id}"] .result-title`, { hasText: "zebra notes" });
    await title.waitFor();
    expect(await title.textContent()).toBe('<img src=x onerror="window.pwned=1">zebra notes');
    expect(await page.locator("#search-results img").count()).toBe(0);
    expect(await page.evaluate("window.pwned")).toBeUndefined();
    await page.locator("#session-search").press("Escape");
    await page.locator("#sessions").waitFor();

    const other = page.locator("#sessions li:not(.current)").first();
    const otherId = await other.getAttribute("data-session");
    await rowAction(page, other, "pin");
    await page.locator(`#sessions .session-group:has(h3:text-is("Pinned")) li[data-session="${otherId}"]`).waitFor();
    expect(await page.locator("#sessions .session-group h3").allTextContents()).toEqual(["Pinned", "Today"]);
    // Pinned first: right under its heading.
    expect(await page.locator("#sessions li").first().getAttribute("data-session")).toBe(otherId);
    await shot(page, "sessions-pinned");
    noPageErrors(page);
  });
});

describe("sharing a conversation", () => {
  it("makes a read-only link that another signed-in user reads, tool cards included, until its owner revokes it", async () => {
    const current = page.locator("#sessions li.current");
    const id = await current.getAttribute("data-session");
    // A tool card in the conversation: a direct call is recorded in the session.
    const called = await page.evaluate(
      async (sessionId) =>
        (
          await fetch("/api/tools/filesystem.list_allowed_directories", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ arguments: {}, sessionId, approved: true }),
          })
        ).status,
      id,
    );
    expect(called).toBe(200);
    await page.locator("#messages .tool-card").first().waitFor();

    await rowAction(page, current, "share");
    await page.locator("#share-dialog[open] #share-links li.empty").waitFor();
    await page.locator("#share-create").click();
    const link = page.locator("#share-links .share-url").first();
    await link.waitFor();
    const url = await link.inputValue();
    expect(url).toMatch(new RegExp(`^${stack.url}/share/[A-Za-z0-9_-]{22}$`));
    await shotBoth(page, "share-dialog", async () => {
      // A long title wraps: nothing of the dialog (its close button) leaves a phone's screen.
      expect(await page.locator("#share-close").evaluate((el: any) => el.getBoundingClientRect().right <= el.ownerDocument.defaultView.innerWidth)).toBe(true);
    });

    // Bob, signed in, reads it: the conversation as it was, nothing runs, nothing is markup that was text.
    const bob = await person(tokens.bob);
    const response = await bob.goto(url);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toMatch(/^default-src 'none'; style-src 'self'/);
    expect(await bob.locator("h1").textContent()).toBe('<img src=x onerror="window.pwned=1">zebra notes');
    await bob.locator(".msg.user", { hasText: "How deep is a wombat burrow?" }).waitFor();
    expect(await bob.locator(".msg.assistant", { hasText: "Wombats dig <b>deep</b> burrows" }).count()).toBe(1);
    expect(await bob.locator("script, img, b, iframe").count()).toBe(0);
    expect(await bob.evaluate("window.pwned")).toBeUndefined();
    const card = bob.locator("li.tool", { hasText: "filesystem · list_allowed_directories" });
    await card.locator("summary").click();
    await card.locator("pre", { hasText: "Allowed directories" }).waitFor();
    await bob.evaluate("window.scrollTo(0, 0)");
    await shotBoth(bob, "share-page");
    // No socket: a snapshot opens none.
    expect(await bob.evaluate("performance.getEntriesByType('resource').map((e) => e.name).filter((n) => !n.endsWith('/share.css'))")).toEqual([]);

    // Signed out: told to sign in, nothing of the conversation.
    const stranger = await person();
    const refused = await stranger.goto(url);
    expect(refused?.status()).toBe(401);
    expect(await stranger.locator("h1").textContent()).toBe("Sign in to read this conversation");
    expect(await stranger.content()).not.toContain("wombat");
    await stranger.context().close();

    // Alice revokes it: Bob's reload finds nothing.
    await page.locator("#share-links li .revoke").first().click();
    await page.locator("#confirm-ok").click();
    await page.locator("#share-links li.empty").waitFor();
    const gone = await bob.reload();
    expect(gone?.status()).toBe(404);
    expect(await bob.locator("h1").textContent()).toBe("This link is not available");
    await bob.context().close();
    await page.locator("#share-close").click();
    noPageErrors(page);
  });
});

describe("importing a conversation", () => {
  it("brings a file from the computer back as a session, and says what is wrong with a bad one", async () => {
    const claude = [
      {
        name: "Imported bread",
        chat_messages: [
          { sender: "human", text: 'Why does dough rise? <img src=x onerror="window.pwned=2">' },
          { sender: "assistant", text: "Yeast makes **CO2**." },
        ],
      },
    ];
    await page.locator("#import-file").setInputFiles({ name: "conversations.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(claude)) });
    await page.locator("#sessions li.current .link", { hasText: "Imported bread" }).waitFor();
    await page.locator("#messages li.user", { hasText: 'Why does dough rise? <img src=x onerror="window.pwned=2">' }).waitFor();
    await page.locator("#messages li.assistant strong", { hasText: "CO2" }).waitFor();
    expect(await page.locator("#messages img").count()).toBe(0);
    expect(await page.evaluate("window.pwned")).toBeUndefined();
    await shotBoth(page, "import");

    await page.locator("#import-file").setInputFiles({ name: "notes.json", mimeType: "application/json", buffer: Buffer.from("{not json") });
    await expect.poll(() => page.locator("#alert-text").textContent()).toBe("Could not import “notes.json”: it is not a JSON file.");
    await page.locator("#alert-close").click();
    await page.locator("#import-file").setInputFiles({ name: "other.json", mimeType: "application/json", buffer: Buffer.from('{"hello": "world"}') });
    await expect.poll(() => page.locator("#alert-text").textContent()).toMatch(/^Could not import “other\.json”: not a conversation export/);
    noPageErrors(page);
  });
});
