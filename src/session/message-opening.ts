// A typed message that carries more than its text: files from the user's computer
// (checked against the owner's account: session-files.ts) and resources of the
// session's servers (read now: attachments.ts). Files are checked first: they need no
// MCP connection, and a refused one costs nothing.
import type { FileRef } from "../protocol/messages";
import type { AttachedEntry, AttachmentRef, SessionAttachments } from "./attachments";
import type { TurnOpening } from "./prompt-opening";
import type { SessionFiles } from "./session-files";

export interface MessageOpeningDeps {
  files: SessionFiles;
  resources: SessionAttachments;
  /** The session's MCP connections opened (resources are read through them). */
  connected: () => Promise<void>;
}

export async function openMessage(text: string, given: { attachments?: AttachmentRef[]; files?: string[] }, deps: MessageOpeningDeps): Promise<TurnOpening> {
  const files: FileRef[] = given.files?.length ? await deps.files.resolve(given.files) : [];
  let attachments: AttachedEntry[] = [];
  if (given.attachments?.length) {
    await deps.connected();
    attachments = await deps.resources.attach(given.attachments);
  }
  return {
    entries: [{ kind: "user", text, ...(attachments.length > 0 ? { attachments } : {}), ...(files.length > 0 ? { files } : {}) }],
    title: text,
  };
}
