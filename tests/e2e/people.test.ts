// Several people in one chat (docs/people.md), in headless Chromium against the real stack:
// three browser contexts at once. alice (the owner) invites bob as a participant and carol
// as a viewer in the People dialog (a name nobody signs in with is refused, typed); both
// find the chat under "Shared with me"; presence shows who is here; bob's message shows his
// name on alice's and carol's pages; bob's page shows the approval his message caused but no
// Allow/Deny, and once alice answers it says she did; carol's composer is read-only until
// alice makes her a participant, live; alice removes bob and his page says so, drops the
// chat and does not reconnect to it; an approval carol may not answer is hers to answer once
// alice makes her an approver while it waits. axe finds nothing serious at both sizes; the
// screenshots are docs/people-desktop.png and docs/people-phone.png.
import { randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import { axeCheck } from "./axe";
import { DESKTOP, launchBrowser, noPageErrors, openPage, overflow, PHONE, sendMessage, shot } from "./browser";

// Users of this file's own stack: no other file counts them.
const tokens = {
  alice: `alice-${randomBytes(16).toString("hex")}`,
  bob: `bob-${randomBytes(16).toString("hex")}`,
  carol: `carol-${randomBytes(16).toString("hex")}`,
};

let browser: Browser;
let stack: Stack;
const pages: Page[] = [];

beforeAll(async () => {
  [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack({
      vars: {
        AUTH_MODE: "token",
        ACCESS_TOKENS: Object.entries(tokens)
          .map(([name, token]) => `${name}:${token}`)
          .join(","),
      },
    }),
  ]);
}, 90_000);
afterAll(async () => {
  await Promise.all(pages.map((p) => p.context().close()));
  await Promise.all([browser?.close(), stack?.stop()]);
});

/** A person's own page (cookies are per context), signed in with their token; `clock`: its timers can be moved on (time still flows). */
async function person(token: string, { clock = false } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP, colorScheme: "light" });
  if (clock) await context.clock.install();
  const p = await openPage(browser, stack, { context, ready: false });
  pages.push(p);
  await p.locator("#login-token").fill(token);
  await p.locator("#login-submit").click();
  await p.locator("#sessions li.current").waitFor();
  return p;
}

/** Serious and critical axe findings on `p` at its size now, in light and in dark (keyed by look; none: {}). */
async function axeBothLooks(p: Page, label: string): Promise<Record<string, unknown>> {
  const found: Record<string, unknown> = {};
  for (const colorScheme of ["light", "dark"] as const) {
    await p.emulateMedia({ colorScheme });
    const blocking = await axeCheck(p, `${label}, ${colorScheme}`);
    if (blocking.length > 0) found[colorScheme] = blocking;
  }
  await p.emulateMedia({ colorScheme: "light" });
  return found;
}

/** Invites `name` as `role` in alice's open People dialog. */
async function invite(alice: Page, name: string, role: string): Promise<void> {
  await alice.locator("#people-name").fill(name);
  await alice.locator("#people-role").selectOption(role);
  await alice.locator("#people-invite button[type=submit]").click();
}

