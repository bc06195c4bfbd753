// Issue 13, resources and prompts, against the whole product: wrangler dev, the
// bridge running server-everything over stdio, the fake model (Gemini for the page,
// an OpenAI-compatible stack for the content parts), and the page in Chromium:
// - `@` in the message box lists resources and templates; choosing attaches a chip;
//   a template asks for its variable with the server's completion;
// - the attached contents reach the model with the message; chips stay after a reload;
// - `/` lists prompts; a prompt's argument form (required marked, completion) starts the turn;
// - a subscription update marks the chip.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeLlm, type FakeLlm } from "../fixtures/fake-gemini";
import { reply, requests, script, uniqueKey } from "../fixtures/fake-llm-script";
import { ProbeLog } from "../fixtures/probe-log";
import { everythingBin, probeServerBin } from "../fixtures/servers";
import type { Message } from "../fixtures/session-client";
import { openSession } from "../fixtures/session-client-node";
import { createSession } from "../fixtures/session-http";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, overflow, PHONE, shot } from "./browser";

const everything = { command: process.execPath, args: [everythingBin, "stdio"], alwaysAllow: ["toggle-subscriber-updates"] };
const DOC = "demo://resource/static/document/features.md";
/** probe-server.mjs: an image resource, and a counter resource its `touch` tool changes (announcing resources/updated). */
const LOGO_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const probeLog = new ProbeLog();
const openaiProbeLog = new ProbeLog();
const probe = (log: ProbeLog) => ({ command: process.execPath, args: [probeServerBin], env: { PROBE_LOG: log.path } });

let browser: Browser;
let stack: Stack;
let openai: Stack;
let openaiLlm: FakeLlm;
const openaiKey = uniqueKey("resources-openai");

beforeAll(async () => {
  openaiLlm = await startFakeLlm();
  const started = await Promise.allSettled([
    launchBrowser(),
    startStack({ mcpServers: { everything, probe: probe(probeLog) } }),
    startStack({
      mcpServers: { everything, probe: probe(openaiProbeLog) },
      vars: { LLM_PROVIDER: "openai", OPENAI_BASE_URL: `${openaiLlm.url}/v1`, OPENAI_MODEL: "fake", OPENAI_API_KEY: openaiKey },
    }),
  ]);
  const [b, s, o] = started;
  if (b.status === "fulfilled") browser = b.value;
  if (s.status === "fulfilled") stack = s.value;
  if (o.status === "fulfilled") openai = o.value;
  for (const result of started) if (result.status === "rejected") throw result.reason;
}, 120_000);
afterAll(async () => {
  await Promise.all([browser?.close(), stack?.stop(), openai?.stop(), openaiLlm?.stop()]);
});

type Contents = { role: string; parts: Record<string, unknown>[] }[];
const lastGemini = async (): Promise<Contents> => ((await requests(stack.llm.url, stack.llmKey)).at(-1)?.body.contents ?? []) as Contents;

const sessionOf = (page: Page): string => new URLSearchParams(new URL(page.url()).hash.slice(1)).get("s") ?? "";

/** The page on a session of its own (the page reopens the last one), with server-everything ready. */
async function openReady(viewport?: { width: number; height: number }): Promise<Page> {
  const page = await openPage(browser, stack, viewport ? { viewport } : {});
  const before = sessionOf(page);
  // At phone width the sessions list is behind the menu button.
  if (viewport === PHONE) await page.locator("#menu-toggle").click();
  await page.locator("#new-session").click();
  await expect.poll(() => sessionOf(page)).not.toBe(before);
  await page.locator("#conn[data-state=open]").waitFor({ state: "attached" });
  await page.locator('#servers li[data-server="everything"][data-state="ready"]').waitFor({ state: "attached" });
  return page;
}

const texts = (page: Page, selector: string) => () => page.locator(selector).allTextContents();
const shown = (page: Page, selector: string) => () => page.locator(selector).isVisible();

const option = (page: Page, label: string) => page.locator("#composer-picker .picker-option", { hasText: label });

