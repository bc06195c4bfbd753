// Files from the user's computer, against the whole product: wrangler dev with its local
// R2 bucket (no set-up), the fake Gemini recording requests, and the page in Chromium.
// The 📎 button's file chooser, a file dropped on the chat and a pasted screenshot each
// become a chip (a preview for the image); the message carries them and the model gets
// the image and the PDF as inline data and the text file as text; the chips stay in the
// history after a reload, their previews served by the Worker (to their owner only:
// tests/workers/http/files.test.ts tries other users). A file the page refuses
// (too large) or the Worker refuses (a text file named .png) shows its reason, naming it.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, requests, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, overflow, PHONE, shotBoth } from "./browser";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PDF = "%PDF-1.4\n%%EOF\n";

let browser: Browser;
let stack: Stack;

beforeAll(async () => {
  const started = await Promise.allSettled([launchBrowser(), startStack()]);
  const [b, s] = started;
  if (b.status === "fulfilled") browser = b.value;
  if (s.status === "fulfilled") stack = s.value;
  for (const result of started) if (result.status === "rejected") throw result.reason;
}, 120_000);
afterAll(async () => {
  await Promise.all([browser?.close(), stack?.stop()]);
});

type Contents = { role: string; parts: Record<string, unknown>[] }[];
const lastGemini = async (): Promise<Contents> => ((await requests(stack.llm.url, stack.llmKey)).at(-1)?.body.contents ?? []) as Contents;
const sessionOf = (page: Page): string => new URLSearchParams(new URL(page.url()).hash.slice(1)).get("s") ?? "";
const chipTexts = (page: Page, selector: string) => () => page.locator(selector).allTextContents();

// The page's own code, as strings: these tests are type-checked without the DOM's types.
const MAKE_TRANSFER = `(files) => { const dt = new DataTransfer(); for (const f of files) dt.items.add(new File([f.bytes ? Uint8Array.from(atob(f.bytes), (c) => c.charCodeAt(0)) : f.text ?? new Uint8Array(f.size)], f.name, { type: f.type })); return dt; }`;

type PageFile = { name: string; type: string; text?: string; bytes?: string; size?: number };

/** Drops files made in the page on the chat, as a drag from the desktop would. */
async function drop(page: Page, files: PageFile[]): Promise<void> {
  const transfer = await page.evaluateHandle(`(${MAKE_TRANSFER})(${JSON.stringify(files)})`);
  for (const type of ["dragenter", "dragover", "drop"]) await page.dispatchEvent("#chat", type, { dataTransfer: transfer });
}

/** Pastes a PNG into the message box, as a screenshot from the clipboard ("image.png"). */
async function pasteScreenshot(page: Page): Promise<void> {
  const files = JSON.stringify([{ name: "image.png", type: "image/png", bytes: PNG }]);
  await page.evaluate(
    `document.querySelector("#composer-input").dispatchEvent(new ClipboardEvent("paste", { clipboardData: (${MAKE_TRANSFER})(${files}), bubbles: true, cancelable: true }))`,
  );
}

