// A sign-in the user can never complete (issue 20.8), on the real stack against the
// OAuth fixture: a server that lets `initialize` through and challenges only at
// `tools/list` (the MCP conformance suite's scope-step-up). Before: "Sign in" probed
// `initialize` again, saw no challenge, answered {"needed": false} and no authorization
// request was ever made.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOAuthFixture, type OAuthFixture } from "../fixtures/oauth-server";
import { raw } from "../fixtures/raw-http";
import { startStack, type Stack } from "../fixtures/stack";
import { attackCase } from "./record";

const json = { "content-type": "application/json" };
let stack: Stack;
let fixture: OAuthFixture;
beforeAll(async () => {
  fixture = await startOAuthFixture();
  stack = await startStack({ model: false });
});
afterAll(async () => {
  await stack?.stop();
  await fixture?.stop();
});

describe("OAuth sign-in", () => {
  it(
    "starts from the challenge a server sent at tools/list, not at initialize",
    attackCase(
      "A sign-in the user can never complete (issue 20.8)",
      "a server that lets initialize through and answers 401 only at tools/list; the user adds it and presses Sign in (before the fix: no sign-in needed, no authorization request)",
      async () => {
        const added = await raw(stack.url, "/api/my-servers", {
          method: "POST",
          headers: json,
          body: JSON.stringify({ name: "late", url: fixture.url("late") }),
        });
        expect(added.json()).toMatchObject({ test: { ok: false, code: "auth_required" } });
        const session = String((await raw(stack.url, "/sessions", { method: "POST", headers: json, body: "{}" })).json().id);
        const started = await raw(stack.url, "/oauth/sign-in", { method: "POST", headers: json, body: JSON.stringify({ server: "late", session }) });
        const url = new URL(String(started.json().url));
        expect(url.searchParams.get("scope")).toBe("mcp:read");
        const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "");
        const finished = await raw(stack.url, "/oauth/callback", {
          method: "POST",
          headers: json,
          body: JSON.stringify({ code: back.searchParams.get("code"), state: back.searchParams.get("state") }),
        });
        expect(finished.status).toBe(200);
        const call = await raw(stack.url, "/api/tools/late.whoami", {
          method: "POST",
          headers: json,
          body: JSON.stringify({ arguments: {}, approved: true, sessionId: session }),
        });
        expect(call.text).toContain("realm late, scope mcp:read");
        return { tried: 1, figure: "Sign in sent the user to the authorization server with scope mcp:read; after the callback late.whoami answered" };
      },
    ),
  );
});
