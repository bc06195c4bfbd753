// The fetch the Worker uses for a person's own addresses (their MCP servers and OAuth
// servers, their model providers, the Test buttons): redirects are followed here, by hand,
// and every hop is checked against the address rule (url-policy.ts) before it is fetched.
// A runtime's own redirect following would take an allowed host's `302 Location:
// http://127.0.0.1/secret` (or a cloud metadata address) without asking. At most
// MAX_REDIRECTS hops. A hop to another origin carries only headers that cannot hold a
// secret: the key or token given for one address does not follow a redirect elsewhere.
import { EdgehostError } from "../shared/errors";
import { serverUrlRefusal, type UrlPolicy } from "./url-policy";

export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Headers that may go on to another origin: none of them can carry a credential. */
const PORTABLE_HEADERS = new Set([
  "accept",
  "accept-language",
  "anthropic-version",
  "cache-control",
  "content-type",
  "last-event-id",
  "mcp-protocol-version",
  "traceparent",
  "user-agent",
]);

/** A person's outbound request refused: its address, or a redirect's, is not one this Worker may reach. */
export class OutboundRefusedError extends EdgehostError {
  readonly code = "server_url_refused";
}

function portable(headers: Headers): Headers {
  const kept = new Headers();
  for (const [name, value] of headers) if (PORTABLE_HEADERS.has(name.toLowerCase())) kept.set(name, value);
  return kept;
}

export function guardedFetch(policy: UrlPolicy, base: typeof fetch = (input, init) => fetch(input, init), maxRedirects = MAX_REDIRECTS): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    let url = new URL(request ? request.url : input instanceof URL ? input.href : String(input));
    let method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    let headers = new Headers(init?.headers ?? request?.headers);
    // A Request's body is read once here, so that a 307/308 can send it again.
    let body: BodyInit | null | undefined = init?.body ?? (request?.body ? await request.arrayBuffer() : undefined);
    const signal = init?.signal ?? request?.signal;
    for (let hop = 0; ; hop++) {
      const why = serverUrlRefusal(url.href, policy);
      if (why) throw new OutboundRefusedError(hop === 0 ? why : `a redirect led to ${why}`);
      const response = await base(url.href, { ...init, method, headers, body, signal, redirect: "manual" });
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null) return response;
      await response.body?.cancel().catch(() => undefined);
      if (hop >= maxRedirects) throw new OutboundRefusedError(`${url.origin} redirected more than ${maxRedirects} times`);
      const next = new URL(location, url);
      if (next.protocol !== "http:" && next.protocol !== "https:") throw new OutboundRefusedError(`a redirect led to a ${next.protocol} address`);
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
        // As browsers do: the redirect is fetched with GET, without the body.
        if (method !== "HEAD") method = "GET";
        body = undefined;
        headers.delete("content-type");
      } else if (body instanceof ReadableStream) {
        throw new OutboundRefusedError(`${url.origin} redirected a streamed request, which cannot be sent again`);
      }
      if (next.origin !== url.origin) headers = portable(headers);
      url = next;
    }
  };
}
