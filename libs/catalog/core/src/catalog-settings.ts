import { formatMoney, type CategoryNode, type CurrencyFormat, type ProductFilterField, type StoreConfig } from '@commerce/shared-config';
import { minorDigits } from './money';

/** What the catalog reads from the store configuration (DESIGN §5), resolved once at start. */
export interface CatalogSettings {
  /** The configured tree, in the administration system's order. */
  categories: CategoryNode[];
  /** Colour name → hex, for `swatch.hex`. */
  swatches: Record<string, string>;
  /** Media kind → URL template with `{url}`. */
  mediaSizes: Record<string, string>;
  newProductDays: number;
  /** Extra product filter fields the store enables (`productFilterFields`), in its order. */
  productFilterFields: ProductFilterField[];
  /** The currency of a market, for a price-less context (nothing to show but `0.00` in it). */
  marketCurrency(market: string | undefined): string;
  /** Formats minor units in a currency as the store configures it (prefix + number + suffix). */
  formatMinor(minor: number, currency: string): string;
}

/** A currency the store does not configure still formats, as `<amount> <CODE>`. */
const fallbackFormat = (currency: string): CurrencyFormat => ({
  currency,
  name: currency,
  prefix: '',
  suffix: currency ? ` ${currency}` : '',
  decimalPoint: '.',
  decimalDigits: minorDigits(currency),
  uri: currency.toLowerCase(),
});

export function catalogSettings(store?: Pick<StoreConfig, 'currencies' | 'markets'> & Partial<StoreConfig>): CatalogSettings {
  const formats = new Map((store?.currencies ?? []).map((c) => [c.currency, c]));
  const markets = new Map((store?.markets ?? []).map((m) => [m.market, m.currency]));
  const defaultCurrency = store?.markets[0]?.currency ?? store?.currencies[0]?.currency ?? '';
  return {
    categories: store?.categories ?? [],
    swatches: store?.swatches ?? {},
    mediaSizes: store?.mediaSizes ?? { standard: '{url}' },
    newProductDays: store?.newProductDays ?? 30,
    productFilterFields: [...(store?.productFilterFields ?? [])],
    marketCurrency: (market) => (market !== undefined ? markets.get(market) : undefined) ?? defaultCurrency,
    formatMinor: (minor, currency) => {
      const digits = minorDigits(currency);
      // The amount reaches formatMoney in major units; it only rounds it to the format's decimals.
      return formatMoney(minor / 10 ** digits, formats.get(currency) ?? fallbackFormat(currency));
    },
  };
}

/** No store configuration (tests, tools): no tree, no swatches, `standard` media, 30 days. */
export const defaultCatalogSettings: CatalogSettings = catalogSettings();
