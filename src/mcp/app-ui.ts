// MCP Apps (the `io.modelcontextprotocol/ui` extension), as far as the host's
// tool and resource data go: which `ui://` resource a tool renders with, and what
// a UI resource's content declares (its CSP domains). Read with zod from the
// open `_meta` objects servers send; anything malformed counts as not declared.
// The page speaks the extension's protocol itself (public/chat/mcp-app-frame.js).
import { z } from "zod";

/** The MIME type of an MCP App's HTML (ext-apps' RESOURCE_MIME_TYPE). */
export const MCP_APP_MIME = "text/html;profile=mcp-app";
/** The extension's id, as a client advertises it. */
export const MCP_APPS_EXTENSION = "io.modelcontextprotocol/ui";

const UiUri = z.string().max(2048).startsWith("ui://");

// `_meta.ui.resourceUri` is the current key; `_meta["ui/resourceUri"]` the deprecated
// flat one that ext-apps still writes beside it. The nested one wins, as in ext-apps'
// getToolUiResourceUri.
const ToolUiMetaSchema = z.object({
  ui: z.object({ resourceUri: UiUri.optional() }).loose().optional().catch(undefined),
  "ui/resourceUri": UiUri.optional().catch(undefined),
});

/** The `ui://` resource a tool declares for rendering its results, if any. */
export function toolUiResourceUri(meta: unknown): string | undefined {
  const parsed = ToolUiMetaSchema.safeParse(meta ?? {});
  if (!parsed.success) return undefined;
  return parsed.data.ui?.resourceUri ?? parsed.data["ui/resourceUri"];
}

const VisibilitySchema = z.object({
  ui: z
    .object({
      visibility: z
        .array(z.enum(["model", "app"]))
        .max(2)
        .optional(),
    })
    .loose()
    .optional()
    .catch(undefined),
});
export type ToolUiVisibility = ("model" | "app")[];

/**
 * Who may call a tool (`_meta.ui.visibility`): ["app"] is a tool only its app calls
 * (kept from the model), ["model"] one its app may not call. Absent or malformed: both.
 */
export function toolUiVisibility(meta: unknown): ToolUiVisibility | undefined {
  const parsed = VisibilitySchema.safeParse(meta ?? {});
  return parsed.success ? parsed.data.ui?.visibility : undefined;
}

/** Whether `who` may call a tool of this visibility. */
export function visibleTo(visibility: ToolUiVisibility | undefined, who: "model" | "app"): boolean {
  return !visibility || visibility.includes(who);
}

// A CSP source as a resource may declare it: a scheme and host (wildcard subdomain
// allowed), an optional port and path. Nothing that could end the directive (`;`,
// `,`, whitespace) or name a keyword (quotes): such entries are dropped, not escaped.
const CspSource = z
  .string()
  .max(512)
  .regex(/^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9.-]+(:(\d{1,5}|\*))?(\/[A-Za-z0-9._~%/-]*)?$/);

const domains = z
  .array(z.unknown())
  .max(32)
  .catch([])
  .transform((list) => list.flatMap((d) => (CspSource.safeParse(d).success ? [d as string] : [])));

export const AppCspSchema = z.object({
  connectDomains: domains.optional(),
  resourceDomains: domains.optional(),
  frameDomains: domains.optional(),
  baseUriDomains: domains.optional(),
});
export type AppCsp = z.infer<typeof AppCspSchema>;

const ResourceUiMetaSchema = z.object({
  ui: z
    .object({ csp: AppCspSchema.optional().catch(undefined) })
    .loose()
    .optional()
    .catch(undefined),
});

/** The CSP domains a UI resource's content declares (`_meta.ui.csp`); none when absent or malformed. */
export function resourceCsp(meta: unknown): AppCsp {
  const parsed = ResourceUiMetaSchema.safeParse(meta ?? {});
  return (parsed.success ? parsed.data.ui?.csp : undefined) ?? {};
}
