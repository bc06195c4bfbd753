// A server's question (elicitation) in the page (issue 33, the page's part), in headless
// Chromium against the real stack: server-everything's trigger-elicitation-request asks
// through the bridge, the page answers, and the tool's result says what the server got.
// - Decline and Cancel answer whatever the form holds (a required field left empty);
// - the server's defaults are shown and sent, decimals included (3.14), enum and
//   multi-select defaults too, and a choice made by title sends its value;
// - Send sends nothing while the form is wrong (the browser's checks, then the page's);
// - typing when the question opens stays in the message box until the person moves in.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { everythingBin } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { DESKTOP, focus, launchBrowser, noPageErrors, openPage, sendMessage, shot } from "./browser";

const TOOL = "trigger-elicitation-request";

let browser: Browser;
let stack: Stack;
let page: Page;
/** The elicitation answers the page sent, in order. */
const answers: { action?: string; content?: Record<string, unknown> }[] = [];

beforeAll(async () => {
  [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack({ mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"], alwaysAllow: [TOOL] } } }),
  ]);
  // The page's socket is watched from its first frame: the listener goes on before the page opens.
  const context = await browser.newContext({ viewport: DESKTOP });
  context.on("page", (opened) =>
    opened.on("websocket", (ws) =>
      ws.on("framesent", ({ payload }) => {
        const frame = JSON.parse(String(payload)) as { type?: string; action?: string; content?: Record<string, unknown> };
        if (frame.type === "elicitation_response") answers.push({ action: frame.action, content: frame.content });
      }),
    ),
  );
  page = await openPage(browser, stack, { context });
  await page.locator('#servers li[data-server="everything"][data-state="ready"]').waitFor({ state: "attached" });
}, 90_000);
afterAll(async () => {
  await page?.context().close();
  await Promise.all([browser?.close(), stack?.stop()]);
});

const dialog = () => page.locator("#elicitation-dialog[open]");
const field = (name: string) => page.locator(`#elicitation-fields [name="${name}"]`);

/** Asks the model to call the tool; resolves once the question is open. */
async function ask(text: string, after: string): Promise<void> {
  await script(stack.llm.url, stack.llmKey, [reply.callReply(`everything__${TOOL}`, {}), reply.text(after)]);
  answers.length = 0;
  await sendMessage(page, text);
  await dialog().waitFor();
}

/** The text of the newest finished call of the tool (its result names what the server got). */
async function lastResult(after: string): Promise<string> {
  await page.locator(".msg.assistant", { hasText: after }).waitFor();
  const card = page.locator(".tool-card.done", { hasText: `everything.${TOOL}` }).last();
  await card.locator("summary").click();
  return (await card.locator(".tool-result").textContent()) ?? "";
}

describe("a server's question", () => {
  it("is declined, and cancelled, with its required field left empty", async () => {
    await ask("ask me something", "You said no.");
    await page.locator("#elicitation-dialog[open]:not([data-arming])").waitFor();
    expect(await field("name").inputValue()).toBe("");
    expect(await field("name").getAttribute("required")).not.toBeNull();
    await page.locator("#elicitation-decline").click();
    await dialog().waitFor({ state: "detached" });
    expect(await lastResult("You said no.")).toContain("User declined to provide the requested information.");
    expect(answers).toEqual([{ action: "decline" }]);

    await ask("ask me again", "You walked away.");
    await page.locator("#elicitation-dialog[open]:not([data-arming])").waitFor();
    await page.locator("#elicitation-cancel").click();
    expect(await lastResult("You walked away.")).toContain("User cancelled the elicitation dialog.");
    expect(answers).toEqual([{ action: "cancel" }]);
  });

  it("shows the server's defaults, takes decimals, and sends them with what the person chose", async () => {
    await ask("tell the server about me", "Thanks for the answers.");
    expect(await field("number").inputValue()).toBe("3.14");
    expect(await field("integer").inputValue()).toBe("42");
    expect(await field("firstLine").inputValue()).toBe("It was a dark and stormy night.");
    expect(await page.locator('#elicitation-fields [name="untitledSingleSelectEnum"] option:checked').textContent()).toBe("Monica");
    expect(await page.locator('#elicitation-fields [name="titledSingleSelectEnum"] option:checked').textContent()).toBe("Superman");
    expect(await page.locator('#elicitation-fields [name="legacyTitledEnum"] option:checked').textContent()).toBe("Cats");
    expect(
      await page
        .locator('#elicitation-fields [name="untitledMultipleSelectEnum"]:checked')
        .evaluateAll((boxes) => boxes.map((box) => (box as unknown as { value: string }).value)),
    ).toEqual(["Guitar"]);
    expect(await page.locator('#elicitation-fields label:has([name="titledMultipleSelectEnum"]:checked)').allTextContents()).toEqual(["Tuna"]);
    await field("name").click();
    await field("name").fill("Ada Lovelace");
    await field("titledSingleSelectEnum").selectOption({ label: "Wonder Woman" });
    await page.locator('#elicitation-fields label:has([name="untitledMultipleSelectEnum"])', { hasText: "Piano" }).click();
    await shot(page, "elicitation-defaults");
    await page.locator("#elicitation-accept").click();
    const result = await lastResult("Thanks for the answers.");
    expect(answers).toEqual([
      {
        action: "accept",
        content: {
          name: "Ada Lovelace",
          check: false,
          firstLine: "It was a dark and stormy night.",
          integer: 42,
          number: 3.14,
          untitledSingleSelectEnum: "Monica",
          untitledMultipleSelectEnum: ["Guitar", "Piano"],
          titledSingleSelectEnum: "hero-3",
          titledMultipleSelectEnum: ["fish-1"],
          legacyTitledEnum: "pet-1",
        },
      },
    ]);
    expect(result).toContain("- Name: Ada Lovelace");
    expect(result).toContain("- Favorite Number: 3.14");
    expect(result).toContain('"titledSingleSelectEnum": "hero-3"');
  });

  it("sends nothing while the form is wrong, and says what is wrong", async () => {
    await ask("ask me once more", "Three instruments it is.");
    await page.locator("#elicitation-dialog[open]:not([data-arming])").waitFor();
    // The browser's own check: a required field left empty.
    await page.locator("#elicitation-accept").click();
    expect(await field("name").evaluate((input) => (input as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing)).toBe(true);
    // The page's check: more choices than the server's maxItems (3).
    await field("name").fill("Ada");
    for (const instrument of ["Piano", "Violin", "Drums"]) {
      await page.locator('#elicitation-fields label:has([name="untitledMultipleSelectEnum"])', { hasText: instrument }).click();
    }
    await page.locator("#elicitation-accept").click();
    await page.locator("#elicitation-error", { hasText: "Untitled Multiple Select Enum: choose at most 3." }).waitFor();
    expect(await page.locator('#elicitation-fields .choices[aria-invalid="true"]').count()).toBe(1);
    expect(await dialog().count()).toBe(1);
    expect(answers).toEqual([]);
    await page.locator('#elicitation-fields label:has([name="untitledMultipleSelectEnum"])', { hasText: "Drums" }).click();
    await page.locator("#elicitation-accept").click();
    expect(await lastResult("Three instruments it is.")).toContain('"untitledMultipleSelectEnum": [\n      "Guitar",\n      "Piano",\n      "Violin"\n    ]');
    expect(answers).toHaveLength(1);
  });

  it("leaves keys typed as it opens in the message box until the person moves into it", async () => {
    const input = page.locator("#composer-input");
    await ask("one more question", "Got your name.");
    // Typed on while the question appears, Space and Enter included.
    await page.keyboard.type("thinking of a reply", { delay: 30 });
    await page.keyboard.press("Enter");
    expect(await input.inputValue()).toBe("thinking of a reply");
    expect(await field("name").inputValue()).toBe("");
    expect(answers).toEqual([]);
    expect(await focus(page)).toEqual({ id: "elicitation-dialog", dialog: "elicitation-dialog" });
    await shot(page, "elicitation-typed-through");
    // Tab moves into the form: from there keys are the person's answer.
    await page.keyboard.press("Tab");
    expect(await focus(page)).toEqual({ id: await field("name").getAttribute("id"), dialog: "elicitation-dialog" });
    await page.keyboard.type("Grace");
    await page.locator("#elicitation-accept").click();
    await dialog().waitFor({ state: "detached" });
    // Focus is back in the message box, with the text typed meanwhile.
    expect((await focus(page)).id).toBe("composer-input");
    expect(await input.inputValue()).toBe("thinking of a reply");
    expect(await lastResult("Got your name.")).toContain("- Name: Grace");
    expect(answers[0]?.content?.name).toBe("Grace");
    noPageErrors(page);
  });
});
