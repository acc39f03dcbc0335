import type { CurrencyFormat, StoreConfig } from '@commerce/shared-config';
import { currencyFormats, formatMoney } from '@commerce/shared-config';
import type { PriceContext } from '@commerce/catalog-contracts';
import { ADDRESS_FIELDS } from '@commerce/checkout-contracts';
import type { CheckoutSession } from './session';
import { stableJson } from './stable-json';

type Country = StoreConfig['countries'][number];
type Market = StoreConfig['markets'][number];
export type PaymentMethodConfig = StoreConfig['paymentMethods'][number];
export type ShippingMethodConfig = StoreConfig['shippingMethods'][number];
export type VoucherConfig = StoreConfig['vouchers'][number];

const REQUIRED_FIELDS = new Set(['email', 'firstName', 'lastName', 'address1', 'city', 'zipCode', 'country']);

/** Views of the store configuration that every envelope needs; built once per process. */
export class StoreView {
  private readonly countries;
  private readonly markets;
  private readonly languagesById;
  private readonly vouchers;
  // Fixed for the life of the process, so built once rather than per response (they are only serialised).
  private readonly sortedLanguages;
  private readonly shippable;

  constructor(readonly store: StoreConfig) {
    this.countries = new Map(store.countries.map((c) => [c.country, c]));
    this.currencyFormat = currencyFormats(store);
    this.markets = new Map(store.markets.map((m) => [m.market, m]));
    this.languagesById = new Map(store.languages.map((l) => [l.language, l]));
    this.vouchers = new Map(store.vouchers.map((v) => [v.voucher.toUpperCase(), v]));
    this.sortedLanguages = stableJson(
      [...store.languages].sort((a, b) => a.name.localeCompare(b.name)).map((l) => ({ language: l.language, name: l.name })),
    );
    this.shippable = stableJson(
      store.countries
        .filter((c) => c.shipTo)
        .map((c) => ({
          country: c.country,
          name: c.name,
          eu: c.eu,
          language: c.language,
          ...(c.states.length ? { states: c.states.map((s) => ({ state: s.state, name: s.name })) } : {}),
        })),
    );
  }

  /** What an envelope shows per country, state, language or currency: built once each, serialised once (decision 59). */
  private readonly memo = new Map<string, object>();
  private memoised<T extends object>(key: string, make: () => T): T {
    let value = this.memo.get(key) as T | undefined;
    if (value === undefined) {
      value = stableJson(make());
      // Keys are the store's countries × states, languages and currencies: bounded by the configuration.
      this.memo.set(key, value);
    }
    return value;
  }

  /** The session of a new visitor: the detected country when the store has it, else the store's default, else none. */
  initialSession(now: Date, detectedCountry?: string | null): CheckoutSession {
    const detected = detectedCountry?.toUpperCase();
    const country = (detected && this.countries.has(detected) ? detected : this.store.defaultCountry) ?? null;
    return { country, state: null, language: this.countryLanguage(country), createdAt: now.toISOString() };
  }

  countryLanguage(country: string | null): string {
    return (country && this.countries.get(country)?.language) || this.store.mainLanguage;
  }

  country(code: string | null): Country | undefined {
    return code ? this.countries.get(code) : undefined;
  }

  hasLanguage(language: string): boolean {
    return this.languagesById.has(language);
  }

  voucher(code: string): VoucherConfig | undefined {
    return this.vouchers.get(code.toUpperCase());
  }

  marketOf(country: string | null): Market {
    const entry = country ? this.countries.get(country) : undefined;
    return (entry && this.markets.get(entry.market)) ?? this.store.markets[0]!;
  }

  currencyOf(country: string | null): string {
    return this.marketOf(country).currency;
  }

  /** The session's currency: a buyer's pricelist's (decision 46), else its country's market's. */
  sessionCurrency(session: Pick<CheckoutSession, 'country' | 'buyer'>): string {
    return session.buyer?.currency ?? this.currencyOf(session.country);
  }

  hasCurrency(currency: string): boolean {
    return this.store.currencies.some((c) => c.currency === currency);
  }

  /** Where the session's prices and visibility come from: a buyer's market and pricelist, else its country's market's. */
  priceContext(session: Pick<CheckoutSession, 'country' | 'language' | 'buyer'>): PriceContext {
    const market = this.marketOf(session.country);
    return {
      market: session.buyer?.market ?? market.market,
      pricelist: session.buyer?.pricelist ?? market.pricelist,
      language: session.language,
    };
  }

