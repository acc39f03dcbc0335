import { answerBytes, stableJson } from './stable-json';

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
