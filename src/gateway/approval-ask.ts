// Approvals at /mcp asked through the client itself (design §2.5 3a, 3c, 3e): a tool that
// would ask in the chat answers the client's call with an `input_required` elicitation
// (once / always for this app / deny). A 2026 client answers by retrying the call; on a
// 2025 session the SDK's legacy shim sends a real `elicitation/create` and re-enters the
// handler, so this is written once for both eras. The retry carries our `requestState`
// back: HMAC-sealed with a key of this app object, naming the tool and a hash of its
// arguments, so an answer is only ever taken for the very call it was asked about.
import type { ClientCapabilities, InputRequiredResult, RequestStateCodec, ServerContext } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Approvals, SettingsStore } from "../approval/approvals";
import type { ServerLib } from "./server-lib";

/** How long a question asked of the client may be answered (the codec's expiry). */
const ASK_TTL_SECONDS = 600;
/** The app object's HMAC key for requestState, kept in its own storage (survives an eviction mid-question). */
const KEY_SETTING = "approvalStateKey";
/** The key of our one input request in `inputRequests` / `inputResponses`. */
const ASK_KEY = "approve";

export interface AskState {
  tool: string;
  argsHash: string;
}

/** What the client answered: only a form accept with one of our three choices counts. */
const Decision = z.object({ decision: z.enum(["once", "always", "deny"]) });

export interface ApprovalAsk {
  lib: ServerLib;
  codec: RequestStateCodec<AskState>;
  /** The client's name as it registered, for the question. */
  appName: string;
  ctx: ServerContext;
  /** The 2025 session's initialize capabilities (the 2026 envelope carries its own). */
  sessionCapabilities?: ClientCapabilities;
}

export type AskOutcome = { run: true } | { run: false; ask: InputRequiredResult } | { run: false; denied: true } | { run: false; cannotAsk: true };

const codecs = new WeakMap<SettingsStore, RequestStateCodec<AskState>>();

/** The app's requestState codec, its key made once and kept in the app's storage. */
export function askCodec(lib: ServerLib, store: SettingsStore): RequestStateCodec<AskState> {
  let codec = codecs.get(store);
  if (codec) return codec;
  let key = store.getSetting<string>(KEY_SETTING);
  if (!key) {
    key = base64url(crypto.getRandomValues(new Uint8Array(32)));
    store.setSetting(KEY_SETTING, key);
  }
  codec = lib.createRequestStateCodec<AskState>({ key, ttlSeconds: ASK_TTL_SECONDS });
  codecs.set(store, codec);
  return codec;
}

/** Whether the client can be asked: it declared form elicitation (2026: on this request; 2025: at initialize). */
export function canElicit(ask: ApprovalAsk): boolean {
  // The installed types declare the envelope as `{}`: its keys are read as a record.
  const envelope = ask.ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const fromEnvelope = envelope?.[ask.lib.CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  const elicitation = (fromEnvelope ?? ask.sessionCapabilities)?.elicitation;
  // An empty elicitation capability means form mode (the spec's backwards-compatible default).
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/**
 * The approval step of one call that needs it: run (asked and allowed, "always" remembered
 * for this app), ask (the input_required to return), denied, or the client cannot be asked.
 */
export async function askApproval(
  approvals: Approvals,
  ask: ApprovalAsk,
  call: { server: string; tool: string; qualified: string; args: Record<string, unknown> },
): Promise<AskOutcome> {
  const argsHash = await hashArgs(call.args);
  const answered = await answerFor(ask, call.qualified, argsHash);
  if (answered === "deny") return { run: false, denied: true };
  if (answered === "once" || answered === "always") {
    if (answered === "always") approvals.remember(`${call.server}.${call.tool}`);
    return { run: true };
  }
  if (!canElicit(ask)) return { run: false, cannotAsk: true };
  const { inputRequired } = ask.lib;
  const requestState = await ask.codec.mint({ tool: call.qualified, argsHash });
  const message = `${ask.appName} wants to run ${call.server}.${call.tool} with ${preview(call.args)}`;
  return {
    run: false,
    ask: inputRequired({
      inputRequests: {
        [ASK_KEY]: inputRequired.elicit({
          message,
          requestedSchema: {
            type: "object",
            properties: {
              decision: {
                type: "string",
                title: "Allow?",
                oneOf: [
                  { const: "once", title: "Allow once" },
                  { const: "always", title: `Always allow for ${ask.appName}` },
                  { const: "deny", title: "Deny" },
                ],
              },
            },
            required: ["decision"],
          },
        }),
      },
      requestState,
    }),
  };
}

/**
 * The person's answer carried by this retry, when it is one for this very call: a state we
 * sealed (not expired) for this tool and these arguments. Anything else — no state, a
 * tampered or stale one, another call's — is no answer, and the person is asked again.
 * An answer for this call that is not an accepted once/always is a deny.
 */
async function answerFor(ask: ApprovalAsk, qualified: string, argsHash: string): Promise<"once" | "always" | "deny" | undefined> {
  const raw = ask.ctx.mcpReq.requestState<unknown>();
  if (typeof raw !== "string") return undefined;
  let state: AskState;
  try {
    state = await ask.codec.verify(raw, ask.ctx);
  } catch {
    return undefined;
  }
  if (state.tool !== qualified || state.argsHash !== argsHash) return undefined;
  const view = ask.lib.inputResponse(ask.ctx.mcpReq.inputResponses, ASK_KEY);
  if (view.kind !== "elicit") return undefined;
  if (view.action !== "accept") return "deny";
  const parsed = Decision.safeParse(view.content);
  return parsed.success ? parsed.data.decision : "deny";
}

/** SHA-256 of the arguments as canonical JSON (keys sorted at every depth). */
export async function hashArgs(args: Record<string, unknown>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonicalJson(args)));
  return base64url(new Uint8Array(digest));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The arguments as the person sees them in the question, cut short (a form message is not a place for a file). */
const PREVIEW_CHARS = 300;
function preview(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
}

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
