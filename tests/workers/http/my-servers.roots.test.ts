// Roots of a user's runtime server, through the real Worker in workerd against
// server-everything over Streamable HTTP: its get-roots-list tool says which roots
// the server got from the session. An edit that changes only the roots reaches the
// running connection as notifications/roots/list_changed (the server asks again);
// the connection is not rebuilt, which its call counts in /api/metrics show.
import { describe, expect, inject, it } from "vitest";
import { workerFetch } from "../worker-fetch";

const everything = inject("everythingUrl");
const json = { "content-type": "application/json" };

async function call(path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await workerFetch(path, init);
  return { status: response.status, body: response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>) };
}
const send = (method: string, path: string, body: unknown) => call(path, { method, headers: json, body: JSON.stringify(body) });

async function rootsSeen(server: string, session: string): Promise<string> {
  const { status, body } = await send("POST", `/api/tools/${server}.get-roots-list`, { arguments: {}, approved: true, sessionId: session });
  expect(status).toBe(200);
  return JSON.stringify((body.result as { content: unknown }).content);
}

describe("roots of runtime servers", () => {
  it("serves a server its roots, and tells it when an edit changed them, on the same connection", async () => {
    const name = `roots${crypto.randomUUID().slice(0, 6)}`;
    const entry = (roots: { uri: string; name?: string }[]) => ({ name, url: everything, roots });
    expect((await send("POST", "/api/my-servers", entry([{ uri: "file:///srv/alpha", name: "alpha" }]))).status).toBe(201);
    const { id } = (await send("POST", "/sessions", {})).body as { id: string };
    expect(await rootsSeen(name, id)).toContain("1. alpha\\n   URI: file:///srv/alpha");

    const edited = await send("PUT", `/api/my-servers/${name}`, entry([{ uri: "file:///srv/beta", name: "beta" }, { uri: "file:///srv/gamma" }]));
    expect(edited.body).toMatchObject({ server: { roots: [{ uri: "file:///srv/beta", name: "beta" }, { uri: "file:///srv/gamma" }] } });
    // What the page does after every edit: the session reads the change now.
    expect((await send("POST", `/api/servers/restart?session=${id}`, {})).status).toBe(204);
    // The server asks for the roots over its own stream after the notification; the call
    // that shows them may overtake that exchange, so it is repeated until it does.
    let seen = "";
    let calls = 1;
    while (!seen.includes("file:///srv/gamma") && calls < 50) {
      seen = await rootsSeen(name, id);
      calls++;
    }
    expect(seen).toContain("Current MCP Roots (2 total)");
    expect(seen).toContain("1. beta\\n   URI: file:///srv/beta");
    expect(seen).not.toContain("alpha");
    // One connection throughout: its calls were all counted by the same host.
    const metrics = await call(`/api/metrics?session=${id}`);
    expect((metrics.body.servers as Record<string, { calls: number }>)[name]?.calls).toBe(calls);
    expect((await call(`/api/my-servers/${name}`, { method: "DELETE" })).status).toBe(204);
  });

  it("refuses roots that are not file:// URIs, naming the field", async () => {
    const bad = await send("POST", "/api/my-servers", { name: "badroots", url: everything, roots: [{ uri: "https://example.com/" }] });
    expect(bad).toMatchObject({
      status: 400,
      body: {
        error: { code: "bad_request", issues: [{ path: "roots[0].uri", message: "expected a file:// URI of an absolute path (file:///home/me/project)" }] },
      },
    });
  });
});
