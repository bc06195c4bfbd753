// "My machines" as a developer uses it, in Chromium against the real stack: the link the
// `connect` command prints opens the page with the code filled in and the machine's name
// shown; Approve pairs it; the machine's server appears in the session's server list;
// Remove ends it at once (the command exits 4).
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConnect } from "../fixtures/paired-machine";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, shot } from "./browser";

let browser: Browser;
let stack: Stack;
let page: Page;
/** A second tab of the same person, with a chat of its own. */
let other: Page | undefined;
let connect: Awaited<ReturnType<typeof startConnect>> | undefined;
beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack({ model: false })]);
});
afterAll(async () => {
  if (connect && connect.child.exitCode === null) connect.child.kill("SIGTERM");
  await connect?.exited;
  await page?.context().close();
  await other?.context().close();
  await stack?.stop();
  await browser?.close();
});

describe("My machines", () => {
  it("pairs a machine from the link its terminal printed, shows it online with its servers, and removes it", async () => {
    connect = await startConnect(stack.url, "devbox");
    page = await openPage(browser, stack, { path: `/#pair=${connect.code}` });
    const dialog = page.locator("#my-machines-dialog[open]");
    await dialog.waitFor();
    expect(await page.locator("#pair-code").inputValue()).toBe(connect.code);
    await page.locator("#pair-what", { hasText: 'A machine named "devbox" asks to join your account' }).waitFor();
    await page.locator("#pair-approve").click();
    await connect.waitFor(/Online: everything of "devbox"/);
    await page.locator("#my-machines-refresh").click();
    const row = page.locator('#my-machines-list li[data-state="online"]', { hasText: "devbox" });
    await row.waitFor();
    expect(await row.locator(".hint").textContent()).toBe("Servers: devbox-everything");
    await shot(page, "my-machines");
    await page.locator("#my-machines-close").click();
    // A new session lists the machine's server beside the deployment's.
    await page.reload();
    await page.locator('#servers li[data-server="devbox-everything"][data-state="ready"]').waitFor({ state: "attached" });
    // Another chat of the person, in another tab, connects the machine's server too.
    const chatOf = (url: string) => new URLSearchParams(new URL(url).hash.slice(1)).get("s") ?? "";
    const chat = chatOf(page.url());
    other = await openPage(browser, stack);
    await other.locator("#new-session").click();
    await other.waitForURL((url) => chatOf(url.href) !== "" && chatOf(url.href) !== chat);
    const otherChat = chatOf(other.url());
    await other.locator('#servers li[data-server="devbox-everything"][data-state="ready"]').waitFor({ state: "attached" });
    await page.locator("#my-machines-open").click();
    await row.locator(".revoke").click();
    await page.locator("#confirm-ok").click();
    expect(await connect.exited).toBe(4);
    await page.locator("#my-machines-status", { hasText: 'Removed "devbox"' }).waitFor();
    // The page says so first, then reads the list again: the row goes once that answer is in.
    await page.locator("#my-machines-list li", { hasText: "devbox" }).waitFor({ state: "detached" });
    // This chat drops the removed machine's server at once, not at its next turn.
    await page.locator('#servers li[data-server="devbox-everything"]').waitFor({ state: "detached" });
    // The other chat, opened again in a new tab, no longer lists it either (it read its servers as the page joined).
    const again = await openPage(browser, stack, { path: `/#s=${otherChat}` });
    await again.locator('#servers li[data-server="devbox-everything"]').waitFor({ state: "detached" });
    expect(
      await again.locator("#servers li[data-server]").evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { server: string } }).dataset.server)),
    ).toEqual(["filesystem"]);
    noPageErrors(page);
    await again.context().close();
    // Waits on a pairing, the bridge's child and three pages: past the default 30 s on a busy machine.
  }, 90_000);

  it("says why a code is refused: not a code, not waiting, and too many wrong ones", async () => {
    const mine = await openPage(browser, stack);
    await mine.locator("#my-machines-open").click();
    const code = mine.locator("#pair-code");
    await code.fill("hello");
    await code.press("Tab");
    await mine.locator("#pair-what", { hasText: "That is not a pairing code: it is 8 letters and digits" }).waitFor();
    expect(await mine.locator("#pair-approve").isDisabled()).toBe(true);

    await code.fill("abcd-efgh");
    expect(await mine.locator("#pair-approve").isDisabled()).toBe(false);
    await code.press("Tab");
    const unknown = "No machine is waiting with this code: it expired (a code lasts 10 minutes), was used already, or is mistyped.";
    await mine.locator("#pair-what", { hasText: unknown }).waitFor();
    expect(await mine.locator("#pair-approve").isDisabled()).toBe(true);
    await shot(mine, "my-machines-code-refused");

    // Wrong codes count as failed sign-ins from the address: spend them, then try one more in the page.
    const statuses = (await mine.evaluate(`(async () => {
      const seen = [];
      for (let i = 0; i < 40 && !seen.includes(429); i++) {
        const r = await fetch("/api/machines/approve", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: "ABCD-EFGH" }) });
        seen.push(r.status);
      }
      return seen;
    })()`)) as number[];
    expect(statuses.at(-1)).toBe(429);
    await code.fill("WXYZ-2345");
    await code.press("Enter");
    await mine.locator("#my-machines-status", { hasText: /^Too many wrong codes from your address: try again in \d+ s\./ }).waitFor();
    expect(await mine.locator("#my-machines-dialog").textContent()).not.toContain("[object Object]");
    noPageErrors(mine);
    await mine.context().close();
  });
});
