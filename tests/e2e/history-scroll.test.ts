// A long conversation in the page (issue 27), headless Chromium against the real
// stack (wrangler dev, the bridge with server-filesystem, the fake Gemini in auto
// mode): the page opens with the newest part only, its big tool results shortened
// with "Show all" fetching them whole, and the session's whole token total; scrolling
// up loads the older parts above (the reader's place kept) until the first message.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession } from "../fixtures/session-client-node";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage } from "./browser";

const TURNS = 60;
const BIG = `${"lorem ipsum dolor sit amet ".repeat(1_500)}end of file\n`; // ~40 KB: a structured result is cut past 32,000 characters

let browser: Browser;
let stack: Stack;
const id = crypto.randomUUID();
beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack()]);
  writeFileSync(join(stack.fsRoot, "big.txt"), BIG);
  // Each turn: the question, a read of big.txt (40 KB result), the answer.
  const auto = { call: { call: { name: "filesystem__read_text_file", args: { path: join(stack.fsRoot, "big.txt") } } }, text: "done" };
  await fetch(`${stack.llm.url}/__auto/${stack.llmKey}`, { method: "POST", body: JSON.stringify(auto) });
  const socket = await openSession(stack.url, id);
  for (let i = 0; i < TURNS; i++) {
    const { end } = await socket.turnEnd(socket.say(`question ${i}`));
    expect(end.reason).toBe("complete");
  }
  await socket.close();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const questions = (page: Page) => page.locator("#messages > li.msg.user").evaluateAll((els) => els.map((e) => e.firstChild?.textContent ?? ""));

describe("a long conversation in the page", () => {
  it("opens with the newest part, shows big results whole on request, and loads the older parts on scrolling up", async () => {
    const page = await openPage(browser, stack, { path: `/#s=${id}` });
    await page.locator("#messages > li.msg.user", { hasText: `question ${TURNS - 1}` }).waitFor();
    const first = await questions(page);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(TURNS);
    expect(first.at(-1)).toBe(`question ${TURNS - 1}`);
    // Opened at its end. The older messages (all but the list's last dozen items) skip their
    // contents while off screen (content-visibility: a streamed frame does not walk the whole
    // chat); the newest do not, so the end the list scrolled to is the real one.
    const list = page.locator("#messages");
    await expect.poll(() => list.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThanOrEqual(24);
    const skipping = await list.evaluate((el: any) => {
      const items = [...el.children];
      const older = items.slice(0, -12).filter((m: any) => m.matches(".msg.assistant"));
      const look = (m: any) => el.ownerDocument.defaultView.getComputedStyle(m).contentVisibility;
      return {
        older: [...new Set(older.map(look))],
        newest: look(items.filter((m: any) => m.matches(".msg")).at(-1)),
        // The oldest answer's text is not rendered while the view is at the end.
        oldestSkipped: !older[0].querySelector(".body").checkVisibility({ contentVisibilityAuto: true }),
      };
    });
    expect(skipping).toEqual({ older: ["auto"], newest: "visible", oldestSkipped: true });

    // The sidebar's total is the session's, turns not shown included.
    const server = (await (await fetch(`${stack.url}/sessions/${id}/history`)).json()) as { usageTotal: { inputTokens: number; outputTokens: number } };
    expect(server.usageTotal.inputTokens).toBeGreaterThan(0);
    const total = new Intl.NumberFormat("en").format(server.usageTotal.inputTokens);
    expect(await page.locator("#usage-total .figure").textContent()).toContain(`${total} in`);

    // A shortened result: "Show all" puts the whole file in place.
    const card = page.locator("#messages > li.tool-card").last();
    await card.locator("summary").click();
    const result = card.locator(".tool-result");
    expect(((await result.textContent()) ?? "").length).toBeLessThan(BIG.length);
    await card.locator("button.show-whole").click();
    await expect.poll(async () => (await result.textContent())?.includes("end of file")).toBe(true);
    await expect.poll(async () => await card.locator("button.show-whole").count()).toBe(0);

    // Scrolling up: older parts come in above, the reader's place kept, down to the first question.
    let shown = first.length;
    for (let round = 0; round < 20 && shown < TURNS; round++) {
      const [top] = await questions(page);
      // Where the top question is the moment the list reaches the top (before anything loads).
      const before = await list.evaluate((el) => {
        el.scrollTop = 0;
        return el.querySelector("li.msg.user")?.getBoundingClientRect().y ?? Number.NaN;
      });
      await expect.poll(async () => (await questions(page)).length).toBeGreaterThan(shown);
      shown = (await questions(page)).length;
      // The older part went in above it: it stays where the reader saw it.
      const after = await page
        .locator("#messages > li.msg.user")
        .filter({ hasText: new RegExp(`^${top}$`) })
        .evaluate((el) => el.getBoundingClientRect().y);
      expect(Math.abs(after - before)).toBeLessThan(3);
    }
    expect(await questions(page)).toEqual(Array.from({ length: TURNS }, (_, i) => `question ${i}`));
    expect(await list.getAttribute("data-older")).toBe("");
    noPageErrors(page);
  });
});
