// /mcp from an outside MCP client, with the person in Chromium (issue 38), on the real stack
// (wrangler dev, the bridge with server-filesystem, token sign-in for alice and bob): the
// SDK's v2 client discovers, registers and opens the authorize URL; alice allows it by
// clicking Allow on the real consent page; the code goes back to the client, whose token
// lists alice's tools. A tool she answers "Always allow" for (asked through the client) is
// listed in its Connected apps row; Revoke takes it back and the next call asks again.
// Connected apps lists the client with its last use, its sampling
// switch is saved, Activity names the app its calls came through, Disconnect (confirmed) removes the row and the client's next /mcp request
// is refused with 401. The Worker's log has a line per OAuth request (register, authorize,
// token, revoke) and per call, with the app's name, and never the code or a token. Bob's Connected apps and Activity never show alice's app (his empty state says how to
// connect one, and Copy copies the /mcp address). With MCP_GATEWAY=off there is no /mcp and the
// entry goes when opened. axe finds nothing
// serious or critical on the consent page and the dialog, light and dark, 1280×800 and
// 390×844; Escape closes the dialog and focus goes back to its button. Screenshots of both
// (E2E_SHOTS) are the ones in docs/connect-clients.md.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, GatewayOAuthClient } from "../fixtures/gateway-client";
import { startStack, type Stack } from "../fixtures/stack";
import { type AxeViolation, axeCheck } from "./axe";
import { focus, launchBrowser, noPageErrors, openPage, overflow, PHONE, shot, shots } from "./browser";

const tokens = { alice: `alice-${randomBytes(16).toString("hex")}`, bob: `bob-${randomBytes(16).toString("hex")}` };
const CLIENT_NAME = "Notes Desk (e2e)";
/** The client's redirect URI: Chromium is sent there with the code, and the test answers it in place of the app. */
const REDIRECT = "https://notes-desk.example/callback";
const WIDE = { width: 1280, height: 800 };
const LOOKS = [
  { name: "light-desktop", scheme: "light", viewport: WIDE },
  { name: "dark-desktop", scheme: "dark", viewport: WIDE },
  { name: "light-phone", scheme: "light", viewport: PHONE },
  { name: "dark-phone", scheme: "dark", viewport: PHONE },
] as const;

let browser: Browser;
let stack: Stack;
let mcpUrl: string;

