// A server that refused the revision the host offered (JSON-RPC -32022,
// UnsupportedProtocolVersion): said as such, naming the revisions each side speaks,
// rather than read as an old SSE-only server. And the rule for that fallback: a 4xx
// whose body is a JSON-RPC error came from a Streamable HTTP server refusing something,
// not from a 2024 server that has no POST endpoint.
import { SdkHttpError, SUPPORTED_PROTOCOL_VERSIONS, UnsupportedProtocolVersionError } from "@modelcontextprotocol/client";
import { z } from "zod";
import { ProtocolError } from "./errors";
import { hostRevisions } from "./protocol-era";

const UNSUPPORTED_PROTOCOL_VERSION = -32022;
// Revisions are dates; a server's list is cut short and to that shape before it is shown.
const Revision = z.string().regex(/^[0-9A-Za-z.-]{1,20}$/);
const RpcErrorBody = z.object({
  jsonrpc: z.literal("2.0"),
  error: z.object({ code: z.number().int(), message: z.string().optional(), data: z.unknown().optional() }),
});
const RefusalData = z.object({ supported: z.array(Revision).min(1).max(20), requested: Revision.optional() });

/** The JSON-RPC error an HTTP error's body carried, if it was one. */
function rpcErrorOf(error: SdkHttpError): z.infer<typeof RpcErrorBody>["error"] | undefined {
  const text = error.data?.text;
  if (typeof text !== "string" || text.length > 64_000) return undefined;
  try {
    const parsed = RpcErrorBody.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}

/** True when a failed HTTP request was answered with a JSON-RPC error: the server speaks Streamable HTTP. */
export function answeredInJsonRpc(error: unknown): boolean {
  return error instanceof SdkHttpError && rpcErrorOf(error) !== undefined;
}

function refusalOf(error: unknown): { supported: string[]; requested?: string } | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof UnsupportedProtocolVersionError) {
      const parsed = RefusalData.safeParse({ supported: e.supported, requested: e.requested });
      return parsed.success ? parsed.data : { supported: [] };
    }
    if (e instanceof SdkHttpError) {
      const rpc = rpcErrorOf(e);
      if (rpc?.code !== UNSUPPORTED_PROTOCOL_VERSION) continue;
      const parsed = RefusalData.safeParse(rpc.data);
      return parsed.success ? parsed.data : { supported: [] };
    }
  }
  return undefined;
}

/** A typed error saying which revisions the server and the host speak, when `error` was a version refusal. */
export function versionRefusalError(server: string, error: unknown): ProtocolError | undefined {
  const refusal = refusalOf(error);
  if (!refusal) return undefined;
  const theirs = refusal.supported.length > 0 ? refusal.supported.join(", ") : "a revision it did not name";
  const offered = refusal.requested ? ` (it was offered ${refusal.requested})` : "";
  return new ProtocolError(
    server,
    `the server refused this host's MCP revision${offered}: it speaks ${theirs}; this host speaks ${hostRevisions(SUPPORTED_PROTOCOL_VERSIONS).join(", ")}`,
    UNSUPPORTED_PROTOCOL_VERSION,
  );
}
