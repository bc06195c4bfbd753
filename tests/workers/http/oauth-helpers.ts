// Playing the browser in OAuth sign-ins through the real Worker in workerd, against the
// local authorization server + bearer-protected MCP server fixture (tests/fixtures/oauth-server.ts,
// started by global setup): follow the authorization URL to the fixture AS, which redirects
// back with a code, and POST code + state as public/oauth-callback.js does.
import { expect, inject } from "vitest";
import type { RealmName, RealmStats } from "../../fixtures/oauth-realms";
import type { TestUser } from "../test-users";
import { WORKER_ORIGIN, workerFetch } from "../worker-fetch";

export const base = inject("oauthBase");
export const json = { "content-type": "application/json" };
/** Every body the Worker answered in this file, to check that no token ever appears in one. */
export const bodies: string[] = [];

export async function call(path: string, init: RequestInit = {}, user: TestUser = "alice"): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await workerFetch(path, init, user);
  const text = await response.text();
  bodies.push(text);
  const isJson = response.headers.get("content-type")?.includes("json") ?? false;
  return { status: response.status, body: isJson ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
export const post = (path: string, body: unknown, user: TestUser = "alice") => call(path, { method: "POST", headers: json, body: JSON.stringify(body) }, user);
export const stats = async (realm: RealmName) => (await (await fetch(`${base}/_stats/${realm}`)).json()) as RealmStats;
export const admin = async (realm: RealmName, what: "expire" | "revoke") =>
  expect((await fetch(`${base}/_admin/${realm}/${what}`, { method: "POST" })).status).toBe(200);

export interface ServerRow {
  name: string;
  state: string;
  toolCount?: number;
  lastError?: string;
}

export async function serverRow(session: string, name: string, user: TestUser = "alice"): Promise<ServerRow | undefined> {
  const answer = await call(`/api/servers?session=${session}`, {}, user);
  return (answer.body.servers as ServerRow[]).find((s) => s.name === name);
}

/** Adds the realm's MCP server as the user's own; saving reports it needs a sign-in. Returns its name. */
export async function addServer(realm: RealmName, extra: Record<string, unknown> = {}, user: TestUser = "alice"): Promise<string> {
  const name = `${realm}${crypto.randomUUID().slice(0, 6)}`;
  const added = await post("/api/my-servers", { name, url: `${base}/${realm}/mcp`, ...extra }, user);
  expect(added).toMatchObject({ status: 201, body: { test: { ok: false, code: realm === "nos256" ? "oauth_unsupported" : "auth_required" } } });
  return name;
}

export async function newSession(user: TestUser = "alice"): Promise<string> {
  return ((await post("/sessions", {}, user)).body as { id: string }).id;
}

/** POST /oauth/sign-in, then the "browser" at the AS: the redirect back carries code and state. */
export async function authorize(session: string, server: string, user: TestUser = "alice"): Promise<{ url: URL; code: string; state: string }> {
  const started = await post("/oauth/sign-in", { server, session }, user);
  expect(started.status).toBe(200);
  const url = new URL(started.body.url as string);
  const answer = await fetch(url, { redirect: "manual" });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get("location") ?? "");
  expect(`${back.origin}${back.pathname}`).toBe(`${WORKER_ORIGIN}/oauth/callback`);
  return { url, code: back.searchParams.get("code") ?? "", state: back.searchParams.get("state") ?? "" };
}

export const finish = (code: string, state: string, user: TestUser = "alice") => post("/oauth/callback", { code, state }, user);

export async function signIn(session: string, server: string, user: TestUser = "alice"): Promise<URL> {
  const { url, code, state } = await authorize(session, server, user);
  expect(await finish(code, state, user)).toMatchObject({ status: 200, body: { ok: true, server, session } });
  return url;
}

export const callTool = (session: string, tool: string, user: TestUser = "alice") =>
  post(`/api/tools/${tool}`, { arguments: {}, approved: true, sessionId: session }, user);