describe("the page", () => {
  it("attaches a resource and a template's resource with @, and the model gets their contents with the message", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("Both read.")]);
    const page = await openReady();
    const box = page.locator("#composer-input");
    await box.pressSequentially("Compare @feat");
    await option(page, "features.md").waitFor();
    await expect.poll(texts(page, "#composer-picker .picker-option")).toHaveLength(1);
    await shot(page, "resources-at-picker");
    await box.press("Enter");
    await expect.poll(texts(page, "#composer-attachments .chip")).toEqual(["@features.md×"]);
    // The `@feat` became the chip; the rest of the text stays.
    expect(await box.inputValue()).toBe("Compare ");

    // A template: its variable asked for, the server's completion offered.
    await box.pressSequentially("with @dynamic");
    await option(page, "Dynamic Text Resource…").click();
    const dialog = page.locator("#arguments-dialog");
    await dialog.locator('input[name="resourceId"]').pressSequentially("5");
    await dialog.locator(".suggestion", { hasText: "5" }).waitFor();
    expect(await dialog.locator("label").allTextContents()).toEqual(["resourceId (required)"]);
    await shot(page, "resources-template-form");
    await dialog.locator(".suggestion", { hasText: "5" }).click();
    await dialog.locator("#arguments-submit").click();
    await expect.poll(texts(page, "#composer-attachments .chip")).toEqual(["@features.md×", "@Dynamic Text Resource 5×"]);
    expect(await box.inputValue()).toBe("Compare with ");
    await shot(page, "resources-chips-composer");

    await box.press("Enter");
    await page.locator(".msg.assistant", { hasText: "Both read." }).waitFor();
    await expect.poll(texts(page, ".msg.user .chips .chip")).toEqual(["@features.md", "@Dynamic Text Resource 5"]);
    await expect.poll(shown(page, "#composer-attachments")).toBe(false);
    const [user] = await lastGemini();
    expect(user?.parts[0]).toEqual({ text: "Compare with" });
    expect(String(user?.parts[1]?.text)).toMatch(
      /^Attached resource "features\.md" \(demo:\/\/resource\/static\/document\/features\.md, from MCP server "everything"\):\n# Everything Server/,
    );
    expect(String(user?.parts[2]?.text)).toMatch(
      /^Attached resource "Dynamic Text Resource 5" \(demo:\/\/resource\/dynamic\/text\/5, from MCP server "everything"\):\nResource 5: This is a plaintext resource created at /,
    );
    await shot(page, "resources-sent");

    // A reload shows the chips again, from the history.
    await page.reload();
    await expect.poll(texts(page, ".msg.user .chips .chip")).toEqual(["@features.md", "@Dynamic Text Resource 5"]);
    noPageErrors(page);
    await page.context().close();
  });

  it("browses every resource and template with the @ button", async () => {
    const page = await openReady();
    await page.locator("#attach").click();
    await option(page, "features.md").waitFor();
    const labels = await page.locator("#composer-picker .picker-label").allTextContents();
    expect(labels).toEqual([
      "architecture.md",
      "extension.md",
      "features.md",
      "how-it-works.md",
      "instructions.md",
      "startup.md",
      "structure.md",
      "counter",
      "logo",
      "Dynamic Text Resource…",
      "Dynamic Blob Resource…",
      "item…",
    ]);
    expect(await page.locator("#composer-input").inputValue()).toBe("@");
    await shot(page, "resources-browse");
    await page.locator("#composer-input").press("Escape");
    expect(await page.locator("#composer-picker").isHidden()).toBe(true);
    await page.context().close();
  });

  it("fits the picker and the chips at phone width", async () => {
    const page = await openReady(PHONE);
    const box = page.locator("#composer-input");
    await box.pressSequentially("@how");
    await option(page, "how-it-works.md").click();
    await page.locator("#attach").click();
    await option(page, "architecture.md").waitFor();
    expect(await overflow(page)).toEqual({ overflow: 0, wide: [] });
    await shot(page, "resources-phone-picker");
    await option(page, "architecture.md").click();
    await expect.poll(texts(page, "#composer-attachments .chip")).toEqual(["@how-it-works.md×", "@architecture.md×"]);
    expect(await overflow(page)).toEqual({ overflow: 0, wide: [] });
    await shot(page, "resources-phone-chips");
    await page.context().close();
  });

  it("removes a chip before sending: the model gets only the text", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("Plain.")]);
    const page = await openReady();
    const box = page.locator("#composer-input");
    await box.pressSequentially("@instr");
    await option(page, "instructions.md").waitFor();
    await box.press("Enter");
    await page.locator("#composer-attachments .chip-remove").click();
    await expect.poll(shown(page, "#composer-attachments")).toBe(false);
    await box.fill("just text");
    await box.press("Enter");
    await page.locator(".msg.assistant", { hasText: "Plain." }).waitFor();
    expect((await lastGemini()).at(-1)).toEqual({ role: "user", parts: [{ text: "just text" }] });
    expect(await page.locator(".msg.user .chips").count()).toBe(0);
    await page.context().close();
  });

  it("starts a turn with a / prompt: its argument form marks what is required and completes from the server", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("Bob is promoted.")]);
    const page = await openReady();
    const box = page.locator("#composer-input");
    // A word no prompt has: the list says so, naming it.
    await box.pressSequentially("/zzz");
    await expect.poll(() => page.locator("#composer-picker .picker-empty").textContent()).toBe('No prompt matches "/zzz".');
    await box.fill("");
    await box.pressSequentially("/comp");
    await option(page, "/completable-prompt").waitFor();
    expect(await option(page, "/completable-prompt").textContent()).toContain("First argument choice narrows values for second argument.");
    await shot(page, "prompts-slash-list");
    await box.press("Enter");
    const dialog = page.locator("#arguments-dialog");
    await expect.poll(() => dialog.locator("#arguments-title").textContent()).toBe("/completable-prompt");
    expect(await dialog.locator("label").allTextContents()).toEqual(["department (required)", "name (required)"]);
    // Sending with a required argument empty is refused in the form.
    await dialog.locator("#arguments-submit").click();
    await expect.poll(() => dialog.locator("#arguments-error").textContent()).toBe("Fill in department, name.");
    await dialog.locator('input[name="department"]').pressSequentially("En");
    await dialog.locator(".suggestion", { hasText: "Engineering" }).click();
    await dialog.locator('input[name="name"]').focus();
    // The second argument's suggestions depend on the first (sent as context).
    await expect.poll(() => dialog.locator('input[name="name"] ~ .suggestions .suggestion').allTextContents()).toEqual(["Alice", "Bob", "Charlie"]);
    await shot(page, "prompts-argument-form");
    await dialog.locator(".suggestion", { hasText: "Bob" }).click();
    await dialog.locator("#arguments-submit").click();
    await page.locator(".msg.assistant", { hasText: "Bob is promoted." }).waitFor();
    expect(await lastGemini()).toEqual([{ role: "user", parts: [{ text: "Please promote Bob to the head of the Engineering team." }] }]);
    expect(await page.locator(".msg.user .prompt-badge").textContent()).toBe("/completable-prompt department=Engineering name=Bob");
    expect(await page.locator(".msg.user").textContent()).toContain("Please promote Bob to the head of the Engineering team.");
    await shot(page, "prompts-sent");
    noPageErrors(page);
    await page.context().close();
  });

  it("sends the files in the box with a / prompt: they go with its first message and show under it", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("Prompt with a file.")]);
    const page = await openReady();
    const chooser = page.waitForEvent("filechooser");
    await page.locator("#attach-file").click();
    await (await chooser).setFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("buy milk") });
    await page.locator('#composer-files .file-chip[data-status="ready"]').waitFor();
    const box = page.locator("#composer-input");
    await box.pressSequentially("/simple");
    await option(page, "/simple-prompt").waitFor();
    await box.press("Enter");
    await page.locator(".msg.assistant", { hasText: "Prompt with a file." }).waitFor();
    expect((await lastGemini()).at(-1)?.parts).toEqual([
      { text: "This is a simple prompt without arguments." },
      { text: 'Attached file "notes.txt" (text/plain, 8 B):\nbuy milk' },
    ]);
    expect(await page.locator(".msg.user .prompt-badge").textContent()).toBe("/simple-prompt");
    expect(await page.locator(".msg.user").textContent()).toContain("notes.txt");
    expect(await page.locator("#composer-files .file-chip").count()).toBe(0);
    noPageErrors(page);
    await page.context().close();
  });

  it("marks an attached resource's chip when the server says it changed", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("Watching.")]);
    const page = await openReady();
    const box = page.locator("#composer-input");
    await box.pressSequentially("@dynamic");
    await option(page, "Dynamic Text Resource…").click();
    await page.locator('#arguments-dialog input[name="resourceId"]').fill("9");
    await page.locator("#arguments-submit").click();
    await box.fill("watch it");
    await box.press("Enter");
    await page.locator(".msg.assistant", { hasText: "Watching." }).waitFor();
    const session = sessionOf(page);
    const toggle = `fetch("/api/tools/everything.toggle-subscriber-updates", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ arguments: {}, sessionId: ${JSON.stringify(session)} }) }).then(r => r.status)`;
    expect(await page.evaluate(toggle)).toBe(200);
    try {
      await page.locator('.msg.user .chip[data-updated="true"] .chip-updated').waitFor();
      expect(await page.locator(".msg.user .chip").allTextContents()).toEqual(["@Dynamic Text Resource 9updated"]);
      await shot(page, "resources-chip-updated");
    } finally {
      await page.evaluate(toggle);
    }
    await page.context().close();
  });
});

