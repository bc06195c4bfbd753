// Answers as Markdown (markdown-it + DOMPurify, public/chat/markdown.js) and tool results
// as they read (public/chat/tool-result.js), in headless Chromium against the real stack:
// wrangler dev, the bridge with server-filesystem and server-everything, the fake Gemini.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { everythingBin, repoRoot } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openConsole, openPage, overflow, PHONE, sendMessage, shot, shots } from "./browser";
import { servePageModule } from "./page-module";
import { expectWithin } from "../reliability/record";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Text in pieces of `size` characters: a stream whose deltas cut through every construct. */
const pieces = (text: string, size: number): string[] => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

const ANSWER = [
  "## Results",
  "",
  "| Tool | Calls | Notes |",
  "|:-----|------:|:-----:|",
  "| `list_directory` | 12 | fast |",
  "| read_text_file | 3 | *slow* |",
  "",
  "1. First step",
  "   - nested bullet",
  "     - deeper bullet",
  "   - second nested",
  "2. Second step",
  "",
  "> A quoted line",
  "> that goes on.",
  "",
  "---",
  "",
  "See [the pipe article](https://en.wikipedia.org/wiki/Pipe_(Unix)) and compute 2*3*4 = 24, with **bold** and *italic* words.",
  "",
  "Inline `const x = 1;` and a block:",
  "",
  "```js",
  'const html = "<b>not bold</b>";',
  "console.log(html);",
  "```",
  "",
  "Raw HTML: <img src=x onerror=alert(1)> and <script>alert(2)</script>.",
  "",
  '<div onclick="alert(3)">block html</div>',
  "",
  "Bad links: [x](javascript:alert(1)), [y](data:text/html;base64,PHNjcmlwdD5hbGVydCg0KTwvc2NyaXB0Pg==), [z](vbscript:msgbox(5)), <javascript:alert(6)>.",
  "",
  "A picture: ![the logo](https://example.com/logo.png)",
].join("\n");

/** What the test reads off a rendered answer, in one round trip. */
interface AnswerDom {
  headings: string[];
  th: string[];
  td: string[];
  align: (string | null)[];
  nested: string[];
  deeper: string[];
  ordered: number;
  quote: string;
  hr: number;
  links: { href: string; text: string; target: string | null; rel: string | null }[];
  em: string[];
  strong: string[];
  inlineCode: string[];
  fenced: { text: string; className: string };
  dangerous: string[];
  /** The fenced block's coloured spans (code-highlight.js), "class:text". */
  painted: string[];
  text: string;
  html: string;
}

async function readAnswer(body: Locator): Promise<AnswerDom> {
  // Runs in the page: the element is a DOM element there (the project's TypeScript has no DOM types).
  return body.evaluate((body: any): AnswerDom => {
    const all = (s: string): any[] => [...body.querySelectorAll(s)];
    const texts = (s: string): string[] => all(s).map((e) => e.textContent);
    const pre = body.querySelector("pre > code");
    return {
      headings: all("h1,h2,h3,h4,h5,h6").map((h) => `${h.tagName}:${h.textContent}`),
      th: texts("table thead th"),
      td: texts("table tbody td"),
      align: all("table thead th").map((th) => th.getAttribute("data-align")),
      nested: texts("ol > li > ul > li").map((t) => t.split("\n")[0] ?? ""),
      deeper: texts("ol > li > ul > li > ul > li"),
      ordered: all("ol > li").length,
      quote: body.querySelector("blockquote")?.textContent ?? "",
      hr: all("hr").length,
      links: all("a").map((a) => ({ href: a.getAttribute("href"), text: a.textContent, target: a.getAttribute("target"), rel: a.getAttribute("rel") })),
      em: texts("em"),
      strong: texts("strong"),
      inlineCode: texts(":not(pre) > code"),
      fenced: { text: pre?.textContent ?? "", className: pre?.className ?? "" },
      dangerous: all("script, img, iframe, object, embed, svg, [onerror], [onclick], [style], div").map((e) => e.outerHTML),
      painted: pre ? [...pre.children].map((span: any) => `${span.className}:${span.textContent}`) : [],
      text: body.textContent,
      html: body.innerHTML,
    };
  });
}

