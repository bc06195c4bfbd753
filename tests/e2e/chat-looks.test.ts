// How the chat looks and speaks up (issue 25, the page's part), in headless Chromium
// against the real stack: dark mode and its choice, highlighted code with its language
// that scrolls rather than wraps at phone width, the welcome of an empty chat, the tab's
// title, and the title count and notifications while the tab is hidden.
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { everythingBin } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, overflow, PHONE, sendMessage, setHidden, shot, shotBoth } from "./browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const DESKTOP = { width: 1280, height: 800 };

const background = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el: any) => el.ownerDocument.defaultView.getComputedStyle(el).backgroundColor as string);

/** Starts a new chat and waits for its (empty) history: the welcome of that chat, not the last one's. */
/** The id of the chat the page has open (its address names it). */
const openChat = (page: Page): string => new URL(page.url()).hash.replace("#s=", "");

/** A page of its own whose new chat got `answer` to `question`, and the ids the server lists for its user. */
async function pageWithAChat(stack: Stack, context: BrowserContext, question: string, answer: string) {
  const page = await openPage(browser, stack, { context });
  await script(stack.llm.url, stack.llmKey, [reply.text(answer)]);
  await newChat(page);
  const used = openChat(page);
  await sendMessage(page, question);
  await page.locator(".msg.assistant", { hasText: answer }).waitFor();
  const listed = async () =>
    ((await (await context.request.get(`${stack.url}/api/sessions`)).json()) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
  return { page, used, listed };
}

async function newChat(page: Page): Promise<void> {
  const before = new URL(page.url()).hash;
  await page.locator("#new-session").click();
  await expect.poll(() => new URL(page.url()).hash).not.toBe(before);
  await page.locator("#welcome").waitFor();
}

describe("the chat's looks", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"], alwaysAllow: ["trigger-long-running-operation"] } },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("follows the system's dark mode, and keeps a chosen theme in this browser", async () => {
    const context = await browser.newContext({ viewport: DESKTOP, colorScheme: "dark" });
    try {
      const page = await openPage(browser, stack, { context });
      expect(await page.evaluate("document.documentElement.dataset.theme")).toBe("dark");
      expect(await background(page, "html")).toBe("rgb(23, 24, 27)");
      expect(await page.locator("#theme-choice").inputValue()).toBe("system");
      await script(stack.llm.url, stack.llmKey, [reply.text("In the dark:\n\n```python\ndef f(x):\n    return x * 2  # twice\n```")]);
      await sendMessage(page, "dark code");
      await page.locator(".msg.assistant:not(.streaming) .code-block").waitFor();
      await page.locator("#send:not([hidden])").waitFor();
      await shotBoth(page, "chat-dark");

      await page.locator("#theme-choice").selectOption("light");
      expect(await page.evaluate("document.documentElement.dataset.theme")).toBe("light");
      expect(await background(page, "html")).toBe("rgb(247, 247, 245)");
      await page.reload();
      await page.locator(".msg.assistant .code-block").waitFor();
      expect(await page.evaluate("document.documentElement.dataset.theme")).toBe("light");
      expect(await page.locator("#theme-choice").inputValue()).toBe("light");
      expect(await page.evaluate("localStorage.getItem('edgehost.theme')")).toBe("light");

      await page.locator("#theme-choice").selectOption("system");
      expect(await page.evaluate("document.documentElement.dataset.theme")).toBe("dark");
      expect(await page.evaluate("localStorage.getItem('edgehost.theme')")).toBe(null);
      // The system changes its mind: the page follows.
      await page.emulateMedia({ colorScheme: "light" });
      await expect.poll(() => page.evaluate("document.documentElement.dataset.theme")).toBe("light");
      noPageErrors(page);
    } finally {
      await context.close();
    }
  });

  it("highlights code with its language, keeps its text, and scrolls it sideways at phone width", async () => {
    const code = [
      "def walk(tree, depth=0):",
      "    for node in tree.children:  # every child",
      '        print("  " * depth + node.name, "<script>alert(1)</script>", "<img src=x onerror=alert(2)> &amp; &lt;", "a very long string that goes on well past a phone screen")',
      "        walk(node, depth + 1)",
      "",
    ].join("\n");
    const context = await browser.newContext({ viewport: PHONE });
    try {
      const page = await openPage(browser, stack, { context });
      const wide = `| ${Array.from({ length: 6 }, (_, i) => `column ${i}`).join(" | ")} |\n|${"---|".repeat(6)}\n| ${Array.from({ length: 6 }, (_, i) => `value ${i}`).join(" | ")} |`;
      const tables = `| a | b |\n|---|---|\n| 1 | 2 |\n\n${wide}`;
      await script(stack.llm.url, stack.llmKey, [
        reply.text(`A walk:\n\n\`\`\`python\n${code}\`\`\`\n\nAnd plain:\n\n\`\`\`\nno language\n\`\`\`\n\n${tables}`),
      ]);
      await sendMessage(page, "show me a tree walk");
      const answer = page.locator(".msg.assistant:not(.streaming)", { hasText: "And plain:" });
      await answer.waitFor();
      await page.locator("#send:not([hidden])").waitFor();
      const block = answer.locator(".code-block").first();
      expect(await block.getAttribute("data-lang")).toBe("python");
      expect(await block.locator(".code-lang").evaluate((el: any) => el.ownerDocument.defaultView.getComputedStyle(el, "::before").content)).toBe('"python"');
      // Highlighted: a span per coloured run (code-colours.js); the code reads exactly as written.
      const colour = (el: any) => el.ownerDocument.defaultView.getComputedStyle(el).color;
      expect(await block.locator(".hl-keyword").allTextContents()).toEqual(expect.arrayContaining(["def", "for", "in"]));
      expect(await block.locator(".hl-comment").first().textContent()).toBe("# every child");
      expect(await block.locator("pre > code").textContent()).toBe(code);
      // Markup and entities in the highlighted code (a Python string) are text, never elements; the spans are all there is.
      expect(await block.locator("script, img, [onerror], [style]").count()).toBe(0);
      expect(
        await block.locator("pre > code *").evaluateAll((els) => els.filter((el: any) => el.tagName !== "SPAN" || !/^hl-[a-z]+$/.test(el.className)).length),
      ).toBe(0);
      // The light theme's --hl-keyword and --hl-comment (code-looks.css), not the code's own colour.
      expect(await block.locator(".hl-keyword").first().evaluate(colour)).toBe("rgb(207, 34, 46)");
      expect(await block.locator(".hl-comment").first().evaluate(colour)).toBe("rgb(89, 99, 110)");
      expect(await block.locator("pre > code").evaluate(colour)).not.toBe("rgb(207, 34, 46)");
      // No wrapping: the long line scrolls inside its block, the page does not get wider.
      const pre = block.locator("pre");
      expect(await pre.evaluate((el: any) => el.ownerDocument.defaultView.getComputedStyle(el).whiteSpace)).toBe("pre");
      expect(await pre.evaluate((el: any) => el.scrollWidth > el.clientWidth + 100)).toBe(true);
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered lines, indentation as the reader sees it
      const lines = ((await pre.evaluate((el: any) => el.innerText)) as string).split("\n");
      expect(lines[1]).toBe("    for node in tree.children:  # every child");
      expect(lines[3]).toBe("        walk(node, depth + 1)");
      expect((await overflow(page)).overflow).toBe(0);
      // A block without a language: plain, no label.
      const plain = answer.locator(".code-block").nth(1);
      expect(await plain.getAttribute("data-lang")).toBe(null);
      expect(await plain.locator("pre span").count()).toBe(0);
      // Only what is wider than its column scrolls, and has a Tab stop to scroll it by keys; a
      // short block or table is a plain box (a scroller each cost every streamed frame).
      const scroller = (box: Locator) =>
        box.evaluate((el: any) => ({
          overflowX: el.ownerDocument.defaultView.getComputedStyle(el).overflowX as string,
          tabIndex: el.tabIndex as number,
          name: el.getAttribute("aria-label") as string | null,
        }));
      await expect.poll(() => scroller(pre)).toEqual({ overflowX: "auto", tabIndex: 0, name: "python code, scrolls sideways" });
      expect(await scroller(plain.locator("pre"))).toEqual({ overflowX: "visible", tabIndex: -1, name: null });
      expect(await scroller(answer.locator("table").first())).toEqual({ overflowX: "clip", tabIndex: -1, name: null });
      expect(await scroller(answer.locator("table").nth(1))).toEqual({ overflowX: "auto", tabIndex: 0, name: "Table, scrolls sideways" });
      // Wider (a desktop window): the six columns fit, so the table is no longer a scroller; narrow again, it is.
      const table = answer.locator("table").nth(1);
      await page.setViewportSize(DESKTOP);
      await expect.poll(() => scroller(table)).toEqual({ overflowX: "clip", tabIndex: -1, name: null });
      await page.setViewportSize(PHONE);
      await expect.poll(() => scroller(table)).toEqual({ overflowX: "auto", tabIndex: 0, name: "Table, scrolls sideways" });
      await block.scrollIntoViewIfNeeded();
      await shot(page, "chat-code-phone");
      await page.setViewportSize(DESKTOP);
      await block.scrollIntoViewIfNeeded();
      await shot(page, "chat-code-desktop");
      noPageErrors(page);
    } finally {
      await context.close();
    }
  });

  it("welcomes a new chat with what tools, @ and / do, and titles the tab with the chat", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    try {
      const page = await openPage(browser, stack, { context });
      await newChat(page);
      const welcome = page.locator("#welcome");
      const text = (await welcome.textContent()) ?? "";
      expect(text).toContain("Tools run only when you allow them");
      expect(text).toContain("@ attaches a resource");
      expect(text).toContain("/ at the start of the box lists the servers' prompts");
      await expect.poll(() => welcome.locator(".welcome-servers").textContent()).toContain("filesystem (14 tools)");
      await expect.poll(() => page.title()).toBe("New chat · edgehost");
      await shot(page, "chat-welcome-desktop");

      await script(stack.llm.url, stack.llmKey, [reply.text("Hello!")]);
      await sendMessage(page, "Plan a trip to Lisbon");
      await welcome.waitFor({ state: "hidden" });
      await page.locator(".msg.assistant", { hasText: "Hello!" }).waitFor();
      await expect.poll(() => page.title()).toBe("Plan a trip to Lisbon · edgehost");
      // A chat with messages shows no welcome after a reload either.
      await page.reload();
      await page.locator(".msg.assistant", { hasText: "Hello!" }).waitFor();
      expect(await welcome.isHidden()).toBe(true);
      await expect.poll(() => page.title()).toBe("Plan a trip to Lisbon · edgehost");

      const phone = await openPage(browser, stack, { viewport: PHONE });
      await phone.locator("#menu-toggle").click();
      await newChat(phone);
      expect((await overflow(phone)).overflow).toBe(0);
      await shot(phone, "chat-welcome-phone");
      await phone.context().close();
      noPageErrors(page);
    } finally {
      await context.close();
    }
  });

  it("keeps no unused new chat: New twice, or New then another chat, leaves one chat behind, not an empty entry", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    try {
      const { page, used, listed } = await pageWithAChat(stack, context, "a chat worth keeping", "Kept.");

      // New, then New again: the first new chat, never used, is gone from the page and the server.
      await newChat(page);
      const unused = openChat(page);
      await newChat(page);
      const latest = openChat(page);
      await expect.poll(listed).not.toContain(unused);
      expect(await listed()).toEqual(expect.arrayContaining([latest, used]));
      await expect.poll(() => page.locator(`#sessions li[data-session="${unused}"]`).count()).toBe(0);

      // Leaving the empty new chat for another one drops it too; the chat left is untouched.
      await page.locator(`#sessions li[data-session="${used}"] .link`).click();
      await page.locator(".msg.assistant", { hasText: "Kept." }).waitFor();
      await expect.poll(listed).not.toContain(latest);
      expect(await listed()).toContain(used);
      await expect.poll(() => page.locator(`#sessions li[data-session="${latest}"]`).count()).toBe(0);

      // A new chat with a message in it is kept when the user leaves it.
      await newChat(page);
      await sendMessage(page, "second keeper");
      await page.locator(".msg.user", { hasText: "second keeper" }).waitFor();
      await page.locator("#send:not([hidden])").waitFor();
      const keeper = openChat(page);
      await page.locator(`#sessions li[data-session="${used}"] .link`).click();
      await page.locator(".msg.assistant", { hasText: "Kept." }).waitFor();
      expect(await listed()).toEqual(expect.arrayContaining([keeper, used]));
      noPageErrors(page);
    } finally {
      await context.close();
    }
  });

  it("keeps an unused new chat across a reload (the same one opens again) and drops it when its tab is closed", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    try {
      const { page, used, listed } = await pageWithAChat(stack, context, "a chat to come back to", "Kept too.");

      await newChat(page);
      const reloaded = openChat(page);
      expect(await listed()).toContain(reloaded);
      const before = await listed();
      await page.reload();
      await page.locator(`#sessions li.current[data-session="${reloaded}"]`).waitFor();
      await page.locator("#welcome").waitFor();
      expect(new URL(page.url()).hash).toContain(reloaded);
      expect(await page.locator("#alert:not([hidden])").count()).toBe(0);
      // Nothing deleted or made (that the session keeps it once the page is back: tests/workers/session/session.left-unused.test.ts).
      // By chat, not by count: an earlier test's closed tab may drop its own unused chat meanwhile (its 5 s grace).
      const after = await listed();
      expect(after).toContain(reloaded);
      expect(after).toContain(used);
      expect(after.filter((id) => !before.includes(id))).toEqual([]);
      // Still this page's own new chat: leaving it for another one drops it.
      await page.locator(`#sessions li[data-session="${used}"] .link`).click();
      await page.locator(".msg.assistant", { hasText: "Kept too." }).waitFor();
      await expect.poll(listed).not.toContain(reloaded);

      await newChat(page);
      const closed = openChat(page);
      expect(await listed()).toContain(closed);
      // Only an open socket can say how it closes (code 4000): a tab closed while its socket
      // still connects tells the session nothing (docs/page.md). CI's clean run of 624e1a1 closed it then.
      await page.locator("#conn[data-state=open]").waitFor({ state: "attached" });
      await page.close();
      // The session deletes itself once the grace for a page coming back (5 s) is over.
      await expect.poll(listed, { timeout: 20_000, interval: 250 }).not.toContain(closed);
      expect(await listed()).toContain(used);
    } finally {
      await context.close();
    }
  });

  it("counts what waits in the tab's title and notifies while the tab is hidden, once the user turned notifications on", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    // What the page asks of the Notification API, recorded; the real one still runs.
    await context.addInitScript(`(() => {
      const Real = window.Notification;
      window.__notifications = [];
      window.__asked = 0;
      class Recorded extends Real {
        constructor(title, options) { super(title, options); window.__notifications.push({ title, body: options && options.body }); }
        static get permission() { return Real.permission; }
        static requestPermission(...args) { window.__asked++; return Real.requestPermission(...args); }
      }
      window.Notification = Recorded;
    })()`);
    try {
      const page = await openPage(browser, stack, { context });
      // Never asked by itself.
      expect(await page.evaluate("window.__asked")).toBe(0);
      expect(await page.locator("#notify-state").textContent()).toBe("Notifications: off");
      await context.grantPermissions(["notifications"], { origin: stack.url });
      await page.locator("#notify-me").click();
      expect(await page.evaluate("window.__asked")).toBe(1);
      await expect.poll(() => page.locator("#notify-state").textContent()).toBe("Notifications: on");
      await page.locator("#notify-me").waitFor({ state: "hidden" });

      await newChat(page);
      // An approval waits while the tab is hidden.
      await script(stack.llm.url, stack.llmKey, [
        reply.callReply("filesystem__get_file_info", { path: `${stack.fsRoot}/notes.txt` }),
        reply.text("A small file."),
      ]);
      // Hidden before sending: the approval can arrive before a later step of the test would hide the tab.
      await setHidden(page, true);
      await sendMessage(page, "how big is notes.txt");
      await page.locator(".msg.user", { hasText: "how big is notes.txt" }).waitFor();
      await page.locator("#approval-dialog[open]").waitFor();
      await expect.poll(() => page.title()).toBe("(1) how big is notes.txt · edgehost");
      // Titled by the chat (still "New chat" if the session list has not come back with its new title yet).
      expect(await page.evaluate("window.__notifications")).toEqual([
        { title: expect.stringMatching(/^(how big is notes\.txt|New chat) · edgehost$/), body: "Allow filesystem.get_file_info?" },
      ]);
      // Seen: the count goes.
      await setHidden(page, false);
      await expect.poll(() => page.title()).toBe("how big is notes.txt · edgehost");
      await page.locator("#approve-once").click();
      await page.locator(".msg.assistant", { hasText: "A small file." }).waitFor();
      await page.locator("#send:not([hidden])").waitFor();

      // A long turn (the tool works 4 s) ends while the tab is hidden.
      const servers = (await page.evaluate("fetch('/api/servers').then(r => r.json())")) as {
        servers: { name: string; tools: { name: string; functionName: string }[] }[];
      };
      const longTool = servers.servers.find((s) => s.name === "everything")?.tools.find((t) => t.name === "trigger-long-running-operation")?.functionName ?? "";
      await script(stack.llm.url, stack.llmKey, [reply.callReply(longTool, { duration: 4, steps: 2 }), reply.text("Finished the long job.")]);
      await sendMessage(page, "run the long job");
      await page.locator(".tool-card.running").waitFor();
      await setHidden(page, true);
      await page.locator(".msg.assistant", { hasText: "Finished the long job." }).waitFor();
      await page.locator("#send:not([hidden])").waitFor();
      await expect.poll(() => page.title()).toBe("(1) how big is notes.txt · edgehost");
      expect(((await page.evaluate("window.__notifications")) as { body: string }[]).map((n) => n.body)).toEqual([
        "Allow filesystem.get_file_info?",
        "The answer is ready.",
      ]);
      await setHidden(page, false);
      await expect.poll(() => page.title()).toBe("how big is notes.txt · edgehost");

      // A short turn while visible: no count, no notification.
      await script(stack.llm.url, stack.llmKey, [reply.text("Quick.")]);
      await sendMessage(page, "quick one");
      await page.locator(".msg.assistant", { hasText: "Quick." }).waitFor();
      await page.locator("#send:not([hidden])").waitFor();
      expect(await page.title()).toBe("how big is notes.txt · edgehost");
      expect(((await page.evaluate("window.__notifications")) as unknown[]).length).toBe(2);
      noPageErrors(page);
    } finally {
      await context.close();
    }
  });
});
