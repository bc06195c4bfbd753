// Redirects of a person's outbound requests (issue 33): followed by hand, every hop checked
// against the address rule, at most MAX_REDIRECTS, and credentials never carried to another
// origin. Real HTTP servers on loopback; names under example.com stand for public hosts and
// are sent to 127.0.0.1 by the test's own network (as a public DNS name would resolve).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedFetch, MAX_REDIRECTS, OutboundRefusedError } from "../../src/servers/guarded-fetch";
import { startCaptureServer, type CaptureServer } from "../fixtures/capture-server";

const deployed = { deployed: true, allowPrivate: false, workerHost: "chat.example.com" };
const dev = { deployed: false, allowPrivate: false };
/** The network: `*.example.com` resolves to this machine. */
const network: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.hostname.endsWith(".example.com")) url.hostname = "127.0.0.1";
  return fetch(url, init);
};
const publicName = (server: CaptureServer, path: string) => `http://api.example.com:${new URL(server.url).port}${path}`;

let redirector: CaptureServer;
let target: CaptureServer;
beforeAll(async () => {
  target = await startCaptureServer((request, response) => {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ method: request.method, body: request.body }));
  });
  redirector = await startCaptureServer((request, response) => {
    const to = new URL(request.path, "http://x").searchParams.get("to");
    const status = Number(new URL(request.path, "http://x").searchParams.get("status") ?? 302);
    response.writeHead(status, { location: to ?? request.path }).end("moved");
  });
});
afterAll(async () => {
  await Promise.all([redirector?.stop(), target?.stop()]);
});

describe("guardedFetch", () => {
  it("refuses a redirect from an allowed host to a loopback address, before fetching it", async () => {
    const secret = `${target.url}/secret`;
    const fetcher = guardedFetch(deployed, network);
    const before = target.requests.length;
    const attempt = fetcher(publicName(redirector, `/start?to=${encodeURIComponent(secret)}`));
    await expect(attempt).rejects.toThrow(OutboundRefusedError);
    await expect(fetcher(publicName(redirector, `/start?to=${encodeURIComponent(secret)}`))).rejects.toThrow(/a redirect led to .*loopback/);
    await expect(fetcher(publicName(redirector, "/start?to=http%3A%2F%2F169.254.169.254%2Flatest"))).rejects.toThrow(/link-local/);
    await expect(fetcher(publicName(redirector, "/start?to=http%3A%2F%2Fintranet%2Fx"))).rejects.toThrow(/single-label/);
    expect(target.requests.length).toBe(before);
  });

  it("refuses single-label and local names in deployed mode, at the first hop", async () => {
    const port = new URL(target.url).port;
    await expect(guardedFetch(deployed, network)(`http://capturehost:${port}/`)).rejects.toThrow(/single-label/);
    await expect(guardedFetch(deployed, network)(`http://box.internal:${port}/`)).rejects.toThrow(/\.internal/);
  });

  it(`stops after ${MAX_REDIRECTS} redirects with a typed error`, async () => {
    const before = redirector.requests.length;
    const attempt = guardedFetch(dev)(`${redirector.url}/loop`);
    await expect(attempt).rejects.toMatchObject({ code: "server_url_refused", message: expect.stringContaining(`more than ${MAX_REDIRECTS}`) });
    expect(redirector.requests.length - before).toBe(MAX_REDIRECTS + 1);
  });

  it("carries no credential to another origin, keeps them on the same origin, and sends a 307's body again", async () => {
    const headers = {
      authorization: "Bearer sk-cross-0123456789",
      "x-api-key": "xk-cross-0123456789",
      accept: "application/json",
      "content-type": "application/json",
    };
    const elsewhere = `${target.url}/v1/chat`;
    const before = target.requests.length;
    const moved = await guardedFetch(dev)(`${redirector.url}/v1?status=307&to=${encodeURIComponent(elsewhere)}`, { method: "POST", headers, body: '{"q":1}' });
    expect(await moved.json()).toEqual({ method: "POST", body: '{"q":1}' });
    const arrived = target.requests.slice(before);
    expect(arrived).toHaveLength(1);
    expect(arrived[0]?.headers).toMatchObject({ accept: "application/json", "content-type": "application/json" });
    expect(arrived[0]?.headers.authorization).toBeUndefined();
    expect(arrived[0]?.headers["x-api-key"]).toBeUndefined();
    // The same origin keeps them (a path moved on the same host).
    const same = redirector.requests.length;
    await guardedFetch(dev)(`${redirector.url}/a?status=308&to=${encodeURIComponent("/b?status=404")}`, { headers }).then((r) => r.body?.cancel());
    expect(redirector.requests[same + 1]?.headers.authorization).toBe(headers.authorization);
  });

  it("turns a 303 after a POST into a GET without the body", async () => {
    const answer = await guardedFetch(dev)(`${redirector.url}/form?status=303&to=${encodeURIComponent(`${target.url}/done`)}`, { method: "POST", body: "a=1" });
    expect(await answer.json()).toEqual({ method: "GET", body: "" });
  });
});
