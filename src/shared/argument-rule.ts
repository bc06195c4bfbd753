// An argument rule as it is kept: in a chat's settings (src/approval/rule-store.ts) or, for
// all of a person's chats, in their account (src/users/argument-rules-store.ts). Said here
// because both folders read it and neither may import the other; what a rule means and how
// it is made and matched is src/approval/argument-rules.ts.
import { z } from "zod";

export const ArgumentRuleSchema = z.object({
  id: z.string().min(1).max(64),
  server: z.string().min(1),
  tool: z.string().min(1),
  /** A top-level property of the tool's arguments. */
  arg: z.string().min(1).max(128),
  kind: z.enum(["path", "host", "equals"]),
  /** Normalised at creation: `notes/`, `/srv/data/`, `example.com`, `*.example.com`; equals: the exact text. */
  value: z.string().min(1).max(4096),
  /** Host rules only: https alone unless the person allowed http too. */
  schemes: z
    .array(z.enum(["https", "http"]))
    .min(1)
    .max(2)
    .optional(),
  scope: z.enum(["chat", "all"]),
  createdAt: z.number(),
});
export type ArgumentRule = z.infer<typeof ArgumentRuleSchema>;

/** The person's "all my chats" rules as a chat or an app reads them: the list only when `version` differs from what it knows. */
export interface RulesSnapshot {
  version: string;
  rules?: ArgumentRule[];
}
