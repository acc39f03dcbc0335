import { formatMoney, type CurrencyFormat } from '@commerce/shared-config';
import { majorOf } from './pricing';
import { moneyText } from './selection-answer';

describe('moneyText: a minor amount as its currency shows it, each formatted once a format (decision 196)', () => {
  const format = (currency: string, decimalDigits: number, decimalPoint = '.', prefix = '', suffix = ''): CurrencyFormat => ({
    currency,
    name: currency,
    prefix,
    suffix,
    decimalPoint,
    decimalDigits,
    uri: currency.toLowerCase(),
  });
  const formats = [format('SEK', 2, ',', '', ' kr'), format('JPY', 0, '.', '¥'), format('KWD', 3, '.', '', ' KWD')];
  const amounts = [0, -0, 1, -1, 5, 99, 100, 12_345, -12_345, 999_999_999, 2 ** 40 + 3];

  it("answers formatMoney's text of the major amount, for every format, asked once or again", () => {
    for (const f of formats)
      for (const minor of [...amounts, ...amounts]) expect(moneyText(minor, f)).toBe(formatMoney(majorOf(minor, f.decimalDigits), f));
  });

  it('keeps the formats apart: the same minor amount in two formats of the same digits', () => {
    const [a, b] = [format('EUR', 2, ',', '', ' €'), format('USD', 2, '.', '$')];
    expect([moneyText(12_345, a), moneyText(12_345, b)]).toEqual(['123,45 €', '$123.45']);
  });

  it('still answers the right text past its bound (more amounts than it keeps)', () => {
    const f = format('NOK', 2, ',', '', ' kr');
    for (let minor = 0; minor < 25_000; minor += 1) expect(moneyText(minor, f)).toBe(formatMoney(majorOf(minor, 2), f));
    expect(moneyText(7, f)).toBe('0,07 kr');
  });
});
