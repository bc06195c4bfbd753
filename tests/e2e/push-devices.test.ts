// The page's "Notifications when away" (public/notify/) in headless Chromium against the real
// stack and the test push service (tests/fixtures/push-service.ts: verifies each request's
// VAPID JWT and decrypts it with the device's keys). Headless Chromium cannot reach a real push
// service (FCM), so the one stand-in is PushManager's subscribe/getSubscription, replaced in the
// page by an init script with a subscription of a fixture device: the Worker stores it, pushes
// to it, and the fixture decrypts what arrives. The service worker is the real /sw.js; a push
// reaches it through the DevTools protocol (ServiceWorker.deliverPushMessage), as in push-sw.
import "../fixtures/push-tls/trust";
import type { Browser, BrowserContext, Page, Worker } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { newPushDevice, type PushDeviceFixture, type PushService, pushesTo, type ReceivedPush, startPushService, vapidVars } from "../fixtures/push-service";
import { startStack, type Stack } from "../fixtures/stack";
import { axeCheck } from "./axe";
import { launchBrowser, noPageErrors, openPage, overflow, PHONE, sendMessage, setHidden, shots } from "./browser";

const WIDE = { width: 1280, height: 800 };
/** Waits on the Worker's answers: on this shared 2-core machine one can take seconds (expect.poll's default is 1 s). */
const SLOW = { timeout: 15_000 };
/** The steps that load the page or run a turn, each waiting on the stack's events. */
const STEP = { timeout: 90_000 };

let browser: Browser;
let stack: Stack;
let bare: Stack;
let push: PushService;

