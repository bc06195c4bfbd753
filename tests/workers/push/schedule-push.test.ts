// A schedule's news on its owner's devices (issue 39), in real workerd with the test push
// service decrypting each push: a run that ends while the owner has no visible page on the
// chat pushes schedule_done (how it ended, the chat's name, never the schedule's text or the
// answer) and no "answer ready" besides, a `once` as much as a repeating one; a visible page
// gets none; the run whose failure pauses the schedule pushes schedule_paused instead. Time is
// moved (schedule-alarm.ts).
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { ScheduleView } from "../../../src/protocol/messages";
import { reply, script } from "../../fixtures/fake-llm-script";
import type { TestUser } from "../test-users";
import { openSession, workerFetch } from "../worker-fetch";
import { fireAlarm } from "../session/schedule-alarm";
import { onlyDevice, pushesTo } from "./push-fixture";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
// carol: her chats run schedules in schedules.test.ts too; each file starts with her device list emptied.
const USER: TestUser = "carol";
const json = { "content-type": "application/json" };

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

/** A chat of carol's named `title`, holding one schedule that says `text`. */
async function chatWithSchedule(title: string, text: string): Promise<{ id: string; schedule: ScheduleView }> {
  await script(llm, KEY, [reply.text("hello")]);
  const id = crypto.randomUUID();
  const socket = await openSession(id, USER);
  await socket.turnEnd(socket.say(title));
  await socket.close();
  const made = await workerFetch(
    `/sessions/${id}/schedules`,
    { method: "POST", headers: json, body: JSON.stringify({ when: "hourly", timeZone: "UTC", text }) },
    USER,
  );
  expect(made.status).toBe(201);
  return { id, schedule: (await made.json()) as ScheduleView };
}

type Payload = { v: number; kind: string; session: string; chat?: string; ref?: string; tag: string; outcome?: string; token?: string };
const payloadOf = (push: { plaintext?: string } | undefined) => JSON.parse(push?.plaintext ?? "{}") as Payload;
/** A schedule_done payload as the Worker builds it for detail "full". */
const doneOf = (session: string, turnId: string, chat: string, outcome: string): Payload => ({
  v: 1,
  kind: "schedule_done",
  session,
  ref: turnId,
  tag: `schedule_done:${turnId}`,
  chat,
  outcome,
});

describe("a schedule's news on its owner's devices", () => {
  it("a run that ends while the owner is away pushes schedule_done (not also 'answer ready'), with no text of the schedule or the answer", async () => {
    const device = await onlyDevice(USER);
    const secret = `brief-${crypto.randomUUID()}`;
    const { id } = await chatWithSchedule("Morning brief", `summarise ${secret}`);
    const socket = await openSession(id, USER);
    socket.send({ type: "visibility", visible: false });
    // Longer than PUSH_LONG_TURN_SECONDS (1 here): a plain turn this long would push turn_done.
    const answer = `answer-${crypto.randomUUID()}`;
    await script(llm, KEY, [reply.stream([answer], { firstChunkMs: 1_200 })]);
    const from = socket.received.length;
    await fireAlarm(id);
    const { end } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    const [push, ...more] = await pushesTo(device, 1);
    expect(push?.verified).toBe(true);
    expect(payloadOf(push)).toEqual(doneOf(id, end.turnId, "Morning brief", "completed"));
    expect(push?.plaintext).not.toContain(secret);
    expect(push?.plaintext).not.toContain(answer);
    expect(push?.headers.urgency).toBe("normal");
    expect(more).toEqual([]);
    // A person's own long turn after it still says "answer ready" (only runs are told as runs).
    await script(llm, KEY, [reply.stream(["slow"], { firstChunkMs: 1_200 })]);
    const own = await socket.turnEnd(socket.say("and now?"));
    const pushes = await pushesTo(device, 2);
    expect(pushes.map((p) => payloadOf(p).kind)).toEqual(["schedule_done", "turn_done"]);
    expect(payloadOf(pushes[1])).toMatchObject({ ref: own.end.turnId });
    await socket.close();
  });

  it("a `once` schedule's run (its row gone as it started) still tells its owner how it ended", async () => {
    const device = await onlyDevice(USER);
    await script(llm, KEY, [reply.text("hello")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id, USER);
    await socket.turnEnd(socket.say("One-off"));
    const made = await workerFetch(
      `/sessions/${id}/schedules`,
      { method: "POST", headers: json, body: JSON.stringify({ when: "once 2099-01-01 08:00", timeZone: "UTC", text: "just once" }) },
      USER,
    );
    expect(made.status).toBe(201);
    socket.send({ type: "visibility", visible: false });
    await script(llm, KEY, [reply.text("done once")]);
    const from = socket.received.length;
    await fireAlarm(id);
    const { end } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    const listed = (await (await workerFetch(`/sessions/${id}/schedules`, {}, USER)).json()) as { schedules: ScheduleView[] };
    expect(listed.schedules).toEqual([]);
    const [push] = await pushesTo(device, 1);
    expect(payloadOf(push)).toEqual(doneOf(id, end.turnId, "One-off", "completed"));
    await socket.close();
  });

  it("a visible page gets none; the failure that pauses the schedule pushes schedule_paused in place of the run's end", async () => {
    const device = await onlyDevice(USER);
    const { id, schedule } = await chatWithSchedule("Nightly sweep", "sweep the notes");
    const socket = await openSession(id, USER);
    socket.send({ type: "visibility", visible: true });
    const failing = () => script(llm, KEY, [reply.error(400, {}, { error: { code: 400, message: "bad request", status: "INVALID_ARGUMENT" } })]);
    const ends: string[] = [];
    for (let run = 1; run <= 3; run++) {
      // The first run is watched; the second and third are not.
      if (run === 2) socket.send({ type: "visibility", visible: false });
      await failing();
      const from = socket.received.length;
      await fireAlarm(id);
      const { end } = await socket.turnEnd(from);
      expect(end.reason).toBe("error");
      ends.push(end.turnId);
    }
    const pushes = (await pushesTo(device, 2)).map(payloadOf);
    // Run 1 was watched (no push); run 2 failed; run 3 paused it.
    expect(pushes).toEqual([
      doneOf(id, ends[1] ?? "", "Nightly sweep", "failed"),
      { v: 1, kind: "schedule_paused", session: id, ref: schedule.id, tag: `schedule_paused:${schedule.id}`, chat: "Nightly sweep" },
    ]);
    for (const p of pushes) expect(JSON.stringify(p)).not.toContain("sweep the notes");
    await socket.close();
  });
});
