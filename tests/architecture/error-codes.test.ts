// The closed table of error codes (src/shared/error-codes.ts): every code has a real HTTP
// error status and a JSON-RPC number, the WebSocket schema takes exactly the `ws` codes,
// and a code outside the table does not compile (checked by `npm run typecheck`).
import { describe, expect, it } from "vitest";
import { errorBody } from "../../src/shared/error-body";
import { ERROR_CODE_NAMES, ERROR_CODES, jsonRpcError, WS_ERROR_CODE_NAMES } from "../../src/shared/error-codes";
import { RequestError } from "../../src/shared/errors";
import { ServerMessageSchema } from "../../src/protocol/messages";

describe("error codes", () => {
  it("gives every code an error status and a JSON-RPC number", () => {
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect({ code, status: spec.status >= 400 && spec.status <= 599 }).toEqual({ code, status: true });
      expect({ code, rpc: Number.isInteger(spec.jsonRpc) && spec.jsonRpc < 0 }).toEqual({ code, rpc: true });
    }
    expect(jsonRpcError("tool_arguments", "bad")).toEqual({ code: -32602, message: "bad", data: { code: "tool_arguments" } });
  });

  it("lets only the table's codes through the wire schemas", () => {
    expect(() => errorBody("no_such_code" as never, "x")).toThrow();
    const frame = (code: string) => ServerMessageSchema.safeParse({ type: "error", code, message: "x" }).success;
    expect(WS_ERROR_CODE_NAMES.filter((code) => !frame(code))).toEqual([]);
    expect(ERROR_CODE_NAMES.filter((code) => !ERROR_CODES[code].ws).filter(frame)).toEqual([]);
    expect(frame("no_such_code")).toBe(false);
  });

  it("refuses an unknown code at compile time", () => {
    // @ts-expect-error: not a code of the table (npm run typecheck fails if this compiles).
    const refusal = new RequestError("no_such_code", "x");
    expect(refusal.toPublic().code).toBe("no_such_code");
  });
});
