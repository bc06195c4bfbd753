// A long answer streamed through the real Worker (wrangler dev, the fake Gemini writing it
// paced, chunk by chunk) into the page in headless Chromium: it is rendered right once
// complete (the same DOM as a fresh render of the stored answer, highlighted code, no
// streaming state left), and rendered incrementally: a block that is final keeps its DOM
// nodes from the render that settled it to the end, finish pass included (an answer
// rebuilt per delta, or once more at the end, fails here); between Markdown renders the new
// text is shown plainly, and there are far fewer renders than deltas; its code is highlighted in
// the Web Worker (in idle time on the page when that cannot load). Timings are bench figures
// (bench/page-stream.ts), not asserted here.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, sendMessage } from "./browser";

const PARTS = 24;

function section(i: number): string {
  // 3 to 21 lines: the longer ones are coloured over several frames (code-highlight.js).
  const code = Array.from({ length: 3 + (i % 4) * 6 }, (_, k) => `    total += step(${i}, ${k})  # part ${i}`);
  return [
    `### Part ${i}`,
    "",
    `Prose for part ${i} with **bold**, \`code\` and a [link](https://example.com/${i}).`,
    "",
    "- a point",
    "  - a sub-point",
    "",
    "| key | value |",
    "|---|--:|",
    `| part | ${i} |`,
    "",
    "```python",
    `def part_${i}(total):`,
    ...code,
    "    return total",
    "```",
    "",
  ].join("\n");
}
const ANSWER = Array.from({ length: PARTS }, (_, i) => section(i + 1)).join("\n");
/**
 * Until every Python block in `body` shows its coloured spans (code-highlight.js): a history entry's code is
 * highlighted after it is shown (in the Web Worker, or in idle time), as a streamed one's is.
 */
async function highlightedAll(page: Page, selector: string): Promise<void> {
  // Whole: a long block is coloured over several frames (hl-colouring until its last piece).
  // Rendered first: text shown plainly while the renderer's chunk loads (.md-pending, markdown-load.js) has no
  // code blocks yet, and "every block highlighted" held of none (the history was then highlighted under WATCH).
  await page.waitForFunction(
    `document.querySelector(${JSON.stringify(`${selector} .md-pending`)}) === null && [...document.querySelectorAll(${JSON.stringify(`${selector} pre > code.language-python`)})].every((code) => code.querySelector(".hl-keyword") && !code.classList.contains("hl-colouring"))`,
    undefined,
    { polling: "raf", timeout: 30_000 },
  );
}
const pieces = (text: string, size: number): string[] => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

/**
 * Watches the answer while it streams: each time a new heading shows, the headings before
 * the previous one are final (blocks follow them), and their nodes (and their tables') are
 * kept by reference, to be compared with the finished answer's.
 */
const WATCH = `(() => {
  const list = document.getElementById("messages");
  const before = list.querySelectorAll(".msg.assistant").length;
  const kept = (window.__kept = { headings: [], tables: [], renders: 0, sawStreaming: false, markdownRenders: 0, sawPlain: false, highlightedIn: {} });
  // Each Markdown render of the answer (stream-render.js marks them; the plain text between them is not one).
  new PerformanceObserver((entries) => { for (const e of entries.getEntries()) if (e.name === "answer render") kept.markdownRenders++; }).observe({ type: "measure" });
  // Each code block shown highlighted, and where highlight.js ran for it (code-highlight.js measures them).
  new PerformanceObserver((entries) => {
    for (const e of entries.getEntries()) if (e.name === "code highlighted") kept.highlightedIn[e.detail.where] = (kept.highlightedIn[e.detail.where] ?? 0) + 1;
  }).observe({ type: "measure" });
  new MutationObserver(() => {
    const answers = list.querySelectorAll(".msg.assistant");
    const answer = answers.length > before ? answers[answers.length - 1] : null;
    const body = answer?.querySelector(".body");
    if (!body) return;
    kept.renders++;
    if (answer.classList.contains("streaming")) kept.sawStreaming = true;
    if (body.querySelector(".md-open")) kept.sawPlain = true;
    const headings = body.querySelectorAll("h5");
    const tables = body.querySelectorAll("table");
    for (let i = kept.headings.length; i < headings.length - 2; i++) kept.headings.push(headings[i]);
    for (let i = kept.tables.length; i < Math.min(tables.length, headings.length) - 2; i++) kept.tables.push(tables[i]);
  }).observe(list, { childList: true, subtree: true });
  // Writes to the "Jump to latest" button while the answer streams and the reader follows it:
  // its state does not change, and a write of the same value is a style invalidation per frame.
  kept.jumpWrites = 0;
  new MutationObserver((records) => { kept.jumpWrites += records.length; }).observe(document.getElementById("jump-latest"), { attributes: true });
})()`;

