// agents' Agent.replyToEmail imports "mimetext" (and with it mime-db, 34 KiB gzip) on demand.
// edgehost never replies to email, so the Worker's bundle gets this instead (wrangler.toml
// [alias]); a call would fail loudly rather than send a half-built message.
export function createMimeMessage(): never {
  throw new Error("email replies are not part of edgehost (mimetext is aliased out in wrangler.toml)");
}
