/**
 * Serialising the parts of an answer that do not change per request once (decision 59): objects marked
 * stable here (the store view's lists, the product cache's products) are never changed after marking, so
 * their JSON is made once and kept while they live.
 */
const stable = new WeakSet<object>();
/** A stable object's JSON as UTF-8 bytes of their own (not a slice of Node's shared pool, which would keep the pool alive). */
const kept = new WeakMap<object, Buffer>();

/** Marks an object that is never changed again (nor anything inside it): its JSON is made once. */
export function stableJson<T extends object>(value: T): T {
  stable.add(value);
  return value;
}

const OPEN = Buffer.from('{');
const CLOSE = Buffer.from('}');
const OPEN_ARRAY = Buffer.from('[');
const CLOSE_ARRAY = Buffer.from(']');
const COMMA = Buffer.from(',');
const NULL = Buffer.from('null');
/** `"key":` of an answer's members, made once (the keys are the code's own: bounded). */
const keys = new Map<string, Buffer>();
const MAX_KEYS = 1024;

const ownBytes = (text: string): Buffer => {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
};

const keyBytes = (key: string): Buffer => {
  let bytes = keys.get(key);
  if (bytes === undefined) {
    bytes = ownBytes(`${JSON.stringify(key)}:`);
    if (keys.size < MAX_KEYS) keys.set(key, bytes);
  }
  return bytes;
};

/** A value's JSON bytes (undefined where JSON.stringify gives nothing): a stable object's made once and kept. */
const bytesOf = (value: unknown): Buffer | undefined => {
  if (value === null || typeof value !== 'object' || !stable.has(value)) {
    const json = JSON.stringify(value) as string | undefined;
    return json === undefined ? undefined : Buffer.from(json);
  }
  let bytes = kept.get(value);
  if (bytes === undefined) {
    bytes = ownBytes(JSON.stringify(value));
    kept.set(value, bytes);
  }
  return bytes;
};

/**
 * `JSON.stringify(body)` as UTF-8 bytes, for an answer object whose members (or the elements of its array
 * members) may be stable: those are copied in from their kept bytes (decision 59), so that only the parts that
 * change are serialised, and the answer is one buffer outside V8's heap rather than a string of the whole
 * answer made, flattened and encoded per request (decision 88). Same bytes as `JSON.stringify`, members in the
 * same order.
 */
export function answerBytes(body: Record<string, unknown>): Buffer {
  const parts: Buffer[] = [OPEN];
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (value === undefined || typeof value === 'function') continue;
    const listed = Array.isArray(value) && !stable.has(value);
    const bytes = listed ? undefined : bytesOf(value);
    if (!listed && bytes === undefined) continue;
    if (parts.length > 1) parts.push(COMMA);
    parts.push(keyBytes(key));
    if (bytes) {
      parts.push(bytes);
      continue;
    }
    parts.push(OPEN_ARRAY);
    (value as unknown[]).forEach((element, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(bytesOf(element) ?? NULL);
    });
    parts.push(CLOSE_ARRAY);
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}
