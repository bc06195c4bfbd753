// Argument rules in the page (issue 40; docs/rules.md), in headless Chromium against the real
// stack: the approval dialog offers "Allow when …" for write_file's path (not its content),
// pre-filled with the call's folder; the rule answers the call, is listed beside the
// always-allowed tools, lets the next call under the folder run unasked, and a revoke makes
// it ask again.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, PHONE, sendMessage, shot } from "./browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("argument rules in the page", () => {
  let stack: Stack;
  let page: Page;
  beforeAll(async () => {
    stack = await startStack();
    page = await openPage(browser, stack, { viewport: { width: 1280, height: 800 } });
  });
  afterAll(async () => {
    await page?.context().close();
    await stack?.stop();
  });

  const write = (path: string, said: string) => [reply.callReply("filesystem__write_file", { path, content: "x" }), reply.text(said)];

  it("makes a rule from the approval dialog, lists it, runs the next call unasked, and revoking it asks again", async () => {
    const sub = `${stack.fsRoot}/sub`;
    await script(stack.llm.url, stack.llmKey, [
      ...write(`${sub}/first.txt`, "First written."),
      ...write(`${sub}/second.txt`, "Second written."),
      ...write(`${sub}/third.txt`, "Third not written."),
    ]);
    await sendMessage(page, "write the first");
    const dialog = page.locator("#approval-dialog[open]");
    await dialog.waitFor();
    const builder = dialog.locator("#approval-rule");
    await builder.waitFor();
    await builder.locator("summary").click();
    // Only path-like text arguments are offered: path, not content.
    expect(await builder.locator("#rule-arg option").allTextContents()).toEqual(["path"]);
    expect(await builder.locator("#rule-value").inputValue()).toBe(`${sub}/`);
    expect(await builder.locator("#rule-text").textContent()).toBe(`filesystem.write_file when path is under ${sub}/`);
    await shot(page, "rule-builder-1280x800");
    await builder.locator("#approve-rule").click();
    await page.locator(".msg.assistant", { hasText: "First written." }).waitFor();

    // Listed beside the always-allowed tools, as the Worker wrote it.
    const rule = page.locator("#always-allowed li.argument-rule");
    await expect.poll(() => rule.locator("code").allTextContents()).toEqual([`filesystem.write_file when path is under ${sub}/`]);
    expect(await page.locator("#always-allowed-box").isVisible()).toBe(true);

    // The next call under the folder runs without a question.
    await sendMessage(page, "write the second");
    await page.locator(".msg.assistant", { hasText: "Second written." }).waitFor();
    expect(await page.locator("#approval-dialog[open]").count()).toBe(0);

    // Revoked: the list empties and the next call asks.
    await rule.getByRole("button", { name: /Revoke/ }).click();
    await page.locator("#always-allowed-box").waitFor({ state: "hidden" });
    await sendMessage(page, "write the third");
    await dialog.waitFor();
    expect(await dialog.locator("#approval-what").textContent()).toBe("filesystem.write_file");
    await dialog.locator("#deny").click();
    await page.locator(".msg.assistant", { hasText: "Third not written." }).waitFor();
    noPageErrors(page);
  });

  it("a refused rule asks again with why; a rule for all my chats is listed as such and runs unasked in a new chat", async () => {
    const sub = `${stack.fsRoot}/sub`;
    await script(stack.llm.url, stack.llmKey, [...write(`${sub}/all-1.txt`, "All one written."), ...write(`${sub}/all-2.txt`, "All two written.")]);
    await sendMessage(page, "write for all chats");
    const dialog = page.locator("#approval-dialog[open]");
    await dialog.waitFor();
    const builder = dialog.locator("#approval-rule");
    await builder.locator("summary").click();
    // A folder that does not hold this call's path: the Worker refuses it, and the same question comes back saying why.
    await builder.locator("#rule-value").fill(`${stack.fsRoot}/elsewhere/`);
    await builder.locator("#rule-scope").selectOption("all");
    expect(await builder.locator("#rule-text").textContent()).toBe(`filesystem.write_file when path is under ${stack.fsRoot}/elsewhere/, in all my chats`);
    await builder.locator("#approve-rule").click();
    await dialog.locator("#rule-refused").waitFor();
    expect(await dialog.locator("#rule-refused").textContent()).toContain("does not match");
    expect(await builder.getAttribute("open")).not.toBeNull();
    expect(await builder.locator("#rule-scope").inputValue()).toBe("all");

    await builder.locator("#rule-value").fill(`${sub}/`);
    await builder.locator("#approve-rule").click();
    await page.locator(".msg.assistant", { hasText: "All one written." }).waitFor();
    const rule = page.locator("#always-allowed li.argument-rule[data-scope='all']");
    await expect.poll(() => rule.locator("code").allTextContents()).toEqual([`filesystem.write_file when path is under ${sub}/ (all my chats)`]);

    // Another chat of the same person: listed there too, and its call under the folder runs without a question.
    const before = new URL(page.url()).hash;
    await page.locator("#new-session").click();
    await expect.poll(() => new URL(page.url()).hash).not.toBe(before);
    await sendMessage(page, "write in another chat");
    await page.locator(".msg.assistant", { hasText: "All two written." }).waitFor();
    expect(await page.locator("#approval-dialog[open]").count()).toBe(0);
    await expect.poll(() => rule.locator("code").allTextContents()).toEqual([`filesystem.write_file when path is under ${sub}/ (all my chats)`]);
    // Revoked here: gone from the list (and from every chat of the person's).
    await rule.getByRole("button", { name: /Revoke/ }).click();
    await expect.poll(() => rule.count()).toBe(0);
    noPageErrors(page);
  });

  it("shows the rule builder readably at phone width", async () => {
    const phone = await openPage(browser, stack, { viewport: PHONE });
    await script(stack.llm.url, stack.llmKey, write(`${stack.fsRoot}/sub/phone.txt`, "Not on the phone."));
    await sendMessage(phone, "write from the phone");
    const dialog = phone.locator("#approval-dialog[open]");
    await dialog.waitFor();
    await dialog.locator("#approval-rule summary").click();
    await dialog.locator("#rule-text").waitFor();
    const width = await dialog.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(width.scroll).toBeLessThanOrEqual(width.client + 1);
    await shot(phone, "rule-builder-390x844");
    await dialog.locator("#deny").click();
    await phone.locator(".msg.assistant", { hasText: "Not on the phone." }).waitFor();
    noPageErrors(phone);
    await phone.context().close();
  });
});
