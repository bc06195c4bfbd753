// Where a shared child's request goes (local-bridge/src/user-scope.ts): only to the user
// whose call is running on it, never across users, and never guessed.
import { describe, expect, it } from "vitest";
import { routeServerRequest } from "../../local-bridge/src/user-scope";

const session = (id: string, user: string) => ({ id, user });
const alice = session("a1", "token:alice");
const alice2 = session("a2", "token:alice");
const bob = session("b1", "token:bob");
const local = session("l1", "");
const local2 = session("l2", "");

describe("routeServerRequest", () => {
  it("goes to the session whose call is running, the oldest first, when one user has calls running", () => {
    expect(
      routeServerRequest(
        [alice, alice2, bob],
        [
          { session: alice2, id: 7 },
          { session: alice, id: 9 },
        ],
      ),
    ).toEqual({ to: [alice2], related: 7 });
  });

  it("refuses while calls of several users run", () => {
    expect(
      routeServerRequest(
        [alice, bob],
        [
          { session: alice, id: 1 },
          { session: bob, id: 2 },
        ],
      ),
    ).toMatchObject({ refused: expect.stringContaining("several users") });
  });

  it("refuses with no call running once any user's session is connected, even a single user's", () => {
    expect(routeServerRequest([alice, alice2], [])).toMatchObject({ refused: expect.stringContaining("no call is running") });
    expect(routeServerRequest([alice, bob], [])).toMatchObject({ refused: expect.stringContaining("no call is running") });
    expect(routeServerRequest([local, alice], [])).toMatchObject({ refused: expect.stringContaining("no call is running") });
  });

  it("never hands a call's request to another user because the caller cannot take it", () => {
    expect(
      routeServerRequest(
        [bob],
        [
          { session: alice, id: 1 },
          { session: bob, id: 2 },
        ],
      ),
    ).toMatchObject({ refused: expect.stringContaining("several users") });
    expect(routeServerRequest([bob], [{ session: alice, id: 1 }])).toMatchObject({ refused: expect.stringContaining("cannot take") });
    expect(routeServerRequest([alice], [{ session: local, id: 1 }])).toEqual({ to: [] });
  });

  it("keeps local clients (no user) as they were: their call's session, else every capable local session", () => {
    expect(routeServerRequest([local, local2], [{ session: local2, id: 3 }])).toEqual({ to: [local2], related: 3 });
    expect(routeServerRequest([local, local2], [])).toEqual({ to: [local, local2] });
  });

  it("on a user's own child (isolation: user), reaches that user's sessions even with no call running", () => {
    expect(routeServerRequest([alice, alice2], [], "token:alice")).toEqual({ to: [alice, alice2] });
    expect(routeServerRequest([alice2], [{ session: alice, id: 4 }], "token:alice")).toEqual({ to: [alice2] });
  });
});
