// The everyday chat loop (issue 25, the page's part) in headless Chromium against the
// real stack: wrangler dev, the bridge with server-filesystem and server-everything
// (its long-running tool sends progress while the answer waits), and the fake Gemini.
// Following the stream, the growing message box, copying.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { everythingBin } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, sendMessage, shotBoth } from "./browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const DESKTOP = { width: 1280, height: 800 };

/** A paragraph per line, enough to overflow the list several times over. */
const paragraphs = (what: string, count: number): string =>
  Array.from({ length: count }, (_, i) => `${what} paragraph ${i + 1}: some words to read.`).join("\n\n");

/** Pixels between the list's scroll position and its end. */
const distanceToEnd = (page: Page): Promise<number> =>
  page.locator("#messages").evaluate((list: any) => Math.round(list.scrollHeight - list.scrollTop - list.clientHeight));

describe("the chat loop", () => {
  let stack: Stack;
  let context: BrowserContext;
  let page: Page;
  let longTool = "";
  beforeAll(async () => {
    stack = await startStack({
      mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"], alwaysAllow: ["trigger-long-running-operation"] } },
    });
    context = await browser.newContext({ viewport: DESKTOP });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.url });
    page = await openPage(browser, stack, { context });
    await page.locator('#servers li[data-server="everything"][data-state="ready"]').waitFor({ state: "attached" });
    const servers = (await page.evaluate("fetch('/api/servers').then(r => r.json())")) as {
      servers: { name: string; tools: { name: string; functionName: string }[] }[];
    };
    longTool = servers.servers.find((s) => s.name === "everything")?.tools.find((t) => t.name === "trigger-long-running-operation")?.functionName ?? "";
    expect(longTool).not.toBe("");
  });
  afterAll(async () => {
    await context?.close();
    await stack?.stop();
  });

  it("follows the stream only while the reader is at the end, and jumps to the latest on request", async () => {
    // The intro streams first, then the tool reports progress for 3 s, then the answer streams.
    await script(stack.llm.url, stack.llmKey, [
      reply.text(paragraphs("Intro", 40), reply.call(longTool, { duration: 3, steps: 6 })),
      reply.text(paragraphs("Answer", 30), "\n\nThe end."),
    ]);
    await sendMessage(page, "tell me a long story");
    const card = page.locator(".tool-card.running");
    await card.waitFor();
    // At the end: the list followed the intro and the card.
    await expect.poll(() => distanceToEnd(page)).toBeLessThan(2);
    expect(await page.locator("#jump-latest").isHidden()).toBe(true);

    // The reader scrolls up while the tool still works and the answer is still to come.
    await page.locator("#messages").hover();
    await page.mouse.wheel(0, -900);
    await expect.poll(() => distanceToEnd(page)).toBeGreaterThan(300);
    const readingAt = await page.locator("#messages").evaluate((list: any) => list.scrollTop);
    const aboveEnd = await distanceToEnd(page);
    await page.locator("#jump-latest:not([hidden])").waitFor();
    // Over the end of the list, not over the message box.
    const jumpBox = await page.locator("#jump-latest").boundingBox();
    const composerBox = await page.locator("#composer").boundingBox();
    expect((jumpBox?.y ?? 0) + (jumpBox?.height ?? 0)).toBeLessThanOrEqual(composerBox?.y ?? 0);
    // Progress, the tool's result and the whole answer arrive: the reader is not moved.
    await page.locator(".msg.assistant:not(.streaming)", { hasText: "The end." }).waitFor();
    await page.locator("#send:not([hidden])").waitFor();
    expect(await page.locator("#messages").evaluate((list: any) => list.scrollTop)).toBe(readingAt);
    expect(await distanceToEnd(page)).toBeGreaterThan(aboveEnd + 500);
    await shotBoth(page, "chat-follow");

    await page.locator("#jump-latest").click();
    await expect.poll(() => distanceToEnd(page)).toBeLessThan(2);
    await page.locator("#jump-latest").waitFor({ state: "hidden" });

    // Following again: the next answer keeps the end in view.
    await script(stack.llm.url, stack.llmKey, [reply.text(paragraphs("Next", 30), "\n\nDone again.")]);
    await sendMessage(page, "more please");
    await page.locator(".msg.assistant:not(.streaming)", { hasText: "Done again." }).waitFor();
    await expect.poll(() => distanceToEnd(page)).toBeLessThan(2);
    expect(await page.locator("#jump-latest").isHidden()).toBe(true);
    noPageErrors(page);
  });

  it("grows the message box with its text up to 40% of the window, then scrolls it; sending shrinks it back", async () => {
    const box = page.locator("#composer-input");
    const height = async () => (await box.boundingBox())?.height ?? 0;
    const empty = await height();
    await box.fill(Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n"));
    const twelve = await height();
    expect(twelve).toBeGreaterThan(empty * 3);
    // All twelve lines show: nothing to scroll.
    expect(await box.evaluate((el: any) => el.scrollHeight - el.clientHeight)).toBeLessThanOrEqual(1);
    await shotBoth(page, "chat-composer");

    await box.fill(Array.from({ length: 80 }, (_, i) => `line ${i + 1}`).join("\n"));
    expect(Math.abs((await height()) - DESKTOP.height * 0.4)).toBeLessThanOrEqual(2);
    expect(await box.evaluate((el: any) => el.scrollHeight > el.clientHeight && el.ownerDocument.defaultView.getComputedStyle(el).overflowY === "auto")).toBe(
      true,
    );

    await script(stack.llm.url, stack.llmKey, [reply.text("Got your lines.")]);
    await box.press("Enter");
    await page.locator(".msg.assistant", { hasText: "Got your lines." }).waitFor();
    await expect.poll(height).toBe(empty);
  });

  it("copies a message's text, an answer's Markdown and a code block's code", async () => {
    const code = 'def greet(name):\n    print(f"hello {name}")\n';
    const answer = `Here is **Python**:\n\n\`\`\`python\n${code}\`\`\`\n\nCall \`greet\`.`;
    await script(stack.llm.url, stack.llmKey, [reply.text(answer)]);
    await sendMessage(page, "write greet()\nin Python");
    const assistant = page.locator(".msg.assistant:not(.streaming)", { hasText: "Call greet." });
    await assistant.waitFor();
    await page.locator("#send:not([hidden])").waitFor();
    const clipboard = () => page.evaluate("navigator.clipboard.readText()") as Promise<string>;

    await assistant.locator(".copy-code").click();
    await expect.poll(clipboard).toBe(code);
    expect(await assistant.locator(".copy-code").getAttribute("data-copied")).toBe("yes");
    await assistant.locator(".copy-code[data-copied]").waitFor({ state: "detached" });

    await assistant.locator(".copy-message").click();
    await expect.poll(clipboard).toBe(answer);
    await page.locator("#copy-status", { hasText: "Copied" }).waitFor({ state: "attached" });

    const user = page.locator(".msg.user", { hasText: "write greet()" }).last();
    await user.locator(".copy-message").click();
    await expect.poll(clipboard).toBe("write greet()\nin Python");
    // The buttons are not part of what the messages say.
    expect(await user.textContent()).toBe("write greet()\nin Python");
    expect(await assistant.getByRole("button", { name: "Copy python code" }).count()).toBe(1);
    await assistant.hover();
    await shotBoth(page, "chat-copy");

    // After a reload the history's messages copy the same.
    await page.reload();
    const replayed = page.locator(".msg.assistant", { hasText: "Call greet." }).last();
    await replayed.waitFor();
    await replayed.locator(".copy-message").click();
    await expect.poll(clipboard).toBe(answer);
    noPageErrors(page);
  });
});
