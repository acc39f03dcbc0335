import { normalisePostalCode } from './postal-code';

describe('postal codes in the shipping country’s format', () => {
  it.each([
    ['SE', '114 51', '114 51'],
    ['SE', '11451', '114 51'],
    ['SE', ' SE-114 51 ', '114 51'],
    ['DE', '10115', '10115'],
    ['DE', 'de-10115', '10115'],
    ['PL', '00-950', '00-950'],
    ['PL', '00950', '00-950'],
    ['DK', '2100', '2100'],
    ['DK', 'DK-2100', '2100'],
    ['US', '94105', '94105'],
    ['US', '94105-1234', '94105-1234'],
    ['US', '941051234', '94105-1234'],
    ['GB', ' sw1a   1aa ', 'SW1A 1AA'],
  ])('%s accepts %j as %j', (country, raw, stored) => {
    expect(normalisePostalCode(country, raw)).toEqual({ ok: true, zipCode: stored });
  });

  it.each([
    ['SE', '1145', 'NNN NN'],
    ['SE', '114 512', 'NNN NN'],
    ['DE', '1011', 'NNNNN'],
    ['DE', '10115-1', 'NNNNN'],
    ['PL', '009-50', 'NN-NNN'],
    ['DK', '21000', 'NNNN'],
    ['US', '9410', 'NNNNN or NNNNN-NNNN'],
    ['US', 'ABCDE', 'NNNNN or NNNNN-NNNN'],
    ['GB', '', 'at most 16 characters'],
  ])('%s refuses %j, naming the format %j', (country, raw, format) => {
    expect(normalisePostalCode(country, raw)).toEqual({ ok: false, format });
  });
});
