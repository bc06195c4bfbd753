// A person's own MCP server for the length of a test, and a session that uses it: for the
// chat-session tests in workerd whose server is one a person adds (My servers), not mcp.json's.
import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { Env } from "../../src/config/env";
import { userAccount } from "../../src/users/account";
import type { StoredUserServer } from "../../src/users/user-servers";
import type { SessionClient } from "../fixtures/session-client";
import { openSession } from "./worker-fetch";

const bindings = env as unknown as Env;

/** dave's own server `name` at `url`, `alwaysAllow` its tools that need no approval, for the length of `body`. */
export async function withOwnServer(name: string, url: string, alwaysAllow: string[], body: () => Promise<void>): Promise<void> {
  const account = userAccount(bindings, "token:dave");
  const server: StoredUserServer = { name, url, type: "http", headers: {}, alwaysAllow, excludeTools: [], disabled: false };
  expect(await account.putServer(server, true)).toEqual({ ok: true });
  try {
    await body();
  } finally {
    await account.deleteServer(name);
  }
}

/** A new session of dave's with only `server` on. */
export async function sessionWith(server: string): Promise<SessionClient> {
  const socket = await openSession(crypto.randomUUID(), "dave");
  socket.send({ type: "set_servers", enabled: [server] });
  return socket;
}
