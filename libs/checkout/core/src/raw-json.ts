/**
 * A body already serialised as JSON (text or its UTF-8 bytes): the route answers it as is (`sessionRoute`).
 * Given as parts (a kept rendering and the request's token around it), a lean route writes them one after
 * the other in one `writev` (`parts`), with no copy of the whole; `json` joins them once, when asked.
 */
export class RawJson {
  /** The bytes in order, when given as parts. */
  readonly parts: readonly Buffer[] | undefined;
  private whole: string | Buffer | undefined;

  constructor(json: string | Buffer | readonly Buffer[]) {
    if (typeof json === 'string' || Buffer.isBuffer(json)) this.whole = json;
    else this.parts = json;
  }

  get json(): string | Buffer {
    return (this.whole ??= Buffer.concat(this.parts ?? []));
  }
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
