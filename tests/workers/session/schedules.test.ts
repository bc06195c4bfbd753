// Scheduled runs (src/session/schedules/) in real workerd: made and listed through the
// routes, refused with a typed error for a bad time, a loop, a tool the chat lacks, one too
// many and another person's chat; run on the object's own alarm with the time moved by the
// test (the row made due, agents' job due, runDurableObjectAlarm). The run calls its
// pre-granted tool without asking, then waits at a tool it was not granted (an approval, and
// with nobody watching a push the test push service decrypts); failures pause it; deleting
// the chat removes its schedules and their alarm job.
import { runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { type AuditRecord, personKey } from "../../../src/audit/record";
import type { ScheduleView } from "../../../src/protocol/messages";
import { reply, script } from "../../fixtures/fake-llm-script";
import { frameOf } from "../../fixtures/session-client";
import { newDevice, type PushDeviceFixture, pushesTo } from "../push/push-fixture";
import type { TestUser } from "../test-users";
import { openSession, workerFetch } from "../worker-fetch";
import { fireAlarm, stubOf } from "./schedule-alarm";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");
const USER: TestUser = "carol";

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

/** A chat of `user`'s with one message in it (so it is listed and owned). */
async function newChat(user: TestUser = USER): Promise<string> {
  await script(llm, KEY, [reply.text("hello")]);
  const id = crypto.randomUUID();
  const socket = await openSession(id, user);
  const from = socket.say("hi");
  await socket.turnEnd(from);
  await socket.close();
  return id;
}

const post = (id: string, body: unknown, user: TestUser = USER) =>
  workerFetch(`/sessions/${id}/schedules`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }, user);

const list = async (id: string) => ((await (await workerFetch(`/sessions/${id}/schedules`, {}, USER)).json()) as { schedules: ScheduleView[] }).schedules;

/** The error code and issues' paths of a refusal. */
async function refusal(response: Response): Promise<{ status: number; code: string; paths: string[] }> {
  const body = (await response.json()) as { error: { code: string; issues?: { path: string }[] } };
  return { status: response.status, code: body.error.code, paths: (body.error.issues ?? []).map((i) => i.path) };
}

async function onlyDevice(): Promise<PushDeviceFixture> {
  const listed = (await (await workerFetch("/api/push", {}, USER)).json()) as { devices: { id: string }[] };
  for (const { id } of listed.devices) await workerFetch(`/api/push/devices/${id}`, { method: "DELETE" }, USER);
  const device = await newDevice();
  const added = await workerFetch(
    "/api/push/devices",
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ subscription: { endpoint: device.endpoint, keys: device.keys } }),
    },
    USER,
  );
  expect(added.status).toBe(201);
  return device;
}

