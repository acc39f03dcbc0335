/** A body already serialised as JSON (text or its UTF-8 bytes): the route answers it as is (`sessionRoute`). */
export class RawJson {
  constructor(readonly json: string | Buffer) {}
}

/** An envelope `{token, …answer}` around an answer that is already the JSON text of an object, with no parse. */
export const withToken = (token: string, answerJson: string): RawJson =>
  new RawJson(answerJson === '{}' ? `{"token":${JSON.stringify(token)}}` : `{"token":${JSON.stringify(token)},${answerJson.slice(1)}`);
