// The same McpHost, running inside workerd (no Node child processes, no Ajv code
// generation), reaching a real Streamable HTTP server.
import { describe, expect, inject, it } from "vitest";
import { parseMcpConfig } from "../../src/shared/mcp-config/config";
import { McpHost } from "../../src/mcp/host";
import { workerTransports } from "../../src/mcp/transports";

describe("McpHost in workerd", () => {
  it("discovers server-everything over Streamable HTTP and calls a tool", async () => {
    const config = parseMcpConfig(JSON.stringify({ servers: { remote: { type: "http", url: "${EVERYTHING_URL}" } } }), {
      env: { EVERYTHING_URL: inject("everythingUrl") },
    });
    const host = new McpHost({ transports: workerTransports() });
    try {
      expect(await host.connect(config)).toEqual({ ready: ["remote"], failed: [] });
      const [remote] = host.listCapabilities();
      expect(remote?.transport).toBe("streamable-http");
      expect(remote?.tools.find((t) => t.name === "get-sum")?.inputSchema).toMatchObject({ required: ["a", "b"] });
      expect(remote?.prompts.map((p) => p.name)).toContain("simple-prompt");
      expect(await host.callTool("remote.get-sum", { a: 1, b: 2 })).toEqual({ content: [{ type: "text", text: "The sum of 1 and 2 is 3." }] });
      await expect(host.callTool("remote.get-sum", { a: 1 })).rejects.toThrow("b: is required");
    } finally {
      await host.close();
    }
  });
});
