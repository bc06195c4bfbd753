// What McpHost learns when it connects, on the path the Worker takes: stdio servers
// behind the real bridge over Streamable HTTP, and remote servers directly.
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { FUNCTION_NAME_PATTERN } from "../../src/mcp/names";
import { bridgedHost, serverPid, testHost } from "../fixtures/host";
import { ProbeLog } from "../fixtures/probe-log";
import { everythingServer, filesystemServer, httpServer, probeServerBin, stdioServer } from "../fixtures/servers";

// The bridge serves sampling and elicitation for every session, so server-everything offers their tools too.
const EVERYTHING_TOOLS = [
  "echo",
  "get-annotated-message",
  "get-env",
  "get-resource-links",
  "get-resource-reference",
  "get-structured-content",
  "get-sum",
  "get-tiny-image",
  "gzip-file-as-resource",
  "toggle-simulated-logging",
  "toggle-subscriber-updates",
  "trigger-long-running-operation",
  "trigger-elicitation-request",
  "trigger-sampling-request",
  // Task-only: offered on the 2026 connection, where the host runs it through the bridge's Tasks extension.
  "simulate-research-query",
];

describe("McpHost discovery", () => {
  it("discovers tools, prompts, resources and templates of server-everything and server-filesystem", async () => {
    const root = mkdtempSync(join(tmpdir(), "fs-root-"));
    const { host, config } = await bridgedHost([everythingServer(), filesystemServer(root)]);
    const report = await host.connect(config);
    expect(report).toEqual({ ready: ["everything", "fs"], failed: [] });

    const [everything, fs] = host.listCapabilities();
    expect(everything?.transport).toBe("streamable-http");
    expect(everything?.tools.map((t) => t.name)).toEqual(EVERYTHING_TOOLS);
    expect(everything?.prompts.map((p) => p.name)).toEqual(["simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"]);
    expect(everything?.resources).toHaveLength(7);
    expect(everything?.resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "demo://resource/dynamic/text/{resourceId}",
      "demo://resource/dynamic/blob/{resourceId}",
    ]);
    expect(everything?.tools.find((t) => t.name === "get-sum")?.inputSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect(fs?.tools).toHaveLength(14);
    expect(fs?.tools.find((t) => t.name === "list_directory")).toMatchObject({
      qualifiedName: "fs.list_directory",
      functionName: "fs__list_directory",
      inputSchema: { properties: { path: { type: "string" } }, required: ["path"] },
    });
    for (const tool of host.tools()) expect(tool.functionName).toMatch(FUNCTION_NAME_PATTERN);
    expect(host.resolveToolName("everything__get-sum")).toBe("everything.get-sum");
  });

  it("follows pagination cursors until the last page", async () => {
    const log = new ProbeLog();
    const { host, config } = await bridgedHost([stdioServer("probe", [probeServerBin], { env: { PROBE_LOG: log.path } })]);
    await host.connect(config);
    expect(host.tools().map((t) => t.name)).toEqual(["slow", "crash", "fail", "add_tool", "touch", "structured", "echo", "log"]);
    expect(
      log
        .events()
        .filter((e) => e.event === "tools/list")
        .map((e) => e.cursor),
    ).toEqual([null, "3", "6"]);
  });

  it("applies includeTools and excludeTools", async () => {
    const { host, config } = await bridgedHost([
      everythingServer("a", { includeTools: ["echo", "get-sum"] }),
      everythingServer("b", { excludeTools: ["echo"] }),
    ]);
    await host.connect(config);
    expect(
      host
        .tools()
        .filter((t) => t.server === "a")
        .map((t) => t.name),
    ).toEqual(["echo", "get-sum"]);
    expect(
      host
        .tools()
        .filter((t) => t.server === "b")
        .map((t) => t.name),
    ).not.toContain("echo");
  });

  it("connects dependencies first and dependents after them", async () => {
    const { host, config } = await bridgedHost([
      stdioServer("last", [probeServerBin], { dependencies: ["middle"] }),
      stdioServer("middle", [probeServerBin], { dependencies: ["first"] }),
      stdioServer("first", [probeServerBin]),
    ]);
    const ready: string[] = [];
    host.onChange((server, kind) => {
      if (kind === "state" && host.servers().find((s) => s.name === server)?.state === "ready") ready.push(server);
    });
    await host.connect(config);
    expect(ready).toEqual(["first", "middle", "last"]);
  });

  it("reports a server that cannot start, and its dependents, while the others serve", async () => {
    // Starts as the probe the first time; every later start fails the way a server missing its API key does.
    const marker = join(mkdtempSync(join(tmpdir(), "flaky-")), "started");
    const script = `const fs = require("node:fs"); if (fs.existsSync(${JSON.stringify(marker)})) { console.error("missing API key"); process.exit(1); } fs.writeFileSync(${JSON.stringify(marker)}, ""); import(${JSON.stringify(probeServerBin)});`;
    const { host, bridge, config } = await bridgedHost([
      everythingServer(),
      stdioServer("broken", ["-e", script]),
      stdioServer("child", [probeServerBin], { dependencies: ["broken"] }),
    ]);
    // The bridge started it; once it dies, the bridge's restart for the host's initialize fails.
    process.kill(await serverPid(bridge, "broken"), "SIGKILL");
    await bridge.waitForLog(/server unavailable.*broken|broken.*server unavailable/);
    const report = await host.connect(config);
    expect(report.ready).toEqual(["everything"]);
    expect(report.failed.map((f) => f.server)).toEqual(["broken", "child"]);
    expect(report.failed[0]?.reason).toContain("missing API key");
    expect(report.failed[1]?.reason).toBe('dependency "broken" failed to start');
    expect(host.servers().find((s) => s.name === "broken")?.state).toBe("unavailable");
    expect(host.listCapabilities().map((s) => s.name)).toEqual(["everything"]);
  });

  it("times out a server that never answers initialize", async () => {
    const mute = createServer(() => undefined);
    await new Promise<void>((resolve) => mute.listen(0, "127.0.0.1", resolve));
    onTestFinished(async () => {
      mute.closeAllConnections();
      await new Promise((resolve) => mute.close(resolve));
    });
    const { host } = testHost({ connectTimeoutMs: 500 });
    const report = await host.connect({ servers: [httpServer("mute", `http://127.0.0.1:${(mute.address() as AddressInfo).port}/mcp`)] });
    expect(report.failed).toEqual([{ server: "mute", reason: "did not start within 1 s" }]);
    expect(host.servers()[0]).toMatchObject({ state: "unavailable" });
  });

  it("builds per-server guidance from its instructions and tool-descriptions prompt, never a second list of its tools", async () => {
    const { host, config } = await bridgedHost([stdioServer("probe", [probeServerBin]), everythingServer()]);
    await host.connect(config);
    const guides = await host.guides();
    expect(guides.find((g) => g.server === "probe")).toEqual({
      server: "probe",
      source: "prompt",
      text: "Use probe.echo to repeat text; never call probe.crash.",
    });
    const everything = guides.find((g) => g.server === "everything");
    expect(everything?.source).toBe("generated");
    expect(everything?.text).toContain("Everything Server – Server Instructions");
    expect(everything?.text).not.toContain("get-sum");
  });
});
