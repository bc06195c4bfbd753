// The operator view as an operator opens it, in Chromium against the real stack
// (wrangler dev, the bridge, the fake Gemini) with ADMIN_USERS=local: after a turn that
// ran a tool through the bridge, /admin shows the user, the filesystem server ready and
// the tool's calls, with no script on the page.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, shot } from "./browser";

let browser: Browser;
let stack: Stack;
let page: Page;
beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack({ vars: { ADMIN_USERS: "local", TOOL_APPROVAL: "off" } })]);
});
afterAll(async () => {
  await page?.context().close();
  await stack?.stop();
  await browser?.close();
});

describe("/admin", () => {
  it("shows the operator the users, the servers' health and the tools' calls after a turn", async () => {
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__list_directory", { path: stack.fsRoot }),
      reply.callReply("filesystem__read_text_file", { path: `${stack.fsRoot}/no-such-file.txt` }),
      reply.stream(["Done."], { usage: { input: 120, output: 8 } }),
    ]);
    page = await openPage(browser, stack);
    await page.locator("#composer-input").fill("look around");
    await page.locator("#composer-input").press("Enter");
    await page.locator("#messages .assistant", { hasText: "Done." }).waitFor();

    // Reports arrive after the turn's answer, and the turn's tokens reach the account a
    // moment later (src/session/pending-usage.ts): the page is read again until both are in.
    const tools = page.locator("section", { has: page.locator("h2", { hasText: "Tools across sessions" }) });
    const users = page.locator("section", { has: page.locator("h2", { hasText: /^Users$/ }) });
    const local = users.locator("tbody tr", { hasText: "local" }).locator("td");
    await expect
      .poll(
        async () => {
          await page.goto(`${stack.url}/admin`);
          // The last answer's 128 tokens at least (the fake model's tool-call answers add their own).
          return { tools: await tools.locator("tbody tr").count(), tokens: Number((await local.nth(3).textContent())?.replace(/,/g, "")) >= 128 };
        },
        { timeout: 15_000, interval: 250 },
      )
      .toEqual({ tools: 2, tokens: true });
    const row = (name: string) => tools.locator("tbody tr", { has: page.locator("td", { hasText: new RegExp(`^${name}$`) }) });
    await expect.poll(() => row("list_directory").locator("td").nth(2).textContent()).toBe("1");
    await expect.poll(() => row("read_text_file").locator("td").nth(3).textContent()).toBe("1");
    const servers = page.locator("section", { has: page.locator("h2", { hasText: /^Servers$/ }) });
    expect(await servers.locator("tbody tr", { hasText: "filesystem" }).locator(".admin-state").textContent()).toBe("ready");
    expect(await local.nth(2).textContent()).toBe("1");
    const errors = page.locator("section", { has: page.locator("h2", { hasText: "Last errors" }) });
    expect(await errors.locator("tbody tr", { hasText: "read_text_file" }).count()).toBe(1);
    expect(await page.locator("script").count()).toBe(0);
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot(page, "admin");
    noPageErrors(page);
  });
});
