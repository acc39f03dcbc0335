import { createScryptPasswordHasher, hashPassword, verifyPassword } from './scrypt.password-hasher';

// Each case runs a few hashes at the production cost (~0.1–0.3 s each quiet): jest's 5 s default was met on a
// machine at load 20.
jest.setTimeout(60_000);

describe('scrypt password hashing', () => {
  it('hashes to scrypt$<salt>$<hash> with a fresh salt each time, and verifies only the right password', async () => {
    const a = await hashPassword('s3cret');
    const b = await hashPassword('s3cret');

    expect(a).toMatch(/^scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    await expect(verifyPassword('s3cret', a)).resolves.toBe(true);
    await expect(verifyPassword('s3cret!', a)).resolves.toBe(false);
  });

  it('still verifies the first form, scrypt$<salt>$<hash> with N=16384, r=8, p=1', async () => {
    const { randomBytes, scryptSync } = await import('node:crypto');
    const salt = randomBytes(16);
    const legacy = `scrypt$${salt.toString('base64')}$${scryptSync('pw', salt, 32).toString('base64')}`;
    await expect(verifyPassword('pw', legacy)).resolves.toBe(true);
    await expect(verifyPassword('pw!', legacy)).resolves.toBe(false);
  });

  it('refuses parameters out of bounds instead of running them (a hash cannot make a login cost gigabytes)', async () => {
    await expect(verifyPassword('x', 'scrypt$ln=30,r=8,p=1$c2FsdHNhbHRzYWx0$' + 'A'.repeat(44))).resolves.toBe(false);
  });

  it('answers false, not an exception, for a malformed hash', async () => {
    await expect(verifyPassword('x', 'md5$abc')).resolves.toBe(false);
    await expect(verifyPassword('x', 'scrypt$$')).resolves.toBe(false);
  });

  it('the hasher still refuses a wrong password after remembering a right one', async () => {
    const hasher = createScryptPasswordHasher();
    const encoded = await hasher.hash('pw');
    await expect(hasher.verify('pw', encoded)).resolves.toBe(true);
    await expect(hasher.verify('pw', encoded)).resolves.toBe(true);
    await expect(hasher.verify('pw2', encoded)).resolves.toBe(false);
  });
});
