/**
 * Postal codes in the format of the shipping country (spec: "otherwise creating a shipment can fail"),
 * normalised where the reading is unambiguous: `11451` → `114 51` in Sweden, `00950` → `00-950` in Poland,
 * `DK-2100` → `2100`. A country without a rule keeps the code as typed (trimmed, inner spaces single).
 */
interface PostalRule {
  /** What the visitor may type, after trimming and upper-casing. */
  accepts: RegExp;
  /** The stored form of an accepted code. */
  normalise: (code: string) => string;
  /** The format named in the error. */
  format: string;
}

const digits = (s: string) => s.replace(/\D/g, '');

const RULES: Record<string, PostalRule> = {
  SE: { accepts: /^(SE-?)?\d{3} ?\d{2}$/, normalise: (c) => `${digits(c).slice(0, 3)} ${digits(c).slice(3)}`, format: 'NNN NN' },
  DE: { accepts: /^(DE-?)?\d{5}$/, normalise: (c) => digits(c), format: 'NNNNN' },
  PL: { accepts: /^(PL-?)?\d{2}-? ?\d{3}$/, normalise: (c) => `${digits(c).slice(0, 2)}-${digits(c).slice(2)}`, format: 'NN-NNN' },
  DK: { accepts: /^(DK-?)?\d{4}$/, normalise: (c) => digits(c), format: 'NNNN' },
  NO: { accepts: /^(NO-?)?\d{4}$/, normalise: (c) => digits(c), format: 'NNNN' },
  FI: { accepts: /^(FI-?)?\d{5}$/, normalise: (c) => digits(c), format: 'NNNNN' },
  US: {
    accepts: /^\d{5}([- ]?\d{4})?$/,
    normalise: (c) => (digits(c).length === 9 ? `${digits(c).slice(0, 5)}-${digits(c).slice(5)}` : digits(c)),
    format: 'NNNNN or NNNNN-NNNN',
  },
};

export type PostalCodeResult = { ok: true; zipCode: string } | { ok: false; format: string };

export function normalisePostalCode(country: string, raw: string): PostalCodeResult {
  const code = raw.trim().replace(/\s+/g, ' ').toUpperCase();
  const rule = RULES[country];
  if (!rule) return code.length > 0 && code.length <= 16 ? { ok: true, zipCode: code } : { ok: false, format: 'at most 16 characters' };
  return rule.accepts.test(code) ? { ok: true, zipCode: rule.normalise(code) } : { ok: false, format: rule.format };
}