describe("a long streamed answer", () => {
  let browser: Browser;
  let stack: Stack;
  let page: Page;
  beforeAll(async () => {
    [browser, stack] = await Promise.all([launchBrowser(), startStack()]);
    page = await openPage(browser, stack);
    // wrangler dev's start on a loaded machine: a real event waited for, not a sleep.
  }, 180_000);
  afterAll(async () => {
    await page?.context().close();
    await browser?.close();
    await stack?.stop();
  });

  it("is rendered right when complete, and incrementally: final blocks keep their nodes to the end", async () => {
    await page.evaluate(WATCH);
    // 40 characters every 5 ms: hundreds of deltas, which the page renders as they come.
    const deltas = pieces(ANSWER, 40);
    await script(stack.llm.url, stack.llmKey, [reply.stream(deltas, { chunkMs: 5 })]);
    await sendMessage(page, "a long answer please");
    const body = page.locator(".msg.assistant:not(.streaming) .body", { hasText: `Part ${PARTS}` }).last();
    await body.waitFor({ timeout: 60_000 });
    await page.locator("#send:not([hidden])").waitFor();

    const live = (await body.evaluate((el: any) => {
      const kept = (globalThis as any).__kept;
      const headings = [...el.querySelectorAll("h5")];
      const tables = [...el.querySelectorAll("table")];
      return {
        sawStreaming: kept.sawStreaming as boolean,
        renders: kept.renders as number,
        markdownRenders: kept.markdownRenders as number,
        sawPlain: kept.sawPlain as boolean,
        jumpWrites: kept.jumpWrites as number,
        highlightedIn: kept.highlightedIn as Record<string, number>,
        kept: kept.headings.length as number,
        keptTables: kept.tables.length as number,
        // Each kept node is the very node the finished answer shows at its place.
        headingsSame: kept.headings.every((h: any, i: number) => h === headings[i]),
        tablesSame: kept.tables.every((t: any, i: number) => t === tables[i]),
        headings: headings.map((h: any) => h.textContent),
        tables: tables.length,
        code: [...el.querySelectorAll("pre > code")].map((c: any) => ({ lang: c.className, keywords: c.querySelectorAll(".hl-keyword").length })),
        html: el.innerHTML as string,
      };
    })) as {
      sawStreaming: boolean;
      renders: number;
      markdownRenders: number;
      sawPlain: boolean;
      jumpWrites: number;
      highlightedIn: Record<string, number>;
      kept: number;
      keptTables: number;
      headingsSame: boolean;
      tablesSame: boolean;
      headings: string[];
      tables: number;
      code: { lang: string; keywords: number }[];
      html: string;
    };

    // Right when complete: every part, its table, its highlighted Python.
    expect(live.headings).toEqual(Array.from({ length: PARTS }, (_, i) => `Part ${i + 1}`));
    expect(live.tables).toBe(PARTS);
    expect(live.code).toHaveLength(PARTS);
    for (const code of live.code) {
      expect(code.lang).toContain("language-python");
      expect(code.keywords).toBeGreaterThan(0);
    }
    expect(await page.locator(".msg.assistant.streaming").count()).toBe(0);
    // highlight.js ran in the Web Worker for every block, never on the page's main thread
    // (code-highlight.js's idle fallback, or a synchronous render, would show here).
    expect(live.highlightedIn).toEqual({ worker: PARTS });

    // Incremental: it streamed (many renders, seen in the streaming state), and the blocks that
    // were final early on are the same nodes at the end, through the finish pass.
    expect(live.sawStreaming).toBe(true);
    expect(live.renders).toBeGreaterThan(10);
    expect(live.kept).toBe(PARTS - 2);
    expect(live.keptTables).toBeGreaterThanOrEqual(PARTS - 3);
    expect(live.headingsSame).toBe(true);
    expect(live.tablesSame).toBe(true);
    // The hot path is plain text: between Markdown renders the new words were shown as text
    // (a .md-open element), and there were far fewer renders than deltas (a pass renders the
    // blocks completed since the last one; a render per delta or per frame fails here).
    expect(live.sawPlain).toBe(true);
    expect(live.markdownRenders).toBeGreaterThan(1);
    expect(live.markdownRenders * 2).toBeLessThan(deltas.length);
    // Following to the end, the jump button stayed hidden and was never written (follow.js).
    expect(live.jumpWrites).toBe(0);

    // The answer scrolls in the list, never the page: what is placed absolutely in the list (the
    // turn's visually hidden tokens label, at the answer's end) belongs to the list. It belonged
    // to the chat around it and made the whole page as tall as the conversation.
    await page.locator("#messages > .turn-usage").last().waitFor({ state: "attached" });
    const [pageHeight, windowHeight] = (await page.evaluate("[document.scrollingElement.scrollHeight, innerHeight]")) as number[];
    expect(pageHeight).toBe(windowHeight);

    // The same DOM as a fresh render of the stored answer (the history after a reload).
    await page.reload();
    const replayed = page.locator(".msg.assistant .body", { hasText: `Part ${PARTS}` }).last();
    await replayed.waitFor();
    await highlightedAll(page, "#messages");
    expect(await replayed.evaluate((el: any) => el.innerHTML)).toBe(live.html);
    noPageErrors(page);
  }, 120_000);

  it("highlights its code in idle time on the page when the highlight worker cannot load, the same as a fresh render", async () => {
    const context = await browser.newContext();
    try {
      // The worker's script fails to load (a page left open across builds could meet this).
      await context.route(/\/assets\/highlight-worker-[^/]+\.js$/, (route) => route.fulfill({ status: 404, body: "" }));
      const other = await openPage(browser, stack, { context });
      // The chat's history (the answer above) is highlighted on the page too: counted before this answer's two blocks.
      await other
        .locator(".msg.assistant .body", { hasText: `Part ${PARTS}` })
        .last()
        .waitFor();
      await highlightedAll(other, "#messages");
      await other.evaluate(WATCH);
      await script(stack.llm.url, stack.llmKey, [reply.stream(pieces(`${section(1)}\n${section(2)}\nTwo parts, no worker.`, 40), { chunkMs: 5 })]);
      await sendMessage(other, "two parts please");
      const body = other.locator(".msg.assistant:not(.streaming) .body", { hasText: "no worker" });
      await body.waitFor();
      const live = (await body.evaluate((el: any) => ({
        highlightedIn: (globalThis as any).__kept.highlightedIn,
        keywords: [...el.querySelectorAll("pre > code")].map((c: any) => c.querySelectorAll(".hl-keyword").length),
        html: el.innerHTML,
      }))) as { highlightedIn: Record<string, number>; keywords: number[]; html: string };
      expect(live.highlightedIn).toEqual({ idle: 2 });
      expect(live.keywords).toHaveLength(2);
      for (const keywords of live.keywords) expect(keywords).toBeGreaterThan(0);
      await other.reload();
      const replayed = other.locator(".msg.assistant .body", { hasText: "no worker" });
      await replayed.waitFor();
      await highlightedAll(other, "#messages");
      expect(await replayed.evaluate((el: any) => el.innerHTML)).toBe(live.html);
      noPageErrors(other);
    } finally {
      await context.close();
    }
  }, 120_000);
});