describe("an OpenAI-compatible model", () => {
  it("gets the attached text and blob resources as content parts of the user message", async () => {
    await script(openaiLlm.url, openaiKey, [reply.text("ok")]);
    const socket = await openSession(openai.url, await createSession(openai.url));
    await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "everything" && s.state === "ready"));
    const from = socket.received.length;
    socket.send({
      type: "message",
      text: "read these",
      attachments: [
        { server: "everything", uri: DOC },
        { server: "everything", uri: "demo://resource/dynamic/blob/2" },
      ],
    });
    const end = await socket.next((m): m is Message<"turn_end"> => m.type === "turn_end", from);
    expect(end.reason).toBe("complete");
    const messages = (await requests(openaiLlm.url, openaiKey)).at(-1)?.body.messages as { role: string; content: unknown }[];
    const user = messages.at(-1);
    expect(user?.role).toBe("user");
    expect(user?.content).toEqual([
      { type: "text", text: "read these" },
      {
        type: "text",
        text: expect.stringMatching(
          /^Attached resource "features\.md" \(demo:\/\/resource\/static\/document\/features\.md, from MCP server "everything"\):\n# Everything Server/,
        ),
      },
      {
        type: "text",
        text: expect.stringMatching(
          /^Attached resource "Dynamic Blob Resource 2" \(demo:\/\/resource\/dynamic\/blob\/2, from MCP server "everything"\):\nResource 2: This is a base64 blob created at /,
        ),
      },
    ]);
    await socket.close();
  });
});

