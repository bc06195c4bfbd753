// What the Worker sends out for a person (issue 33), on the real stack in AUTH_MODE=token
// with two people and loopback capture servers: a saved key or header value goes only to
// the address it was saved with (alice cannot point it elsewhere, bob cannot touch it).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCaptureServer, type CaptureServer } from "../fixtures/capture-server";
import { raw } from "../fixtures/raw-http";
import { startStack, type Stack } from "../fixtures/stack";
import { attackCase } from "./record";

const ALICE = "alice-token-outbound-0123456789";
const BOB = "bob-token-outbound-0123456789ab";
const MASK = "••••••";
const as = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

let stack: Stack;
/** Where alice saved her secrets, and where an attacker would like them to go. */
let home: CaptureServer;
let elsewhere: CaptureServer;
/** An address that sends every request on to `elsewhere` (307, or in a loop to itself under /loop). */
let redirector: CaptureServer;
beforeAll(async () => {
  [stack, home, elsewhere, redirector] = await Promise.all([
    startStack({ model: false, vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${ALICE},bob:${BOB}` } }),
    startCaptureServer(),
    startCaptureServer(),
    startCaptureServer((request, response) => {
      response.writeHead(307, { location: request.path.startsWith("/loop") ? request.path : `${elsewhere.url}${request.path}` }).end();
    }),
  ]);
}, 240_000);
afterAll(async () => {
  await Promise.all([stack?.stop(), home?.stop(), elsewhere?.stop(), redirector?.stop()]);
});

const send = (token: string, method: string, path: string, body: unknown) => raw(stack.url, path, { method, headers: as(token), body: JSON.stringify(body) });
const code = (answer: { json(): Record<string, unknown> }) => (answer.json().error as { code?: string } | undefined)?.code;

describe("a saved secret stays with its address", () => {
  it(
    "a provider's key is not sent to a new base URL or kind, by its owner's session or by another person",
    attackCase(
      "A saved provider key pointed at another address (issue 33)",
      "alice saves an OpenAI-compatible provider with a key, then sends the mask with a new baseUrl or kind to /test and PUT; bob sends the mask with alice's id to /test, PUT and DELETE (before the fix: the key arrived at the new address)",
      async () => {
        const key = `sk-outbound-${crypto.randomUUID()}`;
        const saved = { id: "mine", kind: "openai", baseUrl: `${home.url}/v1`, apiKey: key, models: ["m-1"] };
        expect((await send(ALICE, "POST", "/api/my-providers", saved)).status).toBe(201);
        const moved = { ...saved, apiKey: MASK, baseUrl: `${elsewhere.url}/v1` };
        const attempts = [
          await send(ALICE, "POST", "/api/my-providers/test", moved),
          await send(ALICE, "PUT", "/api/my-providers/mine", moved),
          await send(ALICE, "PUT", "/api/my-providers/mine", { ...saved, apiKey: MASK, kind: "anthropic" }),
        ];
        expect(attempts.map((a) => [a.status, code(a)])).toEqual(attempts.map(() => [400, "secret_required"]));
        expect(attempts[0]?.text).toContain("enter the key again");
        const bobs = [
          await send(BOB, "POST", "/api/my-providers/test", moved),
          await send(BOB, "POST", "/api/my-providers/test", { ...saved, apiKey: MASK }),
          await send(BOB, "PUT", "/api/my-providers/mine", moved),
          await raw(stack.url, "/api/my-providers/mine", { method: "DELETE", headers: as(BOB) }),
        ];
        expect(bobs.map((a) => a.status)).toEqual([400, 400, 404, 404]);
        // Still alice's, at its address: a test with the mask and the saved address reaches home with the key.
        const listed = await raw(stack.url, "/api/my-providers", { headers: as(ALICE) });
        expect(listed.json()).toEqual({ providers: [{ ...saved, apiKey: MASK }] });
        const tested = await send(ALICE, "POST", "/api/my-providers/test", { ...saved, apiKey: MASK });
        expect(tested.status).toBe(200);
        expect(home.seen()).toContain(`Bearer ${key}`);
        expect(elsewhere.requests).toEqual([]);
        for (const answer of [...attempts, ...bobs, listed, tested]) expect(answer.text).not.toContain(key);
        return {
          tried: attempts.length + bobs.length,
          figure: `${attempts.length}/${attempts.length} refused 400 secret_required, bob's ${bobs.length} refused (400/404); 0 requests reached the new address`,
        };
      },
    ),
  );

  it(
    "a server's header value is not sent to a new URL",
    attackCase(
      "A saved server header value pointed at another URL (issue 33)",
      "alice saves a runtime server with an Authorization header, then PUTs it with the mask and another URL; bob PUTs, tests and deletes it by name (before the fix: the header went to the new URL)",
      async () => {
        const secret = `Bearer srv-${crypto.randomUUID()}`;
        const saved = { name: "tools", url: `${home.url}/mcp`, headers: { Authorization: secret, "X-Api-Key": "xk-0123456789" }, disabled: true };
        expect((await send(ALICE, "POST", "/api/my-servers", saved)).status).toBe(201);
        const attempts = [
          await send(ALICE, "PUT", "/api/my-servers/tools", {
            ...saved,
            url: `${elsewhere.url}/mcp`,
            headers: { Authorization: MASK, "X-Api-Key": MASK },
            disabled: false,
          }),
          await send(ALICE, "PUT", "/api/my-servers/tools", {
            ...saved,
            url: `${elsewhere.url}/mcp`,
            headers: { Authorization: MASK, "X-Api-Key": "new" },
            disabled: false,
          }),
        ];
        expect(attempts.map((a) => [a.status, code(a)])).toEqual([
          [400, "secret_required"],
          [400, "secret_required"],
        ]);
        const bobs = [
          await send(BOB, "PUT", "/api/my-servers/tools", { ...saved, url: `${elsewhere.url}/mcp`, headers: { Authorization: MASK } }),
          await raw(stack.url, "/api/my-servers/tools/test", { method: "POST", headers: as(BOB), body: "{}" }),
          await raw(stack.url, "/api/my-servers/tools", { method: "DELETE", headers: as(BOB) }),
        ];
        expect(bobs.map((a) => a.status)).toEqual([404, 404, 404]);
        // A new value with a new URL is the owner's choice, and is allowed.
        const renewed = await send(ALICE, "PUT", "/api/my-servers/tools", {
          ...saved,
          url: `${elsewhere.url}/mcp`,
          headers: { Authorization: "Bearer fresh" },
        });
        expect(renewed.status).toBe(200);
        expect(elsewhere.seen()).not.toContain(secret);
        expect(elsewhere.seen()).not.toContain("xk-0123456789");
        return {
          tried: attempts.length + bobs.length,
          figure: `${attempts.length}/${attempts.length} refused 400 secret_required, bob's ${bobs.length} 404; the saved values never reached the new URL`,
        };
      },
    ),
  );
});