function expectRenderedAnswer(dom: AnswerDom): void {
  expect(dom.headings).toEqual(["H4:Results"]);
  expect(dom.th).toEqual(["Tool", "Calls", "Notes"]);
  expect(dom.td).toEqual(["list_directory", "12", "fast", "read_text_file", "3", "slow"]);
  expect(dom.align).toEqual(["left", "right", "center"]);
  expect(dom.nested).toEqual(["nested bullet", "second nested"]);
  expect(dom.deeper).toEqual(["deeper bullet"]);
  expect(dom.ordered).toBe(2);
  expect(dom.quote.trim()).toBe("A quoted line\nthat goes on.");
  expect(dom.hr).toBe(1);
  // The URL with parentheses is whole; the image is a link to it (nothing is loaded); no refused scheme is a link.
  expect(dom.links).toEqual([
    { href: "https://en.wikipedia.org/wiki/Pipe_(Unix)", text: "the pipe article", target: "_blank", rel: "noopener noreferrer" },
    { href: "https://example.com/logo.png", text: "the logo", target: "_blank", rel: "noopener noreferrer" },
  ]);
  expect(dom.text).toContain("2*3*4 = 24");
  expect(dom.em).toEqual(["slow", "italic"]);
  expect(dom.strong).toEqual(["bold"]);
  expect(dom.inlineCode).toEqual(["list_directory", "const x = 1;"]);
  expect(dom.fenced).toEqual({ text: 'const html = "<b>not bold</b>";\nconsole.log(html);\n', className: "language-js" });
  expect(dom.painted).toEqual(["hl-keyword:const", 'hl-string:"<b>not bold</b>"', "hl-title:log"]);
  // Raw HTML is text; refused links read as what was written.
  expect(dom.dangerous).toEqual([]);
  expect(dom.text).toContain("Raw HTML: <img src=x onerror=alert(1)> and <script>alert(2)</script>.");
  expect(dom.text).toContain('<div onclick="alert(3)">block html</div>');
  expect(dom.text).toContain("[x](javascript:alert(1))");
  expect(dom.text).toContain("[y](data:text/html;base64,PHNjcmlwdD5hbGVydCg0KTwvc2NyaXB0Pg==)");
  expect(dom.text).toContain("[z](vbscript:msgbox(5))");
  expect(dom.text).toContain("<javascript:alert(6)>");
  expect(dom.html).not.toMatch(/href="\s*(javascript|vbscript|data):/i);
}

describe("answers as Markdown", () => {
  let stack: Stack;
  let page: Page;
  /** The session of the first answer (`#s=…`): the figures open sessions of their own. */
  let firstSession = "";
  /** Where the page imports public/chat/markdown.js from, to render with it directly. */
  let markdownModule = "";
  const dialogs: string[] = [];
  beforeAll(async () => {
    stack = await startStack();
    page = await openPage(browser, stack);
    markdownModule = await servePageModule(page, stack.url, "chat/markdown.js");
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  });
  afterAll(async () => {
    await page?.context().close();
    await stack?.stop();
  });

  it("renders a streamed answer: table, nested lists, quote, rule, links, code; raw HTML and bad links stay text", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text(...pieces(ANSWER, 37))]);
    await sendMessage(page, "show me everything");
    const body = page.locator(".msg.assistant:not(.streaming) .body").last();
    await body.locator("hr").waitFor();
    await page.locator("#send:not([hidden])").waitFor();
    const live = await readAnswer(body);
    expectRenderedAnswer(live);
    firstSession = new URL(page.url()).hash;
    await shot(page, "md-1-answer");
    // History replay renders the stored text the same way.
    await page.reload();
    const replayed = page.locator(".msg.assistant .body", { hasText: "See the pipe article" }).last();
    await replayed.waitFor();
    // Its code is highlighted after it shows (off the main thread, code-highlight.js), as a streamed answer's is.
    await expect.poll(() => readAnswer(replayed), { timeout: 15_000 }).toEqual(live);
    expect(dialogs).toEqual([]);
    noPageErrors(page);
  });

  it("renders the part of an answer that has arrived while it streams", async () => {
    await script(stack.llm.url, stack.llmKey, [
      reply.hang("| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n  - two\n\nSo far 2*3*4 and [a link](https://example.com/x_(y)) then [more]("),
    ]);
    await sendMessage(page, "take your time");
    const streaming = page.locator(".msg.assistant.streaming .body");
    await streaming.locator("table td", { hasText: "2" }).waitFor();
    expect(await streaming.locator("ul > li > ul > li").textContent()).toBe("two");
    expect(await streaming.locator("em").count()).toBe(0);
    // A link is one once it is complete; the one still arriving is text until then.
    expect(await streaming.locator("a").evaluateAll((links) => links.map((a) => a.getAttribute("href")))).toEqual(["https://example.com/x_(y)"]);
    await shot(page, "md-2-streaming");
    await page.locator("#stop").click();
    await page.locator("#send:not([hidden])").waitFor();
    expect(await page.locator(".msg.assistant.partial table").count()).toBeGreaterThan(0);
  });

  it("renders every prefix of a streamed answer as a whole render of that prefix would, including blocks a later line changes", async () => {
    // Each document is cut after every character: the page's incremental render (which
    // settles blocks and re-parses only the open tail) must equal a fresh render each time.
    const documents = [
      "A paragraph\nthat goes on\n===\n\nText\n| a | b |\n|---|---|\n| 1 | 2 |\nafter the table\n\nmore",
      "1. one\n\n2\n\n2. two\n3. three\n\n- a\n- b\n\n  still b\n- c\n\nend",
      "```python\ndef f():\n    return 1\n```\ntext right after\n\n~~~~\n```\nnot closed by backticks\n~~~~\n\n    indented code\n\n    more of it\nparagraph",
      "> quote\ncontinued lazily\n\n> another\n\n---\nrule above\n\nSetext?\n---\n\n* * *\n\n| x |\n|-x|\nnot a table",
      "Use [the docs][d] and [more][m].\n\nSome text.\n\n[d]: https://example.com/docs\n[m]: https://example.com/more 'More'\n\nAfter the references.",
      "Para\n- item interrupts\n- second\n\n```\nopen fence at the end\nstill open",
      // More blocks than a chunk holds (markdown.js keeps final blocks in chunks of 32).
      Array.from({ length: 40 }, (_, i) => (i % 10 === 9 ? `\`\`\`js\nlet x${i} = ${i};\n\`\`\`` : `Line ${i} with *some* words.`)).join("\n\n"),
    ];
    const mismatches = (await page.evaluate(`(async () => {
      const { renderMarkdownInto } = await import("${markdownModule}");
      const docs = ${JSON.stringify(documents)};
      const bad = [];
      for (const doc of docs) {
        const streamed = document.createElement("div");
        for (let end = 1; end <= doc.length; end++) {
          renderMarkdownInto(streamed, doc.slice(0, end));
          const once = document.createElement("div");
          renderMarkdownInto(once, doc.slice(0, end));
          if (streamed.innerHTML !== once.innerHTML) { bad.push({ prefix: doc.slice(0, end), streamed: streamed.innerHTML, whole: once.innerHTML }); break; }
        }
      }
      return bad;
    })()`)) as unknown[];
    expect(mismatches).toEqual([]);
  }, 120_000);

  it("highlights a code block whose closing line comes in a render of its own, after its last line", async () => {
    // A stream cut at a line end inside a fence renders it open (not highlighted); the next
    // render adds only the closing line, and the block's HTML does not change: it must still
    // be highlighted then (stream-render.js cuts slices at line ends inside long blocks).
    const code = "```python\ndef f(x):\n    return x if x else None\n";
    const renders = [code, `${code}\`\`\`\n`, `${code}\`\`\`\n\nAfter it.`];
    const result = (await page.evaluate(`(async () => {
      const { renderMarkdownInto, highlighted } = await import("${markdownModule}");
      const body = document.createElement("div");
      document.body.append(body);
      for (const text of ${JSON.stringify(renders)}) renderMarkdownInto(body, text);
      await highlighted();
      body.remove();
      const code = body.querySelector("pre > code");
      return { keywords: code?.querySelectorAll(".hl-keyword").length, text: code?.textContent };
    })()`)) as { keywords: number; text: string };
    expect(result.text).toBe("def f(x):\n    return x if x else None\n");
    expect(result.keywords).toBeGreaterThan(2);
  });

  it("colours a long code block over several frames, its text unchanged throughout, ending as a fresh render of it does", async () => {
    // 40 lines of 3 coloured runs each (two numbers, a comment): about 240 nodes, so several pieces.
    const lines = Array.from({ length: 40 }, (_, k) => `    total += step(${k}, ${k * 7})  # line ${k}`);
    const source = ["def run(total):", ...lines, "    return total", ""].join("\n");
    const result = (await page.evaluate(`(async () => {
      const { renderMarkdownInto, highlighted } = await import("${markdownModule}");
      const source = ${JSON.stringify(source)};
      const body = document.createElement("div");
      document.body.append(body);
      // Spans added to the block in each frame, and whether its text ever differed from the source.
      const added = [0];
      let frames = 0;
      const tick = () => { added.push(0); frames++; if (frames < 600) requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
      let textChanged = false;
      renderMarkdownInto(body, "\`\`\`python\\n" + source + "\`\`\`\\n");
      const code = body.querySelector("pre > code");
      new MutationObserver((records) => {
        for (const r of records) added[added.length - 1] += [...r.addedNodes].filter((n) => n.nodeType === 1).length;
        if (code.textContent !== source) textChanged = true;
      }).observe(code, { childList: true });
      const during = [];
      const watch = () => { during.push(code.classList.contains("hl-colouring")); if (!done) requestAnimationFrame(watch); };
      let done = false;
      requestAnimationFrame(watch);
      await highlighted();
      done = true;
      frames = 600;
      const fresh = document.createElement("div");
      document.body.append(fresh);
      renderMarkdownInto(fresh, "\`\`\`python\\n" + source + "\`\`\`\\n");
      await highlighted();
      const same = fresh.innerHTML === body.innerHTML;
      body.remove();
      fresh.remove();
      return {
        framesWithNodes: added.filter((n) => n > 0).length,
        mostInAFrame: Math.max(...added),
        textChanged,
        sawColouring: during.includes(true),
        className: code.className,
        numbers: code.querySelectorAll(".hl-number").length,
        comments: code.querySelectorAll(".hl-comment").length,
        same,
      };
    })()`)) as Record<string, unknown>;
    // Spread over frames, no frame given the whole block (120 spans; a piece is 64 nodes, spans and text).
    expect(result.framesWithNodes).toBeGreaterThan(2);
    expect(result.mostInAFrame).toBeLessThanOrEqual(40);
    expect(result.textChanged).toBe(false);
    expect(result.sawColouring).toBe(true);
    // Whole at the end: every line's numbers and comment, no colouring mark left, the same as a fresh render.
    expect(result.className).toBe("language-python");
    expect(result.numbers).toBe(80);
    expect(result.comments).toBe(40);
    expect(result.same).toBe(true);
  });

  it("streams 20 KB and 60 KB answers in small deltas, at normal speed and 4x CPU throttling, and re-rendering them stays cheap", async () => {
    const section = (i: number) =>
      [
        `### Part ${i}`,
        "",
        `Some prose for part ${i} with **bold**, \`code\`, a [link](https://example.com/${i}) and 2*${i}*3.`,
        "",
        "- a point",
        "  - a sub-point",
        "- another point",
        "",
        "| key | value |",
        "|---|---|",
        `| part | ${i} |`,
        "",
        "```",
        `line one of ${i}`,
        "line two",
        "```",
        "",
      ].join("\n");
    const answerOf = (size: number) => {
      let text = "";
      for (let i = 1; text.length < size; i++) text += section(i);
      return text;
    };
    const cdp = await page.context().newCDPSession(page);
    const figures: Record<string, unknown>[] = [];
    try {
      for (const [size, rate] of [
        [20_000, 1],
        [60_000, 1],
        [20_000, 4],
        [60_000, 4],
      ] as const) {
        const long = answerOf(size);
        const parts = long.match(/### Part /g)?.length ?? 0;
        // A fresh session each time: the list holds this answer only.
        await page.locator("#new-session").click();
        await expect.poll(() => page.locator("#messages > li.msg").count()).toBe(0);
        await page.locator('#conn[data-state="open"]').waitFor({ state: "attached" });
        await cdp.send("Emulation.setCPUThrottlingRate", { rate });
        // Long tasks while it streams, and the page's own render frames (the callbacks it asks
        // requestAnimationFrame for, forced layout included): what a delta costs as it arrives.
        await page.evaluate(`(() => {
            window.__longTasks = [];
            window.__frames = [];
            window.__observer?.disconnect();
            window.__observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration)); });
            window.__observer.observe({ type: "longtask" });
            if (!window.__raf) {
              window.__raf = window.requestAnimationFrame.bind(window);
              window.requestAnimationFrame = (callback) => window.__raf((t) => { const s = performance.now(); callback(t); window.__frames.push(performance.now() - s); });
            }
          })()`);
        await script(stack.llm.url, stack.llmKey, [reply.text(...pieces(long, 50))]);
        const started = Date.now();
        await sendMessage(page, `a ${size / 1000} KB answer please`);
        // Waited for with a cheap check every 250 ms: a locator with hasText would read the
        // growing answer's text on every frame, in the page, and its long tasks would count here.
        await expect
          .poll(
            () =>
              page.evaluate(
                "!document.getElementById('send').hidden && document.querySelector('.msg.assistant') !== null && document.querySelector('.msg.assistant.streaming') === null",
              ),
            {
              timeout: 120_000,
              interval: 250,
            },
          )
          .toBe(true);
        const streamedMs = Date.now() - started;
        const body = page.locator(".msg.assistant:not(.streaming) .body", { hasText: `Part ${parts}` }).last();
        await body.waitFor();
        expect(await body.locator("h5").count()).toBe(parts);
        expect(await body.locator("table").count()).toBe(parts);
        expect(await body.locator("pre").count()).toBe(parts);
        expect(await body.locator("em").count()).toBe(0);
        const seen = (await page.evaluate(
          `(() => { window.__observer.disconnect(); return { longTasks: window.__longTasks, frames: window.__frames }; })()`,
        )) as {
          longTasks: number[];
          frames: number[];
        };
        if (size === 20_000 && rate === 1) {
          await body.scrollIntoViewIfNeeded();
          await shot(page, "md-3-long");
        }

        // The cost itself, in a message in the list, layout included: every 50-character delta
        // rendered and timed alone (the page renders at most once a frame), and the whole answer
        // into a fresh message (what a history replay does).
        const cost = (await page.evaluate(`(async () => {
            const { renderMarkdownInto } = await import("${markdownModule}");
            const text = ${JSON.stringify(long)};
            const message = () => {
              const li = document.createElement("li");
              li.className = "msg assistant";
              const body = document.createElement("div");
              body.className = "body";
              li.append(body);
              document.getElementById("messages").append(li);
              return body;
            };
            // Each render is timed alone; the page gets its turn between them (as it does between frames).
            const time = async (body, source) => { await new Promise((resolve) => setTimeout(resolve, 0)); const t = performance.now(); renderMarkdownInto(body, source); void body.offsetHeight; return performance.now() - t; };
            const fresh = [];
            for (let i = 0; i < 5; i++) { const body = message(); fresh.push(await time(body, text)); body.parentElement.remove(); }
            fresh.sort((a, b) => a - b);
            const body = message();
            let total = 0, worst = 0, deltas = 0;
            for (let end = 50; end < text.length + 50; end += 50) { const ms = await time(body, text.slice(0, end)); total += ms; worst = Math.max(worst, ms); deltas++; }
            const check = message();
            renderMarkdownInto(check, text);
            const sameAsFresh = check.innerHTML === body.innerHTML;
            body.parentElement.remove();
            check.parentElement.remove();
            const round = (ms) => Math.round(ms * 10) / 10;
            return { chars: text.length, freshMedianMs: round(fresh[2]), deltas, perDeltaMeanMs: round(total / deltas), perDeltaWorstMs: round(worst), sameAsFresh };
          })()`)) as { chars: number; freshMedianMs: number; deltas: number; perDeltaMeanMs: number; perDeltaWorstMs: number; sameAsFresh: boolean };
        await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
        const round = (ms: number) => Math.round(ms * 10) / 10;
        const frames = seen.frames;
        figures.push({
          kb: Math.round(cost.chars / 1000),
          cpu: `${rate}x`,
          ...cost,
          streamedEndToEndMs: streamedMs,
          frames: frames.length,
          frameMeanMs: round(frames.reduce((a, b) => a + b, 0) / Math.max(1, frames.length)),
          frameWorstMs: round(Math.max(0, ...frames)),
          longTasks: seen.longTasks.length,
          longTaskWorstMs: Math.max(0, ...seen.longTasks),
          longTasksTotalMs: seen.longTasks.reduce((a, b) => a + b, 0),
        });
        expect(cost.chars).toBeGreaterThanOrEqual(size);
        // Rendering only what changed gives the same DOM as rendering it all.
        expect(cost.sameAsFresh).toBe(true);
        if (rate === 1 && size === 20_000) {
          // Speed is a figure, not a test: limits are checked only under `npm run reliability`.
          expectWithin(cost.perDeltaMeanMs, 16, "mean Markdown render per streamed delta (20 KB answer)");
          expectWithin(cost.freshMedianMs, 200, "Markdown render of a 20 KB answer into a fresh message");
        }
      }
    } finally {
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 }).catch(() => {});
      await cdp.detach().catch(() => {});
    }
    for (const figure of figures) console.log(`markdown render cost: ${JSON.stringify(figure)}`);
    writeFileSync(join(shots, "markdown-cost.json"), JSON.stringify(figures, null, 2));
  }, 600_000);

  it("keeps a Markdown answer inside a phone screen", async () => {
    const phone = await openPage(browser, stack, { viewport: PHONE, path: `/${firstSession}` });
    const answer = phone.locator(".msg.assistant .body", { hasText: "See the pipe article" }).first();
    await answer.waitFor();
    await answer.scrollIntoViewIfNeeded();
    expect((await overflow(phone)).overflow).toBe(0);
    await shot(phone, "md-4-phone");
    await phone.context().close();
  });
});

