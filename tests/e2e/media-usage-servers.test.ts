// Issues 12 and 13, the page's part, in headless Chromium against the real stack
// (wrangler dev, the bridge with server-filesystem and server-everything over stdio,
// the fake Gemini) plus server-everything's own Streamable HTTP server:
// - a tool's image shown in its card, and audio played there (status `media`);
// - the tokens of each turn and the session's total, live and after a reload;
// - "My servers": add, edit (header values masked), test, reconnect and remove the
//   user's own MCP servers, with the API's field errors next to their fields.
import { Buffer } from "node:buffer";
import { join } from "node:path";
import type { Browser, Page, Request, WebSocketRoute } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startEverythingHttp, type RunningServer } from "../fixtures/http-servers";
import { everythingBin } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { DESKTOP, focus, launchBrowser, noPageErrors, openPage, overflow, PHONE, sendMessage, shot, shots } from "./browser";

let browser: Browser;
let stack: Stack;
let http: RunningServer;
beforeAll(async () => {
  [browser, stack, http] = await Promise.all([
    launchBrowser(),
    startStack({ mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"], alwaysAllow: ["get-tiny-image"] } } }),
    startEverythingHttp("streamableHttp"),
  ]);
}, 90_000);
afterAll(async () => {
  await Promise.all([browser?.close(), stack?.stop(), http?.stop()]);
});

const sessionOf = (page: Page): string => new URLSearchParams(new URL(page.url()).hash.slice(1)).get("s") ?? "";

async function getJson<T>(page: Page, path: string): Promise<T> {
  return (await page.evaluate(`fetch(${JSON.stringify(path)}).then(r => r.json())`)) as T;
}

interface ServerInfo {
  name: string;
  state: string;
  toolCount: number;
  tools: { name: string; functionName: string }[];
}

async function openReady(viewport = DESKTOP, path = "/"): Promise<Page> {
  const page = await openPage(browser, stack, { viewport, path });
  await page.locator('#servers li[data-server="everything"][data-state="ready"]').waitFor({ state: "attached" });
  return page;
}

/** A short 440 Hz tone as a 16-bit mono WAV file, base64. */
function wavBase64(ms = 250, rate = 8000): string {
  const samples = Math.round((rate * ms) / 1000);
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) wav.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  return wav.toString("base64");
}

describe("images and audio in tool cards", () => {
  let page: Page;
  let imageTool = "";
  beforeAll(async () => {
    page = await openReady();
    const { servers } = await getJson<{ servers: ServerInfo[] }>(page, "/api/servers");
    imageTool = servers.find((s) => s.name === "everything")?.tools.find((t) => t.name === "get-tiny-image")?.functionName ?? "";
    expect(imageTool).toBe("everything__get-tiny-image");
  });
  afterAll(async () => {
    await page?.context().close();
  });

  const imageCard = (p: Page) => p.locator(".tool-card", { has: p.locator(".tool-name", { hasText: "everything.get-tiny-image" }) }).last();

  it("shows the image a tool returned in its card, at desktop and phone width; after a reload the card shows the note", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.callReply(imageTool, {}), reply.text("That is the MCP logo.")]);
    await sendMessage(page, "show me the tiny image");
    await page.locator(".msg.assistant", { hasText: "That is the MCP logo." }).waitFor();
    const card = imageCard(page);
    const img = card.locator(".tool-media img");
    await img.waitFor();
    // Shown without opening the card, decoded from a data: URL (nothing fetched).
    expect(await card.locator("details").getAttribute("open")).toBeNull();
    expect(await img.getAttribute("src")).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(await img.getAttribute("alt")).toBe("everything.get-tiny-image: image 1 (image/png)");
    await expect.poll(() => img.evaluate((e: any) => (e.complete ? e.naturalWidth : 0))).toBeGreaterThan(0);
    const [imgBox, cardBox] = [await img.boundingBox(), await card.boundingBox()];
    expect((imgBox?.x ?? 0) + (imgBox?.width ?? 0)).toBeLessThanOrEqual((cardBox?.x ?? 0) + (cardBox?.width ?? 0));
    // The result's text says what went to the model; the base64 itself is never text.
    await card.locator("summary").click();
    expect(await card.locator(".tool-result").textContent()).toContain(
      "[image 1 (image/png) went to the model with this result; media are not kept in the history]",
    );
    expect(await card.locator(".tool-result").textContent()).not.toContain("iVBORw0KGgo");
    await card.scrollIntoViewIfNeeded();
    await shot(page, "media-1-desktop-image");

    // The same session at phone width sees the next call live.
    const phone = await openReady(PHONE, `/#s=${sessionOf(page)}`);
    await phone.locator(".msg.assistant", { hasText: "That is the MCP logo." }).waitFor();
    await script(stack.llm.url, stack.llmKey, [reply.callReply(imageTool, {}), reply.text("Here it is again.")]);
    await sendMessage(page, "once more, please");
    await phone.locator(".msg.assistant", { hasText: "Here it is again." }).waitFor();
    const phoneImg = imageCard(phone).locator(".tool-media img");
    await expect.poll(() => phoneImg.evaluate((e: any) => (e.complete ? e.naturalWidth : 0))).toBeGreaterThan(0);
    expect(await overflow(phone)).toEqual({ overflow: 0, wide: [] });
    await imageCard(phone).scrollIntoViewIfNeeded();
    await shot(phone, "media-2-phone-image");
    noPageErrors(phone);
    await phone.context().close();

    // Media are not kept: after a reload the cards show the note, no image.
    await page.reload();
    await page.locator(".msg.assistant", { hasText: "Here it is again." }).waitFor();
    expect(await page.locator(".tool-card").count()).toBe(2);
    expect(await page.locator(".tool-card img").count()).toBe(0);
    await imageCard(page).locator("summary").click();
    expect(await imageCard(page).locator(".tool-result").textContent()).toContain("media are not kept in the history");
    noPageErrors(page);
  });

  it("plays audio in the card, and never shows an SVG or data that is not what it says", async () => {
    // No tool of the stack returns audio: this page's socket gets one `status` frame more, in
    // the documented shape (src/protocol/messages.ts), alongside the real session's frames.
    const context = await browser.newContext({ viewport: DESKTOP });
    const sockets: WebSocketRoute[] = [];
    await context.routeWebSocket(/\/sessions\/[^/]+\/ws$/, (ws) => {
      ws.connectToServer();
      sockets.push(ws);
    });
    const other = await openPage(browser, stack, { context, path: `/#s=${sessionOf(page)}` });
    await other.locator(".msg.assistant", { hasText: "Here it is again." }).waitFor();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><circle r="5"/></svg>').toString("base64");
    sockets[sockets.length - 1]?.send(
      JSON.stringify({
        type: "status",
        turnId: "t-media",
        callId: "c-media",
        server: "everything",
        tool: "make-sounds",
        state: "complete",
        result: "a tone and two images",
        durationMs: 4,
        media: [
          { type: "audio", mimeType: "audio/wav", data: wavBase64() },
          { type: "image", mimeType: "image/svg+xml", data: svg },
          { type: "image", mimeType: "image/png", data: "not base64 <b>at all</b>" },
        ],
      }),
    );
    const card = other.locator('.tool-card[data-call-id="c-media"]');
    const audio = card.locator(".tool-media audio");
    await audio.waitFor();
    expect(await audio.getAttribute("controls")).not.toBeNull();
    expect(await audio.getAttribute("aria-label")).toBe("everything.make-sounds: audio 1 (audio/wav)");
    // It decodes: the browser knows its length.
    await expect.poll(() => audio.evaluate((e: any) => (e.readyState >= 1 ? Math.round(e.duration * 100) / 100 : 0))).toBe(0.25);
    expect(await card.locator("img, svg, object, embed, iframe").count()).toBe(0);
    expect(await card.locator(".media-refused").allTextContents()).toEqual([
      "[image 1 not shown: image/svg+xml is not a type shown here; only PNG, JPEG, GIF and WebP images are]",
      "[image 2 not shown: its data is not base64]",
    ]);
    const [audioBox, cardBox] = [await audio.boundingBox(), await card.boundingBox()];
    expect((audioBox?.x ?? 0) + (audioBox?.width ?? 0)).toBeLessThanOrEqual((cardBox?.x ?? 0) + (cardBox?.width ?? 0));
    await card.scrollIntoViewIfNeeded();
    await shot(other, "media-3-audio-refused");
    noPageErrors(other);
    await context.close();
  });
});

