// Tools in the page (issue 25, the page's part), in headless Chromium against the real
// stack: the approval dialog shows the tool's description and its arguments as text, a
// denied call reads "denied", a server switched off looks off, and a tool's progress
// shows on its card while the card is closed.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { everythingBin } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, overflow, PHONE, sendMessage, shot, shotBoth } from "./browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const DESKTOP = { width: 1280, height: 800 };

describe("tools in the page", () => {
  let stack: Stack;
  let page: Page;
  let longTool = "";
  let writeDescription = "";
  beforeAll(async () => {
    stack = await startStack({
      mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"], alwaysAllow: ["trigger-long-running-operation"] } },
    });
    page = await openPage(browser, stack, { viewport: DESKTOP });
    await page.locator('#servers li[data-server="everything"][data-state="ready"]').waitFor({ state: "attached" });
    const servers = (await page.evaluate("fetch('/api/servers').then(r => r.json())")) as {
      servers: { name: string; tools: { name: string; functionName: string; description?: string }[] }[];
    };
    longTool = servers.servers.find((s) => s.name === "everything")?.tools.find((t) => t.name === "trigger-long-running-operation")?.functionName ?? "";
    writeDescription = servers.servers.find((s) => s.name === "filesystem")?.tools.find((t) => t.name === "write_file")?.description ?? "";
    expect(longTool).not.toBe("");
    expect(writeDescription).toContain("overwrite");
  });
  afterAll(async () => {
    await page?.context().close();
    await stack?.stop();
  });

  const content = ["# Notes", "", "    an indented line", "a line that goes on and on ".repeat(12).trim(), "https://example.com/".concat("x".repeat(300))].join(
    "\n",
  );

  it("shows the tool's description and its arguments as text in the approval dialog; a denied call reads 'denied'", async () => {
    const target = `${stack.fsRoot}/notes-copy.md`;
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__write_file", { path: target, content, overwrite: true, depth: 3 }),
      reply.text("Not written then."),
    ]);
    await sendMessage(page, "copy my notes");
    const dialog = page.locator("#approval-dialog[open]");
    await dialog.waitFor();
    await expect.poll(() => dialog.locator("#approval-description").textContent()).toBe(writeDescription);
    expect(await dialog.locator("#approval-fields dt").allTextContents()).toEqual(["path", "content", "overwrite", "depth"]);
    const values = dialog.locator("#approval-fields dd");
    expect(await values.nth(0).textContent()).toBe(target);
    // The multi-line string is a block of text with its own line breaks, not "\n" in JSON.
    const block = values.nth(1).locator("pre.arg-text");
    expect(await block.textContent()).toBe(content);
    // biome-ignore lint/performance/useDomNodeTextContent: the lines as the reader sees them
    expect(((await block.evaluate((el: any) => el.innerText)) as string).split("\n").slice(0, 3)).toEqual(["# Notes", "", "    an indented line"]);
    expect(await dialog.locator("#approval-fields").textContent()).not.toContain("\\n");
    expect(await values.nth(2).textContent()).toBe("true");
    expect(await values.nth(3).textContent()).toBe("3");
    // Long values wrap inside the dialog: nothing wider than the field.
    expect(await block.evaluate((el: any) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    expect(await dialog.evaluate((el: any) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    expect(await dialog.evaluate((el: any) => el.getBoundingClientRect().width)).toBeGreaterThan(500);
    expect(await dialog.locator("#approval-args").isHidden()).toBe(true);
    await shot(page, "chat-approval-desktop");

    await dialog.locator("#deny").click();
    await page.locator(".msg.assistant", { hasText: "Not written then." }).waitFor();
    const card = page.locator(".tool-card", { has: page.locator(".tool-name", { hasText: "filesystem.write_file" }) }).last();
    expect(await card.locator(".tool-status").textContent()).toBe("denied");
    expect(await card.getAttribute("class")).toContain("denied");
    expect(await card.getAttribute("class")).not.toContain("failed");
    expect(await card.locator(".tool-duration").textContent()).toBe("");
    expect(await card.locator(".tool-status").evaluate((el: any) => el.ownerDocument.defaultView.getComputedStyle(el).color)).not.toBe("rgb(192, 54, 44)");
    await card.locator("summary").click();
    expect(await card.locator(".result-title").textContent()).toBe("Not run");
    // The card's arguments read like the dialog's: one row each, the multi-line string as text.
    expect(await card.locator(".tool-args dt").allTextContents()).toEqual(["path", "content", "overwrite", "depth"]);
    expect(await card.locator(".tool-args dd pre.arg-text").textContent()).toBe(content);
    expect(await card.locator(".tool-args").textContent()).not.toContain("\\n");
    await shotBoth(page, "chat-denied", () => card.scrollIntoViewIfNeeded());
    // The same after a reload, from the history.
    await page.reload();
    const replayed = page.locator(".tool-card", { has: page.locator(".tool-name", { hasText: "filesystem.write_file" }) }).last();
    await replayed.waitFor();
    expect(await replayed.locator(".tool-status").textContent()).toBe("denied");
    noPageErrors(page);
  });

  it("shows the approval dialog readably at phone width", async () => {
    const phone = await openPage(browser, stack, { viewport: PHONE, path: `/${new URL(page.url()).hash}` });
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__write_file", { path: `${stack.fsRoot}/phone.md`, content }),
      reply.text("Not on the phone either."),
    ]);
    await sendMessage(phone, "copy my notes from the phone");
    const dialog = phone.locator("#approval-dialog[open]");
    await dialog.waitFor();
    await expect.poll(() => dialog.locator("#approval-description").textContent()).toBe(writeDescription);
    expect(await dialog.evaluate((el: any) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    expect((await overflow(phone)).overflow).toBe(0);
    await shot(phone, "chat-approval-phone");
    await dialog.locator("#deny").click();
    await phone.locator(".msg.assistant", { hasText: "Not on the phone either." }).waitFor();
    await phone.context().close();
  });

  it("shows a server switched off in this session as off, and ready again when switched on", async () => {
    const row = page.locator('#servers li[data-server="everything"]');
    await row.locator("input[type=checkbox]").uncheck();
    await page.locator('#servers li[data-server="everything"].off').waitFor();
    expect(await row.locator(".state").textContent()).toBe("off");
    expect(await row.locator(".dot").evaluate((el: any) => el.ownerDocument.defaultView.getComputedStyle(el).backgroundColor)).toBe("rgba(0, 0, 0, 0)");
    await shot(page, "chat-server-off-desktop");
    await row.locator("input[type=checkbox]").check();
    await page.locator('#servers li[data-server="everything"]:not(.off)[data-state="ready"]').waitFor();
    expect(await row.locator(".state").textContent()).toBe("ready");
  });

  it("lists the tools always allowed in this chat in every tab, and a revoke makes the tool ask again", async () => {
    const info = { path: `${stack.fsRoot}/notes.txt` };
    await script(stack.llm.url, stack.llmKey, [reply.callReply("filesystem__get_file_info", info), reply.text("Sized it.")]);
    await sendMessage(page, "how big are my notes");
    await page.locator("#approval-dialog[open]").waitFor();
    await page.locator("#approve-always").click();
    await page.locator(".msg.assistant", { hasText: "Sized it." }).waitFor();
    const listed = (p: Page) => p.locator("#always-allowed li code").allTextContents();
    await expect.poll(() => listed(page)).toEqual(["filesystem.get_file_info"]);
    // Another tab of the same chat gets the list when it connects.
    const other = await openPage(browser, stack, { viewport: DESKTOP, path: `/${new URL(page.url()).hash}` });
    await expect.poll(() => listed(other)).toEqual(["filesystem.get_file_info"]);
    await shotBoth(page, "chat-always-allowed", async () => {
      await page.locator("#menu-toggle").click();
    });

    await other
      .locator("#always-allowed li", { hasText: "filesystem.get_file_info" })
      .getByRole("button", { name: /Revoke/ })
      .click();
    await page.locator("#always-allowed-box").waitFor({ state: "hidden" });
    await other.locator("#always-allowed-box").waitFor({ state: "hidden" });
    await other.context().close();

    // Asked again.
    await script(stack.llm.url, stack.llmKey, [reply.callReply("filesystem__get_file_info", info), reply.text("Sized it again.")]);
    await sendMessage(page, "and now");
    await page.locator("#approval-dialog[open]").waitFor();
    await page.locator("#approve-once").click();
    await page.locator(".msg.assistant", { hasText: "Sized it again." }).waitFor();
    // "Allow once" is not remembered.
    expect(await page.locator("#always-allowed-box").isHidden()).toBe(true);
    noPageErrors(page);
  });

  it("shows a tool's progress on its card while the card is closed", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.callReply(longTool, { duration: 4, steps: 4 }), reply.text("The long job is done.")]);
    await sendMessage(page, "run the long job");
    const card = page.locator(".tool-card.running").last();
    await card.waitFor();
    const progress = card.locator(".tool-progress");
    await progress.waitFor();
    await expect.poll(() => progress.locator(".progress-text").textContent()).toMatch(/^[12] \/ 4$/);
    expect(await card.locator("details").evaluate((el: any) => el.open)).toBe(false);
    expect(await progress.locator("progress").isVisible()).toBe(true);
    await shotBoth(page, "chat-progress");
    await page.locator(".msg.assistant", { hasText: "The long job is done." }).waitFor();
    expect(await page.locator(".tool-card.done .tool-progress").last().isHidden()).toBe(true);
    noPageErrors(page);
  });
});