  readonly currencyFormat: (currency: string) => CurrencyFormat;

  /** The `currencyFormat` a selection answers: the order history's form (decision 111), made and serialised once per currency. */
  answerCurrencyFormat(currency: string) {
    return this.memoised(`currencyFormat|${currency}`, () => currencyFormatAnswer(this.currencyFormat(currency)));
  }

  location(session: CheckoutSession) {
    return this.memoised(`location|${session.country}|${session.state}`, () => this.makeLocation(session));
  }

  private makeLocation(session: Pick<CheckoutSession, 'country' | 'state'>) {
    const entry = session.country ? this.countries.get(session.country) : undefined;
    const state = entry && session.state ? entry.states.find((s) => s.state === session.state) : undefined;
    return {
      country: entry ? entry.country : null,
      name: entry?.name ?? '',
      state: state ? state.state : null,
      stateName: state?.name ?? '',
      eu: entry?.eu ?? false,
      shipTo: entry?.shipTo ?? false,
      ...(this.store.languages.length > 1 && entry ? { language: entry.language } : {}),
    };
  }

  language(session: CheckoutSession) {
    return this.memoised(`language|${session.language}`, () => this.makeLanguage(session));
  }

  private makeLanguage(session: Pick<CheckoutSession, 'language'>) {
    const found = this.languagesById.get(session.language) ?? this.store.languages[0]!;
    return { language: found.language, name: found.name };
  }

  languages() {
    return this.sortedLanguages;
  }

  shippingCountries() {
    return this.shippable;
  }

  /** The payment methods offered in a country (a method listing no countries is offered everywhere). */
  availablePaymentMethods(country: string | null): PaymentMethodConfig[] {
    return this.store.paymentMethods.filter((m) => m.countries.length === 0 || (country !== null && m.countries.includes(country)));
  }

  /** The shipping methods to a country that have a price in the currency. */
  availableShippingMethods(country: string | null, currency: string): ShippingMethodConfig[] {
    if (!country || !this.countries.get(country)?.shipTo) return [];
    return this.store.shippingMethods.filter((m) => (m.countries.length === 0 || m.countries.includes(country)) && m.prices[currency]);
  }

  paymentMethods(session: CheckoutSession) {
    return this.memoised(`paymentMethods|${session.country}|${this.sessionCurrency(session)}`, () => this.makePaymentMethods(session));
  }

  private makePaymentMethods(session: Pick<CheckoutSession, 'country' | 'buyer'>) {
    const format = this.currencyFormat(this.sessionCurrency(session));
    return this.availablePaymentMethods(session.country).map((m) => ({
      paymentMethod: m.paymentMethod,
      name: m.name,
      handlingCost: formatMoney(m.handlingCost, format),
      handlingCostAsNumber: m.handlingCost,
      providesCustomerAddressAfterPayment: m.providesCustomerAddressAfterPayment,
    }));
  }

  /** The fields checkout needs for the selected payment method, with what `PUT payment-fields` stored. */
  paymentFields(paymentMethod: string, stored: Record<string, string>) {
    // Nothing stored yet (most selections): the same fields per method, made and serialised once (decision 70).
    if (Object.keys(stored).length > 0) return this.makePaymentFields(paymentMethod, stored);
    return this.memoised(`paymentFields|${paymentMethod}`, () => this.makePaymentFields(paymentMethod, stored));
  }

  private makePaymentFields(paymentMethod: string, stored: Record<string, string>) {
    const method = this.store.paymentMethods.find((m) => m.paymentMethod === paymentMethod);
    const fields = method?.providesCustomerAddressAfterPayment ? ['country'] : ADDRESS_FIELDS;
    return fields.map((field) => ({ field, required: REQUIRED_FIELDS.has(field), value: stored[field] ?? '' }));
  }
}

/**
 * The spec's `currencyFormat` (Order): `decimalDigits` is a string there, so one storefront formatter reads the
 * selection's and the order's alike (decision 111). Members in the order of the spec's table.
 */
export function currencyFormatAnswer(format: CurrencyFormat) {
  return {
    currency: format.currency,
    name: format.name,
    prefix: format.prefix,
    suffix: format.suffix,
    decimalPoint: format.decimalPoint,
    decimalDigits: String(format.decimalDigits),
    uri: format.uri,
  };
}
export type CurrencyFormatAnswer = ReturnType<typeof currencyFormatAnswer>;
