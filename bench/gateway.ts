// `npm run bench:gateway`: the MCP gateway (/mcp, src/gateway/) against a chat session, on
// one `wrangler dev` in the same run, on loopback (issue 38's figures):
//   1. a paired machine's `echo` (server-everything behind `mcp-local-bridge connect`) called by
//      an outside MCP client through /mcp (the v2 SDK client, 2026-07-28, signed in with the
//      gateway's own OAuth) vs the same tool called by a chat session (POST /api/tools/{name},
//      the caller's console session). Sequential, alternating call by call after a warm-up;
//      p50/p99 of each and the ratio (goal: /mcp ≤ 1.2x the chat at p50).
//   2. `tools/list` for a person with five 60-tool servers (tests/fixtures/many-tools-server.mjs)
//      besides the stack's own: on a fresh app object (its first request: the list comes from the
//      catalogue the account keeps) and warm; p50 and the answer's size.
// TOOL_APPROVAL is off on this stack: both paths would otherwise ask (the chat's direct call
// passes `approved`, the gateway would ask its client); the figures are of the call path.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { connectWithOAuth, GatewayOAuthClient } from "../tests/fixtures/gateway-client";
import { pairMachine } from "../tests/fixtures/paired-machine";
import { everythingBin, repoRoot } from "../tests/fixtures/servers";
import { startStack } from "../tests/fixtures/stack";

const WARMUP = 50;
const PAIRS = 200;
const FRESH_APPS = 15;
const WARM_LISTS = 100;
const MANY = ["crm", "hr", "ops", "sales", "wiki"];

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** An outside MCP client of /mcp, signed in through the consent page as the stack's person. */
async function gatewayClient(url: string, name: string): Promise<Client> {
  const provider = new GatewayOAuthClient({ fetch: globalThis.fetch, headers: {}, clientName: name, redirectUrl: "http://127.0.0.1/callback" });
  const client = new Client({ name, version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  const mcpUrl = new URL("/mcp", url);
  await connectWithOAuth(client, () => new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: globalThis.fetch }), provider);
  return client;
}

async function main(): Promise<void> {
  const manyTools = `${repoRoot}/tests/fixtures/many-tools-server.mjs`;
  const stack = await startStack({
    model: false,
    vars: { RATE_LIMIT_PER_MINUTE: "10000", RATE_LIMIT_BURST: "1000", TOOL_APPROVAL: "off" },
    mcpServers: {
      everything: { command: process.execPath, args: [everythingBin, "stdio"] },
      ...Object.fromEntries(MANY.map((topic) => [topic, { command: process.execPath, args: [manyTools, "60", topic] }])),
    },
  });
  let machine: Awaited<ReturnType<typeof pairMachine>> | undefined;
  const clients: Client[] = [];
  try {
    machine = await pairMachine(stack.url, "", "laptop");
    const direct = async (): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${stack.url}/api/tools/laptop-everything.echo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ arguments: { message: "x" }, approved: true }),
      });
      const body = (await response.json()) as { result?: unknown };
      if (!response.ok || !body.result) throw new Error(`chat call: ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
      return performance.now() - started;
    };
    // The chat's call first: its console session discovers every server, and the account keeps the catalogue.
    await direct();

    const client = await gatewayClient(stack.url, "bench client");
    clients.push(client);
    const listed = await client.listTools();
    const echo = listed.tools.find((tool) => tool._meta?.["io.edgehost/qualifiedName"] === "laptop-everything.echo");
    if (!echo) throw new Error(`no laptop-everything.echo at /mcp among ${listed.tools.length} tools`);
    const viaGateway = async (): Promise<number> => {
      const started = performance.now();
      const result = await client.callTool({ name: echo.name, arguments: { message: "x" } });
      if (result.isError) throw new Error(`gateway call: ${JSON.stringify(result).slice(0, 200)}`);
      return performance.now() - started;
    };

    for (let i = 0; i < WARMUP; i++) {
      await direct();
      await viaGateway();
    }
    const times = { chat: [] as number[], gateway: [] as number[] };
    const deltas: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const gatewayFirst = i % 2 === 1;
      const first = await (gatewayFirst ? viaGateway() : direct());
      const second = await (gatewayFirst ? direct() : viaGateway());
      const [chat, gateway] = gatewayFirst ? [second, first] : [first, second];
      times.chat.push(chat);
      times.gateway.push(gateway);
      deltas.push(gateway - chat);
    }
    const chatP50 = percentile(times.chat, 50);
    const gatewayP50 = percentile(times.gateway, 50);
    console.log(`paired machine's echo, ${PAIRS} calls per path after ${WARMUP} warm-up, sequential, alternating`);
    console.log(`  chat session (POST /api/tools)   p50 ${ms(chatP50)}  p99 ${ms(percentile(times.chat, 99))}`);
    console.log(`  /mcp (SDK v2 client, 2026-07-28) p50 ${ms(gatewayP50)}  p99 ${ms(percentile(times.gateway, 99))}`);
    console.log(`  /mcp ÷ chat at p50 ${(gatewayP50 / chatP50).toFixed(3)}x (goal ≤ 1.2x); median of pairs' differences ${ms(percentile(deltas, 50))}`);

    // tools/list: a fresh app object each time (a new client signs in), then one app warm.
    const fresh: number[] = [];
    let size = 0;
    let count = 0;
    for (let i = 0; i < FRESH_APPS; i++) {
      const app = await gatewayClient(stack.url, `fresh ${i}`);
      clients.push(app);
      const started = performance.now();
      const tools = await app.listTools();
      fresh.push(performance.now() - started);
      count = tools.tools.length;
      size = JSON.stringify(tools).length;
    }
    const warm: number[] = [];
    for (let i = 0; i < WARM_LISTS; i++) {
      const started = performance.now();
      await client.listTools();
      warm.push(performance.now() - started);
    }
    const servers = new Set(listed.tools.map((tool) => String(tool._meta?.["io.edgehost/qualifiedName"] ?? "").split(".")[0])).size;
    console.log(`tools/list: ${count} tools of ${servers} servers, ${(size / 1024).toFixed(1)} KiB as JSON`);
    console.log(`  fresh app object (its first request) p50 ${ms(percentile(fresh, 50))}  max ${ms(Math.max(...fresh))}  (${FRESH_APPS} apps)`);
    console.log(`  warm                                 p50 ${ms(percentile(warm, 50))}  p99 ${ms(percentile(warm, 99))}  (${WARM_LISTS} lists)`);
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
    await machine?.stop();
    await stack.stop();
  }
}

await main();
