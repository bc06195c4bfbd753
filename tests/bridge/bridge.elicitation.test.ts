// Elicitation form defaults end to end: the host (src/mcp, as the Worker runs it)
// advertises `elicitation.form.applyDefaults`, and a server asking through the real
// bridge receives the schema's defaults for every field the user left out of an
// accepted form, while the user's own values stay. server-everything's
// trigger-elicitation-request echoes the answer it got.
import { describe, expect, it } from "vitest";
import { capabilitiesFor } from "../../src/mcp/server-requests";
import { bridgedHost } from "../fixtures/host";
import { everythingServer } from "../fixtures/servers";

describe("McpHost elicitation defaults", () => {
  it("advertises applyDefaults for form mode only when an elicitation handler is set", () => {
    expect(capabilitiesFor({ elicitation: async () => ({ action: "cancel" }) }).elicitation).toEqual({ form: { applyDefaults: true } });
    expect(capabilitiesFor({}).elicitation).toBeUndefined();
  });

  it("sends the server the schema's defaults for fields the user left untouched, and the user's own values as given", async () => {
    const made = await bridgedHost([everythingServer("ev")]);
    const asked: Record<string, unknown>[] = [];
    made.host.onServerRequest({
      elicitation: async ({ params }) => {
        asked.push(params as Record<string, unknown>);
        return { action: "accept", content: { name: "Ada", integer: 7 } };
      },
    });
    await made.host.connect(made.config);
    const result = await made.host.callTool("ev.trigger-elicitation-request", {});
    const raw = (result.content as { text: string }[]).map((c) => c.text).join("\n");
    const received = JSON.parse(raw.slice(raw.indexOf("{"))) as { action: string; content: Record<string, unknown> };
    expect(received.action).toBe("accept");
    expect(received.content).toEqual({
      name: "Ada",
      integer: 7,
      firstLine: "It was a dark and stormy night.",
      number: 3.14,
      untitledSingleSelectEnum: "Monica",
      untitledMultipleSelectEnum: ["Guitar"],
      titledSingleSelectEnum: "hero-1",
      titledMultipleSelectEnum: ["fish-1"],
      legacyTitledEnum: "pet-1",
    });
    // Fields without a default stay absent: the user did not give them.
    expect(received.content).not.toHaveProperty("check");
    expect(asked).toHaveLength(1);
  });
});
