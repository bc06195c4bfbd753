// A page on the real stack whose server asks questions: server-everything's
// trigger-elicitation-request through the bridge, its calls allowed without approval, and
// the elicitation answers the page sends recorded from the socket's first frame. Shared by
// tests/e2e/elicitation.test.ts and tests/reliability/attacks.page.test.ts.
import type { Browser, Page } from "playwright-core";
import { reply, script } from "../fixtures/fake-llm-script";
import { everythingBin } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { DESKTOP, launchBrowser, openPage, sendMessage } from "./browser";

export const ELICITATION_TOOL = "trigger-elicitation-request";

export interface ElicitationAnswer {
  action?: string;
  content?: Record<string, unknown>;
}

export interface ElicitationPage {
  browser: Browser;
  stack: Stack;
  page: Page;
  /** The elicitation answers the page sent since the last `ask`, in order. */
  answers: ElicitationAnswer[];
  close(): Promise<void>;
}

export async function openElicitationPage(): Promise<ElicitationPage> {
  const [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack({ mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"], alwaysAllow: [ELICITATION_TOOL] } } }),
  ]);
  const answers: ElicitationAnswer[] = [];
  // The page's socket is watched from its first frame: the listener goes on before the page opens.
  const context = await browser.newContext({ viewport: DESKTOP });
  context.on("page", (opened) =>
    opened.on("websocket", (ws) =>
      ws.on("framesent", ({ payload }) => {
        const frame = JSON.parse(String(payload)) as { type?: string } & ElicitationAnswer;
        if (frame.type === "elicitation_response") answers.push({ action: frame.action, content: frame.content });
      }),
    ),
  );
  const page = await openPage(browser, stack, { context });
  await page.locator('#servers li[data-server="everything"][data-state="ready"]').waitFor({ state: "attached" });
  return {
    browser,
    stack,
    page,
    answers,
    close: async () => {
      await context.close();
      await Promise.all([browser.close(), stack.stop()]);
    },
  };
}

/** The open question dialog. */
export const questionDialog = (page: Page) => page.locator("#elicitation-dialog[open]");

/** A field of the open question's form, by its schema name. */
export const questionField = (page: Page, name: string) => page.locator(`#elicitation-fields [name="${name}"]`);

/** Has the model call the tool (then say `after`); resolves once the question is open. */
export async function askQuestion(at: ElicitationPage, text: string, after: string): Promise<void> {
  await script(at.stack.llm.url, at.stack.llmKey, [reply.callReply(`everything__${ELICITATION_TOOL}`, {}), reply.text(after)]);
  at.answers.length = 0;
  await sendMessage(at.page, text);
  await questionDialog(at.page).waitFor();
}

/** The text of the newest finished call of the tool, once the model said `after` (the result names what the server got). */
export async function lastQuestionResult(page: Page, after: string): Promise<string> {
  await page.locator(".msg.assistant", { hasText: after }).waitFor();
  const card = page.locator(".tool-card.done", { hasText: `everything.${ELICITATION_TOOL}` }).last();
  await card.locator("summary").click();
  return (await card.locator(".tool-result").textContent()) ?? "";
}
