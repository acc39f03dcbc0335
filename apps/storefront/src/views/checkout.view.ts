import { api, ApiError } from '../api';
import { field, fill, formValues, h, showFieldErrors } from '../dom';
import { go } from '../router';
import { keep, loadSession, session } from '../session';
import { notice, problemText, unavailableList } from '../ui';
import { shippingChoice, totalsTable } from './bag.view';
import type { Address, Envelope, Unavailable } from '../types';
import type { Screen } from '../main';

/** The postal-code formats the spec states (interface.md, Address); the API checks the same and says so per field. */
export const POSTAL_CODES: Record<string, { pattern: RegExp; hint: string }> = {
  SE: { pattern: /^\d{3} \d{2}$/, hint: 'Five digits with a space: 114 51' },
  DE: { pattern: /^\d{5}$/, hint: 'Five digits: 10115' },
  PL: { pattern: /^\d{2}-\d{3}$/, hint: 'Two digits, a dash, three digits: 00-950' },
  DK: { pattern: /^\d{4}$/, hint: 'Four digits: 1050' },
};

/** What the payment answer says to do (interface.md, POST payment). */
interface PaymentAction {
  action: 'redirect' | 'form' | 'success' | 'failed';
  url?: string;
  formHtml?: string;
  order?: string;
}

const here = () => `${location.origin}${location.pathname}`;

/** Writes a provider's `formHtml` into `box` and runs its scripts (an embedded checkout mounts itself with one). */
function showProviderForm(box: HTMLElement, html: string): void {
  const template = document.createElement('template');
  template.innerHTML = html;
  for (const old of template.content.querySelectorAll('script')) {
    const script = document.createElement('script');
    script.textContent = old.textContent;
    old.replaceWith(script);
  }
  fill(box, h('h2', {}, 'Complete your payment'), template.content);
  box.querySelector<HTMLElement>('button, input[type="submit"], iframe')?.focus();
}

/** A 410: the items are gone from the selection; the visitor is told which, and the summary shows what is left. */
export async function showUnavailable(box: HTMLElement, err: ApiError, before: Envelope | null): Promise<void> {
  const names = new Map<string, string>();
  for (const line of before?.selection.items ?? []) names.set(line.item, `${line.productName}, size ${line.size}`);
  const entries = (err.body['unavailable'] as Unavailable[] | undefined) ?? [];
  await loadSession();
  fill(
    box,
    notice(
      'error',
      h('strong', {}, 'Sorry, these items are no longer available.'),
      unavailableList(entries, names),
      h('span', {}, 'Your bag has been updated. '),
      h('a', { href: '#/bag' }, 'Review your bag'),
    ),
  );
  box.querySelector<HTMLElement>('.notice')?.setAttribute('tabindex', '-1');
  if (box.isConnected) box.querySelector<HTMLElement>('.notice')?.focus();
}

function addressFields(e: Envelope, a: Address): HTMLElement {
  const country = e.location.country ?? '';
  const rule = POSTAL_CODES[country];
  const country_ = e.countries.find((c) => c.country === country);
  return h(
    'fieldset',
    { class: 'address' },
    h('legend', {}, 'Delivery address'),
    h(
      'div',
      { class: 'row' },
      field('First name', 'firstName', { value: a.firstName, required: true, autocomplete: 'given-name' }),
      field('Last name', 'lastName', { value: a.lastName, required: true, autocomplete: 'family-name' }),
    ),
    field('Street address', 'address1', { value: a.address1, required: true, autocomplete: 'address-line1' }),
    field('Apartment, floor', 'address2', { value: a.address2, autocomplete: 'address-line2' }),
    h(
      'div',
      { class: 'row' },
      field('Postal code', 'zipCode', {
        value: a.zipCode,
        required: true,
        autocomplete: 'postal-code',
        ...(rule ? { hint: rule.hint } : {}),
      }),
      field('City', 'city', { value: a.city, required: true, autocomplete: 'address-level2' }),
    ),
    country_?.states?.length
      ? h(
          'div',
          { class: 'field', 'data-field': 'state' },
          h('label', { for: 'state' }, 'State'),
          h(
            'select',
            {
              id: 'state',
              name: 'state',
              onchange: async (event: Event) =>
                keep(await api('PUT', `countries/${country}/states/${(event.target as HTMLSelectElement).value}`)),
            },
            h('option', { value: '' }, 'Choose…'),
            country_.states.map((s) => h('option', { value: s.state, selected: s.state === (e.location.state ?? a.state) }, s.name)),
          ),
          h('p', { class: 'field-error', role: 'alert' }),
        )
      : null,
    h(
      'p',
      { class: 'country-line' },
      `Country: ${e.location.name || 'not chosen'} `,
      h('span', { class: 'hint' }, '(change it at the top of the page)'),
    ),
    field('Phone', 'phoneNumber', { type: 'tel', value: a.phoneNumber, autocomplete: 'tel' }),
  );
}

