// Choosing models as a user does, in Chromium against the real stack (wrangler dev, the
// bridge, the fake model server): adding an Anthropic provider with their own key in My
// providers (Test first, then Save; the key shows masked afterwards), choosing its model
// in the header's picker, going back with `/model`, and each answer naming its model.
// The screenshots docs/model-picker.png and docs/my-providers.png come from here
// (E2E_SHOTS=docs).
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, requests, script, uniqueKey } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, shot } from "./browser";

let browser: Browser;
let stack: Stack;
let page: Page;
beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack()]);
});
afterAll(async () => {
  await page?.context().close();
  await stack?.stop();
  await browser?.close();
});

async function say(text: string): Promise<void> {
  await page.locator("#composer-input").fill(text);
  await page.locator("#composer-input").press("Enter");
}

describe("choosing a model", () => {
  it("adds an own-key provider after testing it, chooses its model, switches back with /model, and shows each answer's model", async () => {
    const key = uniqueKey("e2e-claude");
    page = await openPage(browser, stack);
    await expect.poll(() => page.locator("#model").inputValue()).toBe("gemini/gemini-2.5-flash");

    await script(stack.llm.url, stack.llmKey, [reply.text("Gemini here: the folder has notes.txt.")]);
    await say("what is in the folder?");
    await page.locator("#messages .assistant .model-tag", { hasText: "gemini/gemini-2.5-flash" }).waitFor();

    // My providers: fill, Test, then Save.
    await page.locator("#my-providers-open").click();
    await page.locator("#mpf-kind").selectOption("anthropic");
    await page.locator("#mpf-id").fill("claude");
    await page.locator("#mpf-baseUrl").fill(stack.llm.url);
    await page.locator("#mpf-apiKey").fill(key);
    await page.locator("#mpf-models").fill("claude-sonnet-fake, claude-haiku-fake");
    await script(stack.llm.url, key, [reply.text("OK")]);
    await page.locator("#mpf-test-button").click();
    await page.locator("#mpf-test", { hasText: 'Works: claude-sonnet-fake answered "OK"' }).waitFor();
    await shot(page, "my-providers");
    await page.locator("#mpf-save").click();
    await page.locator("#my-providers-list li", { hasText: "claude · anthropic" }).waitFor();
    expect(await page.locator("#my-providers-list").textContent()).toContain("key ••••••");
    expect(await page.locator("#my-providers-dialog").textContent()).not.toContain(key);
    await page.locator("#my-providers-close").click();

    // The picker offers the new models (marked as the user's) and switches the session.
    await page.locator('#model optgroup[label="claude (yours)"] option[value="user:claude/claude-haiku-fake"]').waitFor({ state: "attached" });
    await page.locator("#model").selectOption("user:claude/claude-haiku-fake");
    await expect.poll(() => page.locator("#model").inputValue()).toBe("user:claude/claude-haiku-fake");
    await script(stack.llm.url, key, [reply.text("Claude here: I see the earlier answer too.")]);
    await say("and you?");
    // An answer on the person's own key is named by their provider's name, not the Worker's `user:` id.
    const own = page.locator("#messages .assistant .model-tag", { hasText: "claude/claude-haiku-fake" });
    await own.waitFor();
    expect(await own.textContent()).toBe("claude/claude-haiku-fake · your key");
    const sent = (await requests(stack.llm.url, key)).at(-1);
    expect(sent?.path).toBe("/v1/messages");
    expect(JSON.stringify(sent?.body.messages)).toContain("Gemini here: the folder has notes.txt.");

    // /model lists, then chooses, without sending a message.
    await say("/model");
    await page.locator("#messages .notice", { hasText: "Model: user:claude/claude-haiku-fake." }).waitFor();
    await say("/model gemini/gemini-2.5-flash");
    await expect.poll(() => page.locator("#model").inputValue()).toBe("gemini/gemini-2.5-flash");
    expect(await page.locator("#messages .user", { hasText: "/model" }).count()).toBe(0);
    await script(stack.llm.url, stack.llmKey, [reply.text("Gemini again.")]);
    await say("thanks");
    await page.locator("#messages .assistant", { hasText: "Gemini again." }).locator(".model-tag", { hasText: "gemini/gemini-2.5-flash" }).waitFor();
    await shot(page, "model-picker");

    // Settings of the chosen model: ⚙ sets its temperature.
    await page.locator("#model-settings").click();
    await page.locator("#model-temperature").fill("0.2");
    await page.locator("#model-save").click();
    await script(stack.llm.url, stack.llmKey, [reply.text("Cooler now.")]);
    await say("once more");
    await page.locator("#messages .assistant", { hasText: "Cooler now." }).waitFor();
    expect((await requests(stack.llm.url, stack.llmKey)).at(-1)?.body.generationConfig).toMatchObject({ temperature: 0.2 });
    expect(stack.workerLog()).not.toContain(key);
    noPageErrors(page);
  });
});
