// A preset applied to a chat (POST /sessions {preset}, the `apply_preset` frame): read from
// the owner's account, never from what a client sends, then its model set (a model the
// chat may not use is refused with `model_not_available` and the rest still applies), its
// servers switched on (those this chat has; the others named in a notice), and its name
// and instructions kept as the chat's setting, so later edits of the preset change no
// chat it was applied to. The system prompt's personal part is made here too.
import { z } from "zod";
import { toWire, type ServerMessage } from "../protocol/messages";
import type { Preset } from "../users/presets";
import type { NewEntry } from "./history";
import type { SessionMcp } from "./mcp/session-mcp";
import type { SessionModel } from "./session-model";
import type { SessionOwner } from "./session-owner";
import type { HistoryStore } from "./history";

const PRESET_KEY = "preset";

const ChatPresetSchema = z.object({ name: z.string(), instructions: z.string().optional() });
export type ChatPreset = z.infer<typeof ChatPresetSchema>;

export function chatPreset(store: Pick<HistoryStore, "getSetting">): ChatPreset | undefined {
  const parsed = ChatPresetSchema.safeParse(store.getSetting(PRESET_KEY));
  return parsed.success ? parsed.data : undefined;
}

export function forgetChatPreset(store: Pick<HistoryStore, "setSetting">): void {
  store.setSetting(PRESET_KEY, undefined);
}

/** The person's words for the model, each under a heading that says whose they are; undefined when there are none. */
export function personalPrompt(own: string | undefined, preset: ChatPreset | undefined): string | undefined {
  const parts: string[] = [];
  if (own) parts.push(`## The person's own instructions\n${own}`);
  if (preset?.instructions) parts.push(`## This chat's preset (${preset.name})\n${preset.instructions}`);
  return parts.length > 0 ? parts.join("\n\n") : undefined;
}

export interface PresetSite {
  owner: Pick<SessionOwner, "preset">;
  model: Pick<SessionModel, "set">;
  mcp: () => Pick<SessionMcp, "syncUserServers" | "isConfigured" | "setEnabled" | "status">;
  store: Pick<HistoryStore, "setSetting">;
  record: (entry: NewEntry) => void;
  sendAll: (message: ServerMessage) => void;
}

/**
 * Applies the owner's preset `id`: what every socket hears (`model`, `servers`, a notice)
 * is sent here; the answer is the errors for the one who asked (an unknown preset, a
 * refused model), and work that connects servers just switched on, if any.
 */
export async function applyPreset(
  site: PresetSite,
  id: string,
): Promise<{ errors: Extract<ServerMessage, { type: "error" }>[]; connect?: () => Promise<void> }> {
  const preset: Preset | undefined = await site.owner.preset(id);
  if (!preset) return { errors: [{ type: "error", code: "preset_unknown", message: `you have no preset ${id}` }] };
  const errors: Extract<ServerMessage, { type: "error" }>[] = [];
  if (preset.model) {
    try {
      site.sendAll({ type: "model", choice: await site.model.set(preset.model) });
    } catch (error) {
      errors.push(toWire.error(error));
    }
  }
  const notices = [`Preset ‘${preset.name}’ applied.`];
  let connect: (() => Promise<void>) | undefined;
  if (preset.servers) {
    const mcp = site.mcp();
    // The owner's own servers count as this chat's too: read them before telling which names it lacks.
    await mcp.syncUserServers();
    const known = preset.servers.filter((name) => mcp.isConfigured(name));
    const unknown = preset.servers.filter((name) => !mcp.isConfigured(name));
    connect = mcp.setEnabled(known);
    site.sendAll({ type: "servers", servers: mcp.status() });
    if (unknown.length > 0) notices.push(`This chat has no server ${unknown.map((n) => `“${n}”`).join(", ")}: left out.`);
  }
  site.store.setSetting(PRESET_KEY, { name: preset.name, ...(preset.instructions ? { instructions: preset.instructions } : {}) } satisfies ChatPreset);
  site.record({ turnId: null, kind: "notice", text: notices.join(" ") });
  return { errors, connect };
}
