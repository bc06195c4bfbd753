// Attacks on approval, as a user meets them in the real page (wrangler dev, the bridge with
// server-filesystem, the fake Gemini, Chromium): a dialog that opens while the user
// types answers nothing and keeps the text; two calls under one model id are asked
// for and shown one by one.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { focus, launchBrowser, noPageErrors, openPage, sendMessage, shot } from "../e2e/browser";
import { recordRow } from "../fixtures/reliability-rows";

let browser: Browser;
let stack: Stack;
let page: Page;
/** The approval frames the page sent, in order. */
const answers: { callId: string; approved: boolean }[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  stack = await startStack();
  page = await openPage(browser, stack);
  page.on("websocket", (ws) =>
    ws.on("framesent", ({ payload }) => {
      const frame = JSON.parse(String(payload)) as { type?: string; callId?: string; approved?: boolean };
      if (frame.type === "approval") answers.push({ callId: frame.callId ?? "", approved: frame.approved ?? false });
    }),
  );
  // The socket opened before the listener: reload so its frames are seen.
  await page.reload();
  await page.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor({ state: "attached" });
});
afterAll(async () => {
  await page?.context().close();
  await stack?.stop();
  await browser?.close();
});

const card = (tool: string) => page.locator(".tool-card", { has: page.locator(".tool-name", { hasText: `filesystem.${tool}` }) });

describe("approvals in the page", () => {
  it("does not take keys typed into the message box as it opens, and keeps the text", async () => {
    const target = join(stack.fsRoot, "typed-through.txt");
    await script(stack.llm.url, stack.llmKey, [reply.callReply("filesystem__write_file", { path: target, content: "x" }), reply.text("Not written.")]);
    answers.length = 0;
    await sendMessage(page, "write a file");
    const input = page.locator("#composer-input");
    await input.pressSequentially("and ", { delay: 20 });
    await page.locator("#approval-dialog[open]").waitFor();
    // Typed on while the dialog appears, past its arming delay: Space and Enter included.
    await page.keyboard.type("then tell me a joke", { delay: 60 });
    await page.keyboard.press("Enter");
    expect(await input.inputValue()).toBe("and then tell me a joke");
    expect(answers).toEqual([]);
    expect(await page.locator("#approval-dialog[open]").count()).toBe(1);
    expect(await card("write_file").last().locator(".tool-status").textContent()).toBe("waiting for approval");
    expect(existsSync(target)).toBe(false);
    await shot(page, "approval-typed-through");
    await page.locator("#deny").click();
    await page.locator(".msg.assistant", { hasText: "Not written." }).waitFor();
    expect(answers).toEqual([{ callId: expect.any(String), approved: false }]);
    expect(existsSync(target)).toBe(false);
    // The text typed meanwhile is still there, with focus back in the message box.
    expect(await input.inputValue()).toBe("and then tell me a joke");
    expect((await focus(page)).id).toBe("composer-input");
    await input.fill("");
    recordRow({
      suite: "Security",
      scenario: "Typing approves a tool call (issue 20.7)",
      done: 'typed "and then tell me a joke" + Enter in Chromium while a write_file approval opened (before the fix the space after "and" approved it)',
      figure: "0 approval frames sent while typing; the text kept whole in the message box; the write ran 0 times; Deny answered it",
      pass: true,
    });
  });

  it("asks for each of two calls that share one model id, each on its own card", async () => {
    const target = join(stack.fsRoot, "second-call.txt");
    await script(stack.llm.url, stack.llmKey, [
      reply.text(
        reply.call("filesystem__get_file_info", { path: join(stack.fsRoot, "notes.txt") }, { id: "dup" }),
        reply.call("filesystem__write_file", { path: target, content: "x" }, { id: "dup" }),
      ),
      reply.text("One of two."),
    ]);
    answers.length = 0;
    await sendMessage(page, "look, then write");
    const dialog = page.locator("#approval-dialog[open]");
    await dialog.locator("#approval-what", { hasText: "filesystem.get_file_info" }).waitFor();
    await dialog.locator("#approve-once").click();
    // A second dialog, for the write: "Allow once" above did not run it.
    await dialog.locator("#approval-what", { hasText: "filesystem.write_file" }).waitFor();
    expect(await dialog.locator("#approval-fields dt").allTextContents()).toEqual(["path", "content"]);
    expect(await dialog.locator("#approval-fields dd").allTextContents()).toEqual([target, "x"]);
    expect(existsSync(target)).toBe(false);
    await dialog.locator("#deny").click();
    await page.locator(".msg.assistant", { hasText: "One of two." }).waitFor();
    expect(answers.map((a) => a.approved)).toEqual([true, false]);
    expect(answers[0]?.callId).not.toBe(answers[1]?.callId);
    expect(await card("get_file_info").last().locator(".tool-status").textContent()).toBe("done");
    expect(await card("write_file").last().locator(".tool-status").textContent()).toBe("denied");
    expect(existsSync(target)).toBe(false);
    noPageErrors(page);
    recordRow({
      suite: "Security",
      scenario: "Two calls, one approval (issue 20.1)",
      done: 'one Gemini response with get_file_info and write_file under the same id "dup" (before the fix: one dialog, "Allow once" ran write_file unseen)',
      figure: "2 dialogs, 2 cards, 2 distinct call ids; allowing the first did not run the second; write_file ran 0 times",
      pass: true,
    });
  });
});
