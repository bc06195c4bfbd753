// The users the Worker under test knows (AUTH_MODE=token with tokens made fresh by
// global-setup.ts), and the headers an API client signed in as one of them sends.
import { inject } from "vitest";

export type TestUser = "alice" | "bob" | "carol" | "dave" | "erin" | "frank";

export function authHeaders(user: TestUser = "alice", extra: HeadersInit = {}): Headers {
  const headers = new Headers(extra);
  headers.set("authorization", `Bearer ${inject("testUsers")[user]}`);
  return headers;
}
