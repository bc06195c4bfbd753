import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { StartupError } from "../../src/shared/errors";
import type { McpHost } from "../../src/mcp/host";
import { FUNCTION_NAME_PATTERN } from "../../src/mcp/names";
import { testHost } from "../fixtures/host";
import { ProbeLog } from "../fixtures/probe-log";
import { everythingServer, filesystemServer, probeServerBin, stdioServer } from "../fixtures/servers";

const BASE_EVERYTHING_TOOLS = [
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
];

let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe("McpHost discovery", () => {
  it("discovers tools, prompts, resources and templates of server-everything and server-filesystem", async () => {
    const root = mkdtempSync(join(tmpdir(), "fs-root-"));
    ({ host } = testHost());
    const report = await host.connect({ servers: [everythingServer(), filesystemServer(root)] });
    expect(report).toEqual({ ready: ["everything", "fs"], failed: [] });

    const [everything, fs] = host.listCapabilities();
    expect(everything?.tools.map((t) => t.name)).toEqual(BASE_EVERYTHING_TOOLS);
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
    ({ host } = testHost());
    await host.connect({ servers: [stdioServer("probe", [probeServerBin], { env: { PROBE_LOG: log.path } })] });
    expect(host.tools().map((t) => t.name)).toEqual(["slow", "crash", "fail", "add_tool", "touch", "structured", "echo", "log"]);
    expect(log.events().filter((e) => e.event === "tools/list").map((e) => e.cursor)).toEqual([null, "3", "6"]);
  });

  it("applies includeTools and excludeTools", async () => {
    ({ host } = testHost());
    await host.connect({
      servers: [
        everythingServer("a", { includeTools: ["echo", "get-sum"] }),
        everythingServer("b", { excludeTools: ["echo"] }),
      ],
    });
    expect(host.tools().filter((t) => t.server === "a").map((t) => t.name)).toEqual(["echo", "get-sum"]);
    expect(host.tools().filter((t) => t.server === "b").map((t) => t.name)).not.toContain("echo");
  });

  it("starts dependencies first and dependents after them", async () => {
    const log = new ProbeLog();
    ({ host } = testHost());
    const env = { PROBE_LOG: log.path };
    await host.connect({
      servers: [
        stdioServer("last", [probeServerBin], { env: { ...env, WHO: "last" }, dependencies: ["middle"] }),
        stdioServer("middle", [probeServerBin], { env, dependencies: ["first"] }),
        stdioServer("first", [probeServerBin], { env }),
      ],
    });
    const starts = log.events().filter((e) => e.event === "start").map((e) => e.pid);
    const pids = Object.fromEntries(host.servers().map((s) => [s.name, s.pid]));
    expect(starts).toEqual([pids.first, pids.middle, pids.last]);
  });

  it("reports a server that fails to start and keeps the others when only available servers are required", async () => {
    ({ host } = testHost());
    const report = await host.connect({
      servers: [everythingServer(), stdioServer("broken", ["-e", "console.error('missing API key'); process.exit(1)"])],
    });
    expect(report.ready).toEqual(["everything"]);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]?.server).toBe("broken");
    expect(report.failed[0]?.reason).toContain("missing API key");
    expect(host.servers().find((s) => s.name === "broken")?.state).toBe("unavailable");
    expect(host.listCapabilities().map((s) => s.name)).toEqual(["everything"]);
  });

  it("starts nothing when one server fails and all are required, naming the server", async () => {
    ({ host } = testHost());
    const connecting = host.connect(
      { servers: [everythingServer(), stdioServer("broken", ["-e", "process.exit(2)"]), stdioServer("child", [probeServerBin], { dependencies: ["broken"] })] },
      { require: "all" },
    );
    await expect(connecting).rejects.toBeInstanceOf(StartupError);
    await expect(connecting).rejects.toThrow(/broken/);
    await expect(connecting).rejects.toThrow(/child \(.*dependency "broken" failed to start/);
    expect(host.servers().every((s) => s.state === "closed")).toBe(true);
    expect(host.servers().every((s) => s.pid === undefined)).toBe(true);
  });

  it("times out a server that never answers initialize", async () => {
    const script = join(mkdtempSync(join(tmpdir(), "mute-")), "mute.mjs");
    writeFileSync(script, "process.stdin.resume(); console.error('booting forever');\n");
    ({ host } = testHost({ connectTimeoutMs: 500 }));
    const report = await host.connect({ servers: [stdioServer("mute", [script])] });
    expect(report.failed[0]?.reason).toMatch(/did not start within 1 s; last stderr: booting forever/);
    expect(host.servers()[0]).toMatchObject({ state: "unavailable", pid: undefined });
  });

  it("builds per-server guidance from a tool-descriptions prompt, or from the tool list", async () => {
    ({ host } = testHost());
    await host.connect({ servers: [stdioServer("probe", [probeServerBin]), everythingServer()] });
    const guides = await host.guides();
    expect(guides.find((g) => g.server === "probe")).toEqual({
      server: "probe",
      source: "prompt",
      text: "Use probe.echo to repeat text; never call probe.crash.",
    });
    const everything = guides.find((g) => g.server === "everything");
    expect(everything?.source).toBe("generated");
    expect(everything?.text).toContain("Everything Server – Server Instructions");
    expect(everything?.text).toContain("- everything.get-sum(a, b): ");
  });
});
