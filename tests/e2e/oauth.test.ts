// Signing in to an OAuth-protected remote MCP server through the page, in headless
// Chromium against the real stack (wrangler dev, AUTH_MODE=token) and the local
// authorization server fixture. The page is opened at http://localhost:PORT and the
// authorization server lives at http://127.0.0.1:PORT: different sites, so the
// redirect back to /oauth/callback arrives without the SameSite=Strict login
// cookie, as it does in production; the callback page finishes the sign-in from
// our own origin, tells the opener and closes.
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RealmStats } from "../fixtures/oauth-realms";
import { startOAuthFixture, type OAuthFixture } from "../fixtures/oauth-server";
import { startStack, type Stack } from "../fixtures/stack";
import { DESKTOP, launchBrowser, shot } from "./browser";

const token = `alice-${randomBytes(16).toString("hex")}`;
const SERVER = "tracker";

let browser: Browser;
let stack: Stack;
let fixture: OAuthFixture;

beforeAll(async () => {
  fixture = await startOAuthFixture();
  [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack({
      model: false,
      vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${token}` },
      mcpServers: { [SERVER]: { type: "http", url: fixture.url("page") } },
    }),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await fixture?.stop();
});

const row = (page: Page) => page.locator(`#servers li[data-server="${SERVER}"]`);

describe("signing in to a remote MCP server from the page", () => {
  let context: BrowserContext;
  afterAll(async () => {
    await context?.close();
  });

  it("shows Sign in, signs in through a popup at the provider, and the server turns ready without a reload", async () => {
    const origin = stack.url.replace("127.0.0.1", "localhost");
    context = await browser.newContext({ viewport: DESKTOP });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${origin}/`);
    await page.locator("#login-token").fill(token);
    await page.locator("#login-submit").click();
    await row(page).and(page.locator('[data-state="auth_required"]')).waitFor();
    const cookie = (await context.cookies(origin)).find((c) => c.httpOnly);
    expect(cookie?.sameSite).toBe("Strict");
    const signInButton = row(page).getByRole("button", { name: `Sign in to ${SERVER}` });
    await signInButton.waitFor();
    await shot(page, "oauth-1-sign-in-needed");
    // The My servers dialog offers it too, on the deployment's server.
    await page.locator("#my-servers-open").click();
    await page
      .locator(`#deployment-servers li[data-deployment-server="${SERVER}"]`)
      .getByRole("button", { name: `Sign in to ${SERVER}` })
      .waitFor();
    await shot(page, "oauth-1b-my-servers-sign-in");
    await page.locator("#my-servers-close").click();
    let navigations = 0;
    page.on("framenavigated", (frame) => {
      if (frame === page.mainFrame()) navigations++;
    });

    const popupOpened = context.waitForEvent("page");
    await signInButton.click();
    const popup = await popupOpened;
    await popup.locator("#allow").waitFor();
    expect(popup.url()).toContain(`${fixture.base}/as/page/authorize?`);
    expect(new URL(popup.url()).searchParams.get("code_challenge_method")).toBe("S256");
    await shot(popup, "oauth-2-provider-consent");
    const callbackRequest = popup.waitForRequest((r) => new URL(r.url()).pathname === "/oauth/callback" && r.method() === "GET");
    const finished = popup.waitForResponse((r) => new URL(r.url()).pathname === "/oauth/callback" && r.request().method() === "POST");
    const closed = popup.waitForEvent("close");
    await popup.locator("#allow").click();
    // The provider's redirect is cross-site: no login cookie on it; the page's own POST carries it.
    expect((await callbackRequest).headers().cookie ?? "").not.toContain(cookie?.name ?? "-");
    const answer = await finished;
    expect(answer.status()).toBe(200);
    await closed;

    await row(page).and(page.locator('[data-state="ready"]')).waitFor();
    expect(await row(page).locator(".count").textContent()).toBe("2 tools");
    await row(page)
      .getByRole("button", { name: `Sign out of ${SERVER}` })
      .waitFor();
    expect(navigations).toBe(0);
    await shot(page, "oauth-3-signed-in");

    const stats = (await (await fetch(`${fixture.base}/_stats/page`)).json()) as RealmStats;
    expect(stats.registrations).toBe(1);
    expect(stats.codeExchanges).toBe(1);
    const html = await page.content();
    expect(stats.issued.filter((t) => html.includes(t))).toEqual([]);

    // Sign out: tokens revoked at the provider, and the server asks for a sign-in again.
    await row(page)
      .getByRole("button", { name: `Sign out of ${SERVER}` })
      .click();
    await row(page).and(page.locator('[data-state="auth_required"]')).waitFor();
    await row(page)
      .getByRole("button", { name: `Sign in to ${SERVER}` })
      .waitFor();
    const after = (await (await fetch(`${fixture.base}/_stats/page`)).json()) as RealmStats;
    expect(after.revocations).toEqual(["refresh_token", "access_token"]);
    expect(errors).toEqual([]);
    // Nor in anything the Worker logged.
    const log = stack.workerLog();
    expect(after.issued.filter((t) => log.includes(t))).toEqual([]);
  });

  it("falls back to this tab when popups are blocked, and comes back to the session signed in", async () => {
    const origin = stack.url.replace("127.0.0.1", "localhost");
    const blocked = await browser.newContext({ viewport: DESKTOP });
    blocked.setDefaultTimeout(15_000);
    // What a popup blocker does to window.open: no window.
    await blocked.addInitScript("window.open = () => null;");
    const page = await blocked.newPage();
    await page.goto(`${origin}/`);
    await page.locator("#login-token").fill(token);
    await page.locator("#login-submit").click();
    await row(page).and(page.locator('[data-state="auth_required"]')).waitFor();
    const hash = new URL(page.url()).hash;
    await row(page)
      .getByRole("button", { name: `Sign in to ${SERVER}` })
      .click();
    await page.locator("#allow").waitFor();
    expect(page.url()).toContain(`${fixture.base}/as/page/authorize?`);
    await page.locator("#allow").click();
    await row(page).and(page.locator('[data-state="ready"]')).waitFor();
    expect(new URL(page.url()).pathname).toBe("/");
    expect(new URL(page.url()).hash).toBe(hash);
    await shot(page, "oauth-4-redirect-fallback-signed-in");

    // A callback whose state is not (or no longer) the user's: a clear error, and nothing changes.
    await page.goto(`${origin}/oauth/callback?code=stolen&state=${"s".repeat(43)}`);
    const status = page.locator('#oauth-status[data-kind="error"]');
    await status.waitFor();
    expect(await status.textContent()).toMatch(/unknown, expired or already used/);
    expect(new URL(page.url()).search).toBe("");
    await shot(page, "oauth-5-bad-state");
    await blocked.close();
  });
});
