// The chat page in headless Chromium (Debian's, driven by playwright-core)
// against the real stack: wrangler dev, the bridge with server-filesystem, and
// the fake Gemini. Assertions are on the DOM; screenshots go to a temp folder.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, openPage as open, overflow, sendMessage, shot } from "./browser";

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

function openPage(stack: Stack, width = 1200): Promise<Page> {
  return open(browser, stack, { viewport: { width, height: 800 } });
}

describe("the chat page with a model", () => {
  let stack: Stack;
  let page: Page;
  beforeAll(async () => {
    stack = await startStack();
    page = await openPage(stack);
  });
  afterAll(async () => {
    await page?.context().close();
    await stack?.stop();
  });

  it("streams a Markdown answer", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("Hello ", "**there**, ", "how can I help?")]);
    await sendMessage(page, "hi");
    await expect.poll(() => page.locator(".msg.user").last().textContent()).toBe("hi");
    const answer = page.locator(".msg.assistant:not(.streaming)").last();
    await answer.locator("strong", { hasText: "there" }).waitFor();
    expect(await answer.locator(".body").textContent()).toBe("Hello there, how can I help?");
    // Under the answer: the model that gave it.
    expect(await answer.locator(".model-tag").textContent()).toBe("gemini/gemini-2.5-flash");
    await page.locator("#send:not([hidden])").waitFor();
    await shot(page, "1-answer");
  });

  it("shows a tool-call card for a filesystem call with its result", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.callReply("filesystem__list_directory", { path: stack.fsRoot }), reply.text("You have notes.txt.")]);
    await sendMessage(page, "what files do I have?");
    const card = page.locator(".tool-card.done").last();
    await card.waitFor();
    expect(await card.locator(".tool-name").textContent()).toBe("filesystem.list_directory");
    await card.locator("summary").click();
    expect(await card.locator(".tool-result").textContent()).toContain("[FILE] notes.txt");
    expect(await card.locator(".tool-args").textContent()).toContain(stack.fsRoot);
    await page.locator(".msg.assistant", { hasText: "You have notes.txt." }).waitFor();
    await shot(page, "2-tool-card");
  });

  it("asks before running a tool that is not always allowed, and runs it once approved", async () => {
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__get_file_info", { path: `${stack.fsRoot}/notes.txt` }),
      reply.text("It is a small file."),
    ]);
    await sendMessage(page, "how big is notes.txt?");
    const dialog = page.locator("#approval-dialog[open]");
    await dialog.waitFor();
    expect(await dialog.locator("#approval-what").textContent()).toBe("filesystem.get_file_info");
    await shot(page, "3-approval");
    await dialog.locator("#approve-once").click();
    await page.locator(".tool-card.done .tool-name", { hasText: "filesystem.get_file_info" }).waitFor();
    await page.locator(".msg.assistant", { hasText: "It is a small file." }).waitFor();
  });

  it("shows the same history after a reload", async () => {
    const before = await page.locator("#messages > li").allTextContents();
    await page.reload();
    await page.locator(".msg.assistant", { hasText: "It is a small file." }).waitFor();
    // History may come before the Markdown renderer's chunk: shown plainly (.md-pending) until it is rendered.
    await page.locator("#messages .md-pending").first().waitFor({ state: "detached" });
    expect(await page.locator("#messages > li").allTextContents()).toEqual(before);
    expect(await page.locator(".tool-card.done").count()).toBe(2);
  });

  it("cancels a running turn", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.hang("Let me think about ")]);
    await sendMessage(page, "a long question");
    await page.locator(".msg.assistant.streaming").waitFor();
    await page.locator("#stop").click();
    await page.locator(".msg.notice", { hasText: "Cancelled." }).waitFor();
    await page.locator("#send:not([hidden])").waitFor();
    expect(await page.locator(".msg.assistant.partial").last().textContent()).toContain("Let me think about");
  });

  it("marks the server unavailable when the bridge dies, and ready again once it is back", async () => {
    await stack.killBridge();
    await script(stack.llm.url, stack.llmKey, [reply.callReply("filesystem__list_directory", { path: stack.fsRoot }), reply.text("The tool failed.")]);
    await sendMessage(page, "list again");
    await page.locator('#servers li[data-server="filesystem"][data-state="unavailable"]').waitFor();
    await page.locator(".tool-card.failed").waitFor();
    await page.locator("#send:not([hidden])").waitFor();
    await shot(page, "4-unavailable");

    await stack.restartBridge();
    await script(stack.llm.url, stack.llmKey, [reply.text("Back.")]);
    await sendMessage(page, "are you back?");
    await page.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor();
    await page.locator(".msg.assistant", { hasText: "Back." }).waitFor();
  });

  it("works at phone width", async () => {
    const phone = await openPage(stack, 390);
    expect(await phone.locator("#sidebar").isVisible()).toBe(false);
    await phone.locator("#menu-toggle").click();
    expect(await phone.locator("#sidebar").isVisible()).toBe(true);
    expect(await overflow(phone)).toEqual({ overflow: 0, wide: [] });
    await shot(phone, "5-phone");
    await phone.context().close();
  });
});

describe("the chat page without a model", () => {
  let stack: Stack;
  let page: Page;
  beforeAll(async () => {
    stack = await startStack({ model: false });
    page = await openPage(stack);
  });
  afterAll(async () => {
    await page?.context().close();
    await stack?.stop();
  });

  it("says no model is set, and how to set one", async () => {
    const notice = page.locator("#notice");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("set GEMINI_API_KEY");
    expect(await page.locator("#model").textContent()).toBe("no model");
  });

  it("calls a tool from the tool console", async () => {
    await page.locator("#console-toggle").click();
    await page.locator("#console-tool").selectOption("filesystem.list_directory");
    await page.locator("#console-form input[name=path]").fill(stack.fsRoot);
    await page.locator("#console-call").click();
    await expect.poll(() => page.locator("#console-result").textContent()).toContain("[FILE] notes.txt");
    expect(await page.locator("#console-result").getAttribute("data-status")).toBe("200");
    await shot(page, "6-console");
  });

  it("keeps the bridge token out of every page and response", async () => {
    const html = await page.content();
    expect(html).not.toContain(stack.bridge.token);
    const servers = await (await fetch(`${stack.url}/api/servers`)).text();
    expect(servers).not.toContain(stack.bridge.token);
  });
});
