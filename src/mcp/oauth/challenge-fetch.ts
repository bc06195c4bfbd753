// The challenge a server sent, whatever request it came on. Some servers let
// `initialize` through and ask for a token only at `tools/list`, or ask for a wider
// scope (403 insufficient_scope) only when one tool is called; a sign-in that probes
// `initialize` again would find nothing to answer. A session's requests go through this
// fetch, which keeps each 401 or insufficient_scope challenge (its resource metadata
// URL and the scope it names) for the user's next sign-in (sign-in.ts).
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/client";
import type { StoredChallenge } from "./provider";

export function challengeRecordingFetch(record: (challenge: StoredChallenge) => Promise<void>, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.status === 401 || response.status === 403) {
      const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(response);
      if (response.status === 401 || error === "insufficient_scope") {
        await record({
          ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.toString() } : {}),
          ...(scope ? { scope } : {}),
          status: response.status,
          at: Date.now(),
        }).catch(() => undefined);
      }
    }
    return response;
  };
}
