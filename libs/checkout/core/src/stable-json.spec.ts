import { answerBytes, answerJson, stableJson } from './stable-json';

describe('answerJson', () => {
  it('gives the text JSON.stringify gives, stable members and array elements included', () => {
    const product = stableJson({ product: '1', name: 'Café "Sweater"', items: [{ item: '1-1' }], at: undefined });
    const countries = stableJson([{ country: 'SE', states: [] }]);
    const body = {
      token: 't',
      selection: { items: [], when: new Date(0), skip: undefined },
      products: [product, { product: '2' }],
      countries,
      gone: undefined,
      loggedIn: null,
      n: 1.5,
    };
    expect(answerJson(body)).toBe(JSON.stringify(body));
    expect(JSON.parse(answerJson(body))).toEqual(JSON.parse(JSON.stringify(body)));
  });

  it('serialises a stable object once: what it kept is what it answers', () => {
    const list = stableJson([{ language: 'en', name: 'English' }]);
    const first = answerJson({ languages: list });
    // Never changed after marking, by contract; changing it anyway shows the kept text.
    list.push({ language: 'sv', name: 'Svenska' });
    expect(answerJson({ languages: list })).toBe(first);
    expect(answerJson({ languages: [...list] })).not.toBe(first);
  });
});

describe('answerBytes', () => {
  const same = (body: Record<string, unknown>) => expect(answerBytes(body).equals(Buffer.from(JSON.stringify(body)))).toBe(true);

  it('gives the UTF-8 bytes of what JSON.stringify gives, stable members and array elements included', () => {
    const product = stableJson({ product: '1', name: 'Café "Sweater" ✓', items: [{ item: '1-1' }], at: undefined });
    const countries = stableJson([{ country: 'SE', name: 'Sverige', states: [] }]);
    same({
      token: 'å',
      selection: { items: [], when: new Date(0), skip: undefined, name: 'Ünïcødé 😀' },
      products: [product, { product: '2' }, undefined, () => 1],
      countries,
      gone: undefined,
      loggedIn: null,
      n: 1.5,
      'a "quoted" key': [],
    });
    // Twice: the second time from the kept bytes.
    same({ products: [product], countries });
  });

  it('leaves out what JSON.stringify leaves out, first members included', () => {
    same({});
    same({ gone: undefined, fn: () => 1, sym: Symbol('s') });
    same({ gone: undefined, kept: 1 });
    same({ list: stableJson([]), empty: [] });
  });

  it('keeps a stable object\'s bytes: what it kept is what it answers', () => {
    const list = stableJson([{ language: 'en', name: 'English' }]);
    const first = answerBytes({ languages: list });
    list.push({ language: 'sv', name: 'Svenska' });
    expect(answerBytes({ languages: list }).equals(first)).toBe(true);
    expect(answerBytes({ languages: [...list] }).equals(first)).toBe(false);
  });
});
