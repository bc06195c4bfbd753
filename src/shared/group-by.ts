// Items grouped by a key in one pass, each group in the items' order: what Map.groupBy
// does (not in Node 20, where the orchestrator's tests run), plus leaving out the items
// that have no key and taking a value other than the item itself.

export function groupBy<T, K, V = T>(
  items: Iterable<T>,
  keyOf: (item: T) => K | undefined,
  pick: (item: T) => V = (item) => item as unknown as V,
): Map<K, V[]> {
  const groups = new Map<K, V[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(pick(item));
    else groups.set(key, [pick(item)]);
  }
  return groups;
}
