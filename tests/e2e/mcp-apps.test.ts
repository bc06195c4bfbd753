// Issue 13 part 7, MCP Apps, in headless Chromium against the real stack: wrangler
// dev, the bridge running ext-apps' published example app server
// (@modelcontextprotocol/server-basic-vanillajs) over stdio, and the fake Gemini
// asking for its `get-time` tool. The app is framed in the tool card, gets the
// call's result, calls the tool back through the session's approval (approved:
// a new time; denied: an error in the app), is sandboxed (opaque origin, no
// access to the page, its cookies or this origin's API), follows its own size,
// and is torn down when the chat is cleared. A second app (tests/fixtures/csp-app-server.mjs)
// declares a CSP domain: exactly that origin opens, any other stays closed.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser, Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { basicAppBin, repoRoot } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, overflow, PHONE, sendMessage, shot } from "./browser";

/** A loopback origin an app may or may not reach: a 1x1 PNG at /pixel.png, "ok" (CORS *) at /data; counts requests. */
interface Origin {
  url: string;
  hits: string[];
  server: Server;
}
const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
async function startOrigin(): Promise<Origin> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    if (req.url === "/pixel.png") res.writeHead(200, { "content-type": "image/png" }).end(PIXEL);
    else res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, server };
}

let browser: Browser;
let stack: Stack;
let allowed: Origin;
let other: Origin;
beforeAll(async () => {
  [allowed, other] = await Promise.all([startOrigin(), startOrigin()]);
  const probe = {
    command: process.execPath,
    args: [join(repoRoot, "tests", "fixtures", "csp-app-server.mjs")],
    env: { CSP_APP_ALLOWED: allowed.url },
    alwaysAllow: ["probe"],
  };
  [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack({ mcpServers: { clock: { command: process.execPath, args: [basicAppBin, "--stdio"] }, probe } }),
  ]);
}, 90_000);
afterAll(async () => {
  await Promise.all([browser?.close(), stack?.stop(), ...[allowed, other].map((o) => o && new Promise((resolve) => o.server.close(resolve)))]);
});

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function appFrame(page: Page): Promise<Frame> {
  const handle = await page.locator(".tool-card .tool-app iframe.mcp-app-frame").last().elementHandle();
  const frame = await handle?.contentFrame();
  if (!frame) throw new Error("no app frame");
  return frame;
}

/** Answers the approval dialog; returns its title and what it asks about. */
async function approve(page: Page, button: "#approve-once" | "#deny"): Promise<string> {
  const dialog = page.locator("#approval-dialog[open]");
  await dialog.waitFor();
  const what = `${await dialog.locator("#approval-title").textContent()}: ${await dialog.locator("#approval-what").textContent()}`;
  await dialog.locator(button).click();
  await dialog.waitFor({ state: "detached" }).catch(() => undefined);
  await page.locator("#approval-dialog[open]").waitFor({ state: "hidden" });
  return what;
}