describe("attaching files from the computer", () => {
  it("takes a file from the button, a dropped file and a pasted screenshot; the model gets them natively; the chips stay in the history", async () => {
    await script(stack.llm.url, stack.llmKey, [reply.text("A pixel, a PDF and a table.")]);
    const page = await openPage(browser, stack);
    const before = sessionOf(page);
    await page.locator("#new-session").click();
    await expect.poll(() => sessionOf(page)).not.toBe(before);
    await page.locator("#conn[data-state=open]").waitFor({ state: "attached" });

    // The limits are stated before anything is uploaded: read once the pointer reaches the button (not on every load).
    await page.locator("#attach-file").hover();
    await expect.poll(() => page.locator("#attach-file").getAttribute("title")).toMatch(/up to 5 MB each, 5 per message · 100 MB of 100 MB left/);

    const chooser = page.waitForEvent("filechooser");
    await page.locator("#attach-file").click();
    await (await chooser).setFiles({ name: "paper.pdf", mimeType: "application/pdf", buffer: Buffer.from(PDF) });
    await drop(page, [{ name: "table.csv", type: "text/csv", text: "a,b\n1,2\n" }]);
    await pasteScreenshot(page);
    await expect.poll(() => page.locator("#composer-files .file-chip").count()).toBe(3);
    await expect
      .poll(() => page.locator("#composer-files .file-chip").evaluateAll((els) => els.map((e) => `${e.getAttribute("data-status")} ${e.textContent}`)))
      .toEqual(["ready PDFpaper.pdf · 15 B×", "ready TXTtable.csv · 8 B×", expect.stringMatching(/^ready pasted-.*\.png · 70 B×$/)]);
    const names = await page.locator("#composer-files .chip-label").allTextContents();
    expect(names[0]).toBe("paper.pdf · 15 B");
    expect(names[1]).toBe("table.csv · 8 B");
    expect(names[2]).toMatch(/^pasted-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}\.png · 70 B$/);
    expect(await page.locator("#composer-files .file-thumb").count()).toBe(1);
    expect(await page.locator("#file-limits").textContent()).toMatch(/up to 5 MB each, 5 per message/);

    // Refused ones: too large (by the page, before a byte is sent) and a text file calling itself a PNG (by the Worker).
    await drop(page, [{ name: "huge.log", type: "text/plain", size: 5 * 1024 * 1024 + 1 }]);
    await drop(page, [{ name: "<img src=x onerror=alert(1)>.png", type: "image/png", text: "<script>alert(1)</script>" }]);
    await expect
      .poll(chipTexts(page, '#composer-files .file-chip[data-status="error"] .chip-error'))
      .toEqual([
        '"huge.log" is larger than 5 MB, the most one file may have',
        '"<img src=x onerror=alert(1)>.png" claims to be image/png but its content is text',
      ]);
    // The name is text, never markup.
    expect(await page.locator("#composer-files img:not(.file-thumb)").count()).toBe(0);
    await page.locator("#composer-input").fill("What are these?");
    await shotBoth(page, "chat-files-composer");
    expect((await overflow(page)).overflow).toBe(0);

    // The refused chips are removed; the message goes with the three others.
    for (const name of ["huge.log", "<img src=x onerror=alert(1)>.png"]) await page.getByRole("button", { name: `Remove ${name}` }).click();
    await page.locator("#composer-input").press("Enter");
    await page.locator(".msg.assistant", { hasText: "A pixel, a PDF and a table." }).waitFor();
    const parts = (await lastGemini()).at(-1)?.parts ?? [];
    expect(parts[0]).toEqual({ text: "What are these?" });
    expect(parts).toContainEqual({ inlineData: { mimeType: "application/pdf", data: Buffer.from(PDF).toString("base64") } });
    expect(parts).toContainEqual({ inlineData: { mimeType: "image/png", data: PNG } });
    expect(parts).toContainEqual({ text: 'Attached file "table.csv" (text/csv, 8 B):\na,b\n1,2\n' });
    await expect.poll(() => page.locator("#composer-files").isVisible()).toBe(false);

    // In the history: a chip per file, the image with its preview served by the Worker (owner only).
    await page.reload();
    await expect.poll(chipTexts(page, ".msg.user .file-chips .chip-label")).toHaveLength(3);
    const thumb = page.locator(".msg.user .file-chips img.file-thumb");
    await expect.poll(() => thumb.evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth)).toBe(1);
    expect(await thumb.getAttribute("src")).toMatch(/\/api\/files\/f_[\w-]{22}$/);
    await shotBoth(page, "chat-files");
    await page.setViewportSize(PHONE);
    expect((await overflow(page)).overflow).toBe(0);
    noPageErrors(page);

    await page.context().close();
  });
});
