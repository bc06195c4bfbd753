// What a /mcp grant carries, and how the Worker hands a checked request to the app's object.
// The OAuth provider keeps `GrantProps` encrypted beside each token; after it checked a token
// the Worker (forward.ts) passes them to the app's GatewayApp in one internal header, which it
// always sets itself: a client's own header of that name never gets through.
import { z } from "zod";

export const GATEWAY_HEADER = "X-Edgehost-Gateway";

const IdentitySchema = z.object({ id: z.string().min(1), name: z.string(), mode: z.enum(["access", "token", "none"]) });

export const GrantPropsSchema = z.object({
  v: z.literal(1),
  /** The person who consented: the same identity every page route knows. */
  identity: IdentitySchema,
  /** Which connected app (and so which GatewayApp object): see `appIdFor`. */
  appId: z.string().regex(/^[0-9a-f]{40}$/),
  /** The app's generation when this grant was made; a Disconnect moves the object past it. */
  gen: z.number().int().positive(),
  client: z.object({ id: z.string().min(1), name: z.string() }),
});
export type GrantProps = z.infer<typeof GrantPropsSchema>;
export type GatewayOwner = GrantProps["identity"];

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
const sha256 = async (text: string) => hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));

/**
 * One app = one person × one client × one redirect URI. A client ID metadata document's
 * client_id is shared by every install of that client, so the redirect URI tells two
 * people's (or two machines') installs apart, as the provider's grant revocation does.
 */
export async function appIdFor(identityId: string, clientId: string, redirectUri: string): Promise<string> {
  return (await sha256(`${identityId}\n${clientId}\n${redirectUri}`)).slice(0, 40);
}

/** The provider's user id: its tokens are `userId:grantId:secret`, so it may not hold the `:` our ids have. */
export async function providerUserId(identityId: string): Promise<string> {
  return `u${(await sha256(identityId)).slice(0, 32)}`;
}

export const encodeGatewayHeader = (props: GrantProps): string => JSON.stringify(props);

/** The props the Worker set, or undefined when the header is missing or not ours. */
export function decodeGatewayHeader(value: string | null): GrantProps | undefined {
  if (!value) return undefined;
  try {
    const parsed = GrantPropsSchema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
