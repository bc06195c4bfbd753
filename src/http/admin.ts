// The operator view: GET /admin (a page) and GET /api/admin (the same as JSON) for the
// users named in ADMIN_USERS. Everyone else, signed in or not, gets the 404 of a path
// that does not exist, so the route gives nothing away. What it shows comes from the
// deployment's operations object (src/ops/Operations.ts) and, per user, their account:
// sessions, activity and tokens today. Never a message, a tool's arguments or a secret.
import { Hono, type Context } from "hono";
import { runtimeConfig } from "../config/runtime-config";
import type { AppEnv } from "../identity/identify";
import { isOperator } from "../ops/operations-object";
import { RequestError } from "../shared/errors";
import { scriptlessPageHeaders } from "../shared/page-headers";
import { adminPage } from "./admin-page";
import { adminView } from "./admin-view";

export const admin = new Hono<AppEnv>();

function operatorOnly(c: Context<AppEnv>): void {
  if (!isOperator(runtimeConfig(c.env).settings, c.var.identity.name)) {
    throw new RequestError("not_found", `no route ${c.req.method} ${c.req.path}`);
  }
}

admin.get("/admin", async (c) => {
  operatorOnly(c);
  const view = await adminView(c.env);
  for (const [name, value] of Object.entries(scriptlessPageHeaders("'self'"))) c.header(name, value);
  return c.html(adminPage(view, { operator: c.var.identity.name }));
});

admin.get("/api/admin", async (c) => {
  operatorOnly(c);
  c.header("Cache-Control", "no-store");
  return c.json(await adminView(c.env));
});
