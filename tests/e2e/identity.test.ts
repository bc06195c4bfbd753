// Signing in on the page (AUTH_MODE=token) in headless Chromium against the real
// stack: the login form, the user's own sessions listed by the server with their
// titles, a second person in a second browser context who sees none of them,
// sign-out (and sign-out everywhere, which ends the other devices' logins), and a
// page whose sign-in ended while its socket was away.
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../fixtures/stack";
import { DESKTOP, focus, launchBrowser, noPageErrors, openPage, overflow, PHONE, sendMessage, shot, textOf } from "./browser";

const tokens = { alice: `alice-${randomBytes(16).toString("hex")}`, bob: `bob-${randomBytes(16).toString("hex")}` };

let browser: Browser;
let stack: Stack;
/** Every POST and DELETE any page sent, to check their content type and body. */
const stateChanging: { method: string; path: string; type: string | undefined; body: string | null }[] = [];

beforeAll(async () => {
  [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack({ model: false, vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${tokens.alice},bob:${tokens.bob}` } }),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function person(viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await openPage(browser, stack, { context, ready: false });
  page.on("request", (request: Request) => {
    const method = request.method();
    if (method === "POST" || method === "DELETE") {
      stateChanging.push({ method, path: new URL(request.url()).pathname, type: request.headers()["content-type"], body: request.postData() });
    }
  });
  return { context, page };
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.locator("#login-token").fill(token);
  await page.locator("#login-submit").click();
  await page.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor({ state: "attached" });
}

/** Titles of the sessions listed in the sidebar, in order. */
function titles(page: Page): Promise<string[]> {
  return page.locator("#sessions li .link").allTextContents();
}

describe("signing in with a token", () => {
  let alice: { context: BrowserContext; page: Page };
  const aliceSessions: string[] = [];

  afterAll(async () => {
    await alice?.context.close();
  });

  it("shows only the login form when signed out, and an error for a wrong token", async () => {
    const phone = await person(PHONE);
    await phone.page.locator("#login-form").waitFor();
    expect(await phone.page.locator("#app").isHidden()).toBe(true);
    await shot(phone.page, "phone-login");
    // Bob on a phone: signed in, the header (with his name and Sign out) still fits one row.
    await signIn(phone.page, tokens.bob);
    const header = await phone.page.locator("header.top").boundingBox();
    expect(header?.height).toBeLessThan(56);
    expect(await phone.page.locator("#user-name").isVisible()).toBe(true);
    // The model's name stays readable beside it (it was squeezed to an empty pill).
    expect((await phone.page.locator("#model").boundingBox())?.width).toBeGreaterThanOrEqual(78);
    expect(await phone.page.getByRole("button", { name: "Sign out", exact: true }).isVisible()).toBe(true);
    expect(await overflow(phone.page)).toEqual({ overflow: 0, wide: [] });
    await shot(phone.page, "phone-signed-in");
    await phone.context.close();

    alice = await person();
    const { page } = alice;
    await page.locator("#login-form").waitFor();
    expect(await page.locator("#app").isHidden()).toBe(true);
    expect((await focus(page)).id).toBe("login-token");
    await page.locator("#login-token").fill("not-the-right-token-at-all");
    await page.locator("#login-token").press("Enter");
    await expect.poll(() => textOf(page, "#login-error")).toBe("That token was not accepted. Check it and try again.");
    expect(await page.locator("#login-token").getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#app").isHidden()).toBe(true);
    await shot(page, "desktop-login-error");
  });

  it("signs in with the right token and shows who is signed in", async () => {
    const { page } = alice;
    await signIn(page, tokens.alice);
    expect(await page.locator("#login").isHidden()).toBe(true);
    expect(await textOf(page, "#user-name")).toBe("alice");
    expect(await page.getByRole("button", { name: "Sign out", exact: true }).isVisible()).toBe(true);
    noPageErrors(page);
  });

  it("lists alice's sessions with their titles after a reload", async () => {
    const { page } = alice;
    await sendMessage(page, "Plans for the garden");
    await page.locator(".msg.user", { hasText: "Plans for the garden" }).waitFor();
    await page.locator("#send:not([hidden])").waitFor();
    aliceSessions.push((await page.locator("#sessions li.current").getAttribute("data-session")) ?? "");
    await page.locator("#new-session").click();
    await expect.poll(async () => (await page.locator("#sessions li.current").getAttribute("data-session")) ?? aliceSessions[0]).not.toBe(aliceSessions[0]);
    aliceSessions.push((await page.locator("#sessions li.current").getAttribute("data-session")) ?? "");
    await sendMessage(page, "Books to read");
    await page.locator(".msg.user", { hasText: "Books to read" }).waitFor();
    await expect.poll(() => titles(page)).toEqual(["Books to read", "Plans for the garden"]);

    await page.reload();
    await page.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor({ state: "attached" });
    await expect.poll(() => titles(page)).toEqual(["Books to read", "Plans for the garden"]);
    expect(await page.locator("#sessions li").evaluateAll((els) => els.map((e) => e.getAttribute("data-session")))).toEqual([
      aliceSessions[1],
      aliceSessions[0],
    ]);
    // No session list in the browser's storage: the server keeps it.
    expect(await page.evaluate("Object.keys(localStorage)")).toEqual([]);
    await shot(page, "desktop-signed-in");
  });

  it("shows bob none of alice's sessions, not even by URL", async () => {
    const bob = await person();
    await signIn(bob.page, tokens.bob);
    expect(await textOf(bob.page, "#user-name")).toBe("bob");
    const listed = await bob.page.locator("#sessions li").evaluateAll((els) => els.map((e) => e.getAttribute("data-session")));
    expect(listed.filter((id) => aliceSessions.includes(id ?? ""))).toEqual([]);
    expect(await titles(bob.page)).not.toContain("Plans for the garden");

    // Alice's session URL: refused, said so, and bob lands in a session of his own.
    const stolen = await bob.context.newPage();
    await stolen.goto(`${stack.url}/#s=${aliceSessions[0]}`);
    await expect.poll(() => textOf(stolen, "#alert-text")).toBe("That chat is not available: it was deleted, or it is not yours.");
    await stolen.locator("#sessions li.current").waitFor();
    expect(aliceSessions).not.toContain(await stolen.locator("#sessions li.current").getAttribute("data-session"));
    expect(await stolen.locator(".msg.user", { hasText: "Plans for the garden" }).count()).toBe(0);
    await shot(stolen, "desktop-not-yours");
    await bob.context.close();
  });

  it("sends every POST and DELETE as JSON", async () => {
    // Logins and sessions created, at least.
    expect(stateChanging.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(["POST /auth/login", "POST /sessions"]));
    for (const request of stateChanging) {
      expect({ ...request, body: undefined }).toEqual({ ...request, body: undefined, type: "application/json" });
      expect(() => JSON.parse(request.body ?? "")).not.toThrow();
    }
  });

  it("shows the login form again when the sign-in ended while the socket was away", async () => {
    const { page, context } = alice;
    await page.locator("#conn[data-state=open]").waitFor({ state: "attached" });
    await context.clearCookies();
    // The socket drops with the Worker; every reconnect is now refused (no cookie).
    await stack.restartWorker();
    await page.locator("#login-form").waitFor({ timeout: 20_000 });
    expect(await page.locator("#app").isHidden()).toBe(true);
    expect(await textOf(page, "#login-error")).toBe("Your sign-in has ended. Sign in again.");
    await signIn(page, tokens.alice);
    await expect.poll(() => titles(page)).toEqual(["Books to read", "Plans for the garden"]);
  }, 90_000);

  it("signs out back to the login form", async () => {
    const { page } = alice;
    const logout = page.waitForRequest((r) => r.method() === "POST" && new URL(r.url()).pathname === "/auth/logout");
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    const request = await logout;
    expect((await request.allHeaders())["content-type"]).toBe("application/json");
    expect(request.postDataJSON()).toEqual({});
    await page.locator("#login-form").waitFor();
    expect(await page.locator("#app").isHidden()).toBe(true);
    expect(await page.locator("#sessions li .link").count()).toBe(0);
    // The cookie is gone: a reload still asks to sign in.
    await page.reload();
    await page.locator("#login-form").waitFor();
    expect(await page.locator("#app").isHidden()).toBe(true);
    noPageErrors(page);
  });

  it("signs every device out at once with Sign out everywhere", async () => {
    const [laptop, phone] = [await person(), await person(PHONE)];
    for (const device of [laptop, phone]) {
      await device.page.locator("#login-form").waitFor();
      await signIn(device.page, tokens.bob);
    }
    expect(await overflow(phone.page)).toEqual({ overflow: 0, wide: [] });
    expect((await phone.page.locator("header.top").boundingBox())?.height).toBeLessThan(56);
    const saved = (await phone.context.cookies()).find((c) => c.name === "edgehost_session");
    const me = () => fetch(`${stack.url}/api/me`, { headers: { cookie: `edgehost_session=${saved?.value}` } });
    expect((await me()).status).toBe(200);

    const everywhere = laptop.page.waitForRequest((r) => r.method() === "POST" && new URL(r.url()).pathname === "/auth/logout-all");
    await laptop.page.getByRole("button", { name: "Sign out everywhere" }).click();
    await everywhere;
    await laptop.page.locator("#login-form").waitFor();
    // The phone's cookie, still in its browser, is refused by the server: a reload asks to sign in.
    expect((await me()).status).toBe(401);
    await phone.page.reload();
    await phone.page.locator("#login-form").waitFor();
    expect(await phone.page.locator("#app").isHidden()).toBe(true);
    noPageErrors(laptop.page);
    await Promise.all([laptop.context.close(), phone.context.close()]);
  });
});
