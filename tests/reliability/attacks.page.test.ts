// The page's holes of issue 33, as a person meets them in Chromium on the real stack
// (wrangler dev, the bridge with server-everything, the fake model): a server's question
// must be answerable "no" whatever its form holds, keys typed as it opens must not become
// an answer, the server's own decimal default must be accepted, and a refused pairing
// code must say why. One stack for the file (tests/e2e/elicitation-page.ts).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { focus, noPageErrors } from "../e2e/browser";
import { askQuestion, type ElicitationPage, lastQuestionResult, openElicitationPage, questionDialog, questionField } from "../e2e/elicitation-page";
import { attackCase, expectWithin } from "./record";

let at: ElicitationPage;
let page: Page;

beforeAll(async () => {
  at = await openElicitationPage();
  page = at.page;
}, 90_000);
afterAll(async () => {
  await at?.close();
});

/** Waits until the question's guard lifts (the person can act on it). */
const armed = () => page.locator("#elicitation-dialog[open]:not([data-arming])").waitFor();

describe("the page's questions and pairing codes (issue 33)", () => {
  it(
    "declines and cancels a question whose required field is empty",
    attackCase(
      "A server's question cannot be declined (issue 33)",
      "server-everything asks for a form with a required name; the person leaves it empty and clicks Decline, then (asked again) Cancel (before the fix both were blocked by the form's check and the call hung 60 s)",
      async () => {
        const figures: string[] = [];
        for (const [button, action, after, said] of [
          ["#elicitation-decline", "decline", "You said no.", "User declined to provide the requested information."],
          ["#elicitation-cancel", "cancel", "You walked away.", "User cancelled the elicitation dialog."],
        ] as const) {
          await askQuestion(at, `ask me (${action})`, after);
          await armed();
          expect(await questionField(page, "name").inputValue()).toBe("");
          expect(await questionField(page, "name").getAttribute("required")).not.toBeNull();
          const clicked = Date.now();
          await page.locator(button).click();
          const result = await lastQuestionResult(page, after);
          const ms = Date.now() - clicked;
          expect(result).toContain(said);
          expect(at.answers).toEqual([{ action }]);
          expectWithin(ms, 10_000, `${action} reaching the server and the turn ending`);
          figures.push(`${action}: sent at once, the server answered "${said}", turn ended ${ms} ms after the click`);
        }
        return { tried: 2, figure: figures.join("; ") };
      },
    ),
  );

  it(
    "keeps text typed as a question opens in the message box, and sends none of it",
    attackCase(
      "Typing fills a server's question (issue 33)",
      'typed "thinking of a reply" + Enter in Chromium while server-everything\'s question opened, then Decline (before the fix the text landed in "Your full, legal name" and Send sent it)',
      async () => {
        const input = page.locator("#composer-input");
        await askQuestion(at, "one more question", "Nothing sent.");
        await page.keyboard.type("thinking of a reply", { delay: 30 });
        await page.keyboard.press("Enter");
        expect(await input.inputValue()).toBe("thinking of a reply");
        expect(await questionField(page, "name").inputValue()).toBe("");
        expect(at.answers).toEqual([]);
        expect((await focus(page)).dialog).toBe("elicitation-dialog");
        await page.locator("#elicitation-decline").click();
        await questionDialog(page).waitFor({ state: "detached" });
        // Back where the person was typing (before the result's card is opened, which takes focus).
        expect((await focus(page)).id).toBe("composer-input");
        const result = await lastQuestionResult(page, "Nothing sent.");
        expect(result).not.toContain("thinking");
        expect(at.answers).toEqual([{ action: "decline" }]);
        expect(JSON.stringify(at.answers)).not.toContain("thinking");
        expect(await input.inputValue()).toBe("thinking of a reply");
        await input.fill("");
        return {
          tried: 1,
          figure:
            "0 answers sent while typing; the text kept whole in the message box, the form's name still empty; the one answer was decline, with no content",
        };
      },
    ),
  );

  it(
    "accepts the server's decimal default",
    attackCase(
      "A number field refuses the server's default (issue 33)",
      "server-everything's form has a number field with default 3.14; the person fills only the name and clicks Send (before the fix step 1 made the browser refuse 3.14)",
      async () => {
        await askQuestion(at, "tell the server about me", "Thanks for the answers.");
        await armed();
        expect(await questionField(page, "number").inputValue()).toBe("3.14");
        expect(await questionField(page, "number").evaluate((input) => (input as unknown as { checkValidity(): boolean }).checkValidity())).toBe(true);
        await questionField(page, "name").click();
        await questionField(page, "name").fill("Ada Lovelace");
        await page.locator("#elicitation-accept").click();
        const result = await lastQuestionResult(page, "Thanks for the answers.");
        expect(at.answers).toHaveLength(1);
        expect(at.answers[0]?.action).toBe("accept");
        expect(at.answers[0]?.content?.number).toBe(3.14);
        expect(result).toContain("- Favorite Number: 3.14");
        return { tried: 1, figure: "the field showed 3.14 and was valid; Send sent number 3.14 and the server echoed it" };
      },
    ),
  );

  it(
    "says why a pairing code is refused",
    attackCase(
      'A refused pairing code reads "[object Object]" (issue 33)',
      'a code no machine waits with (ABCD-EFGH) typed into My machines (before the fix: "The server answered [object Object].")',
      async () => {
        await page.locator("#my-machines-open").click();
        const code = page.locator("#pair-code");
        await code.fill("ABCD-EFGH");
        await code.press("Tab");
        const why = "No machine is waiting with this code: it expired (a code lasts 10 minutes), was used already, or is mistyped.";
        await page.locator("#pair-what", { hasText: why }).waitFor();
        expect(await page.locator("#pair-approve").isDisabled()).toBe(true);
        expect(await page.locator("#my-machines-dialog").textContent()).not.toContain("[object Object]");
        await page.locator("#my-machines-close").click();
        noPageErrors(page);
        return { tried: 1, figure: `the page said "${why}"; Approve disabled; no "[object Object]"` };
      },
    ),
  );
});
