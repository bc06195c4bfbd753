// A tool call that the server made a task (MCP Tasks), in headless Chromium against the
// real stack and a bridge of its own in front of tests/fixtures/task-server.mjs (reached
// by URL, so the session speaks 2026 with it): the tool card shows the task running and a
// Cancel, still after a reload (the session sends its held tasks' state on connect); Cancel
// stops it at the server, the card says so, and the model answers the cancelled call. A task
// that ends after its turn was cut (the Worker restarted mid-wait) opens a follow-up turn,
// whose first entry the page shows as a note of the task, live and in the history.
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { reply, script } from "../fixtures/fake-llm-script";
import { repoRoot } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, sendMessage } from "./browser";

let browser: Browser;
let stack: Stack;
let bridge: RunningBridge;
let page: Page;

beforeAll(async () => {
  bridge = await startBridge({ tasks: { command: process.execPath, args: [join(repoRoot, "tests", "fixtures", "task-server.mjs")] } }, ["--no-watch"]);
  const tasks = { url: `${bridge.url}/servers/tasks/mcp`, headers: { Authorization: `Bearer ${bridge.token}` }, alwaysAllow: ["slow_compute"] };
  [browser, stack] = await Promise.all([launchBrowser(), startStack({ mcpServers: { tasks } })]);
  page = await openPage(browser, stack);
  await page.locator('#servers li[data-server="tasks"][data-state="ready"]').waitFor({ state: "attached" });
}, 90_000);
afterAll(async () => {
  await Promise.all([browser?.close(), stack?.stop(), bridge?.stop()]);
});

const taskOf = (status: string) => page.locator(`.tool-card .tool-task[data-status="${status}"]`, { hasText: "task" });

describe("a task's tool card", () => {
  it("shows the task running with a Cancel, again after a reload; Cancel stops it and the model hears so", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.callReply("tasks__slow_compute", { label: "page" }), reply.text("The computation was stopped.")]);
    await sendMessage(page, "compute until I stop you");
    await taskOf("working").waitFor();
    expect(await taskOf("working").locator(".task-state").textContent()).toBe("task running…");

    await page.reload();
    const card = page.locator(".tool-card", { hasText: "tasks.slow_compute" });
    await card.locator('.tool-task[data-status="working"]').waitFor();
    await card.getByRole("button", { name: "Cancel the task of tasks.slow_compute" }).click();
    await card.locator('.tool-task[data-status="cancelled"]').waitFor();
    expect(await card.locator(".task-cancel").count()).toBe(0);
    await page.locator(".msg.assistant", { hasText: "The computation was stopped." }).waitFor();
    noPageErrors(page);
  });

  it("shows the follow-up of a task that ended after its turn was cut as a note of the task, not as the person's message, also after a reload", async () => {
    const label = `note-${Date.now()}`;
    await script(stack.llm.url, stack.llmKey, [reply.callReply("tasks__slow_compute", { label }), reply.text("Your computation is done.")]);
    await sendMessage(page, "compute, I may leave");
    const card = page.locator(".tool-card", { hasText: "tasks.slow_compute" }).last();
    await card.locator('.tool-task[data-status="working"]').waitFor();
    // The turn waiting on the task ends with the Worker; the task runs on at its server. The
    // person opens the page again (not waiting for the closed page's reconnect backoff).
    await stack.restartWorker();
    await page.reload();
    await card.locator('.tool-task[data-status="working"]').waitFor();
    const { client } = await connectClient(bridge, "tasks");
    try {
      const released = await client.callTool({ name: "release", arguments: { label } });
      expect(released.content).toEqual([{ type: "text", text: "released 1" }]);
    } finally {
      await client.close();
    }
    const note = page.locator(".msg.notice.task-note", { hasText: "Task tasks.slow_compute finished" });
    await note.waitFor({ timeout: 60_000 });
    await page.locator(".msg.assistant", { hasText: "Your computation is done." }).waitFor();
    // What the model was told is folded under the note; no line says the person wrote it.
    expect(await note.locator(".task-note-text").textContent()).toContain(`done ${label}`);
    expect(await page.locator(".msg.user", { hasText: "has finished" }).count()).toBe(0);

    await page.reload();
    await page.locator(".msg.notice.task-note", { hasText: "Task tasks.slow_compute finished" }).waitFor();
    expect(await page.locator(".msg.user", { hasText: "has finished" }).count()).toBe(0);
    noPageErrors(page);
  }, 120_000);
});
