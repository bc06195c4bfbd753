// A server's form question (MCP elicitation, form mode) with every kind of field the spec
// allows (issue 37), in headless Chromium against the real stack: tests/fixtures/form-server.mjs
// asks through the bridge and writes down what it received, so each kind is checked as
// the control a person expects (radios for a few choices, a select for many, check boxes
// for several, a check box beside its label, a date or time picker, a number with its
// range), starting at the server's defaults, and sending the values typed as the schema says.
// The page runs in Paris time, so a date-time is shown in local time and sent in UTC.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { repoRoot } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage, PHONE, sendMessage, shots } from "./browser";

const formServerBin = join(repoRoot, "tests", "fixtures", "form-server.mjs");
const DESKTOP_1280 = { width: 1280, height: 800 };

let browser: Browser;
let stack: Stack;
let context: BrowserContext;
let page: Page;
let log: string;

/** The answers the server received, in order. */
const received = (): { action: string; content?: Record<string, unknown> }[] =>
  readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

beforeAll(async () => {
  log = join(mkdtempSync(join(tmpdir(), "forms-")), "received.jsonl");
  writeFileSync(log, "");
  [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack({ mcpServers: { forms: { command: process.execPath, args: [formServerBin, log], alwaysAllow: ["ask_form"] } } }),
  ]);
  context = await browser.newContext({ viewport: DESKTOP_1280, timezoneId: "Europe/Paris" });
  page = await openPage(browser, stack, { context });
  await page.locator('#servers li[data-server="forms"][data-state="ready"]').waitFor({ state: "attached" });
}, 90_000);
afterAll(async () => {
  await context?.close();
  await Promise.all([browser?.close(), stack?.stop()]);
});

const field = (p: Page, name: string) => p.locator(`#elicitation-fields [name="${name}"]`);
const checked = (p: Page, name: string) =>
  p.locator(`#elicitation-fields [name="${name}"]:checked`).evaluateAll((inputs) => inputs.map((i) => (i.closest("label")?.textContent ?? "").trim()));
const chosen = (p: Page, name: string) => p.locator(`#elicitation-fields select[name="${name}"] option:checked`).textContent();
const pick = (p: Page, name: string, label: string) => p.locator(`#elicitation-fields label:has([name="${name}"])`, { hasText: label }).click();

/** Has the model call ask_form (then say `after`); resolves once the question is open and armed. */
async function ask(p: Page, text: string, after: string): Promise<void> {
  await script(stack.llm.url, stack.llmKey, [reply.callReply("forms__ask_form", {}), reply.text(after)]);
  await sendMessage(p, text);
  await p.locator("#elicitation-dialog[open]:not([data-arming])").waitFor();
}

/** Resolves once the server's answer is written down and the model spoke after it. */
async function answered(p: Page, after: string): Promise<void> {
  await p.locator(".msg.assistant", { hasText: after }).waitFor();
}

