// The invite list's binding rules (src/session/people/members.ts) on a real session object's
// SQLite: behind Access an invite is made out to an email and bound to the first identity that
// arrives with that email; after that only that identity holds the seat (another identity with
// the same email later, or the email given to someone else, does not inherit it), and an
// identity with a different email never matches. In token mode the id is known at invite time.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { Members } from "../../../src/session/people/members";
import { personKey } from "../../../src/shared/person-key";

const bindings = env as unknown as Env;

async function onFreshSession<T>(work: (members: Members) => Promise<T>): Promise<T> {
  const stub = bindings.CHAT_SESSION.get(bindings.CHAT_SESSION.idFromName(crypto.randomUUID()));
  return runInDurableObject(stub, (_instance, state) => work(new Members(state.storage.sql)));
}

describe("who an invite admits", () => {
  it("behind Access: binds the first identity with the invited email, then only that identity", async () => {
    await onFreshSession(async (members) => {
      const invited = await members.invite("bob@example.com", undefined, "participant", 10);
      expect(invited).toMatchObject({ ok: true, created: true, member: { name: "bob@example.com" } });
      // Until then the seat is keyed by the invite, not by any identity.
      expect(invited.ok && invited.member.userId).toBeFalsy();

      // A different email is not let in, and binds nothing.
      expect(await members.admit("access:mallory", "mallory@example.com")).toBeUndefined();
      // No name at all (a socket that carried none) is not let in either.
      expect(await members.admit("access:mallory", undefined)).toBeUndefined();

      // The email as the identity provider spells it (case, spaces) binds the seat to bob's id.
      const first = await members.admit("access:bob-1", "  Bob@Example.COM ");
      expect(first).toMatchObject({ first: true, member: { userId: "access:bob-1", role: "participant" } });
      expect(first?.member.key).toBe(await personKey("access:bob-1"));
      expect((await members.admit("access:bob-1", "bob@example.com"))?.first).toBe(false);

      // Another identity arriving later with the same email does not take or share the seat.
      expect(await members.admit("access:bob-2", "bob@example.com")).toBeUndefined();
      expect(members.list()).toHaveLength(1);
      expect(members.byUser("access:bob-2")).toBeUndefined();
    });
  });

  it("inviting the same email or id again changes the role; the cap counts seats", async () => {
    await onFreshSession(async (members) => {
      await members.invite("ann@example.com", undefined, "viewer", 2);
      const again = await members.invite("ann@example.com", undefined, "approver", 2);
      expect(again).toMatchObject({ ok: true, created: false, member: { role: "approver" } });
      await members.invite("token:ben", "token:ben", "viewer", 2);
      expect(await members.invite("cat@example.com", undefined, "viewer", 2)).toMatchObject({ ok: false, code: "too_many_invites" });
      // Token mode: bound at once, admitted by id whatever name the socket carries.
      expect((await members.admit("token:ben", "someone else"))?.member.name).toBe("token:ben");
      // A removed seat admits nobody.
      const ben = members.byUser("token:ben");
      members.remove(ben?.key ?? "");
      expect(await members.admit("token:ben", "token:ben")).toBeUndefined();
    });
  });
});