describe("tool results as they read", () => {
  let stack: Stack;
  let page: Page;
  let structuredTool = "";
  beforeAll(async () => {
    stack = await startStack({
      mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"], alwaysAllow: ["get-structured-content", "get-tiny-image"] } },
    });
    writeFileSync(join(stack.fsRoot, "lines.txt"), "first line\nsecond line\n  third, indented\n");
    page = await openPage(browser, stack);
    await page.locator('#servers li[data-server="everything"][data-state="ready"]').waitFor({ state: "attached" });
    const servers = (await page.evaluate("fetch('/api/servers').then(r => r.json())")) as {
      servers: { name: string; tools: { name: string; functionName: string }[] }[];
    };
    structuredTool = servers.servers.find((s) => s.name === "everything")?.tools.find((t) => t.name === "get-structured-content")?.functionName ?? "";
    expect(structuredTool).not.toBe("");
  });
  afterAll(async () => {
    await page?.context().close();
    await stack?.stop();
  });

  const cardFor = (tool: string) => page.locator(".tool-card", { has: page.locator(".tool-name", { hasText: tool }) }).last();

  it("shows a multi-line text result with real line breaks", async () => {
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__read_text_file", { path: join(stack.fsRoot, "lines.txt") }),
      reply.text("Three lines."),
    ]);
    await sendMessage(page, "read lines.txt");
    await page.locator(".msg.assistant", { hasText: "Three lines." }).waitFor();
    const card = cardFor("filesystem.read_text_file");
    await card.locator("summary").click();
    const result = card.locator(".tool-result");
    expect(await result.getAttribute("data-kind")).toBe("text");
    expect(await result.textContent()).toBe("first line\nsecond line\n  third, indented\n");
    // Shown on three lines (pre-wrap), not as one line with "\n" in it.
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text, line breaks as the reader sees them
    expect(await result.evaluate((e: any) => e.innerText)).toBe("first line\nsecond line\n  third, indented\n");
    expect(await result.evaluate((e: any) => e.ownerDocument.defaultView.getComputedStyle(e).whiteSpace)).toBe("pre-wrap");
    const lineHeight = Number.parseFloat(await result.evaluate((e: any): string => e.ownerDocument.defaultView.getComputedStyle(e).lineHeight)) || 16;
    expect(((await result.boundingBox())?.height ?? 0) / lineHeight).toBeGreaterThanOrEqual(3);

    await script(stack.llm.url, stack.llmKey, [reply.callReply("filesystem__list_directory", { path: stack.fsRoot }), reply.text("Listed.")]);
    await sendMessage(page, "list it");
    await page.locator(".msg.assistant", { hasText: "Listed." }).waitFor();
    const list = cardFor("filesystem.list_directory");
    await list.locator("summary").click();
    expect((await list.locator(".tool-result").textContent())?.split("\n").sort()).toEqual(["[DIR] sub", "[FILE] lines.txt", "[FILE] notes.txt"]);
    await card.scrollIntoViewIfNeeded();
    await shot(page, "results-1-text");
  });

  it("shows a structured result as indented JSON", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.callReply(structuredTool, { location: "Chicago" }), reply.text("Drizzly.")]);
    await sendMessage(page, "weather in Chicago?");
    await page.locator(".msg.assistant", { hasText: "Drizzly." }).waitFor();
    const card = cardFor("everything.get-structured-content");
    await card.locator("summary").click();
    const result = card.locator(".tool-result");
    expect(await result.getAttribute("data-kind")).toBe("json");
    expect(await result.textContent()).toBe('{\n  "temperature": 36,\n  "conditions": "Light rain / drizzle",\n  "humidity": 82\n}');
    await card.scrollIntoViewIfNeeded();
    await shot(page, "results-2-json");
  });

  it("shows a tool's error as an error", async () => {
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__read_text_file", { path: join(stack.fsRoot, "missing.txt") }),
      reply.text("No such file."),
    ]);
    await sendMessage(page, "read missing.txt");
    await page.locator(".msg.assistant", { hasText: "No such file." }).waitFor();
    const card = page.locator(".tool-card.failed").last();
    await card.locator("summary").click();
    expect(await card.locator(".result-title").textContent()).toBe("Error");
    const result = card.locator(".tool-result");
    expect(await result.getAttribute("data-kind")).toBe("error");
    expect(await result.textContent()).toContain("missing.txt");
    expect(await result.evaluate((e: any) => e.ownerDocument.defaultView.getComputedStyle(e).color)).toBe("rgb(192, 54, 44)");
    await card.scrollIntoViewIfNeeded();
    await shot(page, "results-3-error");
  });

  it("reads the same after a reload, and a direct call kept in the history (MCP content) as text", async () => {
    const before = await page.locator(".tool-result").allTextContents();
    const kinds = await page.locator(".tool-result").evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")));
    const id = new URLSearchParams(new URL(page.url()).hash.slice(1)).get("s");
    await page.reload();
    await page.locator(".msg.assistant", { hasText: "No such file." }).waitFor();
    expect(await page.locator(".tool-result").allTextContents()).toEqual(before);
    expect(await page.locator(".tool-result").evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")))).toEqual(kinds);

    // POST /api/tools with this session's id: the history keeps the call with its MCP content
    // array (here text, an image, text); the image reads as a placeholder, not as base64.
    const status = (await page.evaluate(
      `fetch('/api/tools/everything.get-tiny-image', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ arguments: {}, sessionId: ${JSON.stringify(id)} }) }).then(r => r.status)`,
    )) as number;
    expect(status).toBe(200);
    await page.reload();
    await page.locator(".msg.assistant", { hasText: "No such file." }).waitFor();
    const direct = page.locator(".tool-card").last();
    await direct.locator("summary").click();
    expect(await direct.locator(".tool-name").textContent()).toBe("everything.get-tiny-image");
    expect(await direct.locator(".tool-result").getAttribute("data-kind")).toBe("text");
    const lines = ((await direct.locator(".tool-result").textContent()) ?? "").split("\n");
    expect(lines[0]).toBe("Here's the image you requested:");
    expect(lines[1]).toBe("[image: image/png, 3.9 KB]");
    expect(lines[2]).toBe("The image above is the MCP logo.");
    expect(lines).toHaveLength(3);
    await direct.scrollIntoViewIfNeeded();
    await shot(page, "results-5-history-content");
    noPageErrors(page);
  });

  it("shows text and structured results in the tool console", async () => {
    await openConsole(page);
    await page.locator("#console-tool").selectOption("filesystem.read_text_file");
    await page.locator("#console-form input[name=path]").fill(join(stack.fsRoot, "lines.txt"));
    await page.locator("#console-call").click();
    const out = page.locator("#console-result");
    await expect.poll(() => out.getAttribute("data-outcome")).toBe("ok");
    expect(await out.textContent()).toBe("first line\nsecond line\n  third, indented\n");
    expect(await out.getAttribute("data-kind")).toBe("text");
    // server-filesystem's structured content is the same text: not shown twice.
    expect(await page.locator("#console-structured").isHidden()).toBe(true);

    await page.locator("#console-tool").selectOption("everything.get-structured-content");
    await page.locator("#console-form select[name=location]").selectOption("Chicago");
    await page.locator("#console-call").click();
    await expect.poll(() => out.getAttribute("data-kind")).toBe("json");
    expect(await out.textContent()).toBe('{\n  "temperature": 36,\n  "conditions": "Light rain / drizzle",\n  "humidity": 82\n}');
    // Its text is the same JSON: not shown twice.
    expect(await page.locator("#console-structured").isHidden()).toBe(true);
    await shot(page, "results-4-console");
  });

  it("shows a console result's structured content under its text when it says more", async () => {
    // No tool of the stack answers a summary text with different structured content: this one
    // answer of POST /api/tools is made up here, in the documented shape.
    await page.route("**/api/tools/everything.get-structured-content", (route) =>
      route.fulfill({
        status: 200,
        contentType: "application/json",
        body: JSON.stringify({
          result: {
            content: [{ type: "text", text: "Chicago: 36°F\nLight rain" }],
            structuredContent: { city: "Chicago", reading: { temperature: 36, unit: "F" } },
          },
          durationMs: 3,
        }),
      }),
    );
    try {
      await openConsole(page);
      await page.locator("#console-tool").selectOption("everything.get-structured-content");
      await page.locator("#console-form select[name=location]").selectOption("Chicago");
      await page.locator("#console-call").click();
      await expect.poll(() => page.locator("#console-outcome").textContent()).toBe("Result in 3 ms:");
      expect(await page.locator("#console-result").textContent()).toBe("Chicago: 36°F\nLight rain");
      expect(await page.locator("#console-result").getAttribute("data-kind")).toBe("text");
      const structured = page.locator("#console-structured pre");
      await structured.waitFor();
      expect(await structured.getAttribute("data-kind")).toBe("json");
      expect(await structured.textContent()).toBe('{\n  "city": "Chicago",\n  "reading": {\n    "temperature": 36,\n    "unit": "F"\n  }\n}');
      await shot(page, "results-6-console-structured");
    } finally {
      await page.unroute("**/api/tools/everything.get-structured-content");
    }
  });

  it("shows a tool's error result in the tool console as an error", async () => {
    await openConsole(page);
    await page.locator("#console-tool").selectOption("filesystem.read_text_file");
    await page.locator("#console-form input[name=path]").fill(join(stack.fsRoot, "missing.txt"));
    await page.locator("#console-call").click();
    const out = page.locator("#console-result");
    await expect.poll(() => out.getAttribute("data-outcome")).toBe("error");
    expect(await out.getAttribute("data-kind")).toBe("error");
    expect(await out.textContent()).toContain("ENOENT");
    expect(await page.locator("#console-structured").isHidden()).toBe(true);
  });
});

describe("the vendored page libraries", () => {
  it("are the files of the npm packages package.json pins", () => {
    expect(execFileSync(process.execPath, [join(repoRoot, "scripts", "vendor-page-libs.mjs"), "--check"], { encoding: "utf8" })).toBe("");
  });
});
