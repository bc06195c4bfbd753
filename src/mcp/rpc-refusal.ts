// Edgehost's answer to a server's request (sampling, elicitation, roots) that it refuses:
// the SDK's ProtocolError carrying the code's JSON-RPC form from the one table
// (../shared/error-codes.ts), so a server sees the same number for the same reason.
import { ProtocolError } from "@modelcontextprotocol/client";
import { jsonRpcError, type ErrorCode } from "../shared/error-codes";

export function rpcRefusal(code: ErrorCode, message: string): ProtocolError {
  const form = jsonRpcError(code, message);
  return new ProtocolError(form.code, form.message, form.data);
}
