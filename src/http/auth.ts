// /auth routes for token mode: the page's login form trades a token for a signed
// session cookie; logout clears it. They work signed out (the identify
// middleware lets them through without an identity), but never cross-site.
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { AppEnv } from "../identity/identify";
import { clearLoginCookie, nameForToken, setLoginCookie } from "../identity/tokens";
import { errorBody } from "../shared/error-body";
import { LoginRequestSchema } from "./schemas";

export const auth = new Hono<AppEnv>();

const loginBody = validator("json", (value, c) => {
  const parsed = LoginRequestSchema.safeParse(value);
  return parsed.success ? parsed.data : c.json(errorBody("bad_request", 'the body must be {"token": "..."}'), 400);
});

auth.post("/login", loginBody, async (c) => {
  const config = c.var.auth;
  if (config.mode !== "token") return c.json(errorBody("no_login", `this deployment signs in with AUTH_MODE "${config.mode}", not with a token`), 400);
  const name = await nameForToken(config.tokens, c.req.valid("json").token);
  if (!name) return c.json(errorBody("bad_token", "that token is not valid", { authMode: "token" }), 401);
  await setLoginCookie(c, config.cookieSecret, name);
  return c.body(null, 204);
});

auth.post("/logout", (c) => {
  clearLoginCookie(c);
  return c.body(null, 204);
});
