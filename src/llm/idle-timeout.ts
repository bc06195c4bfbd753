// Ends a model request that has sent nothing for too long: a stream that stalls
// (a hung connection, a stuck proxy) would otherwise hold the turn until the
// platform gives up. The clock restarts at every event the model sends: each event
// only notes the time, and one timer checks it when it fires (re-arming a timer per
// event cost more than the rest of the stream's handling in workerd).
import { LlmError, type LlmEvent, type LlmProvider, type LlmRequest } from "./provider";

export class LlmIdleError extends LlmError {
  override readonly code = "llm_idle";
}

export function withIdleTimeout(provider: LlmProvider, idleMs: number): LlmProvider {
  async function* stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
    const controller = new AbortController();
    const forward = () => controller.abort(request.signal?.reason);
    if (request.signal?.aborted) forward();
    else request.signal?.addEventListener("abort", forward, { once: true });
    let idle = false;
    let last = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      const quiet = Date.now() - last;
      if (quiet < idleMs) {
        timer = setTimeout(check, idleMs - quiet);
        return;
      }
      idle = true;
      controller.abort("idle");
    };
    try {
      timer = setTimeout(check, idleMs);
      for await (const event of provider.stream({ ...request, signal: controller.signal })) {
        last = Date.now();
        yield event;
      }
    } catch (error) {
      if (idle && !request.signal?.aborted) {
        throw new LlmIdleError(
          `The model sent nothing for ${Math.round(idleMs / 1000)} s, so the turn was stopped. Try again, or check the model endpoint.`,
          undefined,
          false,
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", forward);
    }
  }
  return { name: provider.name, model: provider.model, stream };
}