describe("making schedules", () => {
  it("lists a schedule with its canonical time, zone, next run and grants shown back", async () => {
    const id = await newChat();
    const made = await post(id, { when: "Weekdays 8:00", timeZone: "Europe/Berlin", text: "summarise new files", grants: ["filesystem.get_file_info"] });
    expect(made.status).toBe(201);
    const view = (await made.json()) as ScheduleView;
    expect(view).toMatchObject({
      spec: "weekdays 08:00",
      timeZone: "Europe/Berlin",
      text: "summarise new files",
      grants: ["filesystem.get_file_info"],
      runs: 0,
    });
    expect(view.nextAt).toBeGreaterThan(Date.now());
    expect(await list(id)).toEqual([view]);
    // The object's alarm holds one job for it.
    await runInDurableObject(await stubOf(id), (instance) => {
      expect(instance.getSchedules().filter((s) => s.callback === "runSchedules")).toHaveLength(1);
    });
  });

  it("refuses a bad time, a loop, a tool the chat lacks, a sixth schedule, another person's chat, an unknown id", async () => {
    const id = await newChat();
    const ok = { when: "daily 07:00", timeZone: "UTC", text: "x" };
    expect(await refusal(await post(id, { ...ok, when: "sometimes" }))).toEqual({ status: 400, code: "schedule_invalid", paths: ["when"] });
    expect(await refusal(await post(id, { ...ok, timeZone: "Mars/Base" }))).toEqual({ status: 400, code: "schedule_invalid", paths: ["timeZone"] });
    expect(await refusal(await post(id, { ...ok, text: "" }))).toMatchObject({ status: 400, code: "schedule_invalid", paths: ["text"] });
    expect(await refusal(await post(id, { ...ok, when: "cron */5 * * * *" }))).toMatchObject({ status: 400, code: "schedule_too_frequent" });
    expect(await refusal(await post(id, { ...ok, grants: ["filesystem.no_such_tool"] }))).toMatchObject({ status: 400, code: "schedule_tool_unknown" });
    for (let i = 0; i < 5; i++) expect((await post(id, { ...ok, when: `daily 0${i}:00` })).status).toBe(201);
    expect(await refusal(await post(id, ok))).toMatchObject({ status: 409, code: "too_many_schedules" });
    // Another person's chat is not found, as one that does not exist.
    expect((await post(id, ok, "dave")).status).toBe(404);
    expect((await workerFetch(`/sessions/${id}/schedules`, {}, "dave")).status).toBe(404);
    const [first] = await list(id);
    expect((await workerFetch(`/sessions/${id}/schedules/${first?.id}`, { method: "DELETE" }, "dave")).status).toBe(404);
    expect(await refusal(await workerFetch(`/sessions/${id}/schedules/${crypto.randomUUID()}`, { method: "DELETE" }, USER))).toMatchObject({
      status: 404,
      code: "schedule_unknown",
    });
    expect((await workerFetch(`/sessions/${id}/schedules/${first?.id}`, { method: "DELETE" }, USER)).status).toBe(204);
    expect(await list(id)).toHaveLength(4);
  });
});

describe("the cap across a person's chats", () => {
  it("refuses a schedule past SCHEDULES_PER_USER (20) across chats with a typed 409, and frees slots on remove and on deleting a chat", async () => {
    // frank: no test counts his servers (erin's chats would start her own child of the bridge's
    // isolated server, which bridge-users.test.ts counts from zero).
    const user: TestUser = "frank";
    const ok = { timeZone: "UTC", text: "x" };
    const chats: string[] = [];
    for (let c = 0; c < 4; c++) {
      const id = await newChat(user);
      chats.push(id);
      for (let i = 0; i < 5; i++) expect((await post(id, { ...ok, when: `daily 1${i}:0${c}` }, user)).status).toBe(201);
    }
    const fifth = await newChat(user);
    const refused = await refusal(await post(fifth, { ...ok, when: "daily 07:00" }, user));
    expect(refused).toMatchObject({ status: 409, code: "too_many_schedules" });
    // Another person is not held by frank's schedules.
    const carols = await newChat();
    expect((await post(carols, { ...ok, when: "daily 07:00" })).status).toBe(201);
    // Removing one of frank's frees its slot; a second one is refused again.
    const listed = (await (await workerFetch(`/sessions/${chats[0]}/schedules`, {}, user)).json()) as { schedules: ScheduleView[] };
    expect((await workerFetch(`/sessions/${chats[0]}/schedules/${listed.schedules[0]?.id}`, { method: "DELETE" }, user)).status).toBe(204);
    expect((await post(fifth, { ...ok, when: "daily 07:00" }, user)).status).toBe(201);
    expect((await post(fifth, { ...ok, when: "daily 08:00" }, user)).status).toBe(409);
    // Deleting a chat frees all of its slots.
    expect((await workerFetch(`/sessions/${chats[1]}`, { method: "DELETE" }, user)).status).toBe(204);
    for (let i = 0; i < 4; i++) expect((await post(fifth, { ...ok, when: `daily 2${i}:00` }, user)).status).toBe(201);
  });
});

