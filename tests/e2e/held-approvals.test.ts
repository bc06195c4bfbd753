// A held approval answered in the person's page (issue 38, design §2.7), on the real stack
// (wrangler dev, the bridge with server-filesystem, token sign-in): an outside MCP client that
// cannot elicit (the SDK's v2 client, OAuth through the real consent routes) calls a tool that
// would ask in the chat; the call waits while alice's page shows "<app> asks to run
// filesystem.list_allowed_directories" under its header; Review… opens the approval dialog
// with the arguments, Allow once answers it, and the client's waiting call returns the tool's
// result. The banner then goes. axe finds nothing serious with the banner and the dialog open.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, GatewayOAuthClient } from "../fixtures/gateway-client";
import { startStack, type Stack } from "../fixtures/stack";
import { axeCheck } from "./axe";
import { launchBrowser, noPageErrors, openPage, shots } from "./browser";

const tokens = { alice: `alice-${randomBytes(16).toString("hex")}` };
const CLIENT_NAME = "Plain Client (e2e)";
const TOOL = "filesystem__list_allowed_directories";

let browser: Browser;
let stack: Stack;

beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack({ model: false, vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${tokens.alice}` } })]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function signedIn(token: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await openPage(browser, stack, { context, ready: false });
  await page.locator("#login-token").fill(token);
  await page.locator("#login-submit").click();
  await page.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor({ state: "attached" });
  return page;
}

describe("a client that cannot ask alice", () => {
  let client: Client | undefined;
  afterAll(async () => {
    await client?.close().catch(() => undefined);
  });

  it("its call waits while her page shows it; Allow once in the dialog completes the call", { timeout: 120_000 }, async () => {
    // Connected first (the browser step of OAuth played with alice's bearer), so her page's load knows she has an app.
    const mcpUrl = `${stack.url}/mcp`;
    const provider = new GatewayOAuthClient({ fetch: globalThis.fetch, headers: { authorization: `Bearer ${tokens.alice}` }, clientName: CLIENT_NAME });
    await authorize(provider, mcpUrl);
    // No elicitation capability: the gateway cannot ask through it.
    client = new Client({ name: "plain-client", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: globalThis.fetch }));

    const page = await signedIn(tokens.alice);
    const call = client.callTool({ name: TOOL, arguments: {} });
    // Awaited below; a failure before then must not leave it unhandled when the client closes.
    call.catch(() => undefined);
    const entry = page.locator("#app-questions .app-question");
    await entry.waitFor();
    expect(await entry.locator("span").textContent()).toBe(`${CLIENT_NAME} asks to run filesystem.list_allowed_directories`);

    await entry.getByRole("button", { name: "Review…" }).click();
    const dialog = page.locator("#approval-dialog[open]");
    await dialog.waitFor();
    expect(await dialog.locator("#approval-title").textContent()).toBe(`${CLIENT_NAME} asks to run a tool`);
    expect(await dialog.locator("#approval-what").textContent()).toBe("filesystem.list_allowed_directories");
    expect(await dialog.locator("#approval-fields").textContent()).toContain("No arguments.");
    // Per app answers only: no "Always allow in this chat" here.
    expect(await dialog.locator("#approve-always").isVisible()).toBe(false);
    expect(await axeCheck(page, "held approval dialog")).toEqual([]);
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, "gateway-held-approval.png") });

    const answered = page.waitForResponse((r) => r.request().method() === "POST" && /\/api\/apps\/[0-9a-f]{40}\/answers$/.test(r.url()));
    await dialog.getByRole("button", { name: "Allow once" }).click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(await response.json()).toMatchObject({ approved: true, result: "held_call" });

    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain("Allowed directories");
    await page.locator("#app-questions").waitFor({ state: "hidden" });
    noPageErrors(page);
  });
});
