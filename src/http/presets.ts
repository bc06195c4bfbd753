// The person's own instructions (GET/PUT /api/me/instructions) and presets (GET/POST
// /api/presets, PUT/DELETE /api/presets/:id), kept in their UserAccount
// (src/users/presets.ts). Each route reads and writes only the caller's account, so
// another person's preset id is simply unknown (404 preset_unknown). Applying a preset
// to a chat: POST /sessions {preset} and the `apply_preset` frame (docs/presets.md).
import { Hono } from "hono";
import { runtimeConfig } from "../config/runtime-config";
import type { AppEnv } from "../identity/identify";
import { RequestError } from "../shared/errors";
import { userAccount } from "../users/account";
import { InstructionsInputSchema, PresetInputSchema, type PresetWrite } from "../users/presets";
import { limitBody, parsed } from "./request-body";

/** A preset is at most a few kilobytes (4,000 characters of instructions, 100 server names). */
const MAX_BODY_BYTES = 64 * 1024;

export const presets = new Hono<AppEnv>();

const presetBody = parsed("json", PresetInputSchema, "the preset is invalid");
const instructionsBody = parsed("json", InstructionsInputSchema, "the instructions are invalid");

export const unknownPreset = (id: string) => new RequestError("preset_unknown", `you have no preset ${id}`);

presets.get("/api/me/instructions", async (c) => {
  const profile = await userAccount(c.env, c.var.identity.id).profile();
  return c.json({ instructions: profile.instructions ?? "" });
});

presets.put("/api/me/instructions", limitBody(MAX_BODY_BYTES), instructionsBody, async (c) => {
  const profile = await userAccount(c.env, c.var.identity.id).setInstructions(c.req.valid("json").instructions);
  return c.json({ instructions: profile.instructions ?? "" });
});

presets.get("/api/presets", async (c) => {
  return c.json({ presets: await userAccount(c.env, c.var.identity.id).listPresets() });
});

presets.post("/api/presets", limitBody(MAX_BODY_BYTES), presetBody, async (c) => {
  const max = runtimeConfig(c.env).settings.PRESETS_PER_USER;
  const written = await userAccount(c.env, c.var.identity.id).createPreset(c.req.valid("json"), max);
  return c.json({ preset: stored(written, "", max) }, 201);
});

presets.put("/api/presets/:id", limitBody(MAX_BODY_BYTES), presetBody, async (c) => {
  const written = await userAccount(c.env, c.var.identity.id).updatePreset(c.req.param("id"), c.req.valid("json"));
  return c.json({ preset: stored(written, c.req.param("id"), 0) });
});

presets.delete("/api/presets/:id", async (c) => {
  if (!(await userAccount(c.env, c.var.identity.id).deletePreset(c.req.param("id")))) throw unknownPreset(c.req.param("id"));
  return c.body(null, 204);
});

function stored(written: PresetWrite, id: string, max: number) {
  if (written.ok) return written.preset;
  if (written.code === "too_many_presets") throw new RequestError("too_many_presets", `you have ${max} presets already: delete one first`);
  throw unknownPreset(id);
}
