/**
 * The most common passwords of public breach corpora (the head of SecLists' 10-million list), lower-cased,
 * those of 8 characters or more (shorter ones fail the length rule anyway). Shipped rather than taken from a
 * package: see decision 34. Compared case-insensitively.
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  '12345678', '123456789', '1234567890', '12345678910', '123123123', '11111111', '00000000', '87654321',
  '11223344', '12341234', '123qweasd', '1q2w3e4r', '1q2w3e4r5t', '1qaz2wsx', 'qwertyuiop', 'qwerty123',
  'qwerty12', 'qwertyui', 'asdfghjkl', 'asdfasdf', 'zxcvbnm1', 'password', 'password1', 'password12',
  'password123', 'passw0rd', 'p@ssw0rd', 'p@ssword', 'iloveyou', 'iloveyou1', 'sunshine', 'princess',
  'football', 'baseball', 'basketball', 'superman', 'batman123', 'starwars', 'trustno1', 'whatever',
  'welcome1', 'welcome123', 'letmein1', 'letmein123', 'abc12345', 'abcd1234', 'abcdefgh', 'admin123',
  'administrator', 'changeme', 'computer', 'internet', 'michael1', 'jennifer', 'jordan23', 'charlie1',
  'mustang1', 'master12', 'shadow12', 'dragon12', 'monkey12', 'liverpool', 'chelsea1', 'arsenal1',
  'q1w2e3r4', 'q1w2e3r4t5', 'zaq12wsx', 'xsw21qaz', '!qaz2wsx', 'aa123456', 'a1b2c3d4', 'qwe12345',
  '1234qwer', 'qwer1234', '123456789a', 'a123456789', '987654321', '9876543210', '147258369', '159753456',
  '123654789', '741852963', '88888888', '99999999', '12121212', '7777777a', 'secret123', 'default1',
  'password!', 'passwort', 'motdepasse', 'contraseña', 'lösenord', 'hallo123', 'sommer2024', 'summer2024',
  'winter2024', 'spring2024', 'autumn2024', 'summer2025', 'winter2025', 'summer2026', 'winter2026', 'company1',
]);
