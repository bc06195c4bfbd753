// People in a chat (docs/people.md), its owner's only: GET /sessions/:id/people lists them,
// POST invites {name, role} (a token name, or an email behind Access), PATCH …/:key changes
// a role, DELETE …/:key removes someone (their open pages close at once). `key` is a short
// hash of the person's id: ids never reach a page. GET /api/shared-with-me is the invitee's
// side: the chats others shared with them. Another person's chat, or a guessed id, is 404.
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../identity/identify";
import { authConfigOf } from "../identity/identify";
import { invitee } from "../identity/person-name";
import { MEMBER_ROLES } from "../session/people/roles";
import { RequestError } from "../shared/errors";
import { PERSON_KEY } from "../shared/person-key";
import { userAccount } from "../users/account";
import { ownedSession } from "./owned-session";
import { limitBody, parsed } from "./request-body";

export const people = new Hono<AppEnv>();

const Role = z.enum(MEMBER_ROLES, { message: `role must be one of ${MEMBER_ROLES.join(", ")}` });
const InviteSchema = z.strictObject({ name: z.string().trim().min(1, "name is empty").max(254), role: Role });
const RoleSchema = z.strictObject({ role: Role });
const problem = (issues: { path: string; message: string }[]) => issues.map((i) => `${i.path || "body"}: ${i.message}`).join("; ");

/** What the page says plainly wherever a chat is shared: whose tools run in it. */
const TOOLS = "owner";

const memberKey = (raw: string) => {
  if (!PERSON_KEY.test(raw)) throw new RequestError("member_unknown", "nobody with that key is invited to this chat");
  return raw;
};

people.get("/sessions/:id/people", async (c) => {
  const stub = await ownedSession(c, c.req.param("id"), { claim: false });
  return c.json({ ...(await stub.peopleView()), tools: TOOLS });
});

people.post("/sessions/:id/people", limitBody(4_096), parsed("json", InviteSchema, problem), async (c) => {
  const { name, role } = c.req.valid("json");
  const stub = await ownedSession(c, c.req.param("id"), { claim: false });
  const person = invitee(authConfigOf(c.env), name);
  const me = c.var.identity;
  if (person.userId === me.id || person.name === me.name.toLowerCase() || person.name === me.name)
    throw new RequestError("bad_request", "name: you own this chat already; invite someone else");
  const invited = await stub.invite(person, role);
  if ("refused" in invited) throw RequestError.from(invited.refused);
  return c.json(invited.member, invited.created ? 201 : 200);
});

people.patch("/sessions/:id/people/:key", limitBody(1_024), parsed("json", RoleSchema, problem), async (c) => {
  const stub = await ownedSession(c, c.req.param("id"), { claim: false });
  const changed = await stub.setMemberRole(memberKey(c.req.param("key")), c.req.valid("json").role);
  if (!changed) throw new RequestError("member_unknown", "nobody with that key is invited to this chat");
  return c.json(changed);
});

people.delete("/sessions/:id/people/:key", async (c) => {
  const stub = await ownedSession(c, c.req.param("id"), { claim: false });
  if (!(await stub.removeMember(memberKey(c.req.param("key"))))) throw new RequestError("member_unknown", "nobody with that key is invited to this chat");
  return c.body(null, 204);
});

people.get("/api/shared-with-me", async (c) => {
  return c.json({ chats: await userAccount(c.env, c.var.identity.id).listSharedChats() });
});
