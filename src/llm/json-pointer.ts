// Resolving a schema's local `$ref` (a JSON pointer into the same document), for the
// Gemini schema converter (gemini-schema.ts). Remote refs and `#anchor` refs are not
// resolved: the converter then describes the reference instead.
import { isRecord } from "../shared/is-record";

/** Resolves a local JSON pointer (`#`, `#/$defs/X`, `#/definitions/X`, any `#/...`); undefined if it leads nowhere. */
export function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let target: unknown = root;
  const pointer = ref.slice(1);
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined; // `#anchor` refs: not resolved.
  for (const raw of pointer.slice(1).split("/")) {
    let segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    try {
      segment = decodeURIComponent(segment);
    } catch {
      // A literal `%` in a key: use the segment as written.
    }
    if (Array.isArray(target) && /^\d+$/.test(segment)) target = target[Number(segment)];
    else if (isRecord(target) && Object.hasOwn(target, segment)) target = target[segment];
    else return undefined;
  }
  return target;
}
