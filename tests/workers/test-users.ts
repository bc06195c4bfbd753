// The users the Worker under test knows (AUTH_MODE=token, see vitest.config.ts),
// and a fetch that signs requests as one of them, as an API client would.
export const TEST_USERS = {
  alice: "alice-test-token-0123456789abcdef",
  bob: "bob-test-token-0123456789abcdef01",
} as const;
export type TestUser = keyof typeof TEST_USERS;

export const ACCESS_TOKENS = Object.entries(TEST_USERS)
  .map(([name, token]) => `${name}:${token}`)
  .join(",");

export function authHeaders(user: TestUser = "alice", extra: HeadersInit = {}): Headers {
  const headers = new Headers(extra);
  headers.set("authorization", `Bearer ${TEST_USERS[user]}`);
  return headers;
}
