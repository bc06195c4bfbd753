// A tool call a server refuses with `-32042` (URLElicitationRequiredError, MCP 2025-11-25):
// the person must first finish something at a URL. The spec's flow: the client shows the
// URL elicitations the error lists (consent, then open), the server says when each is done
// (`notifications/elicitation/complete`), and the client may then retry the original call.
// The host does that retry itself, once: the model's call goes on as if the question had
// come inside the call, instead of the model being told to try again and the person having
// to ask it. A second -32042, a decline, or no completion leaves the call failed, saying why.
// (A 2026-07-28 server never sends -32042: its URL questions come in input_required results.)
import { UrlElicitationRequiredError } from "@modelcontextprotocol/client";
import { z } from "zod";
import { ProtocolError } from "./errors";

const URL_ELICITATION_REQUIRED = -32042;

/** What a -32042 lists; anything else in the list is not shown to anyone. */
const ElicitationsSchema = z
  .array(z.object({ mode: z.literal("url"), elicitationId: z.string().min(1).max(256), url: z.string().max(8192), message: z.string().max(4000) }))
  .min(1)
  .max(4);
export type RequiredUrlElicitation = z.infer<typeof ElicitationsSchema>[number];

/** The person's side: true once every listed URL was agreed to and is complete, else why not (for the model). */
export type UrlElicitationRequiredHandler = (request: {
  server: string;
  elicitations: RequiredUrlElicitation[];
  signal?: AbortSignal;
}) => Promise<true | string>;

export async function retryAfterUrlElicitation<T>(
  send: () => Promise<T>,
  server: string,
  handler: UrlElicitationRequiredHandler | undefined,
  signal?: AbortSignal,
): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!handler || !(error instanceof UrlElicitationRequiredError)) throw error;
    const listed = ElicitationsSchema.safeParse(error.elicitations);
    if (!listed.success)
      throw new ProtocolError(
        server,
        `asked for URL elicitations the host cannot show (${listed.error.issues[0]?.message ?? "invalid"})`,
        URL_ELICITATION_REQUIRED,
      );
    const outcome = await handler({ server, elicitations: listed.data, ...(signal ? { signal } : {}) });
    // Stopped while the person was asked or awaited: the call was cancelled (call.ts reads the signal).
    if (signal?.aborted) throw error;
    if (outcome !== true) throw new ProtocolError(server, outcome, URL_ELICITATION_REQUIRED);
    return send();
  }
}
