// Which tools a model request declares when a session has many (tool-selection.ts):
// all of them up to the threshold; beyond it whole servers the conversation used,
// then the smallest, within the threshold, plus what searches found and the search
// tool itself; and what the search over the catalogue answers.
import { describe, expect, it } from "vitest";
import type { ToolView } from "../../src/mcp/capabilities";
import { HOST_SERVER, SEARCH_TOOL, searchTools, selectTools, toolContext } from "../../src/orchestrator/tool-selection";

const tools = (server: string, n: number, verb = "lookup"): ToolView[] =>
  Array.from({ length: n }, (_, i) => ({
    server,
    name: `${verb}_${i}`,
    qualifiedName: `${server}.${verb}_${i}`,
    functionName: `${server}__${verb}_${i}`,
    description: `${verb} a ${server} record of kind ${i}`,
    inputSchema: { type: "object" },
  }));
const none = { usedServers: new Set<string>(), found: new Set<string>() };
const servers = (declared: ToolView[]) => [...new Set(declared.map((t) => t.server))];

describe("tool selection", () => {
  it("declares every tool, and no search tool, up to the threshold", () => {
    const all = [...tools("fs", 14), ...tools("crm", 36)];
    const selection = selectTools(all, none);
    expect(selection.declared).toHaveLength(50);
    expect(selection.search).toBeUndefined();
  });

  it("beyond it declares the smallest whole servers that fit, and a search naming what was left out", () => {
    const all = [...tools("ledger", 400), ...tools("fs", 14), ...tools("alpha", 30), ...tools("beta", 30)];
    const selection = selectTools(all, none);
    expect(servers(selection.declared)).toEqual(["fs", "alpha"]);
    expect(selection.search?.name).toBe(SEARCH_TOOL);
    expect(selection.search?.description).toContain("ledger (400)");
    expect(selection.search?.description).toContain("beta (30)");
    expect(selection.search?.description).not.toContain("fs (");
  });

  it("puts servers the conversation used first, and adds the tools its searches found", () => {
    const all = [...tools("ledger", 400), ...tools("fs", 14), ...tools("alpha", 30), ...tools("beta", 30)];
    const context = toolContext([
      { kind: "tool_call", callId: "1", server: "beta", tool: "lookup_3" },
      { kind: "tool_call", callId: "2", server: HOST_SERVER, tool: SEARCH_TOOL },
      { kind: "tool_result", callId: "2", server: HOST_SERVER, tool: SEARCH_TOOL, result: { tools: [{ name: "ledger__lookup_7" }, { bad: 1 }] } },
    ]);
    const selection = selectTools(all, context);
    expect(servers(selection.declared)).toEqual(["ledger", "fs", "beta"]);
    expect(selection.declared.filter((t) => t.server === "ledger").map((t) => t.functionName)).toEqual(["ledger__lookup_7"]);
  });

  it("finds a tool by its exact name first, else by the words of its name and description", () => {
    const all = [...tools("ledger", 40, "archive"), ...tools("ledger", 40, "export"), ...tools("crm", 20)];
    expect(searchTools(all, "ledger__archive_13").tools[0]?.name).toBe("ledger__archive_13");
    const found = searchTools(all, "export ledger").tools;
    expect(found).toHaveLength(8);
    expect(found.every((t) => t.name.startsWith("ledger__export_"))).toBe(true);
    expect(searchTools(all, "zzz").tools).toEqual([]);
  });
});
