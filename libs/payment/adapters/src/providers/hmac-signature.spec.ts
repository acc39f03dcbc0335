import { hmacBase64, sameSignature, signParams, signingString } from './hmac-signature';

describe('the test providers’ HMAC-SHA256 signatures', () => {
  // RFC 4231, test case 2: the key "Jefe" (hex), the MAC 5bdcc146…3843 as base64.
  const jefe = Buffer.from('Jefe').toString('hex');
  const expected = 'W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=';

  it('is HMAC-SHA256 of the hex key, the same at every call with the key kept as a KeyObject', () => {
    expect(hmacBase64(jefe, 'what do ya want for nothing?')).toBe(expected);
    expect(hmacBase64(jefe, 'what do ya want for nothing?')).toBe(expected);
    expect(hmacBase64('ff'.repeat(32), 'what do ya want for nothing?')).not.toBe(expected);
    expect(hmacBase64(jefe, 'what do ya want for nothing?')).toBe(expected);
  });

  it('signs the escaped keys, then their values, joined by colons (Adyen’s classic HPP)', () => {
    expect(signingString({ b: 'x:y', a: 'c\\d' })).toBe('a:b:c\\\\d:x\\:y');
    const signature = signParams(jefe, { merchantReference: 'r1', paymentAmount: '100' });
    expect(signature).toBe(hmacBase64(jefe, 'merchantReference:paymentAmount:r1:100'));
    expect(sameSignature(signature, signParams(jefe, { paymentAmount: '100', merchantReference: 'r1' }))).toBe(true);
    expect(sameSignature(signature, signParams(jefe, { merchantReference: 'r1', paymentAmount: '101' }))).toBe(false);
  });
});