function invoiceLookup(form: HTMLElement, method: string): HTMLElement {
  const status = h('p', { class: 'form-status', role: 'status' });
  const input = h('input', {
    id: 'identity-number',
    name: 'identityNumber',
    autocomplete: 'off',
    inputmode: 'numeric',
    'aria-describedby': 'identity-hint',
  });
  return h(
    'div',
    { class: 'invoice-lookup' },
    h('label', { for: 'identity-number' }, 'Personal identity number'),
    h('p', { class: 'hint', id: 'identity-hint' }, 'We look up your address in the population register, e.g. 19800101-1234.'),
    h(
      'div',
      { class: 'inline-form' },
      input,
      h(
        'button',
        {
          type: 'button',
          class: 'button secondary',
          onclick: async () => {
            try {
              const found = await api<{ address: Address }>('POST', 'address-search', {
                identityNumber: input.value.trim(),
                paymentMethod: method,
              });
              for (const [name, value] of Object.entries(found.address)) {
                const target = form.querySelector<HTMLInputElement>(`input[name="${name}"]`);
                if (target && value) target.value = String(value);
              }
              status.textContent = `Address found: ${found.address.firstName ?? ''} ${found.address.lastName ?? ''}, ${found.address.city ?? ''}.`;
            } catch (err) {
              status.textContent = err instanceof ApiError ? 'No address found for that number.' : problemText(err);
            }
          },
        },
        'Find my address',
      ),
    ),
    status,
  );
}

/** Puts typed values back into a checkout form drawn again. */
function refill(main: HTMLElement, typed: Record<string, string>): void {
  const form = main.querySelector<HTMLFormElement>('form.checkout');
  for (const [name, value] of Object.entries(typed)) {
    const input = form?.querySelector<HTMLInputElement>(`input[name="${name}"]:not([type="radio"]):not([type="checkbox"])`);
    if (input && value) input.value = value;
  }
}

