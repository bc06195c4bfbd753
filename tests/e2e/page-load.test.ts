// How the built page loads (scripts/build-page.mjs, wrangler.toml's [assets]), in headless
// Chromium against the real stack: one script and one stylesheet, both content-hashed and
// cached for good; index.html revalidated; a reload fetches only what may have changed;
// no API call made twice; the Worker's own pages still find their files at fixed URLs.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { openSession } from "../fixtures/session-client-node";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage } from "./browser";
import { isApi, repeatedCalls, type RequestLog, watchRequests } from "./request-log";

let browser: Browser;
let stack: Stack;
beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** A load has settled: the filesystem server shows as ready and the network is quiet. */
async function loaded(page: Page, watch: RequestLog): Promise<void> {
  await page.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor({ state: "attached" });
  await watch.quiet();
}

describe("the built page", () => {
  it("loads as one hashed script and one hashed stylesheet, cached for good; index.html is revalidated", async () => {
    const page = await openPage(browser, stack, { ready: false });
    const html = await (await page.request.get(`${stack.url}/`)).text();
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
    const styles = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual([expect.stringMatching(/^\/assets\/page-[\w-]+\.js$/)]);
    expect(styles).toEqual([expect.stringMatching(/^\/assets\/page-[\w-]+\.css$/)]);

    for (const path of [...scripts, ...styles]) {
      const response = await page.request.get(`${stack.url}${path}`);
      expect(response.status(), path).toBe(200);
      expect(response.headers()["cache-control"], path).toBe("public, max-age=31536000, immutable");
    }
    const index = await page.request.get(`${stack.url}/`);
    expect(index.headers()["cache-control"]).toMatch(/max-age=0/);
    expect(index.headers()["cache-control"]).not.toMatch(/immutable/);
    // The sources are not served: only the build is.
    expect((await page.request.get(`${stack.url}/core/app.js`)).headers()["content-type"] ?? "").not.toMatch(/javascript/);
    await page.context().close();
  });

  it("keeps the files the Worker's own pages link at their URLs, revalidated", async () => {
    const context = await browser.newContext();
    for (const [path, type] of [
      ["/style.css", /text\/css/],
      ["/admin.css", /text\/css/],
      ["/share.css", /text\/css/],
      ["/oauth-callback.js", /javascript/],
    ] as const) {
      const response = await context.request.get(`${stack.url}${path}`);
      expect(response.status(), path).toBe(200);
      expect(response.headers()["content-type"], path).toMatch(type);
      expect(response.headers()["cache-control"], path).not.toMatch(/immutable/);
    }
    // The OAuth page's script is a bundle: it imports nothing a browser would fetch.
    const callback = await (await context.request.get(`${stack.url}/oauth-callback.js`)).text();
    expect(callback).not.toMatch(/\bimport\s*[{*"']|\bfrom\s*["']\.{0,2}\//);
    await context.close();
  });

  it("makes each API call once on a cold load, and a reload asks the server for index.html, one read and the chat's socket", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const coldWatch = await watchRequests(page, stack.url);
    const cold = coldWatch.seen;
    await page.goto(`${stack.url}/`);
    await loaded(page, coldWatch);
    const calls = cold()
      .filter((r) => isApi(r.url))
      .map((r) => `${r.method} ${r.url}`);
    expect(repeatedCalls(cold())).toEqual([]);
    // Who, the chats, the OAuth sign-ins and the models: one read (GET /api/bootstrap).
    expect(calls).toContain("GET /api/bootstrap");
    for (const separate of ["GET /api/me", "GET /api/sessions", "GET /oauth/servers", "GET /api/models"]) expect(calls).not.toContain(separate);
    // A person's first chat is claimed by its socket (sessions.js startBySocket): no POST /sessions before it.
    expect(calls).toEqual(["GET /api/bootstrap"]);
    // The read starts with the page (index.html preloads it), not once the whole script has run,
    // and the page's own fetch takes that answer (the one request above).
    const read = (await page.evaluate(
      `performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/api/bootstrap")).map((e) => e.initiatorType)`,
    )) as string[];
    expect(read).toEqual(["link"]);
    const first = new URL(page.url()).hash.slice("#s=".length);
    expect(coldWatch.sockets()).toEqual([`/sessions/${first}/ws`]);
    // It is listed as the person's, as one started by POST is.
    const listed = await page.evaluate(async () => (await (await fetch("/api/sessions")).json()) as { sessions: { id: string }[] });
    expect(listed.sessions.map((s) => s.id)).toEqual([first]);
    // The welcome's example prompts come from the tool names the socket's servers frame carries, not from the catalogue.
    await expect.poll(() => page.locator(".welcome-prompt").first().textContent()).toContain("List the files");
    expect(cold().filter((r) => r.url.startsWith("/api/servers"))).toEqual([]);
    // The Markdown renderer's chunk: fetched once, by index.html's prefetch; the import in the first idle moment
    // after the socket is asked for (chat/markdown-load.js) takes it from the cache.
    const isChunk = (url: string) => /^\/assets\/markdown-[\w-]+\.js$/.test(url);
    await expect
      .poll(() =>
        cold()
          .filter((r) => isChunk(r.url))
          .map((r) => r.cached),
      )
      .toEqual([false, true]);
    const prefetched = (await page.evaluate(
      `performance.getEntriesByType("resource").filter((e) => /\\/assets\\/markdown-/.test(e.name)).map((e) => e.initiatorType)`,
    )) as string[];
    expect(prefetched[0]).toBe("link");
    const files = cold()
      .filter((r) => !isApi(r.url) && !r.cached)
      .map((r) => r.url);
    expect(files).toHaveLength(4);
    expect(files).toEqual(
      expect.arrayContaining([
        "/",
        expect.stringMatching(/^\/assets\/page-[\w-]+\.css$/),
        expect.stringMatching(/^\/assets\/page-[\w-]+\.js$/),
        expect.stringMatching(/^\/assets\/markdown-[\w-]+\.js$/),
      ]),
    );
    expect(cold().filter((r) => r.cached && !isChunk(r.url))).toEqual([]);
    // The upload limits are read when a person reaches for the 📎 button, not on every load.
    expect(calls).not.toContain("GET /api/files/limits");
    await page.locator("#attach-file").hover();
    await expect.poll(() => cold().filter((r) => r.url === "/api/files/limits").length).toBe(1);
    await coldWatch.stop();
    // Off the 📎 button, so the reloaded page is not asked for the limits by a pointer left over it.
    await page.mouse.move(0, 0);

    // A reload of the new, unused chat: index.html revalidated, one read, the same chat's
    // socket (nothing deleted or created); the hashed files come from the cache.
    const chat = new URL(page.url()).hash;
    expect(chat).toMatch(/^#s=/);
    const warmWatch = await watchRequests(page, stack.url);
    const warm = warmWatch.seen;
    await page.reload();
    await loaded(page, warmWatch);
    const fromServer = warm()
      .filter((r) => !r.cached)
      .map((r) => `${r.method} ${r.url}`);
    expect(fromServer).toEqual(["GET /", "GET /api/bootstrap"]);
    expect(warmWatch.sockets()).toEqual([`/sessions/${chat.slice("#s=".length)}/ws`]);
    expect(new URL(page.url()).hash).toBe(chat);
    expect(repeatedCalls(warm())).toEqual([]);
    // The stylesheet, the script and the renderer's chunk (its prefetch and its import both from the cache).
    expect(
      new Set(
        warm()
          .filter((r) => r.url.startsWith("/assets/") && r.cached)
          .map((r) => r.url),
      ).size,
    ).toBe(3);
    expect(warm().filter((r) => r.url.startsWith("/assets/") && !r.cached)).toEqual([]);
    noPageErrors(page);
    await context.close();
  });

  it("shows a chat's answers at once: plainly while the Markdown renderer's chunk is on its way, then rendered", async () => {
    const id = crypto.randomUUID();
    await script(stack.llm.url, stack.llmKey, [reply.text("A **bold** answer:\n\n- one\n- two")]);
    const socket = await openSession(stack.url, id);
    const { end } = await socket.turnEnd(socket.say("hello"));
    expect(end.reason).toBe("complete");
    await socket.close();

    const context = await browser.newContext();
    const page = await context.newPage();
    // The chunk is held until the answer has been seen plain: a slow network, or history that comes first.
    const gate: { release?: () => void } = {};
    const held = new Promise<void>((resolve) => (gate.release = resolve));
    let asked = 0;
    await page.route(/\/assets\/markdown-[\w-]+\.js$/, async (route) => {
      asked++;
      await held;
      await route.continue();
    });
    await page.goto(`${stack.url}/#s=${id}`);
    const answer = page.locator("#messages > li.msg.assistant .body");
    await expect.poll(() => answer.textContent()).toBe("A **bold** answer:\n\n- one\n- two");
    // The page is usable meanwhile: the socket is open and the message box takes input.
    await page.locator('#conn[data-state="open"]').waitFor({ state: "attached" });
    expect(await page.locator("#composer-input").isEnabled()).toBe(true);
    expect(await answer.locator("strong").count()).toBe(0);
    // Asked for (index.html's prefetch, then the import once the page was idle), and held.
    expect(asked).toBeGreaterThan(0);

    gate.release?.();
    await answer.locator("strong", { hasText: "bold" }).waitFor();
    expect(await answer.locator("li").allTextContents()).toEqual(["one", "two"]);
    expect(await answer.locator(".md-open").count()).toBe(0);
    // The end of the chat stays in view as the answer grows into its rendered form.
    await expect.poll(() => page.locator("#messages").evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThanOrEqual(24);
    noPageErrors(page);
    await context.close();
  });
});
