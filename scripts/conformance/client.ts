// The client under test for the suite's client scenarios: `tsx scripts/conformance/client.ts
// --client host|sdk <server-url>`, run by the suite once per scenario with the scenario's
// name in MCP_CONFORMANCE_SCENARIO (and its data in MCP_CONFORMANCE_CONTEXT). Each
// scenario is a few plain steps over the Driver interface, so McpHost and the SDK's v2
// Client are asked to do exactly the same thing. Exit code 1 when a step threw (some
// scenarios expect that: a client must refuse a mismatched resource or issuer).
import { z } from "zod";
import { CIMD_URL, type Driver, type DriverOptions } from "./driver";
import { hostDriver } from "./host-driver";
import { sdkDriver } from "./sdk-driver";

const ContextSchema = z
  .object({
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    private_key_pem: z.string().optional(),
    idp_client_id: z.string().optional(),
    idp_id_token: z.string().optional(),
    idp_token_endpoint: z.string().optional(),
    signing_algorithm: z.string().optional(),
    toolCalls: z.array(z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) })).optional(),
  })
  .loose();

const args = process.argv.slice(2);
const which = args[args.indexOf("--client") + 1];
const url = args.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
if ((which !== "host" && which !== "sdk") || !url?.startsWith("http")) {
  console.error("usage: client.ts --client host|sdk <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)");
  process.exit(2);
}
const context = ContextSchema.parse(process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {});

/** What the client is given beyond the URL, by scenario. */
function optionsFor(name: string): DriverOptions {
  const options: DriverOptions = { url: url ?? "" };
  if (name.startsWith("auth/")) {
    options.oauth = { clientMetadataUrl: CIMD_URL };
    if (name.startsWith("auth/client-credentials") && context.client_id) {
      const { client_id: clientId, client_secret: clientSecret, private_key_pem: privateKeyPem, signing_algorithm: algorithm } = context;
      options.oauth.clientCredentials = { clientId, clientSecret, privateKeyPem, algorithm };
    } else if (context.client_id && context.client_secret && context.idp_client_id && context.idp_id_token && context.idp_token_endpoint) {
      const {
        client_id: clientId,
        client_secret: clientSecret,
        idp_client_id: idpClientId,
        idp_id_token: idpIdToken,
        idp_token_endpoint: idpTokenEndpoint,
      } = context;
      options.oauth.crossApp = { clientId, clientSecret, idpClientId, idpIdToken, idpTokenEndpoint };
    } else if (context.client_id) options.oauth.preRegistered = { clientId: context.client_id, clientSecret: context.client_secret };
  }
  if (name === "elicitation-sep1034-client-defaults") options.elicit = async () => ({ action: "accept", content: {} });
  if (name === "sep-2322-client-request-state") options.elicit = async () => ({ action: "accept", content: { confirmed: true } });
  return options;
}

type Steps = (client: Driver) => Promise<void>;

const listOnly: Steps = async (c) => void (await c.listTools());
const callNamed =
  (tool: string, toolArgs: Record<string, unknown> = {}): Steps =>
  async (c) => {
    const tools = await c.listTools();
    if (!tools.some((t) => t.name === tool)) throw new Error(`the server lists no tool ${tool}`);
    await c.callTool(tool, toolArgs);
  };

const steps: Record<string, Steps> = {
  initialize: listOnly,
  "request-metadata": listOnly,
  "json-schema-ref-no-deref": listOnly,
  tools_call: async (c) => {
    const tools = await c.listTools();
    if (tools.some((t) => t.name === "add_numbers")) await c.callTool("add_numbers", { a: 5, b: 3 });
  },
  "elicitation-sep1034-client-defaults": callNamed("test_client_elicitation_defaults"),
  "sse-retry": callNamed("test_reconnection"),
  "json-schema-2020-12-preservation": async (c) => {
    const focal = (await c.listTools()).find((t) => t.name === "json_schema_2020_12_tool");
    if (!focal) throw new Error("the server lists no json_schema_2020_12_tool");
    await c.callTool("json_schema_echo", { schema: focal.inputSchema });
  },
  "http-standard-headers": async (c) => {
    const tool = (await c.listTools())[0];
    if (tool) await c.callTool(tool.name, {});
    const resource = (await c.listResources())[0];
    if (resource) await c.readResource(resource.uri);
    const prompt = (await c.listPrompts())[0];
    if (prompt) await c.getPrompt(prompt.name);
  },
  "http-custom-headers": async (c) => {
    await c.listTools();
    for (const call of context.toolCalls ?? []) await c.callTool(call.name, call.arguments);
  },
  "http-invalid-tool-headers": async (c) => {
    // A conformant client drops the tools whose header annotations are invalid; it calls what is left.
    for (const tool of await c.listTools()) await c.callTool(tool.name, { region: "us-west1" }).catch(() => undefined);
  },
  "sep-2322-client-request-state": async (c) => {
    await c.callTool("test_mrtr_echo_state", {});
    await c.callTool("test_mrtr_no_state", {});
    await c.callTool("test_mrtr_unrelated", {});
    // No resultType: a client may refuse it; what counts is that it does not retry.
    await c.callTool("test_mrtr_no_result_type", {}).catch(() => undefined);
  },
};

/** Auth scenarios: sign in as the server asks, list, call its one tool. */
const authSteps: Steps = async (c) => {
  if ((await c.listTools()).some((t) => t.name === "test-tool")) await c.callTool("test-tool", {});
};

async function main(): Promise<void> {
  const driver = (which === "host" ? hostDriver : sdkDriver)(optionsFor(scenario));
  const run = steps[scenario] ?? (scenario.startsWith("auth/") ? authSteps : listOnly);
  try {
    await driver.connect();
    await run(driver);
  } finally {
    await driver.close().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`${which} ${scenario}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
