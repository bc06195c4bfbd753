// A new chat's example prompts (public/chat/welcome-prompts.js) and the no-model notice's
// one command (public/servers/no-model-command.js): plain JavaScript with no DOM.
import { describe, expect, it } from "vitest";

type Tool = { name: string; title?: string };
type Server = { name: string; enabled?: boolean; state?: string; tools?: Tool[] };
type Prompt = { text: string; server: string; tool: string };
type Setup = { running: "local" | "deployed"; variable: string; secret: boolean };
// The page's modules are checked as JavaScript on their own (public/tsconfig.json): loaded here by path, typed by hand.
const promptsPath = "../../public/chat/welcome-prompts.js";
const commandPath = "../../public/servers/no-model-command.js";
const { examplePrompts } = (await import(promptsPath)) as { examplePrompts: (servers: Server[], max?: number) => Prompt[] };
const { setupLine, keyLink } = (await import(commandPath)) as { setupLine: (s: Setup) => string; keyLink: (s: Setup) => string | null };

const tools = (...names: string[]) => names.map((name) => ({ name }));

describe("example prompts", () => {
  it("come from the tools of servers that are on and ready, the likeliest ask first, two per server", () => {
    const filesystem = { name: "filesystem", state: "ready", enabled: true, tools: tools("read_text_file", "write_file", "search_files", "list_directory") };
    expect(examplePrompts([filesystem]).map((p) => [p.server, p.tool])).toEqual([
      ["filesystem", "list_directory"],
      ["filesystem", "read_text_file"],
    ]);
    const fetcher = { name: "web", state: "ready", enabled: true, tools: tools("fetch") };
    const clock = { name: "clock", state: "ready", enabled: true, tools: tools("get_current_time") };
    // Each server's first prompt comes before any second one, four at most.
    expect(examplePrompts([filesystem, fetcher, clock]).map((p) => p.tool)).toEqual(["list_directory", "fetch", "get_current_time", "read_text_file"]);
    expect(examplePrompts([filesystem, fetcher, clock], 2)).toHaveLength(2);
  });

  it("ask what an unknown server's tools do, and give none for servers off, not ready or without tools", () => {
    const odd = { name: "billing", state: "ready", enabled: true, tools: [{ name: "refund_order", title: "Refund an order" }] };
    expect(examplePrompts([odd])).toEqual([
      { text: "What can you do with the billing tools? Show me with Refund an order.", server: "billing", tool: "refund_order" },
    ]);
    expect(examplePrompts([{ ...odd, enabled: false }])).toEqual([]);
    expect(examplePrompts([{ ...odd, state: "failed" }])).toEqual([]);
    expect(examplePrompts([{ ...odd, tools: [] }])).toEqual([]);
  });

  it("never repeat a prompt two servers would both give", () => {
    const a = { name: "a", tools: tools("fetch") };
    const b = { name: "b", tools: tools("fetch_url") };
    expect(examplePrompts([a, b]).map((p) => p.text)).toEqual([
      "Fetch https://example.com and summarise the page.",
      "What can you do with the b tools? Show me with fetch_url.",
    ]);
  });
});

describe("the no-model notice's one command", () => {
  it("is the .dev.vars line and a restart under wrangler dev, a secret put or a deploy when deployed", () => {
    expect(setupLine({ running: "local", variable: "GEMINI_API_KEY", secret: true })).toBe(
      "Run `echo 'GEMINI_API_KEY=your-key' >> .dev.vars`, then restart `npm run dev`.",
    );
    expect(setupLine({ running: "local", variable: "OPENAI_MODEL", secret: false })).toBe("Set `OPENAI_MODEL` in `.dev.vars`, then restart `npm run dev`.");
    expect(setupLine({ running: "deployed", variable: "GEMINI_API_KEY", secret: true })).toBe("Run `npx wrangler secret put GEMINI_API_KEY`.");
    expect(setupLine({ running: "deployed", variable: "MODEL_PROVIDERS", secret: false })).toBe(
      "Set `MODEL_PROVIDERS` under `[vars]` in `wrangler.toml`, then run `npx wrangler deploy`.",
    );
  });

  it("links to where a Gemini key is made, and nowhere for other variables", () => {
    expect(keyLink({ running: "local", variable: "GEMINI_API_KEY", secret: true })).toBe("https://aistudio.google.com/apikey");
    expect(keyLink({ running: "deployed", variable: "OPENAI_API_KEY", secret: true })).toBeNull();
  });
});
