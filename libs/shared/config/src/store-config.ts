import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './config';

/**
 * The store configuration: what the spec calls "settings" or "the administration system" (DESIGN §5).
 * One validated JSON file; `infra/config/demo-store.json` is the demo shop of `npm start`.
 */
const code2 = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter upper-case code');
/** An amount in major units with at most 4 decimals (it becomes integer minor units when priced). */
const money = z.number().min(0).max(1e12);
/** A date (`2026-12-31`, the whole day) or an ISO 8601 date-time. */
const isoDate = z.string().refine((v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)), {
  message: 'must be an ISO 8601 date or date-time',
});

export const CurrencyFormatSchema = z.object({
  currency: z.string().regex(/^[A-Z]{3}$/),
  name: z.string(),
  prefix: z.string().default(''),
  suffix: z.string().default(''),
  decimalPoint: z.string().default('.'),
  decimalDigits: z.number().int().min(0).max(4).default(2),
  uri: z.string(),
});
export type CurrencyFormat = z.infer<typeof CurrencyFormatSchema>;

/** A category of the store's tree: the ERP's id (what SOAP `folder` and display `categories` name), its name, its children in order. */
export interface CategoryNode {
  category: string;
  name: string;
  children?: CategoryNode[];
}
export const CategoryNodeSchema: z.ZodType<CategoryNode> = z.lazy(() =>
  z.object({ category: z.string().min(1), name: z.string().min(1), children: z.array(CategoryNodeSchema).optional() }),
);

/**
 * Product fields a store may enable as extra filter fields (`productFilterFields`): accepted in a
 * `POST products` body under their own name and returned in `filter` (decision 29).
 */
export const PRODUCT_FILTER_FIELDS = ['countryOrigin', 'harmCode', 'stockUnit'] as const;
export type ProductFilterField = (typeof PRODUCT_FILTER_FIELDS)[number];

