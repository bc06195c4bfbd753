// /api/rules: the caller's argument rules for all their chats (kept in their account,
// src/users/argument-rules-store.ts; docs/rules.md). Made from an approval in a chat (the rule
// must match the call it answers), so only listed and revoked here. A chat's own rules live in
// that chat and are revoked there (`revoke_rule`).
import { Hono } from "hono";
import type { AppEnv } from "../identity/identify";
import { RequestError } from "../shared/errors";
import { userAccount } from "../users/account";

export const rules = new Hono<AppEnv>();

rules.get("/", async (c) => {
  const list = await userAccount(c.env, c.var.identity.id).listRules();
  return c.json({
    rules: list.map(({ id, server, tool, arg, kind, value, schemes, createdAt }) => ({ id, server, tool, arg, kind, value, schemes, createdAt })),
  });
});

// Another person's rule id is simply not among the caller's: 404, as an unknown one.
rules.delete("/:id", async (c) => {
  const id = c.req.param("id");
  if (!(await userAccount(c.env, c.var.identity.id).deleteRule(id))) throw new RequestError("rule_unknown", `you have no rule ${id} for all your chats`);
  return c.body(null, 204);
});
