// The processes `npm run conformance:bridge` starts: the fixture over HTTP, the real
// bridge CLI with the fixture as its stdio server, and a loopback proxy in front of the
// bridge. The suite's server mode sends no custom headers, so the proxy adds the
// bridge's bearer token and maps `/mcp` to the server's path; it passes everything else
// (Host, Origin, bodies, streams) through untouched, and the bridge is told to accept
// the proxy's own Host/Origin, so its DNS-rebinding checks judge what the suite sent.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./suite";

export interface Running {
  url: string;
  stop(): Promise<void>;
}

/** Starts `args` under this Node and resolves with the first URL its stdout prints after `marker`. */
function startPrinting(args: string[], marker: RegExp, env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr?.on("data", (c: Buffer) => void (err = (err + c.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      const url = marker.exec(out)?.[1];
      if (url) resolve({ child, url });
    });
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code} before it listened: ${err}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGTERM");
  });
}

/** The fixture serving Streamable HTTP itself (the native column). */
export async function startNativeFixture(fixture: string): Promise<Running> {
  const { child, url } = await startPrinting([fixture, "--port", "0"], /listening on (http:\/\/\S+)/);
  return { url, stop: () => stopChild(child) };
}

function listen(server: Server): Promise<number> {
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done((server.address() as AddressInfo).port)));
}

/** The bridge CLI serving the fixture as the stdio server `fixture`, behind the token-adding proxy. */
export async function startBridgedFixture(fixture: string, extraFlags: string[]): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), "conformance-bridge-"));
  const config = join(dir, "mcp.json");
  writeFileSync(config, JSON.stringify({ servers: { fixture: { command: process.execPath, args: [fixture, "--stdio"] } } }));
  const token = randomBytes(24).toString("hex");
  let target: URL | undefined;
  const proxy = createServer((req, res) => {
    if (!target) return void res.writeHead(503).end();
    const path = (req.url ?? "/").replace(/^\/mcp/, "/servers/fixture/mcp");
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.headersSent || res.writeHead(502).end());
    req.pipe(upstream);
  });
  const port = await listen(proxy);
  const own = [`127.0.0.1:${port}`, `localhost:${port}`];
  const flags = [...own.flatMap((h) => ["--allow-host", h]), ...own.flatMap((h) => ["--allow-origin", `http://${h}`])];
  const bridgeBin = join(ROOT, "local-bridge/bin/mcp-local-bridge.mjs");
  const args = [bridgeBin, "--config", config, "--port", "0", "--no-watch", "--log-level", "warn", ...flags, ...extraFlags];
  const { child, url } = await startPrinting(args, /listening on (http:\/\/\S+)/, { BRIDGE_TOKEN: token }).catch(async (error: unknown) => {
    proxy.close();
    throw error;
  });
  target = new URL(url);
  return {
    url: `http://localhost:${port}/mcp`,
    stop: async () => {
      proxy.closeAllConnections();
      await new Promise((done) => proxy.close(() => done(undefined)));
      await stopChild(child);
    },
  };
}
