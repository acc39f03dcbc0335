/** A body already serialised as JSON (text or its UTF-8 bytes): the route answers it as is (`sessionRoute`). */
export class RawJson {
  constructor(readonly json: string | Buffer) {}
}

/**
 * An envelope `{token, …answer}` around an answer that is already the UTF-8 JSON of an object: its bytes
 * copied after the token, never decoded, parsed or encoded again.
 */
export function withToken(token: string, answerJson: Buffer): RawJson {
  const empty = answerJson.length === 2; // `{}`
  const head = Buffer.from(`{"token":${JSON.stringify(token)}${empty ? '' : ','}`, 'utf8');
  return new RawJson(Buffer.concat([head, answerJson.subarray(1)]));
}
