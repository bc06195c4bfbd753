// Where a shared child's request goes (local-bridge/src/user-scope.ts): only to the user
// whose call is running on it, never across users.
import { describe, expect, it } from "vitest";
import { routeServerRequest } from "../../local-bridge/src/user-scope";

const session = (id: string, user: string) => ({ id, user });
const alice = session("a1", "token:alice");
const alice2 = session("a2", "token:alice");
const bob = session("b1", "token:bob");

describe("routeServerRequest", () => {
  it("goes to the session whose call is running, the oldest first, when one user has calls running", () => {
    expect(routeServerRequest([alice, alice2, bob], [{ session: alice2, id: 7 }, { session: alice, id: 9 }])).toEqual({ to: [alice2], related: 7 });
  });

  it("refuses while calls of several users run", () => {
    expect(routeServerRequest([alice, bob], [{ session: alice, id: 1 }, { session: bob, id: 2 }])).toMatchObject({ refused: expect.stringContaining("several users") });
  });

  it("with no call running, reaches one user's sessions only, and refuses when several users are connected", () => {
    expect(routeServerRequest([alice, alice2], [])).toEqual({ to: [alice, alice2] });
    expect(routeServerRequest([alice, bob], [])).toMatchObject({ refused: expect.stringContaining("several users") });
  });

  it("ignores calls of sessions that cannot take the request", () => {
    expect(routeServerRequest([bob], [{ session: alice, id: 1 }, { session: bob, id: 2 }])).toEqual({ to: [bob], related: 2 });
  });
});
