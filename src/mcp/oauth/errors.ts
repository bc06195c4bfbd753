// Typed errors of the OAuth client: a server that needs the user to sign in
// (expected, shown as "Sign in"), and one whose authorization server this
// client refuses to use (a configuration problem no sign-in fixes).
import { UnauthorizedError } from "@modelcontextprotocol/client";
import { EdgehostError, findCause, type PublicError } from "../../shared/errors";

export class SignInRequiredError extends EdgehostError {
  readonly code = "auth_required";
  constructor(
    readonly server: string,
    detail?: string,
  ) {
    super(`Sign in to "${server}" to use its tools${detail ? ` (${detail})` : ""}.`);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message, server: this.server };
  }
}

export class OAuthUnsupportedError extends EdgehostError {
  readonly code = "oauth_unsupported";
  constructor(
    readonly server: string,
    detail: string,
  ) {
    super(`MCP server "${server}" cannot be signed in to: ${detail}`);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message, server: this.server };
  }
}

/**
 * True for a failure that a sign-in fixes: our own SignInRequiredError, or the SDK's
 * UnauthorizedError (a 401 whose `auth()` ended in "redirect the user"), possibly
 * wrapped as an error's `cause`.
 */
export function isSignInRequired(error: unknown): boolean {
  return findCause(error, (e): e is Error => e instanceof SignInRequiredError || UnauthorizedError.isInstance(e)) !== undefined;
}

/** The S256 rule of the MCP authorization spec: an AS that does not list it is refused (absent counts as not listed). */
export function assertS256(server: string, methods: string[] | undefined): void {
  if (!methods?.includes("S256")) {
    const listed = methods?.length ? `it lists ${methods.join(", ")}` : "its metadata lists no code_challenge_methods_supported";
    throw new OAuthUnsupportedError(server, `its authorization server does not support PKCE with S256 (${listed})`);
  }
}
