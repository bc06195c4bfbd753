// The outsider against the real Worker under `wrangler dev`, signed in the two
// ways a deployment offers: Cloudflare Access JWTs (a local team serving real RSA
// keys) and named tokens with the page's login cookie. Every attempt must be
// refused; the rows (and the count of attempts) go to RELIABILITY.md.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAccessTeam, type AccessTeam } from "../fixtures/access-jwks";
import { raw, tryUpgrade } from "../fixtures/raw-http";
import { startStack, type Stack } from "../fixtures/stack";
import { recordRow } from "../fixtures/reliability-rows";
import { attackCase, attackTally } from "./record";

const ALICE = "alice-reliability-token-0123456789";
const BOB = "bob-reliability-token-0123456789ab";
const json = { "content-type": "application/json" };
const bearer = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });

afterAll(() => {
  recordRow({
    suite: "Security",
    scenario: "Identity attacks: total",
    done: "every attempt in this file (Access JWTs, tokens, cookies, ownership, cross-site)",
    figure: `${attackTally.tried} attempts, ${attackTally.through} got through`,
    pass: attackTally.through === 0,
  });
});

describe("AUTH_MODE=access", () => {
  let team: AccessTeam;
  let stack: Stack;
  beforeAll(async () => {
    team = await startAccessTeam();
    stack = await startStack({ model: false, vars: { AUTH_MODE: "access", ACCESS_TEAM_DOMAIN: team.origin, ACCESS_AUD: team.audience } });
  });
  afterAll(async () => {
    await stack?.stop();
    await team?.stop();
  });
  const me = (token?: string) => raw(stack.url, "/api/me", { headers: token === undefined ? {} : { "cf-access-jwt-assertion": token } });

  it("accepts a valid Access JWT and names the user by its email", async () => {
    const answer = await me(team.sign(team.claims()));
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ user: { id: "access:alice@example.com", name: "alice@example.com" }, authMode: "access" });
  });

  it(
    "refuses forged, expired and misdirected Access JWTs",
    attackCase(
      "Access JWT forgeries",
      "no header; expired; wrong audience; wrong issuer; alg none; HS256 signed with the public key; payload swapped under a valid signature; no exp; the email header without a JWT",
      async () => {
        const now = Math.floor(Date.now() / 1000);
        const valid = team.sign(team.claims());
        const [header, , signature] = valid.split(".");
        const swapped = `${header}.${Buffer.from(JSON.stringify(team.claims({ email: "mallory@example.com" }))).toString("base64url")}.${signature}`;
        const { exp: _exp, ...noExp } = team.claims();
        const attempts: [string, Promise<{ status: number; text: string }>][] = [
          ["no header", me()],
          ["expired", me(team.sign(team.claims({ exp: now - 10, iat: now - 700 })))],
          ["wrong audience", me(team.sign(team.claims({ aud: ["someone-else"] })))],
          ["wrong issuer", me(team.sign(team.claims({ iss: "https://evil.cloudflareaccess.com" })))],
          ["alg none", me(team.unsigned(team.claims()))],
          ["HS256 with the public key", me(team.hmacWithPublicKey(team.claims()))],
          ["swapped payload", me(swapped)],
          ["no exp", me(team.sign(noExp))],
          ["garbage", me("not.a.jwt")],
          ["email header only", raw(stack.url, "/api/me", { headers: { "cf-access-authenticated-user-email": "alice@example.com" } })],
        ];
        const results = await Promise.all(attempts.map(async ([name, p]) => [name, await p] as const));
        for (const [name, result] of results) {
          expect({ name, status: result.status }).toEqual({ name, status: 401 });
          expect(result.text).not.toContain('alice@example.com"}');
        }
        return { tried: results.length, figure: `${results.filter(([, r]) => r.status === 401).length}/${results.length} refused with 401` };
      },
    ),
  );

  it(
    "refetches the team's keys on an unknown kid at most once a minute",
    attackCase("Access JWT with unknown kids (key-fetch flood)", "40 tokens, each with a new random kid, signed by the real key", async () => {
      await me(team.sign(team.claims())); // keys cached
      const before = team.fetches();
      const results = await Promise.all(Array.from({ length: 40 }, () => me(team.sign(team.claims(), { kid: crypto.randomUUID() }))));
      expect(results.map((r) => r.status)).toEqual(results.map(() => 401));
      const extra = team.fetches() - before;
      expect(extra).toBeLessThanOrEqual(1);
      return { tried: results.length, figure: `40/40 refused; the keys were downloaded ${extra} more time(s)` };
    }),
  );
});

