// A server's question (elicitation) in the page (issue 33, the page's part), in headless
// Chromium against the real stack: server-everything's trigger-elicitation-request asks
// through the bridge, the page answers, and the tool's result says what the server got.
// - Decline and Cancel answer whatever the form holds (a required field left empty);
// - the server's defaults are shown and sent, decimals included (3.14), enum and
//   multi-select defaults too, and a choice made by title sends its value;
// - Send sends nothing while the form is wrong (the browser's checks, then the page's);
// - typing when the question opens stays in the message box until the person moves in.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { focus, noPageErrors, shot } from "./browser";
import { askQuestion, type ElicitationPage, lastQuestionResult, openElicitationPage, questionDialog, questionField } from "./elicitation-page";

let at: ElicitationPage;
let page: Page;
let answers: ElicitationPage["answers"];

beforeAll(async () => {
  at = await openElicitationPage();
  ({ page, answers } = at);
}, 90_000);
afterAll(async () => {
  await at?.close();
});

const dialog = () => questionDialog(page);
const field = (name: string) => questionField(page, name);
const ask = (text: string, after: string) => askQuestion(at, text, after);
const lastResult = (after: string) => lastQuestionResult(page, after);

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
    // A few choices are radio buttons (titled oneOf, legacy enumNames), many a select (above).
    expect(await page.locator('#elicitation-fields label:has([name="titledSingleSelectEnum"]:checked)').textContent()).toBe("Superman");
    expect(await page.locator('#elicitation-fields label:has([name="legacyTitledEnum"]:checked)').textContent()).toBe("Cats");
    expect(
      await page
        .locator('#elicitation-fields [name="untitledMultipleSelectEnum"]:checked')
        .evaluateAll((boxes) => boxes.map((box) => (box as unknown as { value: string }).value)),
    ).toEqual(["Guitar"]);
    expect(await page.locator('#elicitation-fields label:has([name="titledMultipleSelectEnum"]:checked)').allTextContents()).toEqual(["Tuna"]);
    await field("name").click();
    await field("name").fill("Ada Lovelace");
    await page.locator('#elicitation-fields label:has([name="titledSingleSelectEnum"])', { hasText: "Wonder Woman" }).click();
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
