// The chat's Schedules box (public/chat/schedules.js) in headless Chromium against the real
// stack: `/schedule weekdays 08:00 …` opens the form prefilled with the browser's zone, the
// chat's tools offered to pick; the schedule made is listed with its time, next run and the
// tools it may run without asking shown back, is still listed after a reload (the session's
// `schedules` frame), and Remove takes it away. A time that is not a schedule is refused with
// the field named.
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, overflow, PHONE, sendMessage, shots } from "./browser";

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

describe("the Schedules box", () => {
  it("makes a schedule from /schedule, lists it with its grants, keeps it over a reload, and removes it", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("hello")]);
    await sendMessage(page, "hi");
    await page.locator(".msg.assistant", { hasText: "hello" }).waitFor();
    await expect.poll(() => page.locator("#schedules-empty").isVisible()).toBe(true);

    await sendMessage(page, "/schedule weekdays 8:00 summarise new files in notes/");
    const form = page.locator("#schedule-form");
    await form.waitFor();
    expect(await form.locator('input[name="when"]').inputValue()).toBe("weekdays 8:00");
    expect(await form.locator('textarea[name="text"]').inputValue()).toBe("summarise new files in notes/");
    const zone = (await page.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone")) as string;
    expect(await form.locator('input[name="timeZone"]').inputValue()).toBe(zone);
    // Nothing sent to the model: the command is the page's.
    expect(await page.locator(".msg.user", { hasText: "/schedule" }).count()).toBe(0);

    // A time that is not a schedule: refused, the field named, the form kept.
    await form.locator('input[name="when"]').fill("sometimes");
    await form.getByRole("button", { name: "Schedule" }).click();
    await expect.poll(() => page.locator("#schedule-status").textContent()).toContain("schedule_invalid");
    expect(await page.locator("#schedule-status").textContent()).toContain("when");

    await form.locator('input[name="when"]').fill("weekdays 8:00");
    await form.getByLabel("filesystem.get_file_info").check();
    await form.getByRole("button", { name: "Schedule" }).click();
    const item = page.locator("#schedules li.schedule");
    await item.waitFor();
    expect(await item.locator(".schedule-when").textContent()).toMatch(new RegExp(`^weekdays 08:00 \\(${zone.replace("/", "\\/")}\\) · next `));
    expect(await item.locator(".schedule-grants").textContent()).toBe("May run without asking: filesystem.get_file_info");
    // The list is drawn from the chat's `schedules` frame, which may arrive before the POST's
    // answer that writes the status line.
    await expect.poll(() => page.locator("#schedule-status").textContent()).toContain("May run without asking: filesystem.get_file_info");
    expect(await page.locator("#schedules-empty").isHidden()).toBe(true);
    await page.locator("#schedules-section").screenshot({ path: join(shots, "schedules-box-desktop.png") });

    await page.reload();
    await page.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor({ state: "attached" });
    await item.waitFor({ state: "attached" });
    expect(await item.locator(".schedule-text").textContent()).toBe("summarise new files in notes/");

    await page.setViewportSize(PHONE);
    expect((await overflow(page)).overflow).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1200, height: 800 });

    await item.getByRole("button", { name: "Remove the schedule weekdays 08:00" }).click();
    await item.waitFor({ state: "detached" });
    await expect.poll(() => page.locator("#schedules-empty").isVisible()).toBe(true);
    noPageErrors(page);
  });
});