describe("tokens per turn and per session", () => {
  let page: Page;
  beforeAll(async () => {
    page = await openReady();
  });
  afterAll(async () => {
    await page?.context().close();
  });

  /** The usage line of the turn whose answer says `answer`, and what is just above it. */
  const usageAfter = (answer: string) =>
    page.evaluate(
      `(() => { const a = [...document.querySelectorAll("#messages > .msg.assistant")].find((m) => m.textContent.includes(${JSON.stringify(answer)}));
        const next = a && a.nextElementSibling; return next && next.classList.contains("turn-usage") ? next.querySelector(".figure").textContent : null; })()`,
    ) as Promise<string | null>;

  it("shows each turn's tokens under its answer and the session's total, live and after a reload", async () => {
    const before = sessionOf(page);
    await page.locator("#new-session").click();
    await expect.poll(() => sessionOf(page)).not.toBe(before);
    await page.locator("#conn[data-state=open]").waitFor({ state: "attached" });
    await script(stack.llm.url, stack.llmKey, [reply.stream(["Counted ", "them all."], { usage: { input: 1234, output: 56 } })]);
    await sendMessage(page, "count my tokens");
    await page.locator(".turn-usage .figure", { hasText: "1,234 in · 56 out" }).waitFor();
    // The answer's last words are drawn in the frame after the turn ends (stream-render.js).
    await page.locator(".msg.assistant", { hasText: "Counted them all." }).waitFor();
    expect(await usageAfter("Counted them all.")).toBe("1,234 in · 56 out");
    expect(await page.locator("#usage-total .figure").textContent()).toBe("1,234 in · 56 out");
    expect(await page.locator("#usage-total").isVisible()).toBe(true);

    // A turn with a tool call: its two model calls add up, under the turn's last answer.
    await script(stack.llm.url, stack.llmKey, [
      reply.stream([reply.call("filesystem__list_directory", { path: stack.fsRoot })], { usage: { input: 100, output: 7 } }),
      reply.stream(["Listed."], { usage: { input: 200, output: 9 } }),
    ]);
    await sendMessage(page, "list my files");
    await page.locator(".turn-usage .figure", { hasText: "300 in · 16 out" }).waitFor();
    await page.locator(".msg.assistant", { hasText: "Listed." }).waitFor();
    expect(await usageAfter("Listed.")).toBe("300 in · 16 out");
    expect(await usageAfter("Counted them all.")).toBe("1,234 in · 56 out");
    expect(await page.locator("#usage-total .figure").textContent()).toBe("1,534 in · 72 out");
    await shot(page, "usage-1-desktop");

    await page.reload();
    await page.locator(".msg.assistant", { hasText: "Listed." }).waitFor();
    await page.locator(".turn-usage").nth(1).waitFor();
    expect(await page.locator(".turn-usage .figure").allTextContents()).toEqual(["1,234 in · 56 out", "300 in · 16 out"]);
    expect(await usageAfter("Counted them all.")).toBe("1,234 in · 56 out");
    expect(await usageAfter("Listed.")).toBe("300 in · 16 out");
    expect(await page.locator("#usage-total .figure").textContent()).toBe("1,534 in · 72 out");

    // At phone width: the figures fit, and the total is in the sidebar.
    const phone = await openReady(PHONE, `/#s=${sessionOf(page)}`);
    await phone.locator(".turn-usage").nth(1).waitFor();
    expect(await overflow(phone)).toEqual({ overflow: 0, wide: [] });
    await shot(phone, "usage-2-phone");
    await phone.locator("#menu-toggle").click();
    await phone.locator("#usage-total").waitFor();
    expect(await phone.locator("#usage-total .figure").textContent()).toBe("1,534 in · 72 out");
    await shot(phone, "usage-3-phone-sidebar");
    noPageErrors(phone);
    await phone.context().close();

    // Another session has its own (none yet).
    await page.locator("#new-session").click();
    await page.locator("#usage-total").waitFor({ state: "hidden" });
    expect(await page.locator(".turn-usage").count()).toBe(0);
    noPageErrors(page);
  });
});

