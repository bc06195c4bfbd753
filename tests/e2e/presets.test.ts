// "Instructions & presets" (public/account/presets.js) in headless Chromium against the real
// stack: the person writes their own instructions and makes a preset in the dialog (axe
// clean, at both sizes), then `/preset Research` in the composer applies it: the chat's
// notice says so (naming the server the chat lacks), the server list shows the chat's
// servers switched to the preset's, and the next turn's system text carries both the
// person's instructions and the preset's, under their headings. Edit fills the form with a
// preset and saves it in its place (PUT); a new chat's welcome offers the presets as chips,
// reached by keyboard, and one chosen there reaches the chat's next turn.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, requests, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { axeCheck } from "./axe";
import { DESKTOP, launchBrowser, noPageErrors, openPage, PHONE, reachable, sendMessage, shot } from "./browser";

let browser: Browser;
let stack: Stack;
let page: Page;

beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack()]);
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
    await shot(page, "presets-1200");
    await page.setViewportSize(PHONE);
    expect(await axeCheck(page, "instructions and presets, phone")).toEqual([]);
    await shot(page, "presets-390");
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
    await shot(page, "preset-applied-1200");

    await sendMessage(page, "bonjour?");
    await page.locator(".msg.assistant", { hasText: "Bonjour, avec sources." }).waitFor();
    const body = (await requests(stack.llm.url, stack.llmKey)).at(-1)?.body as { systemInstruction?: { parts: { text: string }[] } };
    const system = (body.systemInstruction?.parts ?? []).map((p) => p.text).join("");
    expect(system).toContain("## The person's own instructions\nAnswer in French.");
    expect(system).toContain("## This chat's preset (Research)\nAlways cite sources.");
    expect(system.indexOf("Answer in French.")).toBeLessThan(system.indexOf("Always cite sources."));
    noPageErrors(page);
  });

  it("edits a preset in its place: the form filled, saved with PUT, the same id", async () => {
    const before = await listPresets();
    const research = before.find((p) => p.name === "Research");
    expect(research?.instructions).toBe("Always cite sources.");
    await page.locator("#presets-open").click();
    const dialog = page.locator("#presets-dialog");
    await dialog.getByRole("button", { name: "Edit Research" }).click();
    expect(await page.locator("#pf-title").textContent()).toBe("Edit Research");
    expect(await page.locator("#pf-name").inputValue()).toBe("Research");
    expect(await page.locator("#pf-instructions").inputValue()).toBe("Always cite sources.");
    expect(await page.locator("#pf-servers").inputValue()).toBe("nowhere");
    // Its own model is kept (not the chat's): the label names it.
    expect(await page.locator("#pf-model").isChecked()).toBe(true);
    expect(await page.locator("#pf-model-label").textContent()).toBe(`Keep its model (${research?.model?.provider}/${research?.model?.model})`);
    expect(await axeCheck(page, "editing a preset")).toEqual([]);

    await page.locator("#pf-instructions").fill("Cite two sources.");
    // Servers cleared: the preset no longer switches any (it leaves a chat's as they are).
    await page.locator("#pf-servers").fill("");
    const put = page.waitForRequest((r) => r.method() === "PUT" && r.url().endsWith(`/api/presets/${research?.id}`));
    await dialog.getByRole("button", { name: "Save preset" }).click();
    await put;
    await expect.poll(() => page.locator("#presets-status").textContent()).toContain("Saved Research");
    expect(await page.locator("#pf-title").textContent()).toBe("Add a preset");
    expect(await page.locator("#pf-name").inputValue()).toBe("");
    const after = await listPresets();
    expect(after.map((p) => p.id)).toEqual(before.map((p) => p.id));
    expect(after.find((p) => p.id === research?.id)).toEqual({ id: research?.id, name: "Research", model: research?.model, instructions: "Cite two sources." });
    await page.locator("#presets-close").click();
    noPageErrors(page);
  });

  it("offers the presets on a new chat's welcome: a chip reached by keyboard applies one, and the next turn carries it", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("Two sources, then.")]);
    await page.locator("#new-session").click();
    const welcome = page.locator("#welcome");
    await welcome.waitFor();
    const chip = welcome.locator(".welcome-preset", { hasText: "Research" });
    await chip.waitFor();
    await expect.poll(() => chip.isEnabled()).toBe(true);
    expect(await chip.getAttribute("title")).toContain("Apply Research to this chat");
    expect(await reachable(page, "#welcome .welcome-preset")).toBe(true);
    expect(await axeCheck(page, "welcome with presets")).toEqual([]);
    await page.setViewportSize(PHONE);
    expect(await axeCheck(page, "welcome with presets, phone")).toEqual([]);
    await shot(page, "welcome-presets-390");
    await page.setViewportSize(DESKTOP);
    await shot(page, "welcome-presets-1200");

    // By keyboard: the first Tab after the welcome's title is the first preset.
    await page.locator("#welcome-title").evaluate((h) => {
      h.setAttribute("tabindex", "-1");
      (h as unknown as { focus(): void }).focus();
    });
    await page.keyboard.press("Tab");
    expect(await chip.evaluate((c) => c === c.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await page.locator(".msg.notice", { hasText: "Preset ‘Research’ applied." }).waitFor();
    await expect.poll(() => welcome.isHidden()).toBe(true);

    await sendMessage(page, "which sources?");
    await page.locator(".msg.assistant", { hasText: "Two sources, then." }).waitFor();
    const body = (await requests(stack.llm.url, stack.llmKey)).at(-1)?.body as { systemInstruction?: { parts: { text: string }[] } };
    const system = (body.systemInstruction?.parts ?? []).map((p) => p.text).join("");
    expect(system).toContain("## This chat's preset (Research)\nCite two sources.");
    noPageErrors(page);
  });
});

type PresetView = { id: string; name: string; model?: { provider: string; model: string }; instructions?: string; servers?: string[] };

/** The person's presets as the API lists them (the page's own session cookie). */
async function listPresets(): Promise<PresetView[]> {
  return ((await page.evaluate(async () => (await (await fetch("/api/presets")).json()) as unknown)) as { presets: PresetView[] }).presets;
}