describe("AUTH_MODE=token", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${ALICE},bob:${BOB}` } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const createSession = async (token: string) => {
    const created = await raw(stack.url, "/sessions", { method: "POST", headers: bearer(token, json), body: "{}" });
    expect(created.status).toBe(201);
    return String(created.json().id);
  };

  it(
    "refuses every route without a valid token or cookie",
    attackCase(
      "Token mode: no or bad credentials",
      "GET /api/me, /api/sessions, /api/servers, /sessions/{id}/history, a WebSocket upgrade and POST /api/tools with nothing, a wrong bearer, a forged cookie and a re-signed cookie",
      async () => {
        const id = await createSession(ALICE);
        const signedOut: Record<string, string>[] = [
          {},
          bearer("wrong-token-0123456789abcdef"),
          { cookie: "edgehost_session=alice%7C9999999999" },
          { cookie: "edgehost_session=alice%7C9999999999.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%3D" },
        ];
        const statuses: number[] = [];
        for (const headers of signedOut) {
          for (const path of ["/api/me", "/api/sessions", "/api/servers", `/sessions/${id}/history`])
            statuses.push((await raw(stack.url, path, { headers })).status);
          statuses.push((await tryUpgrade(stack.url, `/sessions/${id}/ws`, headers)).status);
          statuses.push(
            (
              await raw(stack.url, "/api/tools/filesystem.list_directory", {
                method: "POST",
                headers: { ...headers, ...json },
                body: JSON.stringify({ arguments: { path: stack.fsRoot } }),
              })
            ).status,
          );
        }
        expect(statuses).toEqual(statuses.map(() => 401));
        return { tried: statuses.length, figure: `${statuses.length}/${statuses.length} refused with 401` };
      },
    ),
  );

  it("logs the page in with a token: a signed HttpOnly, Secure, SameSite=Strict cookie that logout clears", async () => {
    expect((await raw(stack.url, "/auth/login", { method: "POST", headers: json, body: JSON.stringify({ token: "nope-nope-nope-nope" }) })).status).toBe(401);
    const login = await raw(stack.url, "/auth/login", { method: "POST", headers: json, body: JSON.stringify({ token: ALICE }) });
    expect(login.status).toBe(204);
    const setCookie = String(login.headers["set-cookie"]);
    expect(setCookie).toMatch(/^edgehost_session=alice%7C\d+%7C[A-Za-z0-9_-]+\.[^;]+;/);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("Secure");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).not.toContain(ALICE);
    const cookie = setCookie.split(";")[0] ?? "";
    expect((await raw(stack.url, "/api/me", { headers: { cookie } })).json()).toEqual({ user: { id: "token:alice", name: "alice" }, authMode: "token" });
    const logout = await raw(stack.url, "/auth/logout", { method: "POST", headers: { cookie, ...json }, body: "{}" });
    expect(logout.status).toBe(204);
    expect(String(logout.headers["set-cookie"])).toMatch(/^edgehost_session=;.*Max-Age=0/);
  });

  it(
    "keeps a user's sessions from another user",
    attackCase(
      "Second user against the first user's session",
      "bob opens alice's WebSocket, reads her history, deletes the session, lists sessions, calls a tool in it (approved), reads its servers and metrics, reads her console session",
      async () => {
        const id = await createSession(ALICE);
        await raw(stack.url, "/api/tools/filesystem.list_directory", {
          method: "POST",
          headers: bearer(ALICE, json),
          body: JSON.stringify({ arguments: { path: stack.fsRoot }, sessionId: id }),
        });
        const aliceConsole = await raw(stack.url, "/api/tools/filesystem.list_directory", {
          method: "POST",
          headers: bearer(ALICE, json),
          body: JSON.stringify({ arguments: { path: stack.fsRoot } }),
        });
        expect(aliceConsole.status).toBe(200);
        const statuses = [
          (await tryUpgrade(stack.url, `/sessions/${id}/ws`, bearer(BOB))).status,
          (await raw(stack.url, `/sessions/${id}/history`, { headers: bearer(BOB) })).status,
          (await raw(stack.url, `/sessions/${id}`, { method: "DELETE", headers: bearer(BOB) })).status,
          (
            await raw(stack.url, "/api/tools/filesystem.write_file", {
              method: "POST",
              headers: bearer(BOB, json),
              body: JSON.stringify({ arguments: { path: join(stack.fsRoot, "bob.txt"), content: "x" }, approved: true, sessionId: id }),
            })
          ).status,
          (await raw(stack.url, `/api/servers?session=${id}`, { headers: bearer(BOB) })).status,
          (await raw(stack.url, `/api/metrics?session=${id}`, { headers: bearer(BOB) })).status,
          (await raw(stack.url, "/sessions/_console/history", { headers: bearer(BOB) })).status,
        ];
        expect(statuses).toEqual([404, 404, 404, 404, 404, 404, 404]);
        expect(existsSync(join(stack.fsRoot, "bob.txt"))).toBe(false);
        // Nothing of alice's leaked into bob's views, and her session is intact.
        const bobSessions = (await raw(stack.url, "/api/sessions", { headers: bearer(BOB) })).json().sessions as { id: string }[];
        expect(bobSessions.map((s) => s.id)).not.toContain(id);
        const bobMetrics = (await raw(stack.url, "/api/metrics", { headers: bearer(BOB) })).json() as { servers: Record<string, { calls: number }> };
        expect(bobMetrics.servers.filesystem?.calls ?? 0).toBe(0);
        const history = (await raw(stack.url, `/sessions/${id}/history`, { headers: bearer(ALICE) })).json().entries as unknown[];
        expect(history).toHaveLength(2);
        const aliceSessions = (await raw(stack.url, "/api/sessions", { headers: bearer(ALICE) })).json().sessions as { id: string }[];
        expect(aliceSessions.map((s) => s.id)).toContain(id);
        return {
          tried: statuses.length + 2,
          figure: `${statuses.length}/${statuses.length} answered 404 (as for a session that does not exist); no file written; bob's list and metrics show none of alice's`,
        };
      },
    ),
  );

  it(
    "refuses cross-site requests even with a valid cookie",
    attackCase(
      "Cross-site requests with the victim's cookie",
      "text/plain and form POSTs of filesystem.write_file with approved=true from http://evil.example; Sec-Fetch-Site: cross-site without Origin; a WebSocket upgrade from evil.example; a login POST from evil.example; a same-origin text/plain POST",
      async () => {
        const login = await raw(stack.url, "/auth/login", { method: "POST", headers: json, body: JSON.stringify({ token: ALICE }) });
        const cookie = String(login.headers["set-cookie"]).split(";")[0] ?? "";
        const target = join(stack.fsRoot, "csrf.txt");
        const body = JSON.stringify({ arguments: { path: target, content: "pwned" }, approved: true });
        const evil = { origin: "http://evil.example", cookie };
        const statuses = [
          (await raw(stack.url, "/api/tools/filesystem.write_file", { method: "POST", headers: { ...evil, "content-type": "text/plain" }, body })).status,
          (
            await raw(stack.url, "/api/tools/filesystem.write_file", {
              method: "POST",
              headers: { ...evil, "content-type": "application/x-www-form-urlencoded" },
              body: `x=${encodeURIComponent(body)}`,
            })
          ).status,
          (await raw(stack.url, "/api/tools/filesystem.write_file", { method: "POST", headers: { ...evil, ...json }, body })).status,
          (await raw(stack.url, "/api/tools/filesystem.write_file", { method: "POST", headers: { cookie, "sec-fetch-site": "cross-site", ...json }, body }))
            .status,
          (await raw(stack.url, "/sessions", { method: "POST", headers: evil })).status,
          (await tryUpgrade(stack.url, `/sessions/${crypto.randomUUID()}/ws`, evil)).status,
          (await raw(stack.url, "/auth/login", { method: "POST", headers: { origin: "http://evil.example", ...json }, body: JSON.stringify({ token: ALICE }) }))
            .status,
        ];
        expect(statuses).toEqual([403, 403, 403, 403, 403, 403, 403]);
        const plain = await raw(stack.url, "/api/tools/filesystem.write_file", {
          method: "POST",
          headers: { cookie, origin: stack.url, "content-type": "text/plain" },
          body,
        });
        expect(plain.status).toBe(415);
        expect(existsSync(target)).toBe(false);
        return { tried: statuses.length + 1, figure: `${statuses.length}/${statuses.length} refused with 403, same-origin text/plain 415; no file written` };
      },
    ),
  );
});
