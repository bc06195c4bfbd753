// The transport a connection hands the SDK's Client: the real one (Streamable HTTP or
// SSE), with the messages still being sent remembered, so closing the connection lets
// them (e.g. a cancellation) go out first. A wrapper, not a patched SDK method: the
// Client sets its handlers on this object and they are passed through.
import { StreamableHTTPClientTransport, type Client, type JSONRPCMessage, type Transport, type TransportSendOptions } from "@modelcontextprotocol/client";
import { liftTaskResult } from "./tasks";

const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms))]);

export class TrackedTransport implements Transport {
  private readonly sending = new Set<Promise<void>>();

  constructor(readonly inner: Transport) {}

  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }
  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }
  set onclose(handler: Transport["onclose"]) {
    this.inner.onclose = handler;
  }
  get onclose(): Transport["onclose"] {
    return this.inner.onclose;
  }
  set onerror(handler: Transport["onerror"]) {
    this.inner.onerror = handler;
  }
  get onerror(): Transport["onerror"] {
    return this.inner.onerror;
  }
  set onmessage(handler: Transport["onmessage"]) {
    // A task's CreateTaskResult, which the SDK 2.4 cannot read, lifted into a result it can (tasks.ts).
    this.inner.onmessage = handler && ((message, extra) => handler(liftTaskResult(message), extra));
  }
  get onmessage(): Transport["onmessage"] {
    return this.inner.onmessage;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const sent = this.inner.send(message, options);
    this.sending.add(sent);
    void sent.catch(() => undefined).finally(() => this.sending.delete(sent));
    return sent;
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.inner.setSupportedProtocolVersions?.(versions);
  }

  /**
   * Closes `client`, the client of this transport, politely and never for long: messages still
   * going out first (1 s at most), then the server's session ended (DELETE, 2 s at most: closing
   * only aborts locally, and the session would live on until its idle expiry), then the client.
   */
  end(client: Client): Promise<void> {
    const inner = this.inner;
    return within(Promise.allSettled([...this.sending]), 1_000)
      .then(() =>
        inner instanceof StreamableHTTPClientTransport && inner.sessionId
          ? within(
              inner.terminateSession().catch(() => undefined),
              2_000,
            )
          : undefined,
      )
      .then(() => client.close())
      .catch(() => undefined);
  }
}