describe("a scheduled run", () => {
  it("fires on the alarm, calls its pre-granted tool without asking, and waits at another (approval + push)", async () => {
    const device = await onlyDevice();
    const id = await newChat();
    expect(
      (await post(id, { when: "daily 08:00", timeZone: "America/New_York", text: "look at the files", grants: ["filesystem.get_file_info"] })).status,
    ).toBe(201);
    await script(llm, KEY, [
      reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }),
      reply.callReply("filesystem__list_directory_with_sizes", { path: root }),
      reply.text("all done"),
    ]);
    const socket = await openSession(id, USER);
    // Nobody is looking: the question is pushed.
    socket.send({ type: "visibility", visible: false });
    const from = socket.received.length;
    await fireAlarm(id);
    const start = await socket.next(frameOf("turn_start"), from);
    const request = await socket.next(frameOf("approval_request"), from);
    // The granted tool ran with no question; the one asked about is the other.
    expect(request).toMatchObject({ turnId: start.turnId, server: "filesystem", tool: "list_directory_with_sizes" });
    const asked = socket.received.slice(from).filter((m) => m.type === "approval_request");
    expect(asked).toHaveLength(1);
    const [push] = await pushesTo(device, 1);
    const payload = JSON.parse(push?.plaintext ?? "{}") as { expiresAt: number };
    expect(payload).toMatchObject({ kind: "approval", session: id, ref: request.callId, tool: "list_directory_with_sizes" });
    // A run's question waits SCHEDULE_APPROVAL_WAIT_MINUTES (60), and its notification's token as long.
    expect(payload.expiresAt - Date.now()).toBeGreaterThan(55 * 60_000);
    expect(payload.expiresAt - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    socket.send({ type: "approval", callId: request.callId, approved: true });
    const { end } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    const entries = socket.entries(from);
    expect(entries.find((e) => e.kind === "user")).toMatchObject({ text: "look at the files", scheduled: { spec: "daily 08:00" } });
    // Search finds the run's message as the schedule's, not as words the person typed.
    const hits = async () => {
      const res = (await (await workerFetch(`/api/search?q=files`, {}, USER)).json()) as { results: { sessionId: string; hits: { kind: string }[] }[] };
      return res.results.find((r) => r.sessionId === id)?.hits.map((h) => h.kind);
    };
    await expect.poll(hits, { timeout: 10_000 }).toContain("schedule");
    expect(await hits()).not.toContain("user");
    // get_file_info (which asks in any other turn: mcp.json does not allow it) ran and answered.
    const info = entries.find((e) => e.kind === "tool_result" && e.tool === "get_file_info");
    expect(info).toBeDefined();
    expect(info?.error).toBeUndefined();
    const [view] = await list(id);
    expect(view).toMatchObject({ runs: 1, lastOutcome: "completed" });
    expect(view?.nextAt).toBeGreaterThan(Date.now());
    // A call of the person's own later turn is not granted: the grant was that run's only.
    await script(llm, KEY, [reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }), reply.text("ok")]);
    const from2 = socket.say("look again");
    const again = await socket.next(frameOf("approval_request"), from2);
    expect(again.tool).toBe("get_file_info");
    // The person's own turn's question waits the usual 10 minutes.
    const ownPush = async () =>
      (await pushesTo(device)).map((p) => JSON.parse(p.plaintext ?? "{}") as { ref?: string; expiresAt: number }).find((p) => p.ref === again.callId);
    await expect.poll(ownPush).toBeDefined();
    const ownWait = ((await ownPush())?.expiresAt ?? 0) - Date.now();
    expect(ownWait).toBeGreaterThan(5 * 60_000);
    expect(ownWait).toBeLessThanOrEqual(10 * 60_000);
    socket.send({ type: "approval", callId: again.callId, approved: false });
    await socket.turnEnd(from2);
    await socket.close();
    // The audit trail (docs/audit.md): the run's calls asked by its schedule, the granted one decided
    // by the grant (nobody answered it), the other by carol in her page; her own turn's call asked by the model.
    const read = async () => ((await (await workerFetch(`/api/audit?session=${id}`, {}, USER)).json()) as { records: AuditRecord[] }).records.reverse();
    await expect.poll(async () => (await read()).length, { timeout: 15_000 }).toBe(3);
    const carol = { key: personKey(`token:${USER}`), name: USER };
    expect((await read()).map((r) => [r.tool, r.askedBy, r.decision, r.status])).toEqual([
      ["get_file_info", { kind: "schedule", scheduleId: view?.id }, { how: "pre_granted" }, "ok"],
      ["list_directory_with_sizes", { kind: "schedule", scheduleId: view?.id }, { how: "asked", answer: "allowed", by: carol, via: "page" }, "ok"],
      ["get_file_info", { kind: "model", person: carol }, { how: "asked", answer: "denied", by: carol, via: "page" }, "denied"],
    ]);
  });

  it("pauses after SCHEDULE_MAX_FAILURES failed runs with a notice, and Resume runs it again", async () => {
    const id = await newChat();
    expect((await post(id, { when: "hourly", timeZone: "UTC", text: "try" })).status).toBe(201);
    const socket = await openSession(id, USER);
    const opened = socket.received.length;
    for (let run = 1; run <= 3; run++) {
      await script(llm, KEY, [reply.error(400, {}, { error: { code: 400, message: "bad request", status: "INVALID_ARGUMENT" } })]);
      const from = socket.received.length;
      await fireAlarm(id);
      expect((await socket.turnEnd(from)).end.reason).toBe("error");
      // The run's end was counted as the turn ended (before this socket heard it).
      expect(await list(id)).toMatchObject([{ runs: run, lastOutcome: "the turn failed" }]);
    }
    const [paused] = await list(id);
    expect(paused).toMatchObject({ paused: "failures", runs: 3 });
    expect(paused?.nextAt).toBeUndefined();
    await socket.next((m) => m.type === "entry" && m.entry.kind === "notice" && (m.entry.text ?? "").includes("paused after 3 failed runs"), opened);
    const resumed = await workerFetch(`/sessions/${id}/schedules/${paused?.id}/resume`, { method: "POST" }, USER);
    expect(resumed.status).toBe(200);
    expect(await resumed.json()).toMatchObject({ runs: 3 });
    const [after] = await list(id);
    expect(after?.paused).toBeUndefined();
    expect(after?.nextAt).toBeGreaterThan(Date.now());
    await socket.close();
  });

  it("is removed with a notice when its owner lost access (token no longer configured), without running", async () => {
    const id = await newChat();
    expect((await post(id, { when: "daily 09:00", timeZone: "UTC", text: "x" })).status).toBe(201);
    expect((await post(id, { when: "daily 10:00", timeZone: "UTC", text: "y" })).status).toBe(201);
    // The Worker's ACCESS_TOKENS cannot change mid-test: the chat's owner becomes a name with no token instead.
    await runInDurableObject(await stubOf(id), (instance) => {
      (instance as unknown as { parts: { store: { setSetting(key: string, value: unknown): void } } }).parts.store.setSetting("owner", "token:gone");
    });
    await fireAlarm(id);
    await runInDurableObject(await stubOf(id), (instance, state) => {
      expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM schedules").one().n).toBe(0);
      expect(instance.getSchedules().filter((s) => s.callback === "runSchedules")).toEqual([]);
      const entries = state.storage.sql.exec<{ kind: string; data: string }>("SELECT kind, data FROM history").toArray();
      // No run started; a notice says why they went.
      expect(entries.filter((e) => e.data.includes('"scheduled"'))).toEqual([]);
      const notices = entries.filter((e) => e.kind === "notice").map((e) => JSON.parse(e.data) as { text?: string });
      expect(notices.map((n) => n.text)).toContainEqual(expect.stringContaining("2 schedules were removed: its owner's sign-in token is no longer configured"));
    });
  });

  it("goes with its chat: rows and the alarm job removed", async () => {
    const id = await newChat();
    expect((await post(id, { when: "daily 09:00", timeZone: "UTC", text: "x" })).status).toBe(201);
    expect((await workerFetch(`/sessions/${id}`, { method: "DELETE" }, USER)).status).toBe(204);
    await runInDurableObject(await stubOf(id), (instance, state) => {
      expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM schedules").one().n).toBe(0);
      expect(instance.getSchedules().filter((s) => s.callback === "runSchedules")).toEqual([]);
    });
  });
});
