// The Activity view (public/account/activity.js; docs/audit.md) in headless Chromium against
// the real stack: two write_file calls, one allowed and one denied in the approval dialog,
// are listed newest first with who asked, how each was decided and how it ended, sizes and
// short hashes and never the arguments; the JSON Lines download holds both records with the
// arguments' hash a person can recompute, the CSV download the same rows under its header;
// axe clean at both sizes, Escape closes it.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { axeCheck } from "./axe";
import { DESKTOP, launchBrowser, noPageErrors, openPage, PHONE, sendMessage, shot } from "./browser";

let browser: Browser;
let stack: Stack;
let page: Page;

beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack()]);
  page = await openPage(browser, stack, { viewport: DESKTOP });
}, 90_000);
afterAll(async () => {
  await Promise.all([browser?.close(), stack?.stop()]);
});

/** The records the person's trail holds now (what the view reads). */
const recorded = async () => ((await page.evaluate("fetch('/api/audit').then((r) => r.json())")) as { records: unknown[] }).records.length;

const download = async (selector: string) => {
  const [file] = await Promise.all([page.waitForEvent("download"), page.locator(selector).click()]);
  return { name: file.suggestedFilename(), text: readFileSync((await file.path()) ?? "", "utf8") };
};

describe("the Activity view", () => {
  it("lists each tool call with how it was decided, never its arguments, and downloads the trail as JSON Lines and CSV", async () => {
    const secret = `${stack.fsRoot}/activity-secret-name.txt`;
    const args = { path: secret, content: "marker-not-in-the-trail" };
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__write_file", args),
      reply.text("Written."),
      reply.callReply("filesystem__write_file", args),
      reply.text("Not written."),
    ]);
    const dialog = page.locator("#approval-dialog[open]");
    await sendMessage(page, "write it");
    await dialog.waitFor();
    await dialog.locator("#approve-once").click();
    await page.locator(".msg.assistant", { hasText: "Written." }).waitFor();
    await sendMessage(page, "write it again");
    await dialog.waitFor();
    await dialog.locator("#deny").click();
    await page.locator(".msg.assistant", { hasText: "Not written." }).waitFor();
    // The chat sends its records to the account within a couple of seconds of each turn.
    await expect.poll(recorded, { timeout: 15_000 }).toBe(2);

    await page.locator("#activity-open").click();
    const view = page.locator("#activity-dialog");
    await view.waitFor();
    const rows = view.locator("#activity-list li.activity-row");
    await expect.poll(() => rows.count()).toBe(2);
    const [denied, allowed] = await rows.allTextContents();
    expect(denied).toContain("filesystem.write_file");
    expect(denied).toMatch(/Asked by the model.*asked, denied/);
    expect(denied).toContain("not run: denied");
    expect(allowed).toMatch(/asked, allowed/);
    expect(allowed).toContain("; ran in ");
    const hash = createHash("sha256")
      .update(JSON.stringify({ content: args.content, path: args.path }))
      .digest("hex");
    expect(allowed).toContain(`sha256 ${hash.slice(0, 10)}…`);
    // Sizes and hashes only: neither the path nor the content reaches the view.
    const shown = (await view.textContent()) ?? "";
    expect(shown).not.toContain("activity-secret-name");
    expect(shown).not.toContain("marker-not-in-the-trail");
    expect(await page.locator("#activity-status").textContent()).toBe("2 tool calls, newest first.");
    expect(await view.locator("#activity-older").isHidden()).toBe(true);
    expect(await axeCheck(page, "activity")).toEqual([]);
    await shot(page, "activity-1200");

    const jsonl = await download("#activity-jsonl");
    expect(jsonl.name).toMatch(/^edgehost-audit-\d{4}-\d{2}-\d{2}\.jsonl$/);
    const records = jsonl.text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { tool: string; status: string; args: { sha256: string }; decision: { answer?: string } });
    // Oldest first in a download.
    expect(records.map((r) => [r.tool, r.decision.answer, r.status])).toEqual([
      ["write_file", "allowed", "ok"],
      ["write_file", "denied", "denied"],
    ]);
    expect(records.every((r) => r.args.sha256 === hash)).toBe(true);
    expect(jsonl.text).not.toContain("marker-not-in-the-trail");
    const csv = await download("#activity-csv");
    expect(csv.name).toMatch(/\.csv$/);
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]).toMatch(/^at_iso,/);
    expect(lines).toHaveLength(3);
    expect(csv.text).toContain(hash);

    await page.setViewportSize(PHONE);
    expect(await axeCheck(page, "activity, phone")).toEqual([]);
    await shot(page, "activity-390");
    await page.setViewportSize(DESKTOP);
    await page.keyboard.press("Escape");
    await view.waitFor({ state: "hidden" });
    noPageErrors(page);
  });
});