describe("a server's form", () => {
  it("shows each kind as its control, at the server's defaults", async () => {
    await ask(page, "sign me up", "Signed up.");
    // Strings: their formats and bounds; a required one is marked.
    expect(await field(page, "name").getAttribute("type")).toBe("text");
    expect(await field(page, "name").getAttribute("required")).not.toBeNull();
    expect(await field(page, "name").getAttribute("minlength")).toBe("2");
    expect(await page.locator('#elicitation-fields label[for]:text-is("Your name *")').count()).toBe(1);
    expect(await page.locator("#elicitation-fields .field", { hasText: "Your name" }).locator("small").textContent()).toBe("As it should appear on the badge");
    expect(await field(page, "email").getAttribute("type")).toBe("email");
    expect(await field(page, "homepage").getAttribute("type")).toBe("url");
    expect(await field(page, "birthday").getAttribute("type")).toBe("date");
    expect(await field(page, "birthday").inputValue()).toBe("1990-05-17");
    // A date-time in the person's own time (Paris, UTC+1 in December).
    expect(await field(page, "meeting").getAttribute("type")).toBe("datetime-local");
    expect(await field(page, "meeting").inputValue()).toBe("2026-12-01T10:30");
    // Numbers with their range.
    expect(await field(page, "seats").evaluate((i) => [i.getAttribute("type"), i.getAttribute("min"), i.getAttribute("max"), i.getAttribute("step")])).toEqual([
      "number",
      "1",
      "10",
      "1",
    ]);
    expect(await field(page, "seats").inputValue()).toBe("3");
    expect(await field(page, "ratio").inputValue()).toBe("0.25");
    // Booleans: a check box with its label beside it (one <label> holds both), required marked.
    expect(await page.locator('#elicitation-fields label:has(input[type="checkbox"][name="agree"])').textContent()).toBe("I agree to the terms *");
    expect(await field(page, "agree").isChecked()).toBe(false);
    expect(await field(page, "newsletter").isChecked()).toBe(true);
    const box = await field(page, "agree").boundingBox();
    const words = await page.locator('#elicitation-fields label:has([name="agree"]) .choice-text').boundingBox();
    expect(box && words && words.x > box.x && words.x - (box.x + box.width) < 16 && Math.abs(words.y + words.height / 2 - (box.y + box.height / 2)) < 6).toBe(
      true,
    );
    // One of a few: radio buttons (untitled enum, titled oneOf, legacy enumNames), the default chosen.
    expect(await page.locator('#elicitation-fields input[type="radio"][name="color"]').count()).toBe(3);
    expect(await checked(page, "color")).toEqual(["green"]);
    expect(await page.locator('#elicitation-fields input[type="radio"][name="size"]').count()).toBe(3);
    expect(await checked(page, "size")).toEqual(["Medium"]);
    expect(await page.locator('#elicitation-fields [role="radiogroup"]:has([name="size"])').getAttribute("aria-required")).toBe("true");
    expect(await checked(page, "pet")).toEqual(["Dogs"]);
    // An optional one with no default starts unanswered, and can be left so.
    expect(await checked(page, "level")).toEqual(["No answer"]);
    // One of many: a select, its default chosen.
    expect(await chosen(page, "friend")).toBe("Joey");
    expect(await chosen(page, "country")).toBe("France");
    expect(await page.locator('#elicitation-fields select[name="country"] option').allTextContents()).toEqual([
      "",
      "Germany",
      "France",
      "Italy",
      "Spain",
      "Portugal",
      "Netherlands",
      "Belgium",
    ]);
    // Several: check boxes, untitled and titled, the defaults checked.
    expect(await page.locator('#elicitation-fields input[type="checkbox"][name="toppings"]').count()).toBe(4);
    expect(await checked(page, "toppings")).toEqual(["cheese"]);
    expect(await checked(page, "fish")).toEqual(["Salmon"]);
    await page.screenshot({ path: join(shots, "forms-desktop-1280.png") });
    await page.locator("#elicitation-dialog").evaluate((d) => d.scrollTo(0, d.scrollHeight));
    await page.screenshot({ path: join(shots, "forms-desktop-1280-end.png") });

    // What the person changes, and Send: the server gets each value typed as its schema says.
    await field(page, "name").click();
    await field(page, "name").fill("Ada");
    await field(page, "email").fill("ada@example.com");
    await field(page, "homepage").fill("https://ada.example/");
    await pick(page, "agree", "I agree to the terms");
    await field(page, "seats").fill("5");
    await pick(page, "color", "blue");
    await pick(page, "size", "Large");
    await pick(page, "pet", "Birds");
    await pick(page, "level", "high");
    await field(page, "friend").selectOption({ label: "Ross" });
    await field(page, "country").selectOption({ label: "Spain" });
    await pick(page, "toppings", "olives");
    await pick(page, "fish", "Tuna");
    await page.locator("#elicitation-accept").click();
    await answered(page, "Signed up.");
    expect(received()).toEqual([
      {
        action: "accept",
        content: {
          name: "Ada",
          email: "ada@example.com",
          homepage: "https://ada.example/",
          birthday: "1990-05-17",
          meeting: "2026-12-01T09:30:00.000Z",
          agree: true,
          newsletter: true,
          seats: 5,
          ratio: 0.25,
          color: "blue",
          friend: "Ross",
          size: "l",
          country: "es",
          pet: "pet-3",
          level: "high",
          toppings: ["cheese", "olives"],
          fish: ["fish-1", "fish-2"],
        },
      },
    ]);
  });

  it("sends a time typed in local time as UTC, a box unticked as false, and leaves an unanswered choice out", async () => {
    writeFileSync(log, "");
    await ask(page, "sign me up again", "Signed up again.");
    await field(page, "name").click();
    await field(page, "name").fill("Grace");
    await field(page, "meeting").fill("2026-12-24T18:00");
    await pick(page, "agree", "I agree to the terms");
    await pick(page, "newsletter", "Send me the newsletter");
    await pick(page, "fish", "Salmon");
    await page.locator("#elicitation-accept").click();
    await answered(page, "Signed up again.");
    const [only] = received();
    expect(only?.content).toMatchObject({ name: "Grace", meeting: "2026-12-24T17:00:00.000Z", agree: true, newsletter: false });
    // "No answer" sends nothing; a choice left empty of all its boxes sends nothing (the server's default is then the client's to apply).
    expect(only?.content && "level" in only.content).toBe(false);
    noPageErrors(page);
  });

  it("says chat, never session, in what a person reads: text, titles, labels, placeholders, dialogs included", async () => {
    // The page's own words (the chat list, its dialogs while closed, the console), not the answers' text.
    const words = (await page.evaluate(`(() => {
      const out = [];
      const skip = (el) => el.closest("#messages, script, style, template");
      for (const el of document.querySelectorAll("body *")) {
        if (skip(el)) continue;
        for (const node of el.childNodes) if (node.nodeType === 3 && node.textContent.trim()) out.push(node.textContent.trim());
        for (const name of ["title", "aria-label", "placeholder", "alt"]) if (el.getAttribute(name)) out.push(el.getAttribute(name));
      }
      return out;
    })()`)) as string[];
    expect(words.length).toBeGreaterThan(100);
    expect(words.filter((text) => /\bsessions?\b/i.test(text))).toEqual([]);
    expect(words).toContain("Always allow in this chat");
    expect(words).toContain("Delete all chats");
  });

  it("keeps Send, Decline and Cancel in view on a phone, the form scrolling behind them", async () => {
    writeFileSync(log, "");
    // One page on the chat: the desktop one would be asked the same question.
    await context.close();
    const phoneContext = await browser.newContext({ viewport: PHONE, timezoneId: "Europe/Paris", hasTouch: true, isMobile: true });
    try {
      const phone = await openPage(browser, stack, { context: phoneContext });
      await phone.locator('#servers li[data-server="forms"][data-state="ready"]').waitFor({ state: "attached" });
      await ask(phone, "sign me up on the phone", "Signed up on the phone.");
      // The form is longer than the screen: its buttons stay in view at the top of the scroll and at its end.
      const inView = async () => {
        for (const id of ["elicitation-accept", "elicitation-decline", "elicitation-cancel"]) {
          const b = await phone.locator(`#${id}`).boundingBox();
          expect({ id, inView: b !== null && b.y >= 0 && b.y + b.height <= PHONE.height && b.x >= 0 && b.x + b.width <= PHONE.width }).toEqual({
            id,
            inView: true,
          });
        }
      };
      const scroller = phone.locator("#elicitation-dialog");
      expect(await scroller.evaluate((d) => d.scrollHeight > d.clientHeight)).toBe(true);
      await inView();
      await phone.screenshot({ path: join(shots, "forms-phone-top.png") });
      await field(phone, "fish").last().scrollIntoViewIfNeeded();
      await inView();
      // The last field is not hidden behind the buttons.
      const last = await phone.locator('#elicitation-fields label:has([name="fish"])').last().boundingBox();
      const send = await phone.locator("#elicitation-accept").boundingBox();
      expect(last && send && last.y + last.height <= send.y).toBe(true);
      await phone.screenshot({ path: join(shots, "forms-phone-end.png") });
      await field(phone, "name").fill("Phone");
      await pick(phone, "agree", "I agree to the terms");
      await phone.locator("#elicitation-accept").tap();
      await answered(phone, "Signed up on the phone.");
      expect(received()[0]?.content).toMatchObject({ name: "Phone", agree: true, size: "m" });
      noPageErrors(phone);
    } finally {
      await phoneContext.close();
    }
  });
});
