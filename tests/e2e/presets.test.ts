// "Instructions & presets" (public/account/presets.js) in headless Chromium against the real
// stack: the person writes their own instructions and makes a preset in the dialog (axe
// clean, at both sizes), then `/preset Research` in the composer applies it: the chat's
// notice says so (naming the server the chat lacks), the server list shows the chat's
// servers switched to the preset's, and the next turn's system text carries both the
// person's instructions and the preset's, under their headings.
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, requests, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { axeCheck } from "./axe";
import { DESKTOP, launchBrowser, noPageErrors, openPage, PHONE, sendMessage } from "./browser";

const SHOTS = "/work/notes/s48/shots";

let browser: Browser;
let stack: Stack;
let page: Page;

beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack()]);
  mkdirSync(SHOTS, { recursive: true });
  page = await openPage(browser, stack);
}, 90_000);
afterAll(async () => {
  await Promise.all([browser?.close(), stack?.stop()]);
});

describe("instructions and presets in the page", () => {
  it("saves instructions, makes a preset, and /preset applies it to the chat", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("hello"), reply.text("Bonjour, avec sources.")]);
    await sendMessage(page, "hi");
    await page.locator(".msg.assistant", { hasText: "hello" }).waitFor();
    const filesystem = page.locator('#servers li[data-server="filesystem"] input[type="checkbox"]');
    await expect.poll(() => filesystem.isChecked()).toBe(true);

    // The saved instructions are held back: typed before they arrive, the text must not be
    // written over by them (CI once saved a blank that way).
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/api/me/instructions", async (route) => {
      if (route.request().method() === "GET") await held;
      await route.continue();
    });
    await page.locator("#presets-open").click();
    const dialog = page.locator("#presets-dialog");
    await dialog.waitFor();
    const textarea = page.locator("#instructions-text");
    expect(await textarea.evaluate((e) => (e as { readOnly: boolean }).readOnly)).toBe(true);
    const typed = textarea.fill("Answer in French.");
    release();
    await typed;
    await page.unroute("**/api/me/instructions");
    expect(await textarea.inputValue()).toBe("Answer in French.");
    await dialog.getByRole("button", { name: "Save instructions" }).click();
    await expect.poll(() => page.locator("#presets-status").textContent()).toContain("Instructions saved");

    await page.locator("#pf-name").fill("Research");
    await page.locator("#pf-instructions").fill("Always cite sources.");
    await page.locator("#pf-servers").fill("nowhere");
    await page.locator("#pf-model").check();
    await dialog.getByRole("button", { name: "Add preset" }).click();
    await page.locator("#presets-list li", { hasText: "Research" }).waitFor();
    expect(await page.locator("#presets-list li", { hasText: "Research" }).textContent()).toContain("gemini/");
    await expect.poll(() => page.locator("#presets-status").textContent()).toContain("Saved Research");
    expect(await axeCheck(page, "instructions and presets")).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/presets-1200.png` });
    await page.setViewportSize(PHONE);
    expect(await axeCheck(page, "instructions and presets, phone")).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/presets-390.png` });
    await page.setViewportSize(DESKTOP);
    await page.locator("#presets-close").click();

    // `/preset` alone lists them; `/preset Research` applies it (neither is a message).
    await sendMessage(page, "/preset");
    await page.locator(".msg.notice", { hasText: "Your presets: Research" }).waitFor();
    await sendMessage(page, "/preset research");
    await page.locator(".msg.notice", { hasText: "Preset ‘Research’ applied. This chat has no server “nowhere”: left out." }).waitFor();
    expect(await page.locator(".msg.user", { hasText: "/preset" }).count()).toBe(0);
    // Its servers: only "nowhere", which this chat lacks, so filesystem is off here now.
    await expect.poll(() => filesystem.isChecked()).toBe(false);
    await page.screenshot({ path: `${SHOTS}/preset-applied-1200.png` });

    await sendMessage(page, "bonjour?");
    await page.locator(".msg.assistant", { hasText: "Bonjour, avec sources." }).waitFor();
    const body = (await requests(stack.llm.url, stack.llmKey)).at(-1)?.body as { systemInstruction?: { parts: { text: string }[] } };
    const system = (body.systemInstruction?.parts ?? []).map((p) => p.text).join("");
    expect(system).toContain("## The person's own instructions\nAnswer in French.");
    expect(system).toContain("## This chat's preset (Research)\nAlways cite sources.");
    expect(system.indexOf("Answer in French.")).toBeLessThan(system.indexOf("Always cite sources."));
    noPageErrors(page);
  });
});
