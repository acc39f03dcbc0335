/**
 * Whether a body's text is well-formed JSON but no object or array: `null`, a number, a string, a boolean. The
 * app's body parser (co-body's strict mode) and the lean routes take objects and arrays only; they refuse this
 * text with 400 `{body: "must be a JSON object"}`, anything else they refuse as malformed (decision 114).
 */
export const isJsonNonObject = (text: unknown): boolean => {
  if (typeof text !== 'string') return false;
  try {
    const value: unknown = JSON.parse(text);
    return value === null || typeof value !== 'object';
  } catch {
    return false;
  }
};
