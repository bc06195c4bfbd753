// The chat session Durable Object. The WebSocket protocol, history and tool loop
// arrive with the chat-session work; until then the class exists so the SQLite
// migration in wrangler.toml has its class.
import { DurableObject } from "cloudflare:workers";

export class ChatSession extends DurableObject {
  override async fetch(): Promise<Response> {
    return Response.json({ error: { code: "not_implemented", message: "chat sessions are not available yet" } }, { status: 501 });
  }
}
