// A chat's scheduled runs (docs/schedules.md), its owner's only: GET /sessions/:id/schedules
// lists them, POST makes one {when, timeZone, text, grants, label?}, DELETE …/:sid removes one
// and POST …/:sid/resume runs a paused one again. The session checks the time, the grants and
// the cap (src/session/schedules/session-schedules.ts); another person's chat is 404.
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../identity/identify";
import { RequestError } from "../shared/errors";
import { ownedSession } from "./owned-session";
import { limitBody, zodIssues } from "./request-body";

export const schedules = new Hono<AppEnv>();

const SCHEDULE_ID = /^[0-9a-f-]{36}$/;
const MAX_TEXT = 4_000;

const NewScheduleSchema = z.strictObject({
  when: z.string().min(1).max(200),
  timeZone: z.string().min(1).max(100),
  text: z.string().trim().min(1).max(MAX_TEXT),
  /** `server.tool` names; empty: every call asks. */
  grants: z.array(z.string().min(3).max(200)).max(10).default([]),
  label: z.string().trim().min(1).max(80).optional(),
});

schedules.get("/sessions/:id/schedules", async (c) => {
  const stub = await ownedSession(c, c.req.param("id"), { claim: false });
  return c.json({ schedules: await stub.chatSchedules() });
});

schedules.post("/sessions/:id/schedules", limitBody(16_384), async (c) => {
  const stub = await ownedSession(c, c.req.param("id"), { claim: false });
  const body = await c.req.json().catch(() => undefined);
  const input = NewScheduleSchema.safeParse(body);
  if (!input.success) {
    const issues = zodIssues(input.error);
    throw new RequestError("schedule_invalid", issues.map((i) => `${i.path || "body"}: ${i.message}`).join("; "), { issues });
  }
  const made = await stub.createSchedule(c.var.identity.id, input.data);
  if ("refused" in made) throw RequestError.from(made.refused);
  return c.json(made.schedule, 201);
});

const scheduleId = (raw: string) => {
  if (!SCHEDULE_ID.test(raw)) throw new RequestError("schedule_unknown", "this chat has no schedule with that id");
  return raw;
};

schedules.delete("/sessions/:id/schedules/:sid", async (c) => {
  const stub = await ownedSession(c, c.req.param("id"), { claim: false });
  const done = await stub.removeSchedule(scheduleId(c.req.param("sid")));
  if (done && "refused" in done) throw RequestError.from(done.refused);
  return c.body(null, 204);
});

schedules.post("/sessions/:id/schedules/:sid/resume", async (c) => {
  const stub = await ownedSession(c, c.req.param("id"), { claim: false });
  const done = await stub.resumeSchedule(scheduleId(c.req.param("sid")));
  if ("refused" in done) throw RequestError.from(done.refused);
  return c.json(done.schedule);
});