describe("an MCP App in its tool card", () => {
  let page: Page;
  let frame: Frame;
  let firstTime = "";
  const consoleLines: string[] = [];

  beforeAll(async () => {
    page = await openPage(browser, stack);
    page.on("console", (message) => consoleLines.push(message.text()));
    // In every frame loaded from now on: keep the host context the page answers ui/initialize with.
    await page.addInitScript(
      `addEventListener("message", (event) => { if (event.data?.result?.hostContext) window.hostContext = event.data.result.hostContext; });`,
    );
    await page.locator('#servers li[data-server="clock"][data-state="ready"]').waitFor({ state: "attached" });
  });
  afterAll(async () => {
    await page?.context().close();
  });

  it("frames the tool's ui:// app in the card and delivers the call's result to it", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.callReply("clock__get-time", {}), reply.text("The app shows the time.")]);
    await sendMessage(page, "what time is it on the server?");
    // The model's call needs approval like any other (get-time is not always allowed).
    expect(await approve(page, "#approve-once")).toBe("Allow this tool call?: clock.get-time");
    await page.locator(".msg.assistant", { hasText: "The app shows the time." }).waitFor();
    const card = page.locator(".tool-card", { has: page.locator(".tool-name", { hasText: "clock.get-time" }) });
    await card.locator('.tool-app[data-state="ready"] iframe').waitFor();
    // The card shows the structured content {time} as its one string; the app reads that same time.
    const recorded = (await card.locator(".tool-result").textContent()) ?? "";
    expect(recorded).toMatch(ISO_TIME);
    frame = await appFrame(page);
    await expect.poll(() => frame.locator("#server-time").textContent()).toBe(recorded);
    firstTime = recorded;
    expect(await card.locator("iframe").getAttribute("sandbox")).toBe("allow-scripts");
    // ui/initialize told the app which tool it renders, and how it is shown.
    expect(await frame.evaluate("window.hostContext")).toMatchObject({
      toolInfo: { tool: { name: "get-time", title: "Get Time", inputSchema: { type: "object" } } },
      displayMode: "inline",
      availableDisplayModes: ["inline"],
      platform: "web",
      containerDimensions: { maxHeight: 1200 },
    });
    expect(new URL(frame.url()).pathname).toMatch(/^\/sessions\/[^/]+\/ui-resource$/);
    await card.scrollIntoViewIfNeeded();
    await shot(page, "apps-1-rendered");
  });

  it("follows the app's own height (ui/notifications/size-changed)", async () => {
    const iframe = page.locator(".tool-card .tool-app iframe").last();
    // The CSS default is 150px; the app's content is taller, and the frame takes its height.
    const contentHeight = (await frame.evaluate("Math.ceil(document.documentElement.getBoundingClientRect().height)")) as number;
    expect(contentHeight).toBeGreaterThan(150);
    await expect.poll(async () => Math.round((await iframe.boundingBox())?.height ?? 0)).toBeGreaterThanOrEqual(contentHeight);
    const before = (await iframe.boundingBox())?.height ?? 0;
    // More content in the app → it reports a new size → the frame grows with it.
    await frame.evaluate("document.querySelector('main').insertAdjacentHTML('beforeend', '<div style=\"height: 300px\">tall</div>')");
    await expect.poll(async () => (await iframe.boundingBox())?.height ?? 0).toBeGreaterThanOrEqual(before + 300);
  });

  it("is sandboxed: an opaque origin that cannot touch the page, its cookies or this origin's API", async () => {
    const probe = (await frame.evaluate(`(async () => {
      const attempt = (f) => { try { f(); return "allowed"; } catch (e) { return e.name; } };
      let api;
      try { await fetch(${JSON.stringify(`${stack.url}/api/me`)}); api = "allowed"; } catch (e) { api = e.name; }
      return {
        origin: self.origin,
        parentDocument: attempt(() => parent.document.title),
        topLocation: attempt(() => top.location.href),
        cookie: attempt(() => document.cookie),
        storage: attempt(() => localStorage.length),
        api,
      };
    })()`)) as Record<string, string>;
    expect(probe).toEqual({
      origin: "null",
      parentDocument: "SecurityError",
      topLocation: "SecurityError",
      cookie: "SecurityError",
      storage: "SecurityError",
      api: "TypeError",
    });
    // The page's document has no trace of the app's code either.
    expect(await page.evaluate("typeof window.__mcpAppTouched")).toBe("undefined");
  });

  it("proxies the app's tool call through the session's approval: approved, the app shows the new result", async () => {
    await frame.locator("#get-time-btn").click();
    // The same dialog as for the model's calls, saying who asks.
    expect(await approve(page, "#approve-once")).toBe("The clock app asks to call a tool: clock.get-time");
    await expect.poll(() => frame.locator("#server-time").textContent()).not.toBe(firstTime);
    expect(await frame.locator("#server-time").textContent()).toMatch(ISO_TIME);
    // The app's own calls do not add cards to the chat.
    expect(await page.locator(".tool-card").count()).toBe(1);
    await shot(page, "apps-2-after-app-call");
  });

  it("denied, the app gets an error", async () => {
    await frame.locator("#get-time-btn").click();
    const dialog = page.locator("#approval-dialog[open]");
    await dialog.waitFor();
    await shot(page, "apps-3-approval-from-app");
    expect(await approve(page, "#deny")).toBe("The clock app asks to call a tool: clock.get-time");
    await expect.poll(() => frame.locator("#server-time").textContent()).toBe("[ERROR]");
    await shot(page, "apps-4-denied");
    noPageErrors(page);
  });

  it("refuses an app's message into the chat: the chat is the user's", async () => {
    const before = await page.locator("#messages > li").count();
    await frame.locator("#send-message-btn").click();
    await expect.poll(() => consoleLines.some((l) => l.includes("Message rejected"))).toBe(true);
    expect(await page.locator("#messages > li").count()).toBe(before);
  });

  it("opens an app's http(s) link in a new tab without opener, and refuses any other scheme", async () => {
    // Answered here: the test never leaves 127.0.0.1.
    await page
      .context()
      .route("https://modelcontextprotocol.io/**", (route) => route.fulfill({ contentType: "text/html", body: "<title>linked</title><p>linked page</p>" }));
    const [popup] = await Promise.all([page.context().waitForEvent("page"), frame.locator("#open-link-btn").click()]);
    await popup.waitForLoadState();
    expect(popup.url()).toBe("https://modelcontextprotocol.io/");
    expect(await popup.evaluate("window.opener")).toBeNull();
    await popup.close();
    await expect.poll(() => consoleLines.filter((l) => l.includes("Open link request accepted")).length).toBe(1);
    const pages = page.context().pages().length;
    await frame.locator("#link-url").fill("javascript:alert(document.domain)");
    await frame.locator("#open-link-btn").click();
    await expect.poll(() => consoleLines.some((l) => l.includes("Open link request rejected"))).toBe(true);
    expect(page.context().pages().length).toBe(pages);
  });

  it("frames the app again after a reload, with the call's recorded result, and fits a phone", async () => {
    // Not until "load": the page now has its history before its load event, so that event also
    // waits for the app's frame, whose resource the session reads from its MCP server as it
    // reconnects (over 15 s once in a loaded clean-clone run). The frame's state is awaited below.
    await page.reload({ waitUntil: "domcontentloaded" });
    await page.locator('.tool-card .tool-app[data-state="ready"] iframe').waitFor({ timeout: 45_000 });
    frame = await appFrame(page);
    await expect.poll(() => frame.locator("#server-time").textContent()).toBe(firstTime);
    const sessionPath = `/${new URL(page.url()).hash}`;
    const phone = await openPage(browser, stack, { viewport: PHONE, path: sessionPath });
    await phone.locator('.tool-card .tool-app[data-state="ready"] iframe').waitFor();
    const phoneFrame = await appFrame(phone);
    await expect.poll(() => phoneFrame.locator("#server-time").textContent()).toBe(firstTime);
    expect(await overflow(phone)).toEqual({ overflow: 0, wide: [] });
    await phone.locator(".tool-card").scrollIntoViewIfNeeded();
    await shot(phone, "apps-5-phone");
    noPageErrors(phone);
    await phone.context().close();
  }, 90_000);

  it("cancels an app's call still waiting for approval when the app goes away: the question closes on every page", async () => {
    const other = await openPage(browser, stack, { path: `/${new URL(page.url()).hash}` });
    await other.locator('.tool-card .tool-app[data-state="ready"] iframe').waitFor();
    await frame.locator("#get-time-btn").click();
    await page.locator("#approval-dialog[open]").waitFor();
    await other.locator("#approval-dialog[open]").waitFor();
    // The page goes (pagehide): its app's pending call is cancelled at the session.
    await page.reload({ waitUntil: "domcontentloaded" });
    await other.locator("#approval-dialog[open]").waitFor({ state: "hidden" });
    // The reloaded page is not asked either: nothing is pending any more.
    await page.locator('.tool-card .tool-app[data-state="ready"] iframe').waitFor();
    expect(await page.locator("#approval-dialog[open]").count()).toBe(0);
    frame = await appFrame(page);
    noPageErrors(other);
    await other.context().close();
  });

  it("tears the app down (ui/resource-teardown) when the chat is cleared for another session", async () => {
    const before = consoleLines.filter((l) => l.includes("App is being torn down")).length;
    await page.locator("#new-session").click();
    // Hidden at once, kept until the app answered its teardown, then removed.
    await page.locator(".tool-card").waitFor({ state: "detached" });
    expect(consoleLines.filter((l) => l.includes("App is being torn down"))).toHaveLength(before + 1);
    expect(await page.locator("iframe").count()).toBe(0);
  });
});