beforeAll(async () => {
  [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack({ model: false, vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${tokens.alice},bob:${tokens.bob}` } }),
  ]);
  mcpUrl = `${stack.url}/mcp`;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function signedIn(token: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: WIDE });
  const page = await openPage(browser, stack, { context, ready: false });
  await page.locator("#login-token").fill(token);
  await page.locator("#login-submit").click();
  await page.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor({ state: "attached" });
  return { context, page };
}

/** What sticks out at phone width: the whole page's overflow, or by how many pixels `within` (a dialog) is wider than the screen or scrolls sideways. */
async function tooWide(page: Page, within?: string): Promise<unknown> {
  if (!within) return overflow(page);
  return page.evaluate(
    `(() => { const el = document.querySelector(${JSON.stringify(within)}); return Math.max(0, Math.ceil(el.getBoundingClientRect().right - window.innerWidth), el.scrollWidth - el.clientWidth); })()`,
  );
}

/** axe in each look (after `prepare`), a screenshot of each as `${name}-${look}`; the serious and critical findings by look. */
async function everyLook(page: Page, name: string, prepare: () => Promise<void>, within?: string): Promise<Record<string, AxeViolation[]>> {
  const found: Record<string, AxeViolation[]> = {};
  for (const look of LOOKS) {
    await page.setViewportSize(look.viewport);
    await page.emulateMedia({ colorScheme: look.scheme });
    await prepare();
    const blocking = await axeCheck(page, `${name} ${look.name}`);
    if (blocking.length > 0) found[look.name] = blocking;
    if (look.viewport === PHONE) expect(await tooWide(page, within), `${name} ${look.name}`).toEqual(within ? 0 : { overflow: 0, wide: [] });
    // The whole page (the consent page's buttons are below 800 px), at the look's width.
    await page.screenshot({ path: join(shots, `${name}-${look.name}.png`), fullPage: !within });
  }
  await page.setViewportSize(WIDE);
  await page.emulateMedia({ colorScheme: "light" });
  return found;
}

/**
 * The SDK's OAuth client whose browser is Chromium: the authorize URL opens in a signed-in
 * person's tab, `look` checks the consent page, the person clicks Allow, and the redirect to the
 * client's URI is caught there (no app listens at REDIRECT) and handed back as the callback.
 */
class ChromiumBrowserClient extends GatewayOAuthClient {
  private returned?: URL;

  constructor(
    private readonly tab: Page,
    private readonly look: (tab: Page) => Promise<void>,
  ) {
    super({ fetch: globalThis.fetch, headers: {}, clientName: CLIENT_NAME, redirectUrl: REDIRECT });
  }

  override async redirectToAuthorization(url: URL): Promise<void> {
    const client = new URL(REDIRECT).origin;
    // No app listens at REDIRECT: answered here so the tab shows a page (the URL is taken from the request either way).
    await this.tab.route(`${client}/**`, (route) =>
      route.fulfill({ contentType: "text/html", body: "<!doctype html><title>Back in the app</title><p>You can close this tab.</p>" }),
    );
    await this.tab.goto(url.href);
    // A cross-site arrival may pass through the same-site bounce first: the consent page is the one naming the client.
    await this.tab.locator("#client-name").waitFor();
    await this.look(this.tab);
    const sentBack = this.tab.waitForRequest((r) => r.url().startsWith(client), { timeout: 30_000 });
    const decided = this.tab.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/connect/authorize");
    await this.tab.getByRole("button", { name: "Allow", exact: true }).click();
    const answer = await decided;
    if (answer.status() !== 302) throw new Error(`the consent form answered ${answer.status()}: ${await answer.text()}`);
    this.returned = new URL((await sentBack).url());
  }

  /** The authorization code the browser brought back (the log must never show it). */
  get code(): string | undefined {
    return this.returned?.searchParams.get("code") ?? undefined;
  }

  override takeCallback(): URLSearchParams {
    const params = this.returned?.searchParams;
    if (!params?.get("code")) throw new Error(`no authorization code: the browser was sent to ${this.returned ?? "nowhere"}`);
    return params;
  }
}

/** The client's next request to /mcp with the access token it holds (what Disconnect must refuse). */
function nextMcpRequest(accessToken: string): Promise<Response> {
  return fetch(mcpUrl, {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

describe("an outside MCP client connected by alice in the page", () => {
  let alice: { context: BrowserContext; page: Page };
  let provider: ChromiumBrowserClient;
  // It can ask its person (form elicitation): a tool needing approval is asked here, answered with `decision`.
  const client = new Client({ name: "notes-desk", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  const asked: string[] = [];
  let decision = "always";
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { decision } };
  });

  afterAll(async () => {
    await client.close().catch(() => undefined);
    await alice?.context.close();
  });

  it("alice allows it on the consent page; the client's token lists her tools", { timeout: 120_000 }, async () => {
    alice = await signedIn(tokens.alice);
    const tab = await alice.context.newPage();
    let consentAxe: Record<string, AxeViolation[]> = {};
    provider = new ChromiumBrowserClient(tab, async (page) => {
      expect(await page.locator("#client-name").textContent()).toBe(CLIENT_NAME);
      expect(await page.locator("#redirect-host").textContent()).toBe("notes-desk.example");
      expect(await page.locator("main").textContent()).toContain("Signed in as alice");
      // What it will reach: the deployment's filesystem server, meant for alice.
      expect(await page.locator("main li").allTextContents()).toContain("filesystem");
      consentAxe = await everyLook(page, "gateway-consent", async () => undefined);
    });
    // The SDK's own OAuth: discovery, dynamic registration, PKCE, the browser step above, the code exchange.
    const issued = await authorize(provider, mcpUrl);
    expect(consentAxe).toEqual({});
    expect(issued.access_token).toBeTruthy();
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: globalThis.fetch }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("filesystem__list_directory");
    await tab.close();
  });

  it("Connected apps shows the tool alice always allowed for it; Revoke and the tool asks again", { timeout: 120_000 }, async () => {
    const tool = "filesystem__list_allowed_directories";
    const call = () => client.callTool({ name: tool, arguments: {} });
    // Asked through the client once, answered "Always allow for <app>": the second call runs unasked.
    expect(JSON.stringify((await call()).content)).toContain("Allowed directories");
    expect(asked).toHaveLength(1);
    await call();
    expect(asked).toHaveLength(1);

    const { page } = alice;
    await page.locator("#connected-apps-open").click();
    const row = page.locator("#connected-apps-dialog[open] #connected-apps-list li[data-app]");
    const allowed = row.locator('.always-list li[data-tool="filesystem.list_allowed_directories"]');
    await allowed.waitFor();
    expect(await row.locator(".always-list li").count()).toBe(1);
    expect(await row.locator(".always-title").textContent()).toBe("Runs without asking (you chose Always allow):");
    const found = await everyLook(page, "gateway-apps-always", async () => expect(await allowed.isVisible()).toBe(true), "#connected-apps-dialog");
    expect(found).toEqual({});

    const revoked = page.waitForResponse((r) => r.request().method() === "DELETE" && r.url().includes("/always/"));
    await row.getByRole("button", { name: `Revoke always allow of filesystem.list_allowed_directories for ${CLIENT_NAME}` }).click();
    expect((await revoked).status()).toBe(200);
    await allowed.waitFor({ state: "detached" });
    expect(await row.locator(".always-title").textContent()).toBe("No tool runs without asking.");
    expect(await page.locator("#connected-apps-status").textContent()).toBe(
      `filesystem.list_allowed_directories asks again from its next call in "${CLIENT_NAME}".`,
    );
    // Focus stayed in the dialog (the button it was on is gone).
    expect(await page.evaluate("document.getElementById('connected-apps-dialog').contains(document.activeElement)")).toBe(true);
    // Opened again, the app's object still lists none; and the next call asks again (answered once, this time).
    await page.keyboard.press("Escape");
    await page.locator("#connected-apps-open").click();
    await row.locator(".always-title").filter({ hasText: "No tool runs without asking." }).waitFor();
    decision = "once";
    await call();
    expect(asked).toHaveLength(2);
    await page.keyboard.press("Escape");
    noPageErrors(page);
  });

  it("Connected apps lists it with its last use; the sampling switch is kept; axe and Escape", { timeout: 120_000 }, async () => {
    const { page } = alice;
    await page.locator("#connected-apps-open").click();
    const row = page.locator("#connected-apps-dialog[open] #connected-apps-list li[data-app]");
    await row.waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.locator(".name").textContent()).toBe(CLIENT_NAME);
    expect(await row.locator(".access").textContent()).toContain("Access goes to notes-desk.example");
    expect(await row.textContent()).toContain("name not verified");
    // The listTools call above was a use: its time, not "Not used yet" (the app object reports it after answering).
    await expect
      .poll(async () => {
        await page.locator("#connected-apps-refresh").click();
        return row.locator(".last-used").textContent();
      })
      .toMatch(/^Last used \S/);
    expect(await page.locator("#connected-apps-url").inputValue()).toBe(mcpUrl);

    const sampling = row.getByRole("checkbox", { name: /spend my model budget/ });
    expect(await sampling.isChecked()).toBe(false);
    const patched = page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().includes("/api/apps/"));
    await sampling.check();
    expect((await patched).status()).toBe(200);
    await page.locator("#connected-apps-refresh").click();
    await expect.poll(() => row.getByRole("checkbox", { name: /spend my model budget/ }).isChecked()).toBe(true);

    const found = await everyLook(
      page,
      "gateway-apps",
      async () => expect(await page.locator("#connected-apps-dialog[open]").isVisible()).toBe(true),
      "#connected-apps-dialog",
    );
    expect(found).toEqual({});
    await page.keyboard.press("Escape");
    await page.locator("#connected-apps-dialog[open]").waitFor({ state: "detached" });
    expect((await focus(page)).id).toBe("connected-apps-open");
    noPageErrors(page);
  });

  it("Activity names the app its calls came through, not its app:<id>", { timeout: 60_000 }, async () => {
    const { page } = alice;
    // The app's three calls above (asked, always, asked again after Revoke) reach the account within seconds.
    const recorded = async () => ((await page.evaluate("fetch('/api/audit').then((r) => r.json())")) as { records: unknown[] }).records.length;
    await expect.poll(recorded, { timeout: 15_000 }).toBe(3);
    await page.locator("#activity-open").click();
    const rows = page.locator("#activity-dialog[open] #activity-list li.activity-row");
    await expect.poll(() => rows.filter({ hasText: "filesystem.list_allowed_directories" }).count()).toBe(3);
    for (const text of await rows.allTextContents()) {
      expect(text).toContain(`Connected app: ${CLIENT_NAME}`);
      expect(text).toContain(`Asked by an MCP client, ${CLIENT_NAME};`);
      expect(text).not.toMatch(/app:[0-9a-f]{40}/);
    }
    await page.keyboard.press("Escape");
    noPageErrors(page);
  });

  it("bob's Connected apps never shows alice's app", { timeout: 60_000 }, async () => {
    const bob = await signedIn(tokens.bob);
    await bob.page.locator("#connected-apps-open").click();
    const list = bob.page.locator("#connected-apps-dialog[open] #connected-apps-list");
    await list.locator("li.empty").waitFor();
    expect(await list.locator("li[data-app]").count()).toBe(0);
    expect(await list.textContent()).not.toContain(CLIENT_NAME);
    await bob.page.keyboard.press("Escape");
    // Nor does his Activity name it.
    await bob.page.locator("#activity-open").click();
    await expect.poll(() => bob.page.locator("#activity-status").textContent()).toBe("No tool calls recorded yet.");
    expect(await bob.page.locator("#activity-dialog").textContent()).not.toContain(CLIENT_NAME);
    await bob.page.keyboard.press("Escape");
    await bob.page.locator("#connected-apps-open").click();
    expect(await list.textContent()).toContain(`Add ${mcpUrl} as a custom connector`);
    await shot(bob.page, "gateway-apps-empty");
    await bob.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.url });
    await bob.page.locator("#connected-apps-copy").click();
    await expect.poll(() => bob.page.locator("#connected-apps-status").textContent()).toBe("Address copied.");
    expect(await bob.page.evaluate("navigator.clipboard.readText()")).toBe(mcpUrl);
    noPageErrors(bob.page);
    await bob.context.close();
  });

  it("Disconnect, confirmed: the row goes and the client's next /mcp request is 401", { timeout: 60_000 }, async () => {
    const { page } = alice;
    const accessToken = provider.tokens()?.access_token as string;
    expect((await nextMcpRequest(accessToken)).status).not.toBe(401);
    await page.locator("#connected-apps-open").click();
    await page.getByRole("button", { name: `Disconnect ${CLIENT_NAME}` }).click();
    await page.locator("#confirm-dialog[open]").waitFor();
    expect(await page.locator("#confirm-title").textContent()).toBe(`Disconnect "${CLIENT_NAME}"?`);
    await page.locator("#confirm-ok").click();
    await page.locator("#connected-apps-list li.empty").waitFor();
    expect(await page.locator("#connected-apps-list li[data-app]").count()).toBe(0);
    expect(await page.locator("#connected-apps-status").textContent()).toBe(`Disconnected "${CLIENT_NAME}".`);
    // The very next request, with no wait for the token store to catch up.
    const refused = await nextMcpRequest(accessToken);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer /);
    noPageErrors(page);
  });

  it("the Worker's log has a line per OAuth request and per call, with the app's name, and never a code or token", { timeout: 60_000 }, async () => {
    const tokens = provider.tokens();
    const clientId = provider.clientInformation()?.client_id;
    // A revocation (RFC 7009) of the refresh token: logged as route revoke, the token itself nowhere.
    const revoked = await fetch(`${stack.url}/connect/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens?.refresh_token ?? "", token_type_hint: "refresh_token", client_id: clientId ?? "" }),
    });
    expect(revoked.status).toBe(200);
    // wrangler dev's output reaches this process a little after the answer.
    const revokeLine = () => workerLines(stack.workerLog()).some((l) => l.msg === "oauth request" && l.route === "revoke");
    await expect.poll(revokeLine, { timeout: 10_000, interval: 100 }).toBe(true);
    const log = stack.workerLog();
    const lines = workerLines(log);
    const oauth = lines.filter((l) => l.msg === "oauth request");
    expect(oauth.find((l) => l.route === "register")).toMatchObject({ outcome: "ok", status: 201, clientId, clientName: CLIENT_NAME });
    expect(oauth.find((l) => l.route === "authorize" && l.method === "GET")).toMatchObject({ clientId, status: 200 });
    expect(oauth.find((l) => l.route === "token")).toMatchObject({ grant: "authorization_code", clientId, outcome: "ok", status: 200 });
    expect(oauth.find((l) => l.route === "revoke")).toMatchObject({ clientId, outcome: "ok" });
    const calls = lines.filter((l) => l.msg === "gateway call" && l.app === CLIENT_NAME);
    const listed = calls.filter((l) => l.tool === "filesystem.list_allowed_directories");
    // Asked through the client first, then run (and run unasked once always allowed).
    expect(listed.map((l) => l.outcome)).toEqual(expect.arrayContaining(["approval_asked", "ok"]));
    for (const line of listed) expect(line).toMatchObject({ user: "alice", appId: expect.stringMatching(/^[0-9a-f]{40}$/), ms: expect.any(Number) });
    for (const line of calls) expect(Object.keys(line)).not.toContain("arguments");
    for (const secret of [provider.code, tokens?.access_token, tokens?.refresh_token]) {
      expect(secret).toBeTruthy();
      expect(log).not.toContain(secret);
    }
  });
});

type LogLine = Record<string, unknown> & { level: string; msg: string };

/** The Worker's JSON log lines (wrangler dev prints its own, non-JSON lines too). */
function workerLines(log: string): LogLine[] {
  return log
    .split("\n")
    .map((line) => line.slice(line.indexOf("{")))
    .flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as LogLine;
        return typeof parsed.msg === "string" ? [parsed] : [];
      } catch {
        return [];
      }
    });
}

describe("a deployment with MCP_GATEWAY=off", () => {
  let off: Stack;

  beforeAll(async () => {
    off = await startStack({ model: false, vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${tokens.alice}`, MCP_GATEWAY: "off" } });
  }, 120_000);
  afterAll(async () => {
    await off?.stop();
  });

  it("has no /mcp, and the Connected apps entry goes when opened instead of showing a dialog", { timeout: 60_000 }, async () => {
    // Signed in (else the page's sign-in answers first): no such route.
    expect((await fetch(`${off.url}/mcp`, { method: "POST", headers: { authorization: `Bearer ${tokens.alice}` } })).status).toBe(404);
    expect((await fetch(`${off.url}/.well-known/oauth-authorization-server`, { headers: { authorization: `Bearer ${tokens.alice}` } })).status).toBe(404);
    const context = await browser.newContext({ viewport: WIDE });
    const page = await openPage(browser, off, { context, ready: false });
    await page.locator("#login-token").fill(tokens.alice);
    await page.locator("#login-submit").click();
    await page.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor({ state: "attached" });
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/apps");
    await page.locator("#connected-apps-open").click();
    expect(await (await answered).json()).toEqual({ enabled: false, apps: [] });
    await page.locator("#connected-apps-open").waitFor({ state: "hidden" });
    expect(await page.locator("#connected-apps-dialog").getAttribute("open")).toBeNull();
    noPageErrors(page);
    await context.close();
  });
});
