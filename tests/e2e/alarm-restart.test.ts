// A session whose alarm is pending when the Worker restarts (here the retry of a server that
// went away) comes back: the alarm fires in the new process, which in local dev makes the
// object without its name, and agents then refused the alarm and every request to that
// session (500s on /ws and /history) until it was evicted, so the page never reconnected.
// The session keeps its name where agents looks for it (ChatSession.onStart).
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, openPage } from "./browser";

let browser: Browser;
let stack: Stack;
let page: Page;
beforeAll(async () => {
  browser = await launchBrowser();
  stack = await startStack({ model: false });
  page = await openPage(browser, stack);
});
afterAll(async () => {
  await page?.context().close();
  await stack?.stop();
  await browser?.close();
});

it("reconnects to a session whose server-retry alarm was pending across a Worker restart", async () => {
  await stack.killBridge();
  // The session shows the server unavailable and schedules its retry (an alarm).
  await page.locator('#servers li[data-server="filesystem"][data-state="unavailable"]').waitFor({ state: "attached" });
  const from = stack.workerLog().length;
  await stack.restartWorker();
  await page.locator("#conn[data-state=open]").waitFor({ state: "attached", timeout: 30_000 });
  expect(stack.workerLog().slice(from)).not.toMatch(/could not determine its Durable Object name/);
}, 120_000);
