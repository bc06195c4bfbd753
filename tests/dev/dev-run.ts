// Runs `npm run dev` (or scripts/dev.mjs itself) on free ports against a throwaway
// folder: a minimal Worker whose [build] step mirrors the repo's (an embed script
// watching mcp.json), its own mcp.json and .dev.vars. The repo's files stay
// untouched, and other people's half-edited src/ cannot break these runs.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../fixtures/servers";
import { ProcessWatch, stillRunning } from "./processes";

export const devScript = join(repoRoot, "scripts", "dev.mjs");

// It logs as the real Worker does (src/shared/logger.ts, src/http/request-log.ts): an
// info line per request, an error line for a 500, one "turn ended" line per turn.
const WORKER = `import { EMBEDDED } from "./gen.js";
const log = (level, msg, fields) => console.log(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const fields = { requestId: crypto.randomUUID(), method: request.method, path: url.pathname };
    if (url.pathname === "/fail") {
      log("error", "request failed", { ...fields, status: 500, code: "internal" });
      return new Response("failed", { status: 500 });
    }
    if (url.pathname === "/turn") log("info", "turn ended", { turnId: url.searchParams.get("id"), reason: "done", ms: 12 });
    log("info", "request", { ...fields, status: 200 });
    if (url.pathname === "/bridge") {
      const response = await fetch(env.BRIDGE_URL + "/metrics" + url.search, { headers: { authorization: "Bearer " + env.BRIDGE_TOKEN } });
      return new Response(String(response.status));
    }
    const limits = { RATE_LIMIT_BURST: env.RATE_LIMIT_BURST ?? null, RATE_LIMIT_PER_MINUTE: env.RATE_LIMIT_PER_MINUTE ?? null };
    return Response.json({ embedded: EMBEDDED, mcpConfig: env.MCP_CONFIG ?? null, limits });
  },
};
`;
// Like scripts/embed-mcp-config.mjs: writes only when the text changed; logs each run.
const EMBED = `import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
const body = "export const EMBEDDED = " + JSON.stringify(readFileSync("mcp.json", "utf8")) + ";\\n";
if (!existsSync("gen.js") || readFileSync("gen.js", "utf8") !== body) writeFileSync("gen.js", body);
appendFileSync("builds.log", "build\\n");
`;

export interface Sandbox {
  dir: string;
  mcpConfig: string;
  devVars: string;
  workspace: string;
  builds: string;
  port: number;
  bridgePort: number;
  /** wrangler dev's inspector (its own: two runs starting at once could both see 9229 free). */
  inspectorPort: number;
  env: Record<string, string>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function sandbox(servers?: Record<string, unknown>): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), "dev-loop-"));
  const workspace = join(dir, "workspace");
  mkdirSync(workspace);
  writeFileSync(
    join(dir, "wrangler.toml"),
    'name = "dev-loop"\nmain = "worker.js"\ncompatibility_date = "2026-04-20"\n\n[build]\ncommand = "node embed.mjs"\nwatch_dir = ["mcp.json"]\n',
  );
  writeFileSync(join(dir, "worker.js"), WORKER);
  writeFileSync(join(dir, "embed.mjs"), EMBED);
  const filesystem = { command: process.execPath, args: [join(repoRoot, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), workspace] };
  const mcpConfig = join(dir, "mcp.json");
  writeFileSync(mcpConfig, JSON.stringify({ servers: servers ?? { filesystem } }, null, 2));
  const devVars = join(dir, "dev.vars");
  const [port, bridgePort, inspectorPort] = [await freePort(), await freePort(), await freePort()];
  const env = {
    PORT: String(port),
    BRIDGE_PORT: String(bridgePort),
    INSPECTOR_PORT: String(inspectorPort),
    EDGEHOST_MCP_CONFIG: mcpConfig,
    EDGEHOST_DEV_VARS: devVars,
    EDGEHOST_WRANGLER_CONFIG: join(dir, "wrangler.toml"),
  };
  return { dir, mcpConfig, devVars, workspace, builds: join(dir, "builds.log"), port, bridgePort, inspectorPort, env };
}

export class DevRun {
  readonly child: ChildProcess;
  readonly watch: ProcessWatch;
  /** Resolves once the process has exited and every holder of its output pipes has too. */
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private text = "";
  private readonly waiters = new Set<() => void>();

  /** `npm`: through `npm run dev` in `cwd` (the repo by default); else node scripts/dev.mjs. */
  constructor(box: Sandbox, how: { npm?: boolean; cwd?: string } = {}) {
    const [command, args] = how.npm ? ["npm", ["run", "--silent", "dev"]] : [process.execPath, [devScript]];
    this.child = spawn(command, args, { cwd: how.cwd ?? repoRoot, env: { ...process.env, ...box.env }, stdio: ["ignore", "pipe", "pipe"] });
    this.watch = new ProcessWatch(this.child.pid ?? 0);
    const collect = (chunk: Buffer) => {
      this.text += chunk.toString();
      for (const check of this.waiters) check();
    };
    this.child.stdout?.on("data", collect);
    this.child.stderr?.on("data", collect);
    this.closed = new Promise((resolve) => this.child.once("close", (code, signal) => resolve({ code, signal })));
  }

  output(): string {
    return this.text;
  }

  /** Lines the script itself wrote. */
  devLines(): string[] {
    return this.text.split("\n").filter((line) => line.startsWith("[dev] "));
  }

  /** Where the output ends now: pass it to waitFor to see only later lines. */
  mark(): number {
    return this.text.length;
  }

  waitFor(pattern: RegExp, timeoutMs = 30_000, after = 0): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const line = this.text
          .slice(after)
          .split("\n")
          .find((l) => pattern.test(l));
        if (line === undefined) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(line);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms in:\n${this.text}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
      void this.closed.then(() => {
        if (!this.waiters.has(check)) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        reject(new Error(`exited before a line matching ${pattern}:\n${this.text}`));
      });
    });
  }

  ready(): Promise<string> {
    return this.waitFor(/^\[dev\] page and API at /, 60_000);
  }

  /**
   * Resolves once a running process matches each pattern. Polls /proc: nothing
   * announces a process start, and wrangler replaces workerd on each reload.
   */
  async processesMatching(patterns: RegExp[], timeoutMs = 10_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const running = this.watch.find(/./).map((p) => p.cmd);
      const missing = patterns.filter((pattern) => !running.some((cmd) => pattern.test(cmd)));
      if (missing.length === 0) return running;
      if (Date.now() > deadline) throw new Error(`no running process matches ${missing.join(", ")} among:\n${running.join("\n")}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  pidOf(pattern: RegExp): number {
    const [found] = this.watch.find(pattern);
    if (!found) throw new Error(`no running process matches ${pattern}`);
    return found.pid;
  }

  /** For cleanup after a failed test: everything this run started, killed by pid. */
  kill(): void {
    for (const p of this.watch.processes().filter(stillRunning)) {
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
  }
}

/** True when nothing listens on the port. */
export function portClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
