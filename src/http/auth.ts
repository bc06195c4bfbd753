// /auth routes for token mode: the page's login form trades a token for a signed
// session cookie naming a new login; logout ends that login on the server (a
// copy of the cookie is refused from then on) and clears it; logout-all ends
// every login of the user, on every device. Login and logout work signed out
// (the identify middleware lets them through without an identity), but never
// cross-site. Wrong tokens count towards the address's sign-in throttle.
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { AppEnv } from "../identity/identify";
import { throttledSignIn } from "../identity/sign-in-throttle";
import { clearLoginCookie, loginFromCookie, nameForToken, newLogin, setLoginCookie, tokenUserId } from "../identity/tokens";
import { userAccount } from "../users/account";
import { LoginRequestSchema } from "./schemas";
import { RequestError } from "../shared/errors";

export const auth = new Hono<AppEnv>();

const loginBody = validator("json", (value, _c) => {
  const parsed = LoginRequestSchema.safeParse(value);
  if (!parsed.success) throw new RequestError("bad_request", 'the body must be {"token": "..."}');
  return parsed.data;
});

const noLogin = (mode: string) => new RequestError("no_login", `this deployment signs in with AUTH_MODE "${mode}", not with a token`);

auth.post("/login", loginBody, async (c) => {
  const config = c.var.auth;
  if (config.mode !== "token") throw noLogin(config.mode);
  const token = c.req.valid("json").token;
  const name = await throttledSignIn(c.env, c.req.raw.headers, () => nameForToken(config.tokens, token));
  if (!name) throw new RequestError("bad_token", "that token is not valid", { authMode: "token" });
  const login = newLogin(name);
  await userAccount(c.env, tokenUserId(name)).startLogin(login.loginId, login.expiresAt);
  await setLoginCookie(c, config.cookieSecret, login);
  return c.body(null, 204);
});

auth.post("/logout", async (c) => {
  const config = c.var.auth;
  if (config.mode === "token") {
    const login = await loginFromCookie(c, config.cookieSecret, config.tokens);
    if (login) await userAccount(c.env, tokenUserId(login.name)).endLogin(login.loginId);
  }
  clearLoginCookie(c);
  return c.body(null, 204);
});

/** Signed in (cookie or bearer token): ends every page login of the caller. Bearer tokens are not logins and keep working. */
auth.post("/logout-all", async (c) => {
  const config = c.var.auth;
  if (config.mode !== "token") throw noLogin(config.mode);
  const ended = await userAccount(c.env, c.var.identity.id).endAllLogins();
  clearLoginCookie(c);
  return c.json({ ended });
});
