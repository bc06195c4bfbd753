// The page's service worker (public/sw.js) in headless Chromium against the real stack:
// a push delivered through the DevTools protocol (ServiceWorker.deliverPushMessage: the
// browser's own push path after decryption; a real subscription needs FCM, which this
// machine cannot reach) is shown as a notification with Allow once / Deny; its Allow posts
// the notification's token to POST /push/act, and the Worker's answer replaces the notification.
// A schedule's news (schedule_done, schedule_paused: payloads made by the Worker's own
// payloadFor) shows with Open only, and Open brings the open tab to that chat.
import type { Browser, BrowserContext, CDPSession, Page, Worker } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payloadFor } from "../../src/push/notice";
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

/** How many of the worker's showNotification calls have settled (counted by `registerWorker`). */
const settledShows = (worker: Worker) => worker.evaluate("self.settledShows") as Promise<number>;

/**
 * Registers /sw.js in `page` (the context's first test page): its worker, the browser's push
 * path after decryption into it (resolving once the worker's notification is shown), and a
 * wait for the next notification the worker shows.
 */
async function registerWorker(): Promise<{ worker: Worker; deliver: (payload: unknown) => Promise<void>; nextShown: () => Promise<() => Promise<void>> }> {
  const registered = context.waitForEvent("serviceworker");
  const scope = await page.evaluate(`navigator.serviceWorker.register("/sw.js", { scope: "/" }).then((r) => r.scope)`);
  expect(scope).toBe(`${stack.url}/`);
  // A fixed URL, revalidated every time: a new build's worker is seen at once.
  expect((await context.request.get(`${stack.url}/sw.js`)).headers()["cache-control"]).toBe("no-cache");
  const worker: Worker = context.serviceWorkers()[0] ?? (await registered);
  await page.evaluate("navigator.serviceWorker.ready.then(() => true)");
  // Chromium's getNotifications() reconciles its store with what is on display, and a read while a
  // showNotification is still in flight can drop that notification from the store for good (seen
  // under load: shown, then never listed). So the test reads only after the worker's show has
  // settled; the worker counts its settled shows (an observer: the call itself is unchanged).
  await worker.evaluate(`(() => {
    self.settledShows = 0;
    const show = self.registration.showNotification.bind(self.registration);
    self.registration.showNotification = (...args) => show(...args).finally(() => { self.settledShows++; });
  })()`);
  /** Call before what makes the worker show a notification; await what it returns to wait for that show. */
  const nextShown = async () => {
    const before = await settledShows(worker);
    return () => expect.poll(() => settledShows(worker), { timeout: 10_000 }).toBeGreaterThan(before);
  };
  const cdp: CDPSession = await context.newCDPSession(page);
  const registrationId = new Promise<string>((resolve) =>
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const ours = registrations.find((r) => r.scopeURL === `${stack.url}/` && !r.isDeleted);
      if (ours) resolve(ours.registrationId);
    }),
  );
  await cdp.send("ServiceWorker.enable");
  const id = await registrationId;
  return {
    worker,
    nextShown,
    deliver: async (payload) => {
      const shown = await nextShown();
      await cdp.send("ServiceWorker.deliverPushMessage", { origin: stack.url, registrationId: id, data: JSON.stringify(payload) });
      await shown();
    },
  };
}

/** A synthetic click on the notification tagged `tag` (a test cannot press a system notification's button). */
const click = (worker: Worker, tag: string, action: string) =>
  worker.evaluate(`(async () => {
    const [notification] = await self.registration.getNotifications({ tag: ${JSON.stringify(tag)} });
    self.dispatchEvent(new NotificationEvent("notificationclick", { notification, action: ${JSON.stringify(action)} }));
  })()`);

const chatOf = (p: Page) => new URL(p.url()).hash.replace("#s=", "");

describe("the service worker", () => {
  it("shows an approval's push with Allow once / Deny, and its Allow reaches /push/act", async () => {
    context = await browser.newContext();
    await context.grantPermissions(["notifications"], { origin: stack.url });
    page = await openPage(browser, stack, { context });
    const { worker, deliver, nextShown } = await registerWorker();
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
    await deliver(payload);

    const [shown, ...more] = await notifications();
    expect(more).toEqual([]);
    expect(shown).toMatchObject({ title: "Approve write_file?", body: "filesystem · Trip", tag: "approval:c-1" });
    expect(shown?.actions.slice(0, 2)).toEqual(["Allow once", "Deny"]);
    expect(shown?.data).toMatchObject({ session: "s-1", ref: "c-1", token });

    // A synthetic click (a test cannot press a system notification's button); the worker's handler runs as for a real one.
    // The worker's own fetch: Chromium reports a service worker's requests on the context.
    const acted = context.waitForEvent("response", (r) => r.url() === `${stack.url}/push/act`);
    const replaced = await nextShown();
    await worker.evaluate(`(async () => {
      const [notification] = await self.registration.getNotifications();
      self.dispatchEvent(new NotificationEvent("notificationclick", { notification, action: "allow" }));
    })()`);
    await replaced();
    expect((await notifications()).map((n) => n.title)).toEqual(["Expired — open the chat"]);
    const response = await acted;
    expect(response.request().method()).toBe("POST");
    expect(response.request().postDataJSON()).toEqual({ token, action: "allow" });
    expect(response.status()).toBe(410);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("push_token_invalid");
    noPageErrors(page);
  });

  it("shows a scheduled run's end and a paused schedule with Open only, naming nothing but the chat; Open brings the tab to that chat", async () => {
    await context?.close();
    context = await browser.newContext();
    await context.grantPermissions(["notifications"], { origin: stack.url });
    page = await openPage(browser, stack, { context });
    const { worker, deliver } = await registerWorker();
    const ran = chatOf(page);
    // The tab shows another chat when the news comes.
    await page.locator("#new-session").click();
    await expect.poll(() => chatOf(page), { timeout: 10_000 }).not.toBe(ran);
    const other = chatOf(page);
    const byTag = async (tag: string) => (await notifications()).find((n) => n.tag === tag);

    // As the Worker builds it for the owner's devices (src/push/notice.ts, detail "full").
    const turnId = crypto.randomUUID();
    const done = payloadFor({ kind: "schedule_done", session: ran, ref: turnId, outcome: "completed" }, "full", "Morning digest");
    await deliver(done);
    const shown = await byTag(done.tag);
    expect(shown).toMatchObject({ title: "Scheduled run done", body: "Morning digest", actions: ["Open"] });
    // Nothing to answer: no token, no tool; only where to go.
    expect(Object.fromEntries(Object.entries(shown?.data ?? {}).filter(([, v]) => v !== undefined))).toEqual({ session: ran, ref: turnId });
    await click(worker, done.tag, "open");
    await expect.poll(() => chatOf(page), { timeout: 10_000 }).toBe(ran);
    expect(await byTag(done.tag)).toBeUndefined();

    // A paused schedule, with the person's detail "minimal": not even the chat's name.
    await page.goto(`${stack.url}/#s=${other}`);
    await page.locator('#servers li[data-server="filesystem"][data-state="ready"]').waitFor({ state: "attached" });
    const paused = payloadFor({ kind: "schedule_paused", session: ran, ref: crypto.randomUUID() }, "minimal", "Morning digest");
    expect(paused.chat).toBeUndefined();
    await deliver(paused);
    expect(await byTag(paused.tag)).toMatchObject({ title: "Schedule paused after repeated failures", body: "Resume it under Schedules", actions: ["Open"] });
    await click(worker, paused.tag, "open");
    await expect.poll(() => chatOf(page), { timeout: 10_000 }).toBe(ran);
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
