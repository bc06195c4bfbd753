// Tells the connection when a server's event stream breaks before it ends (the server or
// the bridge went away mid-answer). The request waiting on that stream would otherwise
// wait for its timeout: @modelcontextprotocol/client 2.4.0 reports the break only as a
// plain Error through `onerror` (no SdkError code, no type of its own), and the request
// stays open. So the fetch the transport uses watches the stream itself: a read that
// fails while the request was not aborted by us is a broken stream, by type, not by text.
export function watchStreams(base: typeof fetch, onBroken: (error: unknown) => void): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) return response;
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          // Our own abort (closing the connection, cancelling the request) is not a break.
          if (!signal?.aborted) onBroken(error);
          controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
