/**
 * Money inside the catalog is an integer number of minor units of its currency (öre, cents), so sums and
 * differences are exact; only the DTOs turn it into major units (`priceAsNumber`) and formatted strings.
 */

const digitsCache = new Map<string, number>();

/** The ISO 4217 minor units of a currency (SEK 2, JPY 0, BHD 3); 2 for an empty or unknown code. */
export function minorDigits(currency: string): number {
  const code = currency.trim().toUpperCase();
  const cached = digitsCache.get(code);
  if (cached !== undefined) return cached;
  let digits = 2;
  if (/^[A-Z]{3}$/.test(code)) {
    try {
      digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
  }
  digitsCache.set(code, digits);
  return digits;
}

/**
 * `"1299.50"` → 129950 for 2 digits. Accepts a decimal point or comma and no thousands separators; null
 * when the text is not a non-negative amount, or has more (non-zero) decimals than the currency allows.
 * Parsed from the digits, never through a binary float.
 */
export function parseMinorUnits(text: string, digits: number): number | null {
  const m = /^(\d{1,13})(?:[.,](\d+))?$/.exec(text.trim());
  if (!m) return null;
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) return null;
  return Number(m[1]) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}

/** Minor units → a number in major units, for the DTOs' `…AsNumber` fields and sorting. */
export const toMajorUnits = (minor: number, digits: number): number =>
  digits === 0 ? minor : Number((minor / 10 ** digits).toFixed(digits));
