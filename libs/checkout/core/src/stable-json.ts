/**
 * Serialising the parts of an answer that do not change per request once (decision 59): objects marked
 * stable here (the store view's lists, the product cache's products) are never changed after marking, so
 * their JSON is made once and kept while they live.
 */
const stable = new WeakSet<object>();
const kept = new WeakMap<object, string>();

/** Marks an object that is never changed again (nor anything inside it): its JSON is made once. */
export function stableJson<T extends object>(value: T): T {
  stable.add(value);
  return value;
}

const jsonOf = (value: unknown): string | undefined => {
  if (value === null || typeof value !== 'object' || !stable.has(value)) return JSON.stringify(value);
  let json = kept.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    kept.set(value, json);
  }
  return json;
};

/**
 * `JSON.stringify(body)` for an answer object whose members (or the elements of its array members) may be
 * stable: those are spliced in as kept JSON text. Same text as `JSON.stringify`, members in the same order.
 */
export function answerJson(body: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (value === undefined || typeof value === 'function') continue;
    const json = Array.isArray(value) && !stable.has(value) ? `[${value.map((v) => jsonOf(v) ?? 'null').join(',')}]` : jsonOf(value);
    if (json !== undefined) parts.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${parts.join(',')}}`;
}
