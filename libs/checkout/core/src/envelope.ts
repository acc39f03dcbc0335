import type { CurrencyFormat, StoreConfig } from '@commerce/shared-config';
import { currencyFormats, formatMoney } from '@commerce/shared-config';
import type { SelectionDto } from '@commerce/cart-contracts';
import type { PriceContext } from '@commerce/catalog-contracts';
import type { CheckoutSession } from './session';

/** Views of the store configuration that every envelope needs; built once per process. */
export class StoreView {
  private readonly countries;
  private readonly markets;
  // Fixed for the life of the process, so built once rather than per response (they are only serialised).
  private readonly sortedLanguages;
  private readonly shippable;

  constructor(readonly store: StoreConfig) {
    this.countries = new Map(store.countries.map((c) => [c.country, c]));
    this.currencyFormat = currencyFormats(store);
    this.markets = new Map(store.markets.map((m) => [m.market, m]));
    this.sortedLanguages = [...store.languages]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((l) => ({ language: l.language, name: l.name }));
    this.shippable = store.countries
      .filter((c) => c.shipTo)
      .map((c) => ({
        country: c.country,
        name: c.name,
        eu: c.eu,
        language: c.language,
        ...(c.states.length ? { states: c.states.map((s) => ({ state: s.state, name: s.name })) } : {}),
      }));
  }

  /** The country a new visitor starts in. Visitor-address detection (GeoIP) is not wired, so it is the store's default. */
  initialSession(now: Date): CheckoutSession {
    const country = this.store.defaultCountry ?? null;
    return { country, state: null, language: this.countryLanguage(country), createdAt: now.toISOString() };
  }

  countryLanguage(country: string | null): string {
    return (country && this.countries.get(country)?.language) || this.store.mainLanguage;
  }

  private marketOf(country: string | null) {
    const entry = country ? this.countries.get(country) : undefined;
    return (entry && this.markets.get(entry.market)) ?? this.store.markets[0]!;
  }

  currencyOf(country: string | null): string {
    return this.marketOf(country).currency;
  }

  priceContext(session: CheckoutSession): PriceContext {
    const market = this.marketOf(session.country);
    return { market: market.market, pricelist: market.pricelist, language: session.language };
  }

  readonly currencyFormat: (currency: string) => CurrencyFormat;

  location(session: CheckoutSession) {
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
    const found = this.store.languages.find((l) => l.language === session.language) ?? this.store.languages[0]!;
    return { language: found.language, name: found.name };
  }

  languages() {
    return this.sortedLanguages;
  }

  shippingCountries() {
    return this.shippable;
  }

  paymentMethods(session: CheckoutSession) {
    const format = this.currencyFormat(this.currencyOf(session.country));
    return this.store.paymentMethods
      .filter((m) => m.countries.length === 0 || (session.country !== null && m.countries.includes(session.country)))
      .map((m) => ({
        paymentMethod: m.paymentMethod,
        name: m.name,
        handlingCost: formatMoney(m.handlingCost, format),
        handlingCostAsNumber: m.handlingCost,
        providesCustomerAddressAfterPayment: m.providesCustomerAddressAfterPayment,
      }));
  }
}

/** The selection as the envelope shows it: the cart's view without its internal id. */
export function publicSelection(selection: SelectionDto) {
  const { id: _id, ...shown } = selection;
  return shown;
}

/** An empty selection for a visitor who has not added anything yet: no cart write for a mere look. */
export function emptySelection(view: StoreView, session: CheckoutSession): SelectionDto {
  const currency = view.currencyOf(session.country);
  const zero = formatMoney(0, view.currencyFormat(currency));
  return {
    id: '',
    currency,
    paymentMethod: '',
    shippingMethod: '',
    vouchers: [],
    paymentFields: {},
    country: session.country,
    state: session.state,
    language: session.language,
    items: [],
    totals: { itemsTotalPrice: zero, itemsTotalPriceAsNumber: 0, grandTotalPrice: zero, grandTotalPriceAsNumber: 0, totalQuantity: 0 },
  };
}

/** The selection envelope of the spec: selection with location, language(s), countries and payment methods. */
export function selectionEnvelope(view: StoreView, token: string, session: CheckoutSession, selection: SelectionDto) {
  return {
    token,
    selection: publicSelection(selection),
    location: view.location(session),
    language: view.language(session),
    languages: view.languages(),
    countries: view.shippingCountries(),
    paymentMethods: view.paymentMethods(session),
    paymentFields: [] as unknown[],
  };
}