beforeAll(async () => {
  push = await startPushService();
  [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack({ vars: { ...vapidVars(), PUSH_SERVICE_HOSTS: "localhost,127.0.0.1", PUSH_PER_HOUR: "1" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([stack?.stop(), bare?.stop(), push?.stop()]);
  await browser?.close();
});

/**
 * The stand-in for the browser's push service: subscribe/getSubscription give the fixture device's
 * subscription (kept across reloads in sessionStorage, as the browser would keep it); the page's
 * own notifications are recorded (the real ones still show).
 */
function stubPush(device: PushDeviceFixture): string {
  return `(() => {
    const device = ${JSON.stringify(device)};
    const bytes = (b64) => Uint8Array.from(atob(b64.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)).buffer;
    const make = (key) => ({
      endpoint: device.endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true, applicationServerKey: key },
      getKey: (name) => bytes(device.keys[name]),
      toJSON: () => ({ endpoint: device.endpoint, expirationTime: null, keys: device.keys }),
      unsubscribe: async () => { sessionStorage.removeItem("stub-push"); return true; },
    });
    window.__subscribes = 0;
    PushManager.prototype.subscribe = async function (options) {
      window.__subscribes++;
      const key = new Uint8Array(options.applicationServerKey);
      sessionStorage.setItem("stub-push", btoa(String.fromCharCode(...key)));
      return make(key.buffer);
    };
    PushManager.prototype.getSubscription = async function () {
      const key = sessionStorage.getItem("stub-push");
      return key ? make(bytes(key)) : null;
    };
    const Real = window.Notification;
    window.__notifications = [];
    class Recorded extends Real {
      constructor(title, options) { super(title, options); window.__notifications.push({ title, tag: options && options.tag }); }
      static get permission() { return Real.permission; }
      static requestPermission(...args) { return Real.requestPermission(...args); }
    }
    window.Notification = Recorded;
  })()`;
}

async function newChat(page: Page): Promise<string> {
  const before = new URL(page.url()).hash;
  await page.locator("#new-session").click();
  await expect.poll(() => new URL(page.url()).hash, SLOW).not.toBe(before);
  return new URL(page.url()).hash.replace("#s=", "");
}

/** The notifications the page's service worker shows now. */
function shownNotifications(page: Page): Promise<{ title: string; tag: string; actions: string[] }[]> {
  return page.evaluate(`(async () => {
    const registration = await navigator.serviceWorker.ready;
    return (await registration.getNotifications()).map((n) => ({ title: n.title, tag: n.tag, actions: (n.actions ?? []).map((a) => a.title) }));
  })()`);
}

/** The browser's push path after decryption: `data` given to the page's service worker. */
async function deliver(context: BrowserContext, page: Page, url: string, data: string): Promise<void> {
  const cdp = await context.newCDPSession(page);
  const registrationId = new Promise<string>((resolve) =>
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const ours = registrations.find((r) => r.scopeURL === `${url}/` && !r.isDeleted);
      if (ours) resolve(ours.registrationId);
    }),
  );
  await cdp.send("ServiceWorker.enable");
  await cdp.send("ServiceWorker.deliverPushMessage", { origin: url, registrationId: await registrationId, data });
}

type Payload = { kind: string; session: string; tag: string; chat?: string; server?: string; tool?: string; token?: string };

describe("notifications when away, in the page", () => {
  // One person's browser through the steps below, in order.
  let device: PushDeviceFixture;
  let context: BrowserContext;
  let page: Page;
  let approvalChat = "";
  let otherChat = "";
  let pushed: ReceivedPush | undefined;
  const own = () => page.locator("#push-devices li", { hasText: "(this browser)" });
  afterAll(() => context?.close());

  it("turns this browser on from the keyboard, and lists it with Test and the detail level", STEP, async () => {
    device = await newPushDevice(push);
    context = await browser.newContext({ viewport: WIDE });
    await context.grantPermissions(["notifications"], { origin: stack.url });
    await context.addInitScript(stubPush(device));
    page = await openPage(browser, stack, { context });
    // Nothing asked of the push service nor any worker registered on a plain load.
    expect(await page.evaluate("navigator.serviceWorker.getRegistration('/').then((r) => r === undefined)")).toBe(true);

    // Keyboard: the disclosure opens with Enter and its button is the next stop.
    await page.locator("#push-settings summary").focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#push-state").textContent(), SLOW).toContain("Get a notification on this browser");
    const enable = page.locator("#push-enable");
    expect(await enable.isVisible()).toBe(true);
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement.id")).toBe("push-enable");
    await page.keyboard.press("Enter");

    await own().waitFor();
    expect(await page.evaluate("window.__subscribes")).toBe(1);
    expect(await own().locator("strong").textContent()).toBe("Chrome on Linux (this browser)");
    expect(await own().locator(".push-result").textContent()).toBe("nothing sent yet");
    await page.locator("#push-disable").waitFor();
    expect(await enable.isHidden()).toBe(true);
    expect(await page.locator("#push-state").textContent()).toContain("This browser is told when a chat needs you");
    // The real worker is registered now, for this scope.
    expect(await page.evaluate("navigator.serviceWorker.ready.then((r) => r.active.scriptURL)")).toBe(`${stack.url}/sw.js`);

    // Test: the fixture receives a verified push that decrypts with the device's keys.
    await own()
      .getByRole("button", { name: /Send a test notification/ })
      .click();
    const [test] = await pushesTo(push, device, 1);
    expect(test?.verified, test?.problem).toBe(true);
    expect(JSON.parse(test?.plaintext ?? "{}")).toMatchObject({ v: 1, kind: "test" });
    await expect.poll(() => page.locator("#push-note").textContent(), SLOW).toBe("Sent: Chrome on Linux should show a test notification.");
    await expect.poll(() => own().locator(".push-result").textContent(), SLOW).toMatch(/^last delivered /);

    // Detail: the account keeps it.
    const detail = page.locator("#push-detail");
    expect(await detail.isChecked()).toBe(true);
    await detail.uncheck();
    await expect.poll(() => page.locator("#push-note").textContent(), SLOW).toBe("Notifications say only that a chat needs you.");
    expect(((await (await context.request.get(`${stack.url}/api/push`)).json()) as { detail: string }).detail).toBe("minimal");
    await detail.check();
    await expect.poll(async () => ((await (await context.request.get(`${stack.url}/api/push`)).json()) as { detail: string }).detail, SLOW).toBe("full");

    expect(await axeCheck(page, "push devices")).toEqual([]);
    await page.screenshot({ path: `${shots}/push-devices-1280.png` });
    noPageErrors(page);
  });

  it("pushes an approval while the tab is hidden, and the tab itself does not notify too", STEP, async () => {
    // A chat of the person's where the phone will be when the notification comes.
    await script(stack.llm.url, stack.llmKey, [reply.text("Hello there.")]);
    await sendMessage(page, "hello");
    await page.locator(".msg.assistant", { hasText: "Hello there." }).waitFor();
    otherChat = new URL(page.url()).hash.replace("#s=", "");

    // An approval while the tab is hidden: pushed, and the tab itself does not notify too.
    approvalChat = await newChat(page);
    const closing = Array.from({ length: 12 }, (_, i) => `Line ${i + 1} of the answer about the file.`).join("\n\n");
    await script(stack.llm.url, stack.llmKey, [reply.callReply("filesystem__get_file_info", { path: `${stack.fsRoot}/notes.txt` }), reply.text(closing)]);
    await setHidden(page, true);
    await sendMessage(page, "how big is my shopping list");
    [, pushed] = await pushesTo(push, device, 2);
    expect(pushed?.verified, pushed?.problem).toBe(true);
    expect(JSON.parse(pushed?.plaintext ?? "{}")).toMatchObject({ kind: "approval", session: approvalChat, server: "filesystem", tool: "get_file_info" });
    expect(pushed?.plaintext).not.toContain("notes.txt");
    await expect.poll(() => page.title(), SLOW).toMatch(/^\(1\) /);
    // No double alert: this browser is a push device, so the tab counts but shows no notification of its own.
    expect(await page.evaluate("window.__notifications")).toEqual([]);
    noPageErrors(page);
  });

  it("at 390×844, a tap on the approval's notification opens the chat on it, answerable with one thumb, and follows the turn to its end", STEP, async () => {
    const payload = JSON.parse(pushed?.plaintext ?? "{}") as Payload;
    // The person is on another chat when the notification comes, and taps it.
    await page.setViewportSize(PHONE);
    // Only the hash differs, which is no navigation: loaded again on it.
    await page.goto(`${stack.url}/#s=${otherChat}`);
    await page.reload({ timeout: 30_000 });
    await page.locator(".msg.assistant", { hasText: "Hello there." }).waitFor();
    await deliver(context, page, stack.url, pushed?.plaintext ?? "");
    await expect
      .poll(() => shownNotifications(page), SLOW)
      .toEqual([{ title: "Approve get_file_info?", tag: payload.tag, actions: expect.arrayContaining(["Allow once", "Deny"]) }]);
    const worker: Worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
    // A tap on the notification's body (a synthetic click: a test cannot press a system notification).
    await worker.evaluate(`(async () => {
      const [notification] = await self.registration.getNotifications();
      self.dispatchEvent(new NotificationEvent("notificationclick", { notification }));
    })()`);
    await expect.poll(() => new URL(page.url()).hash, SLOW).toBe(`#s=${approvalChat}`);
    const dialog = page.locator("#approval-dialog[open]");
    await dialog.waitFor();
    // One thumb: Allow once and Deny in view, at least 44 px high; the arguments readable, nothing wider than the screen.
    for (const id of ["#approve-once", "#deny"]) {
      const box = await page.locator(id).boundingBox();
      expect(box, id).not.toBeNull();
      expect(box?.height ?? 0, id).toBeGreaterThanOrEqual(44);
      expect(box?.y ?? -1, id).toBeGreaterThanOrEqual(0);
      expect((box?.y ?? 0) + (box?.height ?? 0), id).toBeLessThanOrEqual(PHONE.height);
      expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= PHONE.width, id).toBe(true);
    }
    const args = dialog.locator("#approval-fields:not([hidden]), #approval-args").first();
    expect(await args.textContent()).toContain("notes.txt");
    expect(await args.isVisible()).toBe(true);
    expect((await overflow(page)).overflow).toBeLessThanOrEqual(0);
    expect(await axeCheck(page, "approval from push, phone")).toEqual([]);
    await page.screenshot({ path: `${shots}/approval-from-push-390.png` });

    await page.locator("#approve-once").click();
    const last = page.locator(".msg.assistant", { hasText: "Line 12 of the answer" });
    await last.waitFor();
    await page.locator("#send:not([hidden])").waitFor();
    // The chat follows the turn to its end: the answer's last line is on screen, above the composer.
    const lastInView = `(() => {
      const answers = document.querySelectorAll("#messages .msg.assistant");
      const end = answers[answers.length - 1].getBoundingClientRect().bottom;
      return end <= document.getElementById("messages").getBoundingClientRect().bottom + 1 && end <= window.innerHeight;
    })()`;
    await expect.poll(() => page.evaluate(lastInView), SLOW).toBe(true);
    await page.screenshot({ path: `${shots}/approval-from-push-390-end.png` });
    noPageErrors(page);
  });

  it("says how many notifications the hourly cap kept back, and only once there are any", STEP, async () => {
    await page.setViewportSize(WIDE);
    const pushState = async () => (await (await page.request.get(`${stack.url}/api/push`)).json()) as { dropped: { count: number }; perHour: number };
    const dropped = page.locator("#push-dropped");
    const reopen = async () => {
      await page.reload({ timeout: 30_000 });
      await page.locator("#push-settings summary").click();
      await expect.poll(() => page.locator("#push-state").textContent(), SLOW).toContain("This browser is told");
    };
    // The approval pushed above was this hour's one (PUSH_PER_HOUR=1 on this stack): nothing kept back, nothing said.
    expect(await pushState()).toMatchObject({ dropped: { count: 0 }, perHour: 1 });
    await reopen();
    expect(await dropped.isHidden()).toBe(true);

    // Another approval while the tab is hidden: past the cap, so not sent, and counted.
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__get_file_info", { path: `${stack.fsRoot}/notes.txt` }),
      reply.text("Denied, fine."),
    ]);
    await setHidden(page, true);
    await sendMessage(page, "and the other list?");
    await expect.poll(async () => (await pushState()).dropped.count, SLOW).toBe(1);
    expect(await pushesTo(push, device, 2)).toHaveLength(2);
    await setHidden(page, false);
    await page.locator("#approval-dialog[open] #deny").click();
    await page.locator(".msg.assistant", { hasText: "Denied, fine." }).waitFor();

    await reopen();
    await expect
      .poll(() => dropped.textContent(), SLOW)
      .toMatch(/^1 notification was not sent: too many came within an hour \(the limit is 1 an hour, the last .+\)\./);
    expect(await dropped.isVisible()).toBe(true);
    expect(await axeCheck(page, "push settings, dropped")).toEqual([]);
    noPageErrors(page);
  });

  it("removes the device: gone from the list and the account", STEP, async () => {
    await page.setViewportSize(WIDE);
    // A reload shows the disclosure closed: opened again, it reads the list.
    if (!(await page.evaluate(`document.getElementById("push-settings").open`))) await page.locator("#push-settings summary").click();
    await own().getByRole("button", { name: "Remove Chrome on Linux" }).click();
    await own().waitFor({ state: "detached" });
    await expect.poll(() => page.locator("#push-note").textContent(), SLOW).toBe("Chrome on Linux removed: it gets no more notifications.");
    expect(((await (await context.request.get(`${stack.url}/api/push`)).json()) as { devices: unknown[] }).devices).toEqual([]);
    expect(await page.locator("#push-enable").isVisible()).toBe(true);
    noPageErrors(page);
  });

  it("says how to turn notifications back on when the browser blocks them", STEP, async () => {
    const context = await browser.newContext({ viewport: WIDE });
    // The person said "Block" at the browser's question.
    await context.addInitScript(`(() => {
      Object.defineProperty(Notification, "permission", { configurable: true, get: () => sessionStorage.getItem("blocked") ? "denied" : "default" });
      Notification.requestPermission = async () => { sessionStorage.setItem("blocked", "1"); return "denied"; };
    })()`);
    const page = await openPage(browser, stack, { context });
    await page.locator("#push-settings summary").click();
    await page.locator("#push-enable").click();
    await expect.poll(() => page.locator("#push-state").textContent(), SLOW).toContain("Notifications are blocked for this site in this browser");
    expect(await page.locator("#push-state").textContent()).toContain("allow notifications in the site's settings");
    expect(await page.locator("#push-enable").isHidden()).toBe(true);
    // Nothing was subscribed nor registered.
    expect(await page.evaluate("navigator.serviceWorker.getRegistration('/').then((r) => r === undefined)")).toBe(true);
    expect(await axeCheck(page, "push denied")).toEqual([]);
    noPageErrors(page);
    await context.close();
  });
});

describe("notifications when away, on a deployment without VAPID keys", () => {
  // npm run dev as it comes; started only now: one stack at a time.
  beforeAll(async () => {
    bare = await startStack();
  });

  it("says push is off and what the operator sets, with no button", STEP, async () => {
    const page = await openPage(browser, bare, { viewport: WIDE });
    await page.locator("#push-settings summary").click();
    await expect.poll(() => page.locator("#push-state").textContent(), SLOW).toContain("Off on this deployment: it has no VAPID keys");
    expect(await page.locator("#push-state").textContent()).toContain("VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT");
    expect(await page.locator("#push-enable").isHidden()).toBe(true);
    expect(await page.locator("#push-detail").isVisible()).toBe(false);
    noPageErrors(page);
    await page.context().close();
  });
});