export const renderCheckout: Screen = async (main) => {
  const e = await loadSession();
  if (!e.selection.items.length) {
    fill(
      main,
      h('h1', {}, 'Checkout'),
      h('div', { class: 'checkout-problem' }),
      h('p', {}, 'Your bag is empty. ', h('a', { href: '#/' }, 'Continue shopping')),
    );
    return;
  }
  const a: Address = { ...(e.loggedIn ?? {}) };
  const method = e.paymentMethods.find((m) => m.paymentMethod === e.selection.paymentMethod);
  const addressLater = Boolean(method?.providesCustomerAddressAfterPayment);
  const problem = h('div', { class: 'checkout-problem' });
  const providerBox = h('div', { class: 'provider', id: 'provider' });
  const redraw = async (change: Promise<unknown>) => {
    try {
      keep(await change);
      // What the visitor typed stays: the form is drawn again from the session, then refilled.
      const typed = formValues(form);
      await renderCheckout(main, [], new URLSearchParams());
      refill(main, typed);
    } catch (err) {
      fill(problem, notice('error', problemText(err)));
    }
  };
  const pay = h(
    'button',
    { type: 'submit', class: 'button primary wide' },
    method ? `Pay ${e.selection.totals?.grandTotalPrice || ''}` : 'Choose a payment method',
  );
  const form: HTMLFormElement = h(
    'form',
    { class: 'checkout', novalidate: true, onsubmit: (event: Event) => void submit(event) },
    h(
      'fieldset',
      { class: 'contact' },
      h('legend', {}, 'Contact'),
      field('E-mail', 'email', { type: 'email', value: a.email, required: !addressLater, autocomplete: 'email' }),
    ),
    addressLater ? h('p', { class: 'hint' }, 'You enter your address in the payment window.') : addressFields(e, a),
    shippingChoice(e, (p) => void redraw(p)),
    h(
      'fieldset',
      { class: 'choices payment' },
      h('legend', {}, 'Payment'),
      e.paymentMethods.map((m) =>
        h(
          'div',
          { class: 'choice' },
          h('input', {
            type: 'radio',
            name: 'paymentMethod',
            id: `pay-${m.paymentMethod}`,
            value: m.paymentMethod,
            checked: m.paymentMethod === e.selection.paymentMethod,
            onchange: () => void redraw(api('PUT', `payment-methods/${encodeURIComponent(m.paymentMethod)}`)),
          }),
          h(
            'label',
            { for: `pay-${m.paymentMethod}` },
            h('span', {}, m.name),
            m.handlingCost && /[1-9]/.test(m.handlingCost) ? h('span', { class: 'choice-price' }, `+ ${m.handlingCost}`) : null,
          ),
        ),
      ),
      h('div', { class: 'field', 'data-field': 'paymentMethod' }, h('p', { class: 'field-error', role: 'alert' })),
    ),
    null,
    h(
      'div',
      { class: 'field terms', 'data-field': 'termsAndConditions' },
      h('input', { type: 'checkbox', id: 'terms', name: 'termsAndConditions', 'aria-describedby': 'terms-error' }),
      h('label', { for: 'terms' }, 'I accept the terms and conditions'),
      h('p', { class: 'field-error', id: 'terms-error', role: 'alert' }),
    ),
    pay,
  );
  // The API does not say which methods have an address search (interface.md: one invoice method in one country):
  // an invoice method is offered it, and the API answers whether it knows the identity.
  if (method && /invoice/i.test(method.paymentMethod))
    form.querySelector('fieldset.address')?.prepend(invoiceLookup(form, method.paymentMethod));

  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    fill(problem);
    const values = formValues(form);
    const local: Record<string, string> = {};
    if (!e.selection.paymentMethod) local['paymentMethod'] = 'choose a payment method';
    if (!(form.querySelector('#terms') as HTMLInputElement).checked) local['termsAndConditions'] = 'please accept the terms and conditions';
    const rule = POSTAL_CODES[e.location.country ?? ''];
    if (!addressLater && rule && values['zipCode'] && !rule.pattern.test(values['zipCode']))
      local['zipCode'] = `use the format ${rule.hint.split(': ')[1] ?? ''} (${rule.hint.split(':')[0]})`;
    if (Object.keys(local).length) {
      showFieldErrors(form, local);
      return;
    }
    const address: Address = addressLater
      ? { country: e.location.country ?? '' }
      : {
          email: values['email'],
          firstName: values['firstName'],
          lastName: values['lastName'],
          address1: values['address1'],
          address2: values['address2'],
          zipCode: values['zipCode'],
          city: values['city'],
          country: e.location.country ?? '',
          phoneNumber: values['phoneNumber'],
          ...(e.location.state ? { state: e.location.state } : {}),
        };
    if (addressLater && values['email']) address.email = values['email'];
    pay.disabled = true;
    const before = session();
    try {
      const answer = await api<PaymentAction>('POST', 'payment', {
        termsAndConditions: true,
        paymentReturnPage: `${here()}#/payment-return`,
        paymentFailedPage: `${here()}#/payment-failed`,
        address,
      });
      if (answer.action === 'redirect' && answer.url) {
        location.assign(answer.url);
        return;
      }
      if (answer.action === 'form' && answer.formHtml) {
        showProviderForm(providerBox, answer.formHtml);
        return;
      }
      if (answer.action === 'success') {
        go('#/receipt');
        return;
      }
      fill(problem, notice('error', 'The payment was not accepted. Please try another payment method.'));
    } catch (err) {
      if (err instanceof ApiError && err.status === 410) {
        const box = h('div', {});
        await showUnavailable(box, err, before);
        const typed = formValues(form);
        await renderCheckout(main, [], new URLSearchParams());
        refill(main, typed);
        fill(main.querySelector('.checkout-problem')!, ...box.childNodes);
        main.querySelector<HTMLElement>('.checkout-problem .notice')?.focus();
      } else if (err instanceof ApiError) {
        const rest = showFieldErrors(form, err.errors);
        if (Object.keys(rest).length) fill(problem, notice('error', problemText(new ApiError(err.status, { ...err.body, errors: rest }))));
      } else fill(problem, notice('error', problemText(err)));
    } finally {
      pay.disabled = false;
    }
  }

  fill(
    main,
    h('h1', {}, 'Checkout'),
    e.loggedIn
      ? null
      : h(
          'p',
          { class: 'guest-note' },
          'Have an account? ',
          h('a', { href: '#/account?next=checkout' }, 'Sign in'),
          ' and we fill in your address.',
        ),
    problem,
    h(
      'div',
      { class: 'checkout-layout' },
      h('div', { class: 'checkout-main' }, form, providerBox),
      h('aside', { class: 'summary summary-slot', 'aria-label': 'Order summary' }, orderSummary(e)),
    ),
  );
};

