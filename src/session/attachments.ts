// Resources attached to a chat message: checked (server known, enabled for this
// session, ready; resource readable), read at send time, kept in the session's
// AttachmentStore, subscribed to where the server allows it, re-read when the
// server says one changed (the page is told, later turns use the new contents),
// and unsubscribed when the history that named them is cleared.
import type { UserPart } from "../llm/provider";
import { CatalogError, canSubscribe, subscribe, templatedName, unsubscribe } from "../mcp/catalog";
import type { McpHost } from "../mcp/host";
import { resourceParts } from "../orchestrator/resource-parts";
import { EdgehostError } from "../shared/errors";
import { errorMessage } from "../shared/logger";
import type { AttachmentStore } from "./attachment-store";
import type { HistoryEntry, ServerMessage } from "../protocol/messages";

/** Resources one message may carry: each is read and sent to the model with every later turn. */
export const MAX_ATTACHMENTS = 8;

export type AttachmentRef = { server: string; uri: string };
export type AttachedEntry = NonNullable<HistoryEntry["attachments"]>[number];

export interface SessionAttachmentsDeps {
  store: AttachmentStore;
  host: () => McpHost;
  /** Whether the session configured `server` at all, and whether it is enabled for this session. */
  configured: (server: string) => boolean;
  enabled: (server: string) => boolean;
  /** Longest text (characters) of one attached content handed to the model. */
  maxChars: () => number;
  broadcast: (message: ServerMessage) => void;
  keepAliveWhile: <T>(work: () => Promise<T>) => Promise<T>;
  warn: (message: string) => void;
}

export class SessionAttachments {
  private readonly watched = new WeakSet<McpHost>();

  constructor(private readonly deps: SessionAttachmentsDeps) {}

  /** The server, if this session may use it now; a typed error naming what is wrong otherwise. */
  checkServer(server: string): void {
    if (!this.deps.configured(server)) throw new CatalogError("unknown_server", `no MCP server is named "${server}"`, server);
    if (!this.deps.enabled(server)) throw new CatalogError("server_disabled", `MCP server "${server}" is turned off for this session`, server);
    const connection = this.deps.host().connectionFor(server);
    if (connection?.state !== "ready") {
      throw new CatalogError(
        "server_unavailable",
        `MCP server "${server}" is ${connection?.state ?? "not connected"}${connection?.lastError ? `: ${connection.lastError}` : ""}`,
        server,
      );
    }
  }

  /** Reads each resource now and keeps its contents; what the user entry records. Throws before storing anything when one fails. */
  async attach(refs: readonly AttachmentRef[]): Promise<AttachedEntry[]> {
    const unique = [...new Map(refs.map((r) => [`${r.server}\u0000${r.uri}`, r])).values()];
    if (unique.length > MAX_ATTACHMENTS)
      throw new CatalogError("too_many_attachments", `a message may carry at most ${MAX_ATTACHMENTS} resources (got ${unique.length})`);
    for (const ref of unique) this.checkServer(ref.server);
    const host = this.deps.host();
    this.watch(host);
    const read = await Promise.all(unique.map(async (ref) => ({ ref, contents: (await this.read(host, ref)).contents })));
    const attached: AttachedEntry[] = [];
    for (const { ref, contents } of read) {
      const listed = host.connectionFor(ref.server)?.resources.find((r) => r.uri === ref.uri);
      const name = listed?.title ?? listed?.name ?? templatedName(host, ref.server, ref.uri);
      const mimeType = listed?.mimeType ?? contents[0]?.mimeType;
      this.deps.store.put({ ...ref, name, mimeType, source: "resource", contents });
      attached.push({ ...ref, ...(name ? { name } : {}), ...(mimeType ? { mimeType } : {}) });
    }
    // Subscribing is a courtesy: a refusal leaves the attachment as it was read.
    void this.deps.keepAliveWhile(() => Promise.all(unique.map((ref) => this.subscribeTo(host, ref))));
    return attached;
  }

