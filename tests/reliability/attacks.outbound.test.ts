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
beforeAll(async () => {
  [stack, home, elsewhere] = await Promise.all([
    startStack({ model: false, vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${ALICE},bob:${BOB}` } }),
    startCaptureServer(),
    startCaptureServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([stack?.stop(), home?.stop(), elsewhere?.stop()]);
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