describe("outbound requests follow redirects by hand", () => {
  it(
    "a provider's redirect to another origin gets no key, a redirect loop ends, and local names are refused where deployed",
    attackCase(
      "Outbound requests that follow redirects and local names (issue 33)",
      "alice tests Anthropic- and Gemini-kind providers whose address answers 307 to another origin, and one that redirects in a loop; from the public host she adds a provider and a server on a single-label name and under .internal (before the fix: redirects followed by the runtime with the key header, names accepted)",
      async () => {
        const key = `sk-redirect-${crypto.randomUUID()}`;
        const before = elsewhere.requests.length;
        const moved = [
          await send(ALICE, "POST", "/api/my-providers/test", { id: "moved-a", kind: "anthropic", baseUrl: redirector.url, apiKey: key, models: ["c-1"] }),
          await send(ALICE, "POST", "/api/my-providers/test", { id: "moved-g", kind: "gemini", baseUrl: redirector.url, apiKey: key }),
        ];
        expect(moved.map((a) => a.status)).toEqual([200, 200]);
        const arrived = elsewhere.requests.slice(before);
        // The requests went on (so the redirect was followed), without the key in any header or body.
        expect(arrived.length).toBeGreaterThan(0);
        expect(JSON.stringify(arrived)).not.toContain(key);
        const loop = await send(ALICE, "POST", "/api/my-providers/test", {
          id: "loop",
          kind: "openai",
          baseUrl: `${redirector.url}/loop/v1`,
          apiKey: key,
          models: ["m"],
        });
        expect(loop.json()).toMatchObject({ test: { ok: false, error: expect.stringContaining("redirected more than 5 times") } });
        const port = new URL(home.url).port;
        const named = [
          await raw(stack.url, "/api/my-providers", {
            method: "POST",
            headers: { ...as(ALICE), host: "chat.example.com" },
            body: JSON.stringify({ id: "named", kind: "openai", baseUrl: `http://capturehost:${port}/v1`, apiKey: key, models: ["m"] }),
          }),
          await raw(stack.url, "/api/my-servers", {
            method: "POST",
            headers: { ...as(ALICE), host: "chat.example.com" },
            body: JSON.stringify({ name: "named", url: `http://tools.internal:${port}/mcp` }),
          }),
        ];
        expect(named.map((a) => [a.status, code(a)])).toEqual([
          [400, "server_url_refused"],
          [400, "server_url_refused"],
        ]);
        for (const answer of [...moved, loop, ...named]) expect(answer.text).not.toContain(key);
        return {
          tried: moved.length + 1 + named.length,
          figure: `key absent from all ${arrived.length} requests that reached the redirect's target; a loop ends after 5 hops; local names 2/2 refused 400 server_url_refused`,
        };
      },
    ),
  );
});

