// Days in the life of an idle chat with a schedule, lived in workerd with the clock moved
// (schedule-cost.test.ts, bench/workerd/schedule-cost.bench.ts). Nobody has the chat open. The
// test plays the runtime: it reads the object's alarm and, when it falls within the day, sets
// the clock (Date, faked in this isolate, which the objects share) to that instant and fires
// it (runDurableObjectAlarm). Everything else is the real code: agents' job queue, the
// schedules, the run's turn against the fake model. What the chat, its owner's account and the
// deployment's operations object write is metered (storage-meter.ts).
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect, inject, vi } from "vitest";
import type { Env } from "../../../src/config/env";
import type { ChatSession } from "../../../src/session/ChatSession";
import { userAccount } from "../../../src/users/account";
import { operations } from "../../../src/ops/operations-object";
import { reply, script } from "../../fixtures/fake-llm-script";
import { add, empty, meterObject, type StorageCounts, type StorageMeter } from "../storage-meter";
import type { TestUser } from "../test-users";
import { openSession, workerFetch } from "../worker-fetch";
import { stubOf } from "./schedule-alarm";

export const DAY_MS = 24 * 60 * 60_000;
/** Each run's (and the baseline turn's) answer. */
const ANSWER = "scheduled answer";
const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");

export interface Wake {
  at: number;
  /** Callbacks of agents' jobs due at the wake (what woke the chat). */
  jobs: string[];
  chat: StorageCounts;
  account: StorageCounts;
  operations: StorageCounts;
}

export interface Day {
  wakes: Wake[];
  chat: StorageCounts;
  account: StorageCounts;
  operations: StorageCounts;
}

export interface IdleChat {
  id: string;
  user: TestUser;
  /** The schedule's `next_at` as made. */
  firstRun: number;
  meters: { chat: StorageMeter; account: StorageMeter; operations: StorageMeter };
  /** What a typed turn with the runs' answer wrote, page open (the baseline). */
  typedTurn: { chat: StorageCounts; account: StorageCounts; operations: StorageCounts };
}

/**
 * A chat of `user`'s with two typed turns and one schedule, nobody on it, its objects metered
 * from here on. The second typed turn (same scripted answer as the runs) is metered as the
 * baseline: what the same turn costs the chat when a person types it on an open page.
 */
export async function idleChatWith(user: TestUser, schedule: { when: string; timeZone: string; text: string }, answer = ANSWER): Promise<IdleChat> {
  await script(llm, KEY, [reply.text("hello"), reply.text(answer)]);
  const id = crypto.randomUUID();
  const socket = await openSession(id, user);
  await socket.turnEnd(socket.say("hi"));
  const e = env as unknown as Env;
  const meters = {
    chat: await meterObject(await stubOf(id)),
    account: await meterObject(userAccount(e, `token:${user}`)),
    operations: await meterObject(operations(e)),
  };
  // The first turn's reports go before the baseline's.
  await settle(id, meters.chat);
  for (const m of Object.values(meters)) await m.take();
  await socket.turnEnd(socket.say(schedule.text));
  await settle(id, meters.chat);
  const typedTurn = { chat: await meters.chat.take(), account: await meters.account.take(), operations: await meters.operations.take() };
  await socket.close();
  const made = await workerFetch(
    `/sessions/${id}/schedules`,
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(schedule) },
    user,
  );
  expect(made.status).toBe(201);
  const { nextAt } = (await made.json()) as { nextAt: number };
  // What closing the page and making the schedule wrote is not the idle days' cost.
  for (const m of Object.values(meters)) await m.take();
  return { id, user, firstRun: nextAt, meters, typedTurn };
}

/** The chat's alarm (ms), unmetered. */
const alarmOf = (chat: IdleChat) => chat.meters.chat.look((_i, state) => state.storage.getAlarm());

/** agents' jobs due at `at`, unmetered. */
const jobsDue = (chat: IdleChat, at: number) =>
  chat.meters.chat.look((instance) =>
    (instance as ChatSession)
      .getSchedules()
      .filter((s) => s.time * 1000 <= at)
      .map((s) => s.callback),
  );

/**
 * Whether the chat is quiet, unmetered: no turn runs; no keepAliveWhile scope is held (agents
 * keeps a `cf:keep-alive` job while one is: the run's end told to the owner's account outlives
 * the turn); the turn's tokens reached the owner's daily figure and its budget hold was let go
 * (session-owner.ts sends them on their own two seconds after the turn, pending-usage.ts).
 */
const quiet = (meter: StorageMeter) =>
  meter.look((instance, state) => {
    const session = instance as unknown as { parts: { runningTurn?: string }; _keepAliveRefs?: number };
    const { sql } = state.storage;
    const kept = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM cf_agents_jobs WHERE id = 'cf:keep-alive'").one().n;
    const owed = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM settings WHERE key IN ('unreportedTokens', 'budgetHold')").one().n;
    return session.parts.runningTurn === undefined && (session._keepAliveRefs ?? 0) === 0 && kept === 0 && owed === 0;
  });

/**
 * Waits until everything a turn or a wake set going has been written: the chat quiet, then its
 * reports to the owner's search index and to the operations object, which wait up to two
 * seconds (of real time: only Date is moved) to go together, arrived; then quiet again.
 */
async function settle(id: string, meter: StorageMeter): Promise<void> {
  await expect.poll(() => quiet(meter), { timeout: 20_000 }).toBe(true);
  // Not a look: what the reports make the chat write meanwhile is counted.
  await runInDurableObject(await stubOf(id), async (instance) => {
    const { parts } = instance as unknown as { parts: { searchFeed: { settled(): Promise<void> }; reporter: { settled(): Promise<void> } } };
    await Promise.all([parts.searchFeed.settled(), parts.reporter.settled()]);
  });
  await expect.poll(() => quiet(meter), { timeout: 20_000 }).toBe(true);
}

/**
 * Lives the day [start, start + DAY_MS): every alarm the object holds within it fires at its time,
 * each run's turn (its answer scripted as `answer`) ends before the next. The clock is left at the day's end.
 */
export async function liveDay(chat: IdleChat, start: number, answer = ANSWER): Promise<Day> {
  const day: Day = { wakes: [], chat: empty(), account: empty(), operations: empty() };
  const end = start + DAY_MS;
  vi.setSystemTime(start);
  for (;;) {
    const alarm = await alarmOf(chat);
    if (alarm === null || alarm >= end) break;
    vi.setSystemTime(Math.max(alarm, Date.now()));
    const jobs = await jobsDue(chat, Date.now());
    await script(llm, KEY, [reply.text(answer)]);
    await runDurableObjectAlarm(await stubOf(chat.id));
    await settle(chat.id, chat.meters.chat);
    day.wakes.push({
      at: alarm,
      jobs,
      chat: await chat.meters.chat.take(),
      account: await chat.meters.account.take(),
      operations: await chat.meters.operations.take(),
    });
  }
  vi.setSystemTime(end);
  // Anything written between the wakes (none is expected: nothing else runs in an idle chat).
  const between = { chat: await chat.meters.chat.take(), account: await chat.meters.account.take(), operations: await chat.meters.operations.take() };
  for (const part of ["chat", "account", "operations"] as const) {
    day[part] = day.wakes.reduce((total, w) => add(total, w[part]), between[part]);
  }
  return day;
}

/** The chat goes (and its schedule and alarm job with it), the clock back to real time. */
export async function done(chat: IdleChat): Promise<void> {
  vi.useRealTimers();
  expect((await workerFetch(`/sessions/${chat.id}`, { method: "DELETE" }, chat.user)).status).toBe(204);
}