describe("My servers", () => {
  let page: Page;
  /** Every POST/PUT/DELETE the page sent: the server refuses any that is not JSON. */
  const writes: { method: string; path: string; contentType: string | undefined; body: string | null }[] = [];
  const NAME = "everything-http";
  const SECRET = "secret-value-0042";
  beforeAll(async () => {
    page = await openReady();
    page.on("request", (r) => {
      if (r.method() !== "GET")
        writes.push({
          method: r.method(),
          path: new URL(r.url()).pathname + new URL(r.url()).search,
          contentType: r.headers()["content-type"],
          body: r.postData(),
        });
    });
  });
  afterAll(async () => {
    await page?.context().close();
  });

  const dialog = () => page.locator("#my-servers-dialog");
  const row = (name = NAME) => page.locator(`#my-servers-list li[data-my-server="${name}"]`);
  const nextWrite = (method: string, path: RegExp): Promise<Request> =>
    page.waitForRequest((r) => r.method() === method && path.test(new URL(r.url()).pathname + new URL(r.url()).search));

  /** Unfolds the form's advanced fields (transport, headers, timeout, tools, roots) unless open. */
  async function openAdvanced(): Promise<void> {
    if (!(await page.locator("#msf-advanced").evaluate((d) => (d as unknown as { open: boolean }).open))) await page.locator("#msf-advanced > summary").click();
  }

  async function fillForm(fields: { name?: string; url?: string; headers?: [string, string][] }): Promise<void> {
    if (fields.name !== undefined) await page.locator("#msf-name").fill(fields.name);
    if (fields.url !== undefined) await page.locator("#msf-url").fill(fields.url);
    if (fields.headers?.length) await openAdvanced();
    for (const [name, value] of fields.headers ?? []) {
      await page.locator("#msf-add-header").click();
      await page.locator("#msf-header-rows .h-name").last().fill(name);
      await page.locator("#msf-header-rows .h-value").last().fill(value);
    }
  }

  async function save(): Promise<void> {
    await page.locator("#msf-save").click();
    await page.locator("#msf-save:not([disabled])").waitFor();
  }

  it("opens from the MCP servers section: the deployment's servers read-only, none of the user's yet", async () => {
    await page.locator("#my-servers-open").click();
    await dialog().waitFor();
    expect(await dialog().evaluate((d: any) => d.open && d.matches(":modal"))).toBe(true);
    await page.locator('#deployment-servers li[data-deployment-server="filesystem"][data-state="ready"]').waitFor();
    const everything = page.locator('#deployment-servers li[data-deployment-server="everything"]');
    expect(await everything.locator(".state").textContent()).toMatch(/^ready · \d+ tools$/);
    expect(await page.locator("#deployment-servers button").count()).toBe(0);
    expect(await page.locator("#my-servers-list").textContent()).toContain("None yet");
    // Tab stays in the dialog.
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press("Tab");
      expect((await focus(page)).dialog).toBe("my-servers-dialog");
    }
    await shot(page, "servers-1-empty");
  });

  it("shows the API's field errors next to their fields: a bad URL, an unreachable one, a name mcp.json has, oversized headers", async () => {
    await page.locator("#my-server-add").click();
    await page.locator("#my-server-form").waitFor();
    expect((await focus(page)).id).toBe("msf-name");

    await fillForm({ name: "scratch", url: "not a url" });
    await save();
    await page.locator("#msf-url-error", { hasText: "expected an http(s) URL" }).waitFor();
    expect(await page.locator("#msf-url").getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#msf-error").textContent()).toBe("The server entry is invalid.");
    expect((await focus(page)).id).toBe("msf-url");
    await shot(page, "servers-2-bad-url");

    await fillForm({ url: "http://127.0.0.1:9/mcp" });
    await save();
    // What was tried (the host, the transport) and what to check; on loopback the Worker runs on this computer.
    await page.locator("#msf-url-error", { hasText: "no answer from 127.0.0.1:9 over Streamable HTTP" }).waitFor();
    const unreachable = await page.locator("#msf-error").textContent();
    expect(unreachable).toMatch(
      /^Could not reach 127\.0\.0\.1:9 from the Worker over Streamable HTTP, asking which MCP version it speaks \(.+\)\. Check the URL, /,
    );
    expect(unreachable).toContain(
      "that the server is running and 127.0.0.1:9 is reachable from this computer, and any header the server needs to sign you in.",
    );
    // Said with the Advanced fields still folded away: a person sees the message beside the URL.
    await page.locator("#my-servers-dialog").screenshot({ path: join(shots, "forms-unreachable.png") });

    await fillForm({ name: "filesystem", url: http.url });
    await save();
    await page.locator("#msf-name-error", { hasText: "taken by a server in mcp.json" }).waitFor();
    expect(await page.locator("#msf-name").getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#msf-url-error").textContent()).toBe("");
    expect(await page.locator("#msf-url").getAttribute("aria-invalid")).toBeNull();

    await fillForm({ name: "scratch", headers: [["X-Huge", "h".repeat(9000)]] });
    await save();
    await page.locator("#msf-headers-error", { hasText: "at most 8192" }).waitFor();
    expect(await page.locator("#msf-headers").getAttribute("aria-invalid")).toBe("true");
    await shot(page, "servers-3-headers-error");

    // Nothing was saved; Cancel goes back to the list.
    await page.locator("#msf-cancel").click();
    await page.locator("#my-servers-view").waitFor();
    expect((await focus(page)).id).toBe("my-server-add");
    expect(await getJson<{ servers: unknown[] }>(page, "/api/my-servers")).toMatchObject({ servers: [] });
  });

  it("adds server-everything over HTTP: in the list with its tool count, and ready in the MCP servers panel", async () => {
    await page.locator("#my-server-add").click();
    // A new server's form shows its name and URL; the rest is folded away under Advanced.
    await page.locator("#msf-url").waitFor();
    expect(await page.locator("#msf-advanced").getAttribute("open")).toBeNull();
    expect(await page.locator("#msf-timeout").isVisible()).toBe(false);
    expect(await page.locator("#msf-add-header").isVisible()).toBe(false);
    await fillForm({ name: NAME, url: http.url, headers: [["X-Api-Key", SECRET]] });
    await page.locator("#msf-timeout").fill("20");
    await page.locator("#msf-alwaysAllow").fill("echo, get-sum");
    await page.locator("#msf-excludeTools").fill("trigger-long-running-operation");
    const posted = nextWrite("POST", /^\/api\/my-servers$/);
    const restarted = nextWrite("POST", /^\/api\/servers\/restart\?session=/);
    const answered = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/api/my-servers");
    await page.locator("#msf-save").click();
    const answer = (await (await answered).json()) as { test: { ok: boolean; toolCount: number } };
    expect(answer.test).toMatchObject({ ok: true, toolCount: expect.any(Number) });
    expect((await posted).postDataJSON()).toEqual({
      name: NAME,
      url: http.url,
      type: "http",
      headers: { "X-Api-Key": SECRET },
      timeout: 20,
      alwaysAllow: ["echo", "get-sum"],
      excludeTools: ["trigger-long-running-operation"],
      disabled: false,
    });
    expect(new URL((await restarted).url()).searchParams.get("session")).toBe(sessionOf(page));
    await page.locator("#my-servers-status", { hasText: "This chat is reconnected." }).waitFor();
    await page.locator('#servers li[data-server="everything-http"][data-state="ready"]').waitFor({ state: "attached" });
    const { servers } = await getJson<{ servers: ServerInfo[] }>(page, `/api/servers?session=${sessionOf(page)}`);
    const count = servers.find((s) => s.name === NAME)?.toolCount ?? 0;
    expect(count).toBeGreaterThan(0);
    await row().and(page.locator('[data-state="ready"]')).waitFor();
    expect(await row().locator(".state").textContent()).toBe(`ready · ${count} tools`);
    expect(await row().locator(".where").textContent()).toBe(`${http.url} · Streamable HTTP`);
    expect(await page.locator("#my-servers-status").textContent()).toBe(`Added “${NAME}”. This chat is reconnected.`);
    // What the test on saving found is what the chat counts: one number for one server.
    expect(answer.test.toolCount).toBe(count);
    expect(await row().locator(".test-result").textContent()).toBe(`Test passed: ${count} tools.`);
    expect(await page.locator(`#servers li[data-server="${NAME}"] .count`).textContent()).toBe(`${count} tools`);
    // The secret went in and never comes back out.
    expect(await page.content()).not.toContain(SECRET);
    await shot(page, "servers-4-added");
  });

  it("edits a header: stored values show masked, and the mask sent back keeps them", async () => {
    await row().locator("button.edit").click();
    await page.locator("#my-server-form").waitFor();
    expect(await page.locator("#my-server-form-title").textContent()).toBe(`Edit “${NAME}”`);
    // Its advanced fields are set (a header, a timeout, tools): shown unfolded.
    expect(await page.locator("#msf-advanced").getAttribute("open")).not.toBeNull();
    expect(await page.locator("#msf-name").evaluate((e: any) => e.readOnly)).toBe(true);
    expect(await page.locator("#msf-header-rows .h-name").inputValue()).toBe("X-Api-Key");
    expect(await page.locator("#msf-header-rows .h-value").inputValue()).toBe("••••••");
    expect(await page.locator("#msf-timeout").inputValue()).toBe("20");
    expect(await page.locator("#msf-alwaysAllow").inputValue()).toBe("echo, get-sum");
    await fillForm({ headers: [["X-Trace", "trace-1"]] });
    await shot(page, "servers-5-edit-masked");
    const put = nextWrite("PUT", new RegExp(`^/api/my-servers/${NAME}$`));
    await page.locator("#msf-save").click();
    expect((await put).postDataJSON()).toMatchObject({ name: NAME, headers: { "X-Api-Key": "••••••", "X-Trace": "trace-1" } });
    await page.locator("#my-servers-status", { hasText: `Saved “${NAME}”` }).waitFor();
    expect(await page.evaluate("document.activeElement.getAttribute('aria-label')")).toBe(`Edit ${NAME}`);
    const stored = await getJson<{ servers: { name: string; headers: Record<string, string> }[] }>(page, "/api/my-servers");
    expect(stored.servers.find((s) => s.name === NAME)?.headers).toEqual({ "X-Api-Key": "••••••", "X-Trace": "••••••" });
    // Opened again, both values are masked.
    await row().locator("button.edit").click();
    expect(await page.locator("#msf-header-rows .h-value").evaluateAll((inputs: any[]) => inputs.map((i) => i.value))).toEqual(["••••••", "••••••"]);
    expect(await page.content()).not.toContain(SECRET);
    expect(await page.content()).not.toContain("trace-1");
    await page.locator("#msf-cancel").click();
    await row().waitFor();
  });

  it("refuses a second server of the same name, next to the name", async () => {
    await page.locator("#my-server-add").click();
    await fillForm({ name: NAME, url: http.url });
    await save();
    await page.locator("#msf-name-error", { hasText: "already used" }).waitFor();
    expect(await page.locator("#msf-error").textContent()).toBe(`You already have a server "${NAME}".`);
    await page.locator("#msf-cancel").click();
    expect(await page.locator("#my-servers-list li[data-my-server]").count()).toBe(1);
  });

  it("tests a server and reconnects the session", async () => {
    const tested = nextWrite("POST", new RegExp(`^/api/my-servers/${NAME}/test$`));
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === `/api/my-servers/${NAME}/test`);
    await row().locator("button.test").click();
    expect((await tested).postDataJSON()).toEqual({});
    const answer = (await (await answered).json()) as { test: { ok: boolean; toolCount: number } };
    expect(answer.test.ok).toBe(true);
    await expect.poll(() => row().locator(".test-result").textContent()).toBe(`Test passed: ${answer.test.toolCount} tools.`);
    expect(await row().locator(".test-result").getAttribute("data-ok")).toBe("true");

    const restarted = nextWrite("POST", /^\/api\/servers\/restart\?session=/);
    await page.locator("#my-servers-reconnect").click();
    expect(new URL((await restarted).url()).searchParams.get("session")).toBe(sessionOf(page));
    await page.locator("#my-servers-status", { hasText: "This chat is reconnected." }).waitFor();
    await row().and(page.locator('[data-state="ready"]')).waitFor();
    await shot(page, "servers-6-tested");
  });

  it("is usable at 390x844: a full-screen dialog, nothing wider than the screen", async () => {
    const phone = await openReady(PHONE, `/#s=${sessionOf(page)}`);
    await phone.locator("#menu-toggle").click();
    await phone.locator("#my-servers-open").click();
    const list = phone.locator(`#my-servers-list li[data-my-server="${NAME}"][data-state="ready"]`);
    await list.waitFor();
    const box = await phone.locator("#my-servers-dialog").boundingBox();
    expect(box).toEqual({ x: 0, y: 0, width: PHONE.width, height: PHONE.height });
    expect(await overflow(phone)).toEqual({ overflow: 0, wide: [] });
    await shot(phone, "servers-7-phone-list");
    await list.locator("button.edit").click();
    await phone.locator("#msf-url").waitFor();
    expect(await overflow(phone)).toEqual({ overflow: 0, wide: [] });
    await shot(phone, "servers-8-phone-edit");
    // Escape closes it; focus goes back to the button that opened it, the sidebar still open.
    await phone.keyboard.press("Escape");
    await phone.locator("#my-servers-dialog").waitFor({ state: "hidden" });
    expect((await focus(phone)).id).toBe("my-servers-open");
    noPageErrors(phone);
    await phone.context().close();
  });

  it("removes a server after a confirm dialog that keeps focus: gone from the list and the MCP servers panel", async () => {
    await row().locator("button.remove").click();
    const confirm = page.locator("#confirm-dialog[open]");
    await confirm.waitFor();
    expect(await confirm.locator("#confirm-title").textContent()).toBe("Remove this server?");
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press("Tab");
      expect((await focus(page)).dialog).toBe("confirm-dialog");
    }
    await shot(page, "servers-9-confirm-remove");
    await confirm.locator("#confirm-cancel").click();
    await confirm.waitFor({ state: "detached" });
    expect(await dialog().isVisible()).toBe(true);
    expect(await row().count()).toBe(1);

    await row().locator("button.remove").click();
    const deleted = nextWrite("DELETE", new RegExp(`^/api/my-servers/${NAME}$`));
    await page.locator("#confirm-dialog[open] #confirm-ok").click();
    const request = await deleted;
    expect({ contentType: request.headers()["content-type"], body: request.postDataJSON() }).toEqual({ contentType: "application/json", body: {} });
    await row().waitFor({ state: "detached" });
    await page.locator("#my-servers-status", { hasText: `Removed “${NAME}”. This chat is reconnected.` }).waitFor();
    await page.locator(`#servers li[data-server="${NAME}"]`).waitFor({ state: "detached" });
    expect(await getJson<{ servers: unknown[] }>(page, "/api/my-servers")).toMatchObject({ servers: [] });
    expect((await focus(page)).id).toBe("my-server-add");

    // Escape closes the dialog and gives focus back to its button.
    await page.keyboard.press("Escape");
    await dialog().waitFor({ state: "hidden" });
    expect((await focus(page)).id).toBe("my-servers-open");
    noPageErrors(page);
  });

  it("sent every POST, PUT and DELETE as JSON", () => {
    const methods = new Set(writes.map((w) => w.method));
    expect(methods).toEqual(new Set(["POST", "PUT", "DELETE"]));
    for (const write of writes) {
      expect({ ...write, json: typeof JSON.parse(write.body ?? "null") }).toEqual({ ...write, contentType: "application/json", json: "object" });
    }
  });
});
