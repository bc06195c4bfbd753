// "Your data" as a user uses it, in Chromium against the real stack: renaming a session
// from the list, downloading the export (the session and its history are in it), and
// deleting all sessions (the list starts again with one new, empty session).
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, shot } from "./browser";
import { rowAction } from "./session-menu";

let browser: Browser;
let stack: Stack;
let page: Page;
beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack({ model: false })]);
});
afterAll(async () => {
  await page?.context().close();
  await stack?.stop();
  await browser?.close();
});

describe("Your data", () => {
  it("renames a session, exports it, and deletes all sessions", async () => {
    page = await openPage(browser, stack);
    const current = page.locator("#sessions li.current");
    await current.waitFor();
    const firstId = await current.getAttribute("data-session");
    // A message without a model still becomes history (the notice says so).
    await page.locator("#composer-input").fill("hello, history");
    await page.locator("#composer-input").press("Enter");
    await page.locator("#messages .user", { hasText: "hello, history" }).waitFor();

    await rowAction(page, current, "rename");
    const field = page.locator("#arguments-dialog[open] input[name=title]");
    await field.fill("Renamed by hand");
    await page.locator("#arguments-submit").click();
    await page.locator("#sessions li.current .link", { hasText: "Renamed by hand" }).waitFor();
    await shot(page, "my-data");

    const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#export-json").click()]);
    expect(download.suggestedFilename()).toMatch(/^edgehost-export-\d{4}-\d{2}-\d{2}\.json$/);
    const exported = JSON.parse(readFileSync((await download.path()) ?? "", "utf8")) as {
      sessions: { id: string; title: string; entries: { kind: string; text?: string }[] }[];
    };
    const session = exported.sessions.find((s) => s.id === firstId);
    expect(session?.title).toBe("Renamed by hand");
    expect(session?.entries.some((e) => e.kind === "user" && e.text === "hello, history")).toBe(true);

    await page.locator("#delete-all-sessions").click();
    await page.locator("#confirm-ok").click();
    // One new session, empty, and the old one gone from the list.
    await page.locator(`#sessions li[data-session="${firstId}"]`).waitFor({ state: "detached" });
    await page.locator("#sessions li.current").waitFor();
    expect(await page.locator("#sessions li").count()).toBe(1);
    expect(await page.locator("#messages .user").count()).toBe(0);
    noPageErrors(page);
  });
});
