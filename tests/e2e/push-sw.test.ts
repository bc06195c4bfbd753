// The page's service worker (public/sw.js) in headless Chromium against the real stack:
// a push delivered through the DevTools protocol (ServiceWorker.deliverPushMessage: the
// browser's own push path after decryption; a real subscription needs FCM, which this
// machine cannot reach) is shown as a notification with Allow once / Deny; its Allow posts
// the notification's token to POST /push/act, and the Worker's answer replaces the notification.
import type { Browser, BrowserContext, Page, Worker } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../fixtures/stack";
import { launchBrowser, noPageErrors, openPage } from "./browser";

let browser: Browser;
let stack: Stack;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack({ vars: { TOOL_APPROVAL: "off" } })]);
});
afterAll(async () => {
  await context?.close();
  await stack?.stop();
  await browser?.close();
});

type Shown = { title: string; body: string; tag: string; actions: string[]; data: Record<string, unknown> };

/** The notifications the registration shows now, read from the page. */
function notifications(): Promise<Shown[]> {
  // A string: this program's types have no DOM (the page's code is checked by public/tsconfig.json).
  return page.evaluate(`(async () => {
    const registration = await navigator.serviceWorker.ready;
    return (await registration.getNotifications()).map((n) => ({
      title: n.title, body: n.body, tag: n.tag, actions: (n.actions ?? []).map((a) => a.title), data: n.data,
    }));
  })()`);
}

describe("the service worker", () => {
  it("shows an approval's push with Allow once / Deny, and its Allow reaches /push/act", async () => {
    context = await browser.newContext();
    await context.grantPermissions(["notifications"], { origin: stack.url });
    page = await openPage(browser, stack, { context });
    const registered = context.waitForEvent("serviceworker");
    const scope = await page.evaluate(`navigator.serviceWorker.register("/sw.js", { scope: "/" }).then((r) => r.scope)`);
    expect(scope).toBe(`${stack.url}/`);
    // A fixed URL, revalidated every time: a new build's worker is seen at once.
    expect((await context.request.get(`${stack.url}/sw.js`)).headers()["cache-control"]).toBe("no-cache");
    const worker: Worker = context.serviceWorkers()[0] ?? (await registered);
    await page.evaluate("navigator.serviceWorker.ready.then(() => true)");

    const cdp = await context.newCDPSession(page);
    const registrationId = new Promise<string>((resolve) =>
      cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
        const ours = registrations.find((r) => r.scopeURL === `${stack.url}/` && !r.isDeleted);
        if (ours) resolve(ours.registrationId);
      }),
    );
    await cdp.send("ServiceWorker.enable");
    // The payload as the Worker builds it (src/push/notice.ts) and the browser decrypts it. The
    // token is well formed but unknown to the Worker: its Allow must come back as no longer working.
    const token = `v1.${crypto.randomUUID()}.${"A".repeat(43)}`;
    const payload = {
      v: 1,
      kind: "approval",
      session: "s-1",
      tag: "approval:c-1",
      chat: "Trip",
      server: "filesystem",
      tool: "write_file",
      ref: "c-1",
      token,
      expiresAt: Date.now() + 600_000,
    };
    await cdp.send("ServiceWorker.deliverPushMessage", { origin: stack.url, registrationId: await registrationId, data: JSON.stringify(payload) });

    await expect.poll(notifications, { timeout: 10_000 }).toHaveLength(1);
    const [shown] = await notifications();
    expect(shown).toMatchObject({ title: "Approve write_file?", body: "filesystem · Trip", tag: "approval:c-1" });
    expect(shown?.actions.slice(0, 2)).toEqual(["Allow once", "Deny"]);
    expect(shown?.data).toMatchObject({ session: "s-1", ref: "c-1", token });

    // A synthetic click (a test cannot press a system notification's button); the worker's handler runs as for a real one.
    // The worker's own fetch: Chromium reports a service worker's requests on the context.
    const acted = context.waitForEvent("response", (r) => r.url() === `${stack.url}/push/act`);
    await worker.evaluate(`(async () => {
      const [notification] = await self.registration.getNotifications();
      self.dispatchEvent(new NotificationEvent("notificationclick", { notification, action: "allow" }));
    })()`);
    await expect.poll(async () => (await notifications()).map((n) => n.title), { timeout: 10_000 }).toEqual(["Expired — open the chat"]);
    const response = await acted;
    expect(response.request().method()).toBe("POST");
    expect(response.request().postDataJSON()).toEqual({ token, action: "allow" });
    expect(response.status()).toBe(410);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("push_token_invalid");
    noPageErrors(page);
  });

  it("the page tells its chat when it is hidden and shown again", async () => {
    const tab = await openPage(browser, stack);
    const sent: string[] = [];
    tab.on("websocket", (ws) =>
      ws.on("framesent", (frame) => typeof frame.payload === "string" && frame.payload.includes('"visibility"') && sent.push(frame.payload)),
    );
    // A new socket (a chat of its own), so its frames are seen from the start.
    await tab.reload();
    await tab.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor({ state: "attached" });
    // Headless Chromium keeps the page visible: the browser's switch of the document's state is played here.
    const flip = (hidden: boolean) =>
      tab.evaluate(
        `Object.defineProperty(document, "hidden", { configurable: true, get: () => ${hidden} }); document.dispatchEvent(new Event("visibilitychange"))`,
      );
    await flip(true);
    await flip(false);
    await expect.poll(() => sent, { timeout: 10_000 }).toEqual(['{"type":"visibility","visible":false}', '{"type":"visibility","visible":true}']);
    noPageErrors(tab);
    await tab.context().close();
  });
});
