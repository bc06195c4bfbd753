// Where a shared link's snapshot lives: one SharedConversation object per share id.
import type { Env } from "../config/env";
import type { SharedConversation } from "./SharedConversation";

/** 128 random bits, base64url: a link nobody can guess or walk to from another. */
export const SHARE_ID = /^[A-Za-z0-9_-]{22}$/;

export function newShareId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export function sharedConversation(env: Pick<Env, "SHARED_CONVERSATION">, shareId: string): DurableObjectStub<SharedConversation> {
  return env.SHARED_CONVERSATION.get(env.SHARED_CONVERSATION.idFromName(shareId)) as DurableObjectStub<SharedConversation>;
}
