// The task id a 2026 client is given for a task its 2025 child runs (Tasks extension,
// modern-tasks.ts). The bridge keeps no table of tasks: the id itself says which task of
// which child process it is, and an HMAC-SHA256 under a key of this bridge process binds
// it to the user and the server, neither written in it. So another user's id, or a
// guessed or altered one, fails here; an id minted before the bridge restarted fails too
// (a new key), and one of a child process that has since exited names an instance that is
// no longer running: both are answered as unknown tasks, saying why, since the child's
// in-memory task store went with it.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** A key per process: a child's tasks do not outlive the bridge that started it either. */
const KEY = randomBytes(32);

export interface TaskBinding {
  user: string;
  server: string;
}

export interface TaskRef {
  /** Which child process holds the task (childInstance). */
  instance: string;
  /** The child's own task id. */
  taskId: string;
}

/** Each child's instance, hashed once: a 2026 tools/call asks for it whenever the child runs tasks (seen in a CPU profile). */
const instances = new WeakMap<object, { pid?: number; instance: string }>();

/** A child process's identity for task ids: its pid and start time, hashed so the pid is not shown. */
export function childInstance(child: { pid?: number; startedAt: number }): string {
  const known = instances.get(child);
  if (known && known.pid === child.pid) return known.instance;
  const instance = createHash("sha256")
    .update(`${child.pid ?? 0}:${child.startedAt}`)
    .digest("base64url")
    .slice(0, 16);
  instances.set(child, { pid: child.pid, instance });
  return instance;
}

function mac(body: string, binding: TaskBinding): Buffer {
  return createHmac("sha256", KEY).update(`task\0${body}\0${binding.user}\0${binding.server}`).digest();
}

export function mintTaskId(ref: TaskRef, binding: TaskBinding): string {
  const body = Buffer.from(JSON.stringify([ref.instance, ref.taskId])).toString("base64url");
  return `t1.${body}.${mac(body, binding).toString("base64url")}`;
}

/** The task an id names, once its MAC holds for this user and server; undefined otherwise. */
export function openTaskId(id: unknown, binding: TaskBinding): TaskRef | undefined {
  if (typeof id !== "string" || id.length > 1024) return undefined;
  const [version, body, tag, ...extra] = id.split(".");
  if (version !== "t1" || !body || !tag || extra.length > 0) return undefined;
  const given = Buffer.from(tag, "base64url");
  const expected = mac(body, binding);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const parsed: unknown = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  if (!Array.isArray(parsed) || typeof parsed[0] !== "string" || typeof parsed[1] !== "string") return undefined;
  return { instance: parsed[0], taskId: parsed[1] };
}