describe("upstream error text", () => {
  it(
    "reaches the answer and the log only as a short excerpt, with every form of the key taken out",
    attackCase(
      "A provider that echoes the key back in its error, in every encoding (issue 33)",
      'alice tests providers whose endpoint answers 401 quoting the key raw, JSON-escaped, URL-encoded, base64 and base64 of user:key (the key holds " and \\), and one answering 500 with a long HTML page (before the fix: the JSON-escaped key and the page came back)',
      async () => {
        const key = `sk-echo-${crypto.randomUUID()}"q\\s/p+e=`;
        const forms = [
          JSON.stringify(key).slice(1, -1),
          encodeURIComponent(key),
          Buffer.from(key).toString("base64"),
          Buffer.from(`user:${key}`).toString("base64"),
        ];
        const echo = await startCaptureServer((request, response) => {
          if (request.path.startsWith("/html")) {
            response
              .writeHead(500, { "content-type": "text/html" })
              .end(`<!DOCTYPE html><html><body><h1>Inspector</h1><pre>${"internal detail ".repeat(200)}</pre></body></html>`);
            return;
          }
          // One form per path, each short enough to be inside the excerpt.
          const sent = String(request.headers.authorization ?? "").replace(/^Bearer /, "");
          const quoted: Record<string, string> = {
            raw: sent,
            json: JSON.stringify(sent),
            url: encodeURIComponent(sent),
            b64: Buffer.from(sent).toString("base64"),
            basic: `Basic ${Buffer.from(`user:${sent}`).toString("base64")}`,
          };
          const message = `bad key ${quoted[request.path.split("/")[1] ?? "raw"] ?? sent}`;
          response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: { message } }));
        });
        try {
          const test = (path: string) =>
            send(ALICE, "POST", "/api/my-providers/test", { id: "echo", kind: "openai", baseUrl: `${echo.url}${path}`, apiKey: key, models: ["m"] });
          const answers = [
            await test("/raw/v1"),
            await test("/json/v1"),
            await test("/url/v1"),
            await test("/b64/v1"),
            await test("/basic/v1"),
            await test("/html/v1"),
          ];
          expect(echo.requests[0]?.headers.authorization).toBe(`Bearer ${key}`); // so each answer quoted the key
          const errors = answers.map((a) => String((a.json().test as { error?: string }).error));
          for (const error of errors.slice(0, 5)) expect(error).toMatch(/^OpenAI-compatible API error 401: bad key .*••••••/);
          expect(errors[5]).toMatch(/^OpenAI-compatible API error 500: Internal Server Error( \(gave up after 1 attempt\))?$/);
          for (const form of [key, ...forms]) {
            for (const error of errors) expect(error).not.toContain(form);
            for (const answer of answers) expect(answer.text).not.toContain(form);
            expect(stack.workerLog()).not.toContain(form);
          }
          expect(answers[5]?.text).not.toContain("internal detail");
          return {
            tried: 6,
            figure: `the key in ${forms.length + 1} forms absent from all 6 answers and the log; the HTML page quoted as its status only`,
          };
        } finally {
          await echo.stop();
        }
      },
    ),
  );
});
