// Versions of a turn, retry, resume and compaction as a user goes through them, in
// Chromium against the real stack:
// Regenerate keeps the old answer behind "‹ 1/2 ›", Edit sends a changed message as a
// third version, a second tab on the same session follows every switch, a failed turn
// is retried without retyping, and a tab opened mid-answer shows what was streamed.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, sendMessage, shotBoth } from "./browser";

let browser: Browser;
let stack: Stack;
const pages: Page[] = [];
beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack()]);
});
afterAll(async () => {
  for (const page of pages) await page.context().close();
  await stack?.stop();
  await browser?.close();
});

const answer = (page: Page) => page.locator("#messages .msg.assistant:not(.streaming) .body").last();
/** Starts a new chat and waits until the page shows it (a message typed before goes to the old one). */
async function newChat(page: Page): Promise<void> {
  const before = String(await page.evaluate("location.hash"));
  await page.locator("#new-session").click();
  await expect.poll(async () => String(await page.evaluate("location.hash"))).not.toBe(before);
}

const position = (page: Page) => page.locator("#messages .msg.user .branch-position").last();

describe("versions of a turn", () => {
  it("regenerates, switches back, edits, and another tab follows", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("First answer."), reply.text("Second answer."), reply.text("Answer to the edit.")]);
    const page = await openPage(browser, stack);
    pages.push(page);
    await sendMessage(page, "hello");
    await expect.poll(() => answer(page).textContent()).toBe("First answer.");

    await page.locator("#messages .msg.assistant .turn-action[aria-label='Answer again']").click();
    await expect.poll(() => answer(page).textContent()).toBe("Second answer.");
    await expect.poll(() => position(page).getAttribute("aria-label")).toBe("version 2 of 2");
    // The old answer is not shown on this path, and the message is not repeated.
    expect(await page.locator("#messages .msg.assistant").count()).toBe(1);
    expect(await page.locator("#messages .msg.user").count()).toBe(1);

    // The same session in a second tab: its address names it.
    const other = await openPage(browser, stack, { path: `/${String(await page.evaluate("location.hash"))}` });
    pages.push(other);
    await expect.poll(() => answer(other).textContent()).toBe("Second answer.");

    await page.locator("#messages .turn-action[aria-label='Previous version']").click();
    await expect.poll(() => answer(page).textContent()).toBe("First answer.");
    await expect.poll(() => answer(other).textContent()).toBe("First answer.");
    await expect.poll(() => position(other).getAttribute("aria-label")).toBe("version 1 of 2");

    await page.locator("#messages .msg.user .turn-action[aria-label='Edit and send again']").click();
    const box = page.locator("#messages .edit-form textarea");
    expect(await box.inputValue()).toBe("hello");
    await box.fill("hello, edited");
    await box.press("Enter");
    await expect.poll(() => answer(page).textContent()).toBe("Answer to the edit.");
    await expect.poll(() => position(page).getAttribute("aria-label")).toBe("version 3 of 3");
    // The message shows exactly what was sent: the actions add no text to it.
    expect(await page.locator("#messages .msg.user").last().textContent()).toBe("hello, edited");
    await expect.poll(() => answer(other).textContent()).toBe("Answer to the edit.");
    await shotBoth(page, "chat-branches");
    noPageErrors(page);
    noPageErrors(other);
  });

  it("retries a failed turn from its error line, without retyping", async () => {
    await script(stack.llm.url, stack.llmKey, [
      reply.error(400, {}, { error: { code: 400, message: "the model refuses", status: "INVALID_ARGUMENT" } }),
      reply.text("Worked the second time."),
    ]);
    const page = await openPage(browser, stack);
    pages.push(page);
    await newChat(page);
    await sendMessage(page, "please work");
    const retry = page.locator("#messages .msg.error .turn-action[aria-label='Retry this turn']");
    await retry.waitFor();
    await shotBoth(page, "chat-retry");
    await retry.click();
    await expect.poll(() => answer(page).textContent()).toBe("Worked the second time.");
    expect(await page.locator("#messages .msg.user").count()).toBe(1);
    expect(await page.locator("#messages .msg.error").count()).toBe(0);
    noPageErrors(page);
  });

  it("shows a tab opened mid-answer the text streamed so far, then the rest", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.hang("The story ", "so far")]);
    const page = await openPage(browser, stack);
    pages.push(page);
    await newChat(page);
    await sendMessage(page, "tell me a long story");
    await expect.poll(() => page.locator("#messages .msg.assistant.streaming .body").textContent()).toContain("so far");
    const joined = await openPage(browser, stack, { path: `/${String(await page.evaluate("location.hash"))}` });
    pages.push(joined);
    await expect.poll(() => joined.locator("#messages .msg.assistant.streaming .body").textContent()).toContain("The story so far");
    await shotBoth(joined, "chat-resume");
    await page.locator("#stop").click();
    // The cut answer settles in both tabs, marked cut short.
    for (const p of [page, joined]) await p.locator("#messages .msg.assistant.partial", { hasText: "The story so far" }).waitFor();
    noPageErrors(joined);
  });

  it("compacts the conversation on /compact: a marker after the turns it covers opens to the summary", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("One."), reply.text("Two."), reply.text("The user counted to two.")]);
    const page = await openPage(browser, stack);
    pages.push(page);
    await newChat(page);
    await sendMessage(page, "count to one");
    await expect.poll(() => answer(page).textContent()).toBe("One.");
    await sendMessage(page, "and two");
    await expect.poll(() => answer(page).textContent()).toBe("Two.");
    await page.locator("#composer-input").fill("/compact");
    await page.locator(".picker-label", { hasText: "/compact" }).waitFor();
    await page.locator("#composer-input").press("Enter");
    const marker = page.locator("#messages .msg.summary");
    await marker.locator("summary", { hasText: "Earlier turns summarized (2 turns)" }).click();
    await expect.poll(() => marker.locator(".body").textContent()).toBe("The user counted to two.");
    // After the turns it covers: the nearest message above it is the second answer.
    expect(
      await page.evaluate(
        `(() => { let el = document.querySelector("#messages .msg.summary").previousElementSibling; while (el && !el.matches(".msg")) el = el.previousElementSibling; return el && el.textContent; })()`,
      ),
    ).toContain("Two.");
    // The list titles the chat with its first message.
    await expect.poll(() => page.locator("#sessions li.current .link").textContent()).toBe("count to one");
    await shotBoth(page, "chat-compaction");
    noPageErrors(page);
  });

  it("never sends a message typed right after New to the session being left", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("In the new chat.")]);
    const page = await openPage(browser, stack);
    pages.push(page);
    const left = String(await page.evaluate("location.hash")).replace("#s=", "");
    await page.locator("#new-session").click();
    await sendMessage(page, "meant for the new chat");
    await expect.poll(async () => String(await page.evaluate("location.hash")).replace("#s=", "")).not.toBe(left);
    // Either it waited in the box (no session was open yet) or the new chat took it; send what is left.
    if ((await page.locator("#composer-input").inputValue()) !== "") await page.locator("#composer-input").press("Enter");
    await expect.poll(() => answer(page).textContent()).toBe("In the new chat.");
    const history = (await (await fetch(`${stack.url}/sessions/${left}/history`)).json()) as { entries: { text?: string }[] };
    expect(history.entries.some((e) => e.text === "meant for the new chat")).toBe(false);
    noPageErrors(page);
  });
});