function orderSummary(e: Envelope): HTMLElement[] {
  return [
    h('h2', {}, 'Your order'),
    h(
      'ul',
      { class: 'mini-lines' },
      e.selection.items.map((l) => h('li', {}, h('span', {}, `${l.quantity} × ${l.productName}, ${l.size}`), h('span', {}, l.totalPrice))),
    ),
    e.selection.totals ? totalsTable(e.selection.totals) : h('p', {}, 'Your bag is empty.'),
    h('p', {}, h('a', { href: '#/bag' }, 'Edit bag')),
  ];
}

/** The provider sent the visitor back: every parameter it gave goes to payment-result as it came. */
export const renderPaymentReturn: Screen = async (main, _parts, query) => {
  fill(main, h('h1', {}, 'Confirming your payment…'), h('p', { role: 'status' }, 'One moment please.'));
  const fields = Object.fromEntries(query.entries());
  const before = session();
  try {
    await api('POST', 'payment-result', { paymentMethodFields: fields });
    history.replaceState(null, '', `${location.pathname}#/receipt`);
    await loadSession().catch(() => null);
    go('#/receipt');
  } catch (err) {
    if (err instanceof ApiError && err.status === 410) {
      fill(main, h('h1', {}, 'Payment not completed'), h('div', { class: 'problem' }));
      await showUnavailable(main.querySelector('.problem')!, err, before);
      return;
    }
    fill(
      main,
      h('h1', {}, 'Payment not completed'),
      notice('error', problemText(err)),
      h('p', {}, h('a', { class: 'button primary', href: '#/checkout' }, 'Back to checkout')),
    );
  }
};

export const renderPaymentFailed: Screen = async (main) => {
  fill(
    main,
    h('h1', {}, 'The payment did not go through'),
    notice('error', 'Nothing was charged. You can try again or choose another payment method.'),
    h('p', {}, h('a', { class: 'button primary', href: '#/checkout' }, 'Back to checkout')),
  );
};
