// Sampling and roots in the page, in headless Chromium against the real stack (the
// bridge runs server-everything over stdio; the fake Gemini) and server-everything's
// own Streamable HTTP server:
// - a server's sampling request: the approval dialog shows what will be sent, to which
//   model, with which limits; approved, the server gets the answer and the model name;
// - the Roots box of "My servers": a bad URI is shown under the box with its line;
//   saved roots reach the server (its get-roots-list tool says which); an edit of the
//   roots alone reaches the same connection as roots/list_changed.
import type { Browser, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, requests, script } from "../fixtures/fake-llm-script";
import { startEverythingHttp, type RunningServer } from "../fixtures/http-servers";
import { everythingBin } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, sendMessage, shot } from "./browser";

let browser: Browser;
let stack: Stack;
let http: RunningServer;
let page: Page;
beforeAll(async () => {
  [browser, stack, http] = await Promise.all([
    launchBrowser(),
    startStack({
      mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"], alwaysAllow: ["trigger-sampling-request"] } },
      vars: { SAMPLING_MODELS: "gemini-2.5-flash-lite,gemini-2.5-pro", SAMPLING_MAX_TOKENS: "256" },
    }),
    startEverythingHttp("streamableHttp"),
  ]);
  page = await openPage(browser, stack);
}, 90_000);
afterAll(async () => {
  await page?.context().close();
  await Promise.all([browser?.close(), stack?.stop(), http?.stop()]);
});

const NAME = "rooted";
const sessionOf = (p: Page): string => new URLSearchParams(new URL(p.url()).hash.slice(1)).get("s") ?? "";
const nextWrite = (method: string, path: RegExp): Promise<Request> =>
  page.waitForRequest((r) => r.method() === method && path.test(new URL(r.url()).pathname + new URL(r.url()).search));

/** What server-everything says the session gave it as roots (a direct call in this page's session). */
async function rootsSeen(): Promise<string> {
  const body = JSON.stringify({ arguments: {}, approved: true, sessionId: sessionOf(page) });
  const answer = (await page.evaluate(
    `fetch("/api/tools/${NAME}.get-roots-list", { method: "POST", headers: { "content-type": "application/json" }, body: ${JSON.stringify(body)} }).then(r => r.json())`,
  )) as { result?: { content: { text: string }[] } };
  return answer.result?.content[0]?.text ?? JSON.stringify(answer);
}

describe("a sampling request from a server", () => {
  it("shows the prompt, model and limits for approval, and hands the server the answer", async () => {
    await page.locator('#servers li[data-server="everything"][data-state="ready"]').waitFor({ state: "attached" });
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("everything__trigger-sampling-request", { prompt: "name a colour", maxTokens: 1000 }),
      reply.stream(["Teal."], { finishReason: "MAX_TOKENS" }),
      reply.text("The server heard back."),
    ]);
    await sendMessage(page, "ask the server to sample");
    const dialog = page.locator("#approval-dialog[open]");
    await dialog.waitFor();
    expect(await dialog.locator("#approval-title").textContent()).toBe('"everything" asks the model to answer');
    expect(await dialog.locator("#approval-args").textContent()).toBe(
      "system: You are a helpful test server.\nuser: Resource trigger-sampling-request context: name a colour\n— model gemini-2.5-flash (the session's model), at most 256 tokens (asked 1000), temperature 0.7",
    );
    await shot(page, "sampling-1-approval");
    await dialog.locator("#approve-once").click();
    const card = page.locator(".tool-card.done", { hasText: "everything.trigger-sampling-request" });
    await card.waitFor();
    await card.locator("summary").click();
    const result = (await card.locator(".tool-result").textContent()) ?? "";
    expect(JSON.parse(result.slice(result.indexOf("{")))).toEqual({
      role: "assistant",
      model: "gemini-2.5-flash",
      content: { type: "text", text: "Teal." },
      stopReason: "maxTokens",
    });
    await page.locator(".msg.assistant", { hasText: "The server heard back." }).waitFor();
    await shot(page, "sampling-2-result");
    const sent = (await requests(stack.llm.url, stack.llmKey))[1];
    expect(sent?.body.generationConfig).toEqual({ temperature: 0.7, maxOutputTokens: 256 });
  });
});

describe("roots in My servers", () => {
  it("shows a bad root under the box with its line, then saves good ones that the server receives", async () => {
    await page.locator("#my-servers-open").click();
    await page.locator("#my-server-add").click();
    await page.locator("#msf-name").fill(NAME);
    await page.locator("#msf-url").fill(http.url);
    // Roots are among the advanced fields, folded away on a new server.
    await page.locator("#msf-advanced > summary").click();
    await page.locator("#msf-roots").fill("file:///srv/alpha alpha\nhttps://example.com/not-a-root");
    await page.locator("#msf-save").click();
    await page.locator("#msf-roots-error", { hasText: "line 2: expected a file:// URI of an absolute path" }).waitFor();
    expect(await page.locator("#msf-roots").getAttribute("aria-invalid")).toBe("true");
    await shot(page, "roots-1-bad-uri");

    await page.locator("#msf-roots").fill("file:///srv/alpha alpha project\nfile:///srv/beta");
    const posted = nextWrite("POST", /^\/api\/my-servers$/);
    const restarted = nextWrite("POST", /^\/api\/servers\/restart\?session=/);
    await page.locator("#msf-save").click();
    expect((await posted).postDataJSON()).toMatchObject({
      name: NAME,
      roots: [{ uri: "file:///srv/alpha", name: "alpha project" }, { uri: "file:///srv/beta" }],
    });
    await restarted;
    await page.locator("#my-servers-status", { hasText: "This chat is reconnected." }).waitFor();
    const seen = await rootsSeen();
    expect(seen).toContain("Current MCP Roots (2 total)");
    expect(seen).toContain("1. alpha project\n   URI: file:///srv/alpha");
    expect(seen).toContain("2. Unnamed Root\n   URI: file:///srv/beta");
  });

  it("shows the stored roots when editing, and an edit of the roots alone reaches the server", async () => {
    const row = page.locator(`#my-servers-list li[data-my-server="${NAME}"]`);
    await row.locator("button.edit").click();
    await page.locator("#my-server-form").waitFor();
    expect(await page.locator("#msf-roots").inputValue()).toBe("file:///srv/alpha alpha project\nfile:///srv/beta");
    await page.locator("#msf-roots").fill("file:///srv/gamma gamma");
    await page.locator("#msf-roots").scrollIntoViewIfNeeded();
    await shot(page, "roots-2-edit");
    const put = nextWrite("PUT", new RegExp(`^/api/my-servers/${NAME}$`));
    const restarted = nextWrite("POST", /^\/api\/servers\/restart\?session=/);
    await page.locator("#msf-save").click();
    expect((await put).postDataJSON()).toMatchObject({ roots: [{ uri: "file:///srv/gamma", name: "gamma" }] });
    await restarted;
    await page.locator("#my-servers-status", { hasText: `Saved “${NAME}”` }).waitFor();
    // The server asks for the list over its own stream after the notification; a call may overtake that.
    let seen = "";
    for (let i = 0; i < 50 && !seen.includes("gamma"); i++) seen = await rootsSeen();
    expect(seen).toContain("Current MCP Roots (1 total)");
    expect(seen).toContain("1. gamma\n   URI: file:///srv/gamma");
    noPageErrors(page);
  });
});