describe("people in one chat, in the page", () => {
  it("invites, shows presence and authors, keeps each role's limits, changes a role live and removes someone", async () => {
    const alice = await person(tokens.alice);
    await script(stack.llm.url, stack.llmKey, [reply.text("Hello, team.")]);
    await sendMessage(alice, "Let's plan the week.");
    await alice.locator(".msg.assistant", { hasText: "Hello, team." }).waitFor();
    const chatId = await alice.locator("#sessions li.current").getAttribute("data-session");
    expect(chatId).toBeTruthy();

    // Nobody invited yet: on a phone the header keeps one row, without the People button;
    // the chat's own menu has People… (at any width), which opens the dialog on that chat.
    await alice.setViewportSize(PHONE);
    expect(await alice.locator("#people-open").isVisible()).toBe(false);
    expect((await alice.locator("header.top").boundingBox())?.height).toBeLessThan(56);
    await alice.setViewportSize(DESKTOP);
    await alice.locator("#sessions li.current .row-menu").click();
    await alice.getByRole("menuitem", { name: "People…" }).click();

    // The People dialog: the sentence on whose tools run, a typed refusal, two invites.
    const dialog = alice.locator("#people-dialog");
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("Tools here are yours: your servers, machines and model");
    await invite(alice, "nobody", "viewer");
    await expect.poll(() => alice.locator("#people-status").textContent()).toContain("unknown_person");
    await invite(alice, "bob", "participant");
    await alice.locator('#people-list li[data-person="bob"]').waitFor();
    await invite(alice, "carol", "viewer");
    await alice.locator('#people-list li[data-person="carol"]').waitFor();
    expect(await alice.locator('#people-list li[data-person="carol"] select').inputValue()).toBe("viewer");
    expect(await alice.locator('#people-list li[data-person="bob"] .person-status').textContent()).toBe("invited, not come yet");
    await alice.locator("#people-close").click();

    // bob and carol find it under "Shared with me" and open it.
    const bob = await person(tokens.bob);
    const carol = await person(tokens.carol);
    for (const [p, role] of [
      [bob, "participant"],
      [carol, "viewer"],
    ] as const) {
      const row = p.locator(`#shared-sessions li[data-session="${chatId}"] button`);
      expect(await row.textContent()).toBe(`alice's chat, ${role}`);
      await row.click();
      await p.locator(".msg.assistant", { hasText: "Hello, team." }).waitFor();
      // Someone else's chat is not listed among their own, and they get no People button.
      expect(await p.locator(`#sessions li[data-session="${chatId}"]`).count()).toBe(0);
      expect(await p.locator("#people-open").isHidden()).toBe(true);
    }

    // Presence: everyone here, on every page.
    for (const p of [alice, bob, carol]) for (const name of ["alice", "bob", "carol"]) await p.locator(`#presence li[data-person="${name}"]`).waitFor();

    // carol, a viewer: a read-only composer that says why, Send disabled.
    expect(await carol.locator("#composer-input").evaluate((e) => (e as { readOnly: boolean }).readOnly)).toBe(true);
    expect(await carol.locator("#send").isDisabled()).toBe(true);
    expect(await carol.locator("#role-note").textContent()).toContain("You're a viewer in alice's chat");

    // bob's message asks for a write (the owner's filesystem server): only alice may answer it.
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__write_file", { path: `${stack.fsRoot}/sub/plan.txt`, content: "Mon: plan" }),
      reply.text("Plan written."),
    ]);
    expect(await bob.locator("#role-note").textContent()).toContain("alice or an approver can answer");
    await sendMessage(bob, "Write the plan to a file.");
    for (const p of [alice, carol]) {
      const message = p.locator(".msg.user.by-other", { hasText: "Write the plan to a file." });
      await message.waitFor();
      expect(await message.locator(".author-badge").textContent()).toBe("bob");
    }
    // bob's own message carries no name: it is his.
    await bob.locator(".msg.user", { hasText: "Write the plan to a file." }).waitFor();
    expect(await bob.locator(".msg.user.by-other").count()).toBe(0);
    const bobCard = bob.locator(".tool-card", { hasText: "filesystem.write_file" });
    await expect.poll(() => bobCard.locator(".answer-note").textContent()).toBe("alice or an approver can answer this");
    expect(await bob.locator("#approval-dialog").isHidden()).toBe(true);
    // The turn waits on alice: bob (who started it) and alice may stop it, carol (a viewer) is not offered Stop.
    expect(await bob.locator("#stop").isVisible()).toBe(true);
    expect(await carol.locator("#stop").isHidden()).toBe(true);
    await alice.locator("#approval-dialog[open]").waitFor();
    await alice.locator("#approve-once").click();
    await expect.poll(() => bobCard.locator(".answer-note").textContent()).toBe("allowed by alice");
    await expect.poll(() => alice.locator(".tool-card .answer-note").textContent()).toBe("allowed by you");
    for (const p of [alice, bob, carol]) await p.locator(".msg.assistant", { hasText: "Plan written." }).waitFor();
    // What only alice may do is not offered to her guests: editing or regenerating a turn, the model.
    // (drawn at the turn's end, which may follow its answer's entry)
    await expect.poll(() => alice.locator(".turn-action:visible").count()).toBeGreaterThan(0);
    for (const p of [bob, carol]) {
      // Their turn is drawn with its actions too, and they are hidden.
      await expect.poll(() => p.locator(".turn-action").count()).toBeGreaterThan(0);
      expect(await p.locator(".turn-action:visible").count()).toBe(0);
      expect(await p.locator("#model").isDisabled()).toBe(true);
    }

    // The screenshots: alice's page with her two guests here, at both sizes, axe clean.
    await alice.locator("#presence").scrollIntoViewIfNeeded();
    expect(await axeBothLooks(alice, "people: alice's shared chat")).toEqual({});
    expect(await axeBothLooks(carol, "people: carol's read-only chat")).toEqual({});
    await shot(alice, "people-desktop");
    await alice.setViewportSize(PHONE);
    expect(await axeBothLooks(alice, "people: alice's shared chat, phone")).toEqual({});
    expect(await overflow(alice)).toEqual({ overflow: 0, wide: [] });
    await shot(alice, "people-phone");
    await alice.setViewportSize(DESKTOP);
    await carol.setViewportSize(PHONE);
    expect(await axeBothLooks(carol, "people: carol's read-only chat, phone")).toEqual({});
    expect(await overflow(carol)).toEqual({ overflow: 0, wide: [] });
    await shot(carol, "people-viewer-phone");
    await shot(bob, "people-participant-desktop");
    await carol.setViewportSize(DESKTOP);

    // alice makes carol a participant: her composer opens at once, with no reload.
    await alice.locator("#people-open").click();
    await alice.locator('#people-list li[data-person="carol"] select').selectOption("participant");
    await expect.poll(() => alice.locator("#people-status").textContent()).toContain("carol is now a participant");
    expect(await axeBothLooks(alice, "people dialog")).toEqual({});
    await shot(alice, "people-dialog-desktop");
    await alice.setViewportSize(PHONE);
    expect(await axeBothLooks(alice, "people dialog, phone")).toEqual({});
    await shot(alice, "people-dialog-phone");
    await alice.setViewportSize(DESKTOP);
    await expect.poll(() => carol.locator("#composer-input").evaluate((e) => (e as { readOnly: boolean }).readOnly)).toBe(false);
    expect(await carol.locator("#send").isDisabled()).toBe(false);
    expect(await carol.locator("#role-note").textContent()).toContain("You're a participant in alice's chat");

    // alice removes bob: his page says so, the chat leaves his list, and it is not opened again.
    const bobSockets: string[] = [];
    bob.on("websocket", (ws) => bobSockets.push(ws.url()));
    await alice.locator('#people-list li[data-person="bob"] button', { hasText: "Remove" }).click();
    await alice.locator("#confirm-ok").click();
    await alice.locator('#people-list li[data-person="bob"]').waitFor({ state: "detached" });
    await expect.poll(() => bob.locator("#alert-text").textContent()).toBe("You were removed from alice's chat: it is no longer shared with you.");
    await bob.locator(`#shared-sessions li[data-session="${chatId}"]`).waitFor({ state: "detached" });
    expect(await bob.locator("#shared-box").isHidden()).toBe(true);
    // He is back on a chat of his own, connected; the shared chat's socket was never tried again.
    await expect.poll(() => bob.locator("#conn").getAttribute("data-state")).toBe("open");
    expect(await bob.locator("#sessions li.current").getAttribute("data-session")).not.toBe(chatId);
    expect(bobSockets.filter((url) => url.includes(`/sessions/${chatId}/`))).toEqual([]);
    await alice.locator('#presence li[data-person="bob"]').waitFor({ state: "detached" });
    await alice.locator("#people-close").click();

    // An approval carol (a participant) may not answer waits on her card; made an approver
    // while it waits (alice's PATCH, as the dialog sends it), she is asked at once and answers.
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("filesystem__write_file", { path: `${stack.fsRoot}/sub/agenda.txt`, content: "1. plan" }),
      reply.text("Agenda written."),
    ]);
    await sendMessage(alice, "Write the agenda.");
    const carolCard = carol.locator(".tool-card", { hasText: "agenda.txt" });
    await expect.poll(() => carolCard.locator(".answer-note").textContent()).toBe("alice or an approver can answer this");
    await alice.locator("#approval-dialog[open]").waitFor();
    expect(await carol.locator("#approval-dialog").isHidden()).toBe(true);
    // alice's turn: carol, a participant, may not stop it (only her own), so Stop is not offered.
    expect(await carol.locator("#stop").isHidden()).toBe(true);
    const api = alice.context().request;
    const listed = (await (await api.get(`${stack.url}/sessions/${chatId}/people`)).json()) as { members: { key: string; name: string }[] };
    const carolKey = listed.members.find((m) => m.name === "carol")?.key;
    const patched = await api.patch(`${stack.url}/sessions/${chatId}/people/${carolKey}`, {
      data: { role: "approver" },
      headers: { "content-type": "application/json", origin: stack.url },
    });
    expect(patched.status()).toBe(200);
    await carol.locator("#approval-dialog[open]").waitFor();
    // An approver stops any turn.
    expect(await carol.locator("#stop").isVisible()).toBe(true);
    await carol.locator("#approve-once").click();
    await alice.locator("#approval-dialog").waitFor({ state: "hidden" });
    await expect.poll(() => alice.locator(".tool-card", { hasText: "agenda.txt" }).locator(".answer-note").textContent()).toBe("allowed by carol");
    await expect.poll(() => carolCard.locator(".answer-note").textContent()).toBe("allowed by you");
    for (const p of [alice, carol]) await p.locator(".msg.assistant", { hasText: "Agenda written." }).waitFor();

    // Invited again while a page of his stays in front (no reload, no focus change): it shows the chat
    // at its next look for invites (public/people/shared-chats.js), the page's clock moved on to it.
    const bobAgain = await person(tokens.bob, { clock: true });
    const again = bobAgain.locator(`#shared-sessions li[data-session="${chatId}"] button`);
    expect(await bobAgain.locator("#shared-box").isHidden()).toBe(true);
    const reinvited = await api.post(`${stack.url}/sessions/${chatId}/people`, {
      data: { name: "bob", role: "viewer" },
      headers: { "content-type": "application/json", origin: stack.url },
    });
    expect(reinvited.status()).toBe(201);
    expect(await again.count()).toBe(0);
    await bobAgain.clock.fastForward(30_000);
    await again.waitFor();
    expect(await again.textContent()).toBe("alice's chat, viewer");
    // carol's page, looking too, lists only her own place in it.
    await carol.reload();
    await expect.poll(() => carol.locator("#shared-sessions li button").allTextContents()).toEqual(["alice's chat, approver"]);

    for (const p of [alice, bob, carol, bobAgain]) noPageErrors(p);
    // Four pages and two model turns with approvals on a 2-core machine: more than the default 30 s.
  }, 180_000);
});
