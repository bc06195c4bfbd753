// Change notifications of a child that speaks 2026 itself (native-face.ts), for the
// bridge's 2025 sessions. Such a child sends `list_changed` and `resources/updated` only on
// a `subscriptions/listen` stream, and has no `resources/subscribe`. So the face keeps one
// listen open at the child on the sessions' behalf, asking for every list the child says
// can change and the resources the sessions subscribed to: its notifications go to the
// proxy as a 2025 child's would (to every session, or a resource's subscribers), and a
// session's `resources/subscribe` / `unsubscribe` is answered here and opens the listen
// again with the new set (the old one is cancelled).
import type { JSONRPCMessage, JSONRPCNotification, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { META } from "./modern-protocol";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The listen requests' ids: below the handshake's (-1, -2), never a forwarded request's (positive). */
const FIRST_ID = -3;

export class LegacyListen {
  private id = 0;
  private readonly uris = new Set<string>();
  private readonly lists: Json;

  constructor(
    capabilities: Json,
    private readonly envelope: Json,
    private readonly io: { write(message: JSONRPCMessage): boolean; emit(message: JSONRPCMessage): void },
  ) {
    // What the child says can change: asking for a list it does not declare would be refused.
    const changes = (kind: string) => isObject(capabilities[kind]) && capabilities[kind].listChanged === true;
    this.lists = {
      ...(changes("tools") ? { toolsListChanged: true } : {}),
      ...(changes("prompts") ? { promptsListChanged: true } : {}),
      ...(changes("resources") ? { resourcesListChanged: true } : {}),
    };
  }

  /** Opens the listen (again, with the current resources), cancelling the one before. */
  open(): void {
    if (this.id !== 0) this.io.write({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: this.id, reason: "subscriptions changed" } });
    const notifications = { ...this.lists, ...(this.uris.size > 0 ? { resourceSubscriptions: [...this.uris] } : {}) };
    if (Object.keys(notifications).length === 0) return void (this.id = 0);
    this.id = this.id === 0 ? FIRST_ID : this.id - 1;
    this.io.write({ jsonrpc: "2.0", id: this.id, method: "subscriptions/listen", params: { notifications, _meta: this.envelope } });
  }

  /** A 2025 session's resources/subscribe or unsubscribe: answered here; false for any other request. */
  subscription(request: JSONRPCRequest): boolean {
    if (request.method !== "resources/subscribe" && request.method !== "resources/unsubscribe") return false;
    const uri = (request.params as Json | undefined)?.uri;
    if (typeof uri === "string") {
      const had = this.uris.has(uri);
      if (request.method === "resources/subscribe") this.uris.add(uri);
      else this.uris.delete(uri);
      if (had !== this.uris.has(uri)) this.open();
    }
    this.io.emit({ jsonrpc: "2.0", id: request.id, result: {} });
    return true;
  }

  /** A child's message on this listen: its notifications go on as a 2025 child's, the rest stops here; false when not this listen's. */
  take(message: JSONRPCMessage): boolean {
    if (this.id === 0) return false;
    if ("id" in message && message.id !== undefined && typeof message.id === "number" && message.id <= FIRST_ID) return true; // a listen's end
    if (!("method" in message) || "id" in message) return false;
    const params = (message.params ?? {}) as Json;
    const meta = isObject(params._meta) ? params._meta : {};
    const subscription = meta[META.subscriptionId];
    if (typeof subscription !== "number" || subscription > FIRST_ID) return false;
    if (subscription !== this.id || message.method === "notifications/subscriptions/acknowledged") return true;
    const { [META.subscriptionId]: _, ...rest } = meta;
    const notification: JSONRPCNotification = { ...message, params: { ...params, _meta: rest } };
    if (Object.keys(rest).length === 0) delete notification.params?._meta;
    this.io.emit(notification);
    return true;
  }
}
