// A server's URL-mode question in the page (issue 34), in headless Chromium against the
// real stack and a real v2-SDK server (tests/fixtures/url-elicitation-server.mjs) speaking
// MCP 2026-07-28 only (`linker`) and 2025-11-25 (`linker25`, whose wait ends at its
// notifications/elicitation/complete; its -32042 refusal asks the same way, and "I'm done"
// sends the call again when the server does not say it is complete): the dialog names the server and shows the
// URL's host, the full URL only as text; nothing opens until the person clicks Open, which
// opens the URL in a new page; then "waiting for <host>…" until the server is done (the
// person finished at its page), when the dialog closes and the call's result comes back.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { startUrlServer, type RunningUrlServer } from "../fixtures/url-elicitation-servers";
import { DESKTOP, launchBrowser, noPageErrors, openPage, sendMessage } from "./browser";

let browser: Browser;
let stack: Stack;
let server: RunningUrlServer;
let context: BrowserContext;
let page: Page;
/** Pages the chat page opened (Open's new tab), in order. */
const opened: Page[] = [];

beforeAll(async () => {
  server = await startUrlServer();
  [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack({
      mcpServers: {
        linker: { url: server.modernUrl, alwaysAllow: ["connect"] },
        linker25: { url: server.legacyUrl, alwaysAllow: ["connect", "gated"] },
      },
    }),
  ]);
  context = await browser.newContext({ viewport: DESKTOP });
  page = await openPage(browser, stack, { context });
  context.on("page", (next) => opened.push(next));
  await page.locator('#servers li[data-server="linker"][data-state="ready"]').waitFor({ state: "attached" });
  await page.locator('#servers li[data-server="linker25"][data-state="ready"]').waitFor({ state: "attached" });
}, 90_000);
afterAll(async () => {
  await context?.close();
  await Promise.all([browser?.close(), stack?.stop(), server?.stop()]);
});

const dialog = () => page.locator("#elicitation-dialog[open]");

async function ask(after: string, tool = "linker__connect"): Promise<void> {
  await script(stack.llm.url, stack.llmKey, [reply.callReply(tool, {}), reply.text(after)]);
  await sendMessage(page, "connect my account");
  await page.locator("#elicitation-dialog[open]:not([data-arming])").waitFor();
}

async function lastResult(after: string, tool = "linker.connect"): Promise<string> {
  await page.locator(".msg.assistant", { hasText: after }).waitFor();
  const card = page.locator(".tool-card.done", { hasText: tool }).last();
  await card.locator("summary").click();
  return (await card.locator(".tool-result").textContent()) ?? "";
}

describe("a server's URL-mode question", () => {
  it("shows the server and the URL's host, opens the URL only on Open, waits for the server, then closes", async () => {
    const host = new URL(server.base).host;
    const target = `${server.base}/connect?state=s3cret-state`;
    await ask("Your account is connected.");
    expect(await page.locator("#elicitation-message").textContent()).toBe("linker: Connect your account to go on.");
    expect(await dialog().locator(".url-host").textContent()).toBe(host);
    expect(await dialog().locator(".url-full").textContent()).toBe(target);
    // The URL is text to read, never a link to follow.
    expect(await dialog().locator("a[href]").count()).toBe(0);
    expect(await page.locator("#elicitation-accept").textContent()).toBe(`Open ${host}`);
    expect(opened).toEqual([]);

    const tab = context.waitForEvent("page");
    await page.locator("#elicitation-accept").click();
    const newPage = await tab;
    await newPage.waitForURL(target);
    // noopener: the server's page has no handle on the chat page.
    expect(await newPage.evaluate(() => (globalThis as unknown as { opener: unknown }).opener === null)).toBe(true);
    expect(opened).toHaveLength(1);

    const waiting = page.locator("#url-wait-dialog[open]");
    await waiting.waitFor();
    expect(await page.locator("#url-wait-text").textContent()).toBe(`Waiting for ${host}…`);
    // A reload mid-wait shows the wait again, not the question.
    await page.reload();
    await waiting.waitFor();
    expect(await page.locator("#url-wait-text").textContent()).toBe(`Waiting for ${host}…`);
    expect(await dialog().count()).toBe(0);
    await server.complete();
    await waiting.waitFor({ state: "detached" });
    expect(await lastResult("Your account is connected.")).toContain("connected");
    await newPage.close();
    noPageErrors(page);
  });

  it("2025-11-25: the wait ends when the server is done; a -32042 refusal asks the same way, and I'm done sends the call again", async () => {
    const host = new URL(server.base).host;
    await ask("Connected over 2025.", "linker25__connect");
    expect(await page.locator("#elicitation-message").textContent()).toBe("linker25: Connect your account to go on.");
    expect(await dialog().locator(".url-host").textContent()).toBe(host);
    const tab = context.waitForEvent("page");
    await page.locator("#elicitation-accept").click();
    await (await tab).close();
    const waiting = page.locator("#url-wait-dialog[open]");
    await waiting.waitFor();
    await server.complete();
    await waiting.waitFor({ state: "detached" });
    expect(await lastResult("Connected over 2025.", "linker25.connect")).toContain("connected");

    await ask("Through the gate.", "linker25__gated");
    expect(await page.locator("#elicitation-message").textContent()).toBe("linker25: Sign in at the gate first.");
    const gateTab = context.waitForEvent("page");
    await page.locator("#elicitation-accept").click();
    await (await gateTab).close();
    await waiting.waitFor();
    // This time the server never says it is complete (its notification is optional): the person says so.
    await server.openGateQuietly();
    await page.locator("#url-wait-dialog[open]:not([data-arming]) #url-wait-done").click();
    await waiting.waitFor({ state: "detached" });
    expect(await lastResult("Through the gate.", "linker25.gated")).toContain("the gate is open");
    noPageErrors(page);
  });

  it("opens nothing when the person declines, and the server hears it", async () => {
    const before = opened.length;
    await ask("Not connected then.");
    await page.locator("#elicitation-decline").click();
    await dialog().waitFor({ state: "detached" });
    expect(await lastResult("Not connected then.")).toContain("not connected (decline)");
    expect(await page.locator("#url-wait-dialog[open]").count()).toBe(0);
    expect(opened.length).toBe(before);
  });
});