  /** A user entry's attachments as model parts, from the latest stored contents. */
  parts(entry: Pick<HistoryEntry, "attachments">): UserPart[] | undefined {
    if (!entry.attachments?.length) return undefined;
    // Connections rebuilt since (a restart, a changed server list): subscribe again on the new ones.
    const host = this.deps.host();
    void this.deps.keepAliveWhile(() => this.resubscribe(host)).catch(() => undefined);
    return entry.attachments.flatMap((ref): UserPart[] => {
      const stored = this.deps.store.get(ref.server, ref.uri);
      if (!stored) return [{ type: "text", text: `[attached resource ${ref.uri} from "${ref.server}" is no longer available]` }];
      return resourceParts({ server: ref.server, uri: ref.uri, name: ref.name }, stored.contents, this.deps.maxChars());
    });
  }

  /**
   * Subscribes again to every attached resource of `host` (a new connection forgot the
   * old subscriptions). A host already watched needs nothing: its servers are subscribed
   * again whenever they turn ready (see watch).
   */
  async resubscribe(host: McpHost): Promise<void> {
    if (this.watched.has(host)) return;
    this.watch(host);
    await Promise.all(this.deps.store.attached().map((ref) => this.subscribeTo(host, ref)));
  }

  /** The history that named the attachments is gone: stop listening and forget the contents. */
  async forget(host: McpHost | undefined): Promise<void> {
    const attached = this.deps.store.attached();
    this.deps.store.clear();
    if (!host) return;
    await Promise.all(attached.map((ref) => unsubscribe(host, ref.server, ref.uri).catch(() => undefined)));
  }

  private watch(host: McpHost): void {
    if (this.watched.has(host)) return;
    this.watched.add(host);
    host.onResourceUpdated((server, uri) => {
      if (!this.deps.store.get(server, uri)) return;
      void this.deps.keepAliveWhile(() => this.refresh(host, { server, uri }));
    });
    // A reconnect opens a new MCP session at the server, which knows nothing of ours.
    host.onChange((server, kind) => {
      if (kind !== "state" || host.connectionFor(server)?.state !== "ready") return;
      const attached = this.deps.store.attached(server);
      if (attached.length > 0) void this.deps.keepAliveWhile(() => Promise.all(attached.map((ref) => this.subscribeTo(host, ref))));
    });
  }

  private async refresh(host: McpHost, ref: AttachmentRef): Promise<void> {
    const stored = this.deps.store.get(ref.server, ref.uri);
    if (!stored) return;
    try {
      const { contents } = await host.readResource(ref.uri, { server: ref.server, bypassCache: true });
      this.deps.store.put({ ...stored, contents });
      this.deps.broadcast({ type: "resource_updated", server: ref.server, uri: ref.uri });
    } catch (error) {
      this.deps.warn(`edgehost: could not re-read ${ref.uri} from "${ref.server}" after an update: ${errorMessage(error)}`);
    }
  }

  private async read(host: McpHost, ref: AttachmentRef) {
    try {
      return await host.readResource(ref.uri, { server: ref.server, bypassCache: true });
    } catch (error) {
      // The server is there (checked above): a failed read is this resource's fault, unless the server went away meanwhile.
      if (error instanceof EdgehostError && (error.code === "server_unavailable" || error.code === "tool_timeout")) throw error;
      throw new CatalogError("resource_not_found", `MCP server "${ref.server}" could not read "${ref.uri}": ${errorMessage(error)}`, ref.server);
    }
  }

  private async subscribeTo(host: McpHost, ref: AttachmentRef): Promise<void> {
    if (!canSubscribe(host, ref.server)) return;
    await subscribe(host, ref.server, ref.uri).catch((error: unknown) =>
      this.deps.warn(`edgehost: could not subscribe to ${ref.uri} at "${ref.server}": ${errorMessage(error)}`),
    );
  }
}
