// `npm run conformance:gateway`: the suite against edgehost's own MCP endpoint (/mcp, src/gateway/)
// on `wrangler dev`, for the latest release and the newest 0.2.0 pre-release. Not part of `npm test`.
//   - server scenarios: the conformance fixture (fixture-server.ts) is the person's one server
//     besides the stack's filesystem; /mcp offers it with MCP_GATEWAY_NAMES=bare (the suite calls
//     tools by their own names) and TOOL_APPROVAL=off (the suite's client answers no approvals).
//     The suite's `server` mode has no OAuth, so a 127.0.0.1 proxy adds a token the gateway's own
//     authorization server issued (tests/fixtures/gateway-client.ts signs in first). Beside it,
//     the same fixture natively, as the column to compare with.
//   - authorization-server scenarios (authorization-server-metadata-endpoint,
//     authorization-code-grant) against the Worker as the issuer, with a public client registered
//     by DCR; this script plays the person's browser at the consent page the suite sends it to.
// Same environment variables as conformance:bridge (CONFORMANCE_VERSIONS, _SCENARIO, _JOBS, _VERBOSE).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { authorize, GatewayOAuthClient } from "../../tests/fixtures/gateway-client";
import { freePort } from "../../tests/fixtures/http-servers";
import { startStack } from "../../tests/fixtures/stack";
import { formatFailures, formatMatrix, passes, type Column } from "./matrix";
import { startNativeFixture, type Running } from "./processes";
import { bundle, listScenarios, node22, readResults, ROOT, serverColumn, suiteCli, suiteVersions } from "./suite";

const AUTH_SCENARIOS = ["authorization-server-metadata-endpoint", "authorization-code-grant"];

/** A loopback proxy to `target` that adds the bearer token (the suite's server mode sends none). */
async function tokenProxy(target: string, token: string): Promise<{ url: string; server: Server }> {
  const own = { port: 0 };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string" && name !== "host") headers.set(name, value);
    headers.set("authorization", `Bearer ${token}`);
    // The proxy stands in for the Worker: a page of its own origin is the Worker's own page (dns-rebinding-protection's
    // valid case sends Origin: http://localhost:<proxy port>); any other Origin reaches the Worker's check unchanged.
    const origin = headers.get("origin");
    if (origin && new URL(origin).port === String(own.port) && ["localhost", "127.0.0.1", "[::1]"].includes(new URL(origin).hostname)) {
      headers.set("origin", new URL(target).origin);
    }
    const body = req.method === "GET" || req.method === "HEAD" || req.method === "DELETE" ? undefined : Buffer.concat(chunks);
    try {
      const answer = await fetch(target, { method: req.method, headers, body });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (!answer.body) return void res.end();
      // A stream the Worker ends early (a GET stream at shutdown) ends the client's too, without crashing the proxy.
      const stream = Readable.fromWeb(answer.body as import("node:stream/web").ReadableStream);
      stream.on("error", () => res.destroy());
      res.on("close", () => stream.destroy());
      stream.pipe(res);
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the proxy has no port");
  own.port = address.port;
  return { url: `http://127.0.0.1:${address.port}/mcp`, server };
}

/** The person's browser for the suite's authorization-code-grant: consent allowed, the code sent to the suite's callback. */
async function playBrowser(authorizeUrl: string): Promise<void> {
  const page = await fetch(authorizeUrl, { redirect: "manual" });
  const html = await page.text();
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1];
  if (!handle) throw new Error(`no consent page at ${authorizeUrl}: ${page.status}`);
  // getSetCookie is in Node's fetch, not in the Workers types this project compiles with.
  const setCookies = (page.headers as Headers & { getSetCookie(): string[] }).getSetCookie();
  const cookie = setCookies.map((c) => c.split(";")[0]).join("; ");
  const origin = new URL(authorizeUrl).origin;
  const decided = await fetch(new URL("/connect/authorize", origin), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin, cookie },
    body: new URLSearchParams({ handle, decision: "approve" }),
    redirect: "manual",
  });
  const location = decided.headers.get("location");
  if (!location) throw new Error(`the consent form answered ${decided.status}`);
  await fetch(location);
}