describe("the CSP an app's resource declares", () => {
  it("opens exactly the declared origin to the app (fetch, images); any other stays closed, before a request is made", async () => {
    // Not openPage: its watch fails on any request off the stack, and reaching the declared origin is the point here.
    const context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    // A session of its own (the page would open the user's latest one).
    const { id } = (await (await page.request.post(`${stack.url}/sessions`, { data: {} })).json()) as { id: string };
    await page.goto(`${stack.url}/#s=${id}`);
    await page.locator('#servers li[data-server="probe"][data-state="ready"]').waitFor({ state: "attached" });
    await script(stack.llm.url, stack.llmKey, [reply.callReply("probe__probe", {}), reply.text("Probe shown.")]);
    await sendMessage(page, "show the probe");
    await page.locator(".msg.assistant", { hasText: "Probe shown." }).waitFor();
    const card = page.locator(".tool-card", { has: page.locator(".tool-name", { hasText: "probe.probe" }) });
    await card.locator(".tool-app iframe").waitFor();
    const frame = await appFrame(page);
    // Its own inline script runs.
    await frame.locator('#probe[data-script="ran"]').waitFor();
    const reach = (origin: string) =>
      frame.evaluate(`(async () => {
        const image = await new Promise((resolve) => { const img = new Image(); img.onload = () => resolve("loaded"); img.onerror = () => resolve("blocked"); img.src = ${JSON.stringify(origin)} + "/pixel.png"; });
        let data;
        try { data = await (await fetch(${JSON.stringify(origin)} + "/data")).text(); } catch (e) { data = e.name; }
        return { image, data };
      })()`);
    expect(await reach(allowed.url)).toEqual({ image: "loaded", data: "ok" });
    expect(await reach(other.url)).toEqual({ image: "blocked", data: "TypeError" });
    expect(allowed.hits.sort()).toEqual(["/data", "/pixel.png"]);
    expect(other.hits).toEqual([]);
    await context.close();
  });
});
