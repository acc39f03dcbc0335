import { minorDigits, parseMinorUnits, toMajorUnits } from './money';

describe('money in minor units', () => {
  it('knows the minor units of a currency', () => {
    expect([minorDigits('SEK'), minorDigits('JPY'), minorDigits('BHD'), minorDigits(''), minorDigits('??')]).toEqual([2, 0, 3, 2, 2]);
  });

  it('parses amounts exactly, with a point or a comma, and refuses more decimals than the currency has', () => {
    expect(parseMinorUnits('1299.50', 2)).toBe(129_950);
    expect(parseMinorUnits('0,1', 2)).toBe(10);
    expect(parseMinorUnits('19.9', 2)).toBe(1_990);
    expect(parseMinorUnits('100.000', 0)).toBe(100);
    expect(parseMinorUnits('0.29', 2)).toBe(29); // 0.29 * 100 is 28.999… as a float
    expect(parseMinorUnits('1.005', 2)).toBeNull();
    expect(parseMinorUnits('-5', 2)).toBeNull();
    expect(parseMinorUnits('1 000', 2)).toBeNull();
  });

  it('gives major units for the DTOs', () => {
    expect(toMajorUnits(129_950, 2)).toBe(1299.5);
    expect(toMajorUnits(29, 2)).toBe(0.29);
    expect(toMajorUnits(500, 0)).toBe(500);
  });
});