async function authorizationColumn(cli: string, issuer: string, title: string): Promise<Column> {
  const out = mkdtempSync(join(tmpdir(), "conformance-authz-"));
  try {
    // One run for both: the code grant reads the metadata the other scenario fetched in the same run.
    {
      const scenario = AUTH_SCENARIOS.join(" + ");
      const port = await freePort();
      const registered = await fetch(`${issuer}/connect/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          client_name: "conformance suite",
          redirect_uris: [`http://127.0.0.1:${port}/callback`],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
        }),
      });
      const clientId = ((await registered.json()) as { client_id?: string }).client_id;
      if (!clientId) throw new Error(`registration answered ${registered.status}`);
      const args = ["authorization", "--url", issuer, "--client-id", clientId, "--resource", `${issuer}/mcp`, "-p", String(port), "-o", out];
      const child = spawn(node22(), [cli, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      let played = false;
      const hear = (chunk: Buffer) => {
        output += chunk.toString("utf8");
        const url = /(https?:\/\/\S+\/connect\/authorize\?\S+)/.exec(output)?.[1];
        if (url && !played) {
          played = true;
          playBrowser(url).catch((error: unknown) => console.error(`${scenario}: the browser could not consent: ${String(error)}`));
        }
      };
      child.stdout.on("data", hear);
      child.stderr.on("data", hear);
      await new Promise<void>((resolve) => child.on("exit", () => resolve()));
      if (process.env.CONFORMANCE_VERBOSE) console.log(`--- ${title} ${scenario}\n${output}`);
    }
    const results = readResults(out);
    console.log(`${title}: ${results.filter((r) => passes(r)).length}/${results.length} scenarios pass`);
    return { title, results };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const versions = suiteVersions();
  console.log(`suite: ${versions.map((v) => `${v.label} ${v.version}`).join(", ")}; runtime: Node 22 from npm (${node22().slice(ROOT.length + 1)})`);
  const fixtureFile = await bundle("fixture-server.ts");
  const fixture: Running = await startNativeFixture(fixtureFile);
  const stack = await startStack({
    model: false,
    vars: { MCP_GATEWAY_NAMES: "bare", TOOL_APPROVAL: "off", RATE_LIMIT_PER_MINUTE: "10000", RATE_LIMIT_BURST: "1000" },
    mcpServers: { conformance: { url: fixture.url } },
  });
  const servers: Server[] = [];
  try {
    const tokens = await authorize(
      new GatewayOAuthClient({ fetch: globalThis.fetch, headers: {}, clientName: "conformance proxy", redirectUrl: "http://127.0.0.1/callback" }),
      `${stack.url}/mcp`,
    );
    const proxy = await tokenProxy(`${stack.url}/mcp`, tokens.access_token);
    servers.push(proxy.server);
    const server: Column[] = [];
    const authz: Column[] = [];
    for (const version of versions) {
      const cli = suiteCli(version.version);
      const scenarios = process.env.CONFORMANCE_SCENARIO?.split(",") ?? (await listScenarios(cli, "server"));
      const short = version.label === "release" ? "rel" : "pre";
      server.push(await serverColumn(cli, scenarios, fixture.url, `${short} fixture`));
      server.push(await serverColumn(cli, scenarios, proxy.url, `${short} /mcp`));
      authz.push(await authorizationColumn(cli, stack.url, `${short} authz`));
    }
    console.log(`\nserver scenarios (the fixture natively, and as the person's server behind /mcp):\n${formatMatrix(server)}`);
    console.log(`\nauthorization server (the Worker as issuer):\n${formatMatrix(authz)}`);
    console.log(`\nFailing checks:\n${formatFailures([...server, ...authz])}`);
  } finally {
    for (const s of servers) s.close();
    await stack.stop();
    await fixture.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
