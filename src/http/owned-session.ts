// Finding a session for the caller: a well-formed id, owned by them (or claimed
// when it is new and the route opens it), or, for the routes that let them in, one
// they were invited to with a role at least the route's (docs/people.md). Anything
// else is 404, the same answer as a session that does not exist, so ids cannot be probed.
import { getAgentByName } from "agents";
import type { Context } from "hono";
import type { AppEnv } from "../identity/identify";
import type { ChatSession } from "../session/ChatSession";
import { consoleSessionId } from "../users/account";
import { RequestError } from "../shared/errors";
import { TooManySessionsError } from "../users/session-limit";
import { roleAtLeast, type Role } from "../session/people/roles";

export const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

export type SessionStub = DurableObjectStub<ChatSession>;

/** The session's stub, started (agents' lifecycle) by a call of its own first: for a call that is not `admit`. */
export function sessionStub(c: Context<AppEnv>, id: string): Promise<SessionStub> {
  return getAgentByName<AppEnv["Bindings"], ChatSession>(c.env.CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>, id);
}

/**
 * The session's stub for a route that admits the caller first: `admit` starts the object itself
 * (session-rpc.ts), so the route makes one round trip to it less than through sessionStub. Only for
 * a stub whose first call is `admit`.
 */
function admittingStub(c: Context<AppEnv>, id: string): SessionStub {
  const namespace = c.env.CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>;
  return namespace.get(namespace.idFromName(id));
}

export const badSessionId = () => new RequestError("bad_session_id", "session ids are 1-64 letters, digits, '_' or '-'");

/** The session `id`'s stub and how it admits the caller (a malformed id throws): the one way every route asks. */
async function admitCaller(c: Context<AppEnv>, id: string, claim: boolean, room?: number) {
  if (!SESSION_ID.test(id)) throw badSessionId();
  const stub = admittingStub(c, id);
  const admission = await stub.admit(c.var.identity.id, { claim, listed: !id.startsWith("console-"), name: c.var.identity.name, room });
  return { stub, admission };
}

/** The caller's session `id`, or undefined when it is not theirs (or new and not claimed); a malformed id throws. */
export async function findOwnedSession(c: Context<AppEnv>, id: string, options: { claim: boolean }): Promise<SessionStub | undefined> {
  const { stub, admission } = await admitCaller(c, id, options.claim);
  // A member is not an owner: every route but the few that let members in stays the owner's.
  return admission === "owner" || admission === "claimed" ? stub : undefined;
}

/** The session `id` when the caller owns it or was invited with at least `least`; undefined otherwise (the caller answers 404). */
export async function findMemberSession(c: Context<AppEnv>, id: string, least: Role): Promise<{ stub: SessionStub; role: Role } | undefined> {
  const { stub, admission } = await admitCaller(c, id, false);
  if (admission === "denied" || admission === "full") return undefined;
  const role: Role = admission === "claimed" ? "owner" : admission;
  return roleAtLeast(role, least) ? { stub, role } : undefined;
}

/**
 * The session a page opens its socket on: the caller's own, one they were invited to, or a new id
 * claimed for them when their list has room (`max`; TooManySessionsError when not), in one call to it.
 */
export async function claimableSession(c: Context<AppEnv>, id: string, max: number): Promise<SessionStub> {
  const { stub, admission } = await admitCaller(c, id, true, max);
  if (admission === "full") throw new TooManySessionsError(max);
  if (admission === "denied") throw new RequestError("not_found", "no such session");
  return stub;
}

/** As findMemberSession, 404 when not found. */
export async function memberSession(c: Context<AppEnv>, id: string, least: Role): Promise<SessionStub> {
  const found = await findMemberSession(c, id, least);
  if (!found) throw new RequestError("not_found", "no such session");
  return found.stub;
}

/** The caller's session `id`; throws 400 for a malformed id and 404 when it is not theirs. */
export async function ownedSession(c: Context<AppEnv>, id: string, options: { claim: boolean }): Promise<SessionStub> {
  const stub = await findOwnedSession(c, id, options);
  if (!stub) throw new RequestError("not_found", "no such session");
  return stub;
}

/** `?session=` when given (it must be the caller's), else the caller's own console session. */
export async function sessionOrConsole(c: Context<AppEnv>, id: string | undefined): Promise<SessionStub> {
  if (id !== undefined) return ownedSession(c, id, { claim: false });
  return ownedSession(c, await consoleSessionId(c.var.identity.id), { claim: true });
}