describe("an image resource and a changing one (probe-server over the bridge)", () => {
  async function readySocket(url: string) {
    const socket = await openSession(url, await createSession(url));
    await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "probe" && s.state === "ready"));
    return socket;
  }
  const attachments = [
    { server: "probe", uri: "probe://logo.png" },
    { server: "probe", uri: "probe://counter" },
  ];
  const LOGO_TEXT = 'Attached resource "logo" (probe://logo.png, from MCP server "probe"): image (image/png), attached next.';
  const counterText = (n: number) => `Attached resource "counter" (probe://counter, from MCP server "probe"):\n${n}`;

  it("Gemini gets the image as inlineData in the user content; an update is re-read, and unsubscribed on reset", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("A dot."), reply.text("One.")]);
    const socket = await readySocket(stack.url);
    const from = socket.received.length;
    socket.send({ type: "message", text: "what is this?", attachments });
    await socket.next((m) => m.type === "turn_end", from);
    const [user] = await lastGemini();
    const counter = Number(/\n(\d+)$/.exec(String(user?.parts[3]?.text))?.[1]);
    expect(user).toEqual({
      role: "user",
      parts: [{ text: "what is this?" }, { text: LOGO_TEXT }, { inlineData: { mimeType: "image/png", data: LOGO_PNG } }, { text: counterText(counter) }],
    });
    // Subscribed to both at the server.
    await probeLog.waitFor((e) => e.event === "subscribe" && e.uri === "probe://counter");
    await probeLog.waitFor((e) => e.event === "subscribe" && e.uri === "probe://logo.png");

    // The counter changes: the page is told, and the next turn has the new value.
    const mark = socket.received.length;
    const touched = await fetch(`${stack.url}/api/tools/probe.touch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: {}, approved: true, sessionId: socket.sessionId }),
    });
    expect(touched.status).toBe(200);
    expect(await socket.next((m) => m.type === "resource_updated", mark)).toEqual({ type: "resource_updated", server: "probe", uri: "probe://counter" });
    const next = socket.say("and now?");
    await socket.next((m) => m.type === "turn_end", next);
    const [again] = await lastGemini();
    expect(again?.parts[3]).toEqual({ text: counterText(counter + 1) });

    // Reset: the history that named them is gone, and so are the subscriptions.
    socket.send({ type: "reset" });
    await probeLog.waitFor((e) => e.event === "unsubscribe" && e.uri === "probe://counter");
    await probeLog.waitFor((e) => e.event === "unsubscribe" && e.uri === "probe://logo.png");
    await socket.close();
  });

  it("an OpenAI-compatible model gets the image as an image_url content part", async () => {
    await script(openaiLlm.url, openaiKey, [reply.text("A dot.")]);
    const socket = await readySocket(openai.url);
    const from = socket.received.length;
    socket.send({ type: "message", text: "what is this?", attachments });
    await socket.next((m) => m.type === "turn_end", from);
    const messages = (await requests(openaiLlm.url, openaiKey)).at(-1)?.body.messages as { role: string; content: { type: string; text?: string }[] }[];
    const user = messages.at(-1);
    const counter = Number(/\n(\d+)$/.exec(String(user?.content[3]?.text))?.[1]);
    expect(user).toEqual({
      role: "user",
      content: [
        { type: "text", text: "what is this?" },
        { type: "text", text: LOGO_TEXT },
        { type: "image_url", image_url: { url: `data:image/png;base64,${LOGO_PNG}` } },
        { type: "text", text: counterText(counter) },
      ],
    });
    await socket.close();
  });
});
