import type { SelectionDto } from '@commerce/cart-contracts';
import type { ProductDto } from '@commerce/catalog-contracts';
import type { CheckoutSession } from './session';
import { priceSelection } from './pricing';
import { renderShippingMethods, renderSelection } from './selection-answer';
import type { StoreView } from './store-view';

/** An empty selection for a visitor who has not added anything yet: no cart write for a mere look. */
export function emptySelection(view: StoreView, session: CheckoutSession): SelectionDto {
  return {
    id: '',
    currency: view.sessionCurrency(session),
    paymentMethod: '',
    shippingMethod: '',
    vouchers: [],
    paymentFields: {},
    country: session.country,
    state: session.state,
    language: session.language,
    items: [],
  };
}

/** The selection envelope of the spec: selection, products, location, language(s), countries, payment and shipping methods. */
export function selectionEnvelope(
  view: StoreView,
  token: string,
  session: CheckoutSession,
  selection: SelectionDto,
  products: ProductDto[],
  now: Date,
) {
  const format = view.currencyFormat(selection.currency);
  const price = priceSelection(view, session, selection, now);
  const answer = renderSelection(price, selection, format, view.answerCurrencyFormat(selection.currency));
  return {
    token,
    selection: answer,
    products,
    location: view.location(session),
    paymentMethods: view.paymentMethods(session),
    paymentFields: view.paymentFields(answer.paymentMethod, selection.paymentFields),
    shippingMethods: renderShippingMethods(price, format),
    countries: view.shippingCountries(),
    language: view.language(session),
    languages: view.languages(),
  };
}
export type SelectionEnvelope = ReturnType<typeof selectionEnvelope>;