export const StoreConfigSchema = z
  .object({
    name: z.string(),
    /** The language of data that is not localized; with `languages` left out, the store's one language. */
    mainLanguage: z.string().min(2).default('en'),
    /** Its name when `languages` is left out; by default the language's own name (`en`: English). */
    mainLanguageName: z.string().min(1).optional(),
    /** Left out: the store is not localized, and its one language is the main language. */
    languages: z
      .array(z.object({ language: z.string().min(2), name: z.string() }))
      .min(1)
      .optional(),
    currencies: z.array(CurrencyFormatSchema).min(1),
    markets: z
      .array(
        z.object({
          market: z.string(),
          name: z.string(),
          pricelist: z.string(),
          currency: z.string(),
          /** The VAT included in this market's prices: deducted for a destination outside the EU (`vatExempt`). */
          vatPercent: z.number().min(0).max(100).optional(),
        }),
      )
      .min(1),
    countries: z
      .array(
        z.object({
          country: code2,
          name: z.string(),
          eu: z.boolean(),
          /** The country's default language; left out, the main language. */
          language: z.string().optional(),
          shipTo: z.boolean().default(true),
          market: z.string(),
          taxPercent: z.number().min(0).max(100).default(0),
          /** A state's `taxPercent` is added to the net prices (US sales tax), as is a non-EU country's own. */
          states: z.array(z.object({ state: z.string(), name: z.string(), taxPercent: z.number().min(0).max(100).optional() })).default([]),
        }),
      )
      .min(1),
    defaultCountry: code2.optional(),
    paymentMethods: z
      .array(
        z.object({
          paymentMethod: z.string(),
          name: z.string(),
          provider: z.string(),
          handlingCost: z.number().min(0).default(0),
          countries: z.array(code2).default([]),
          providesCustomerAddressAfterPayment: z.boolean().default(false),
          /** The provider's own settings (an invoice provider's registry and credit limit); validated by the provider at start. */
          options: z.record(z.string(), z.unknown()).default({}),
        }),
      )
      .default([]),
    /** Shipping methods per country (empty: every country), priced per currency, free from an items total. */
    shippingMethods: z
      .array(
        z.object({
          shippingMethod: z.string().min(1),
          name: z.string(),
          countries: z.array(code2).default([]),
          prices: z.record(z.string().regex(/^[A-Z]{3}$/), z.object({ price: money, freeFrom: money.optional() })),
        }),
      )
      .default([]),
    /** Voucher codes (matched case-insensitively): one of each type at a time on a selection. */
    vouchers: z
      .array(
        z.object({
          voucher: z.string().min(1),
          name: z.string().default(''),
          type: z.enum(['percent', 'amount', 'freeShipping']),
          percent: z.number().gt(0).max(100).optional(),
          /** Amount off per currency (`type: amount`). */
          amounts: z.record(z.string().regex(/^[A-Z]{3}$/), money).default({}),
          /** Markets where the code works; empty: all. */
          markets: z.array(z.string()).default([]),
          validFrom: isoDate.optional(),
          validTo: isoDate.optional(),
          /** Items total (after sale prices, before vouchers) needed per currency; a currency not listed needs none. */
          minimumOrder: z.record(z.string().regex(/^[A-Z]{3}$/), money).default({}),
        }),
      )
      .default([]),
    productFilterFields: z
      .array(z.enum(PRODUCT_FILTER_FIELDS, { error: `must each be one of ${PRODUCT_FILTER_FIELDS.join(', ')}` }))
      .default([]),
    /** The category tree in the order the administration system sets (GET categories lists it so). */
    categories: z.array(CategoryNodeSchema).default([]),
    /** Colour names (a variant's name) → hex, for a product's `swatch.hex`; a name not listed has no hex. */
    swatches: z.record(z.string(), z.string().regex(/^#[0-9a-fA-F]{3,8}$/, 'must be a hex colour like #1b1b1b')).default({}),
    /** Media kinds → URL template with `{url}` (the ERP's image URL), e.g. `{"s_big": "https://cdn.example/800/{url}"}`. */
    mediaSizes: z.record(z.string().min(1), z.string().includes('{url}', { message: 'must contain {url}' })).default({ standard: '{url}' }),
    /**
     * Carrier names (as the ERP reports them in a shipment's `carrierinformation.carrier`, matched
     * case-insensitively) → tracking page template with `{trackingId}`: a shipment's `trackingUrl`.
     */
    trackingUrls: z.record(z.string().min(1), z.string().includes('{trackingId}', { message: 'must contain {trackingId}' })).default({}),
    /** A product created within this many days is a `newProduct`. */
    newProductDays: z.number().int().min(0).default(30),
    frontendUrl: z.string().url().optional(),
    soap: z.object({
      namespace: z.string().default('urn:commerce-service:backoffice'),
      correlationPrefix: z.string().default('backoffice-'),
      /**
       * Passwords are stored hashed (`scrypt$…`), never in clear. `passwordHashes` (one or two) lets a user
       * have two valid passwords while it rolls over; `passwordHash` is the one-password form.
       */
      users: z
        .array(
          z
            .object({
              username: z.string().min(1),
              passwordHash: z.string().startsWith('scrypt$').optional(),
              passwordHashes: z.array(z.string().startsWith('scrypt$')).min(1).max(2).optional(),
            })
            .refine((u) => (u.passwordHash === undefined) !== (u.passwordHashes === undefined), {
              message: 'give passwordHash or passwordHashes (one or two, during a rollover), not both',
            }),
        )
        .min(1)
        .refine((users) => new Set(users.map((u) => u.username)).size === users.length, { message: 'user names must be unique' }),
    }),
  })
  .transform(({ mainLanguageName, ...store }) => ({
    ...store,
    // The spec: "When the store is not localized there is exactly one language", the main one (en, English).
    languages: store.languages ?? [{ language: store.mainLanguage, name: mainLanguageName ?? ownLanguageName(store.mainLanguage) }],
    countries: store.countries.map((c) => ({ ...c, language: c.language ?? store.mainLanguage })),
  }))
  .superRefine((store, ctx) => {
    const languages = new Set(store.languages.map((l) => l.language));
    const markets = new Set(store.markets.map((m) => m.market));
    const currencies = new Set(store.currencies.map((c) => c.currency));
    if (!languages.has(store.mainLanguage)) ctx.addIssue({ code: 'custom', path: ['mainLanguage'], message: `is not among languages` });
    store.markets.forEach((m, i) => {
      if (!currencies.has(m.currency))
        ctx.addIssue({ code: 'custom', path: ['markets', i, 'currency'], message: `${m.currency} is not among currencies` });
    });
    const categoryIds = new Set<string>();
    const walk = (nodes: CategoryNode[], path: Array<string | number>) =>
      nodes.forEach((node, i) => {
        if (categoryIds.has(node.category))
          ctx.addIssue({ code: 'custom', path: [...path, i, 'category'], message: `${node.category} appears twice in the tree` });
        categoryIds.add(node.category);
        if (node.children) walk(node.children, [...path, i, 'children']);
      });
    walk(store.categories, ['categories']);
    store.vouchers.forEach((v, i) => {
      if (v.type === 'percent' && v.percent === undefined)
        ctx.addIssue({ code: 'custom', path: ['vouchers', i, 'percent'], message: 'is required for a percent voucher' });
      if (v.type === 'amount' && Object.keys(v.amounts).length === 0)
        ctx.addIssue({ code: 'custom', path: ['vouchers', i, 'amounts'], message: 'needs an amount per currency for an amount voucher' });
    });
    store.countries.forEach((c, i) => {
      if (!markets.has(c.market))
        ctx.addIssue({ code: 'custom', path: ['countries', i, 'market'], message: `${c.market} is not among markets` });
      if (!languages.has(c.language))
        ctx.addIssue({ code: 'custom', path: ['countries', i, 'language'], message: `${c.language} is not among languages` });
    });
  });
export type StoreConfig = z.infer<typeof StoreConfigSchema>;

/** A language's name in itself (`en` English, `sv` svenska), capitalised; the id when the runtime does not know it. */
function ownLanguageName(language: string): string {
  try {
    const name = new Intl.DisplayNames([language], { type: 'language', fallback: 'none' }).of(language);
    return name ? name.charAt(0).toLocaleUpperCase(language) + name.slice(1) : language;
  } catch {
    return language;
  }
}

/** Reads and validates a store configuration file; a bad file stops the service with one line naming the field. */
export function loadStoreConfig(path: string): StoreConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ConfigError(`config: STORE_CONFIG ${path} cannot be read as JSON (${(e as Error).message})`);
  }
  return parseStoreConfig(raw, path);
}

export function parseStoreConfig(raw: unknown, source = 'store config'): StoreConfig {
  const result = StoreConfigSchema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'} ${i.message}`);
  throw new ConfigError(`config: ${source}: ${problems.join('; ')}`);
}

/** Formats an amount as the currency shows it, e.g. `1 234.50 SEK` → prefix + number + suffix. */
export function formatMoney(amount: number, format: CurrencyFormat): string {
  const fixed = Math.abs(amount).toFixed(format.decimalDigits);
  const [whole, fraction] = fixed.split('.');
  const number = fraction ? `${whole}${format.decimalPoint}${fraction}` : `${whole}`;
  return `${amount < 0 ? '-' : ''}${format.prefix}${number}${format.suffix}`;
}

/** The format of each configured currency; an unconfigured one is a programming error, not user input. */
export function currencyFormats(store: StoreConfig): (currency: string) => CurrencyFormat {
  const byCode = new Map(store.currencies.map((c) => [c.currency, c]));
  return (currency) => {
    const format = byCode.get(currency);
    if (!format) throw new Error(`currency ${currency} is not configured`);
    return format;
  };
}
