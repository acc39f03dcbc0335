import { api, ApiError } from '../api';
import { fill, h, sentence } from '../dom';
import { currentRoute } from '../router';
import { keep } from '../session';
import { notice, picture, problemText, productHref } from '../ui';
import type { Envelope, Line, Totals } from '../types';
import type { Screen } from '../main';

/** The totals as the selection states them; a total that does not apply (`false`) is not shown. */
export function totalsTable(totals: Totals, discount?: string | false): HTMLElement {
  const row = (label: string, value: string | false | undefined, cls = '') =>
    value ? h('tr', { class: cls }, h('th', { scope: 'row' }, label), h('td', {}, value)) : null;
  return h(
    'table',
    { class: 'totals' },
    h('caption', { class: 'visually-hidden' }, 'Totals'),
    h(
      'tbody',
      {},
      row('Items', totals.itemsTotalPrice),
      row(
        'Discount',
        discount || (totals.totalDiscountPrice && !/^[^1-9]*$/.test(totals.totalDiscountPrice) ? `−${totals.totalDiscountPrice}` : false),
        'discount',
      ),
      row('Shipping', totals.shippingPrice),
      row('Payment fee', totals.handlingCostPrice),
      row('Tax deducted', totals.taxDeducted),
      row('Tax added', totals.taxAdded),
      row('Total', totals.grandTotalPrice, 'grand'),
      row(`Of which VAT${totals.taxPercent ? ` (${totals.taxPercent}%)` : ''}`, totals.grandTotalPriceTax, 'tax'),
    ),
  );
}

function lineRow(e: Envelope, line: Line, redraw: (p: Promise<unknown>, message: string) => void): HTMLElement {
  const product = e.products?.find((p) => p.product === line.product);
  const change = (method: 'POST' | 'PUT' | 'DELETE', path: string, message: string) => redraw(api(method, path), message);
  const qtyId = `qty-${line.line}`;
  return h(
    'li',
    { class: 'line', 'data-line': line.line, 'data-item': line.item },
    h(
      'a',
      { href: productHref(line.product), class: 'line-picture', tabindex: '-1', 'aria-hidden': 'true' },
      product ? picture(product) : h('div', { class: 'picture' }),
    ),
    h(
      'div',
      { class: 'line-info' },
      h('p', { class: 'brand' }, line.brandName ?? ''),
      h('h2', { class: 'line-title' }, h('a', { href: productHref(line.product) }, line.productName)),
      h('p', { class: 'line-meta' }, [product?.variantName, `Size ${line.size}`].filter(Boolean).join(' · ')),
      h(
        'p',
        { class: 'line-price' },
        line.anyDiscount ? [h('span', {}, line.priceEach), ' ', h('s', {}, line.priceEachBeforeDiscount)] : line.priceEach,
        ' each',
      ),
    ),
    h(
      'div',
      { class: 'line-qty' },
      h(
        'form',
        {
          class: 'qty',
          onsubmit: (event: Event) => {
            event.preventDefault();
            const n = Number((event.currentTarget as HTMLFormElement).querySelector('input')!.value);
            if (Number.isInteger(n) && n >= 0) change('PUT', `lines/${line.line}/quantity/${n}`, `${line.productName}: quantity ${n}.`);
          },
        },
        h(
          'button',
          {
            type: 'button',
            class: 'icon-button',
            'aria-label': `One less ${line.productName}, size ${line.size}`,
            onclick: () => change('DELETE', `lines/${line.line}/quantity/1`, `${line.productName}: one less.`),
          },
          '−',
        ),
        h('label', { for: qtyId, class: 'visually-hidden' }, `Quantity of ${line.productName}, size ${line.size}`),
        h('input', {
          id: qtyId,
          name: 'quantity',
          type: 'number',
          inputmode: 'numeric',
          min: 0,
          max: 99,
          value: line.quantity,
          onchange: (event: Event) => (event.target as HTMLInputElement).form?.requestSubmit(),
        }),
        h(
          'button',
          {
            type: 'button',
            class: 'icon-button',
            'aria-label': `One more ${line.productName}, size ${line.size}`,
            onclick: () => change('POST', `lines/${line.line}/quantity/1`, `${line.productName}: one more.`),
          },
          '+',
        ),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'link-button',
          onclick: () => change('DELETE', `lines/${line.line}`, `${line.productName}, size ${line.size}, removed.`),
        },
        'Remove',
      ),
    ),
    h('p', { class: 'line-total' }, line.totalPrice),
  );
}

function voucherForm(e: Envelope, redraw: (p: Promise<unknown>, message: string) => void, typed: string): HTMLElement {
  const error = h('p', { class: 'field-error', id: 'voucher-error', role: 'alert' });
  const form = h(
    'form',
    {
      class: 'voucher',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const voucher = String(new FormData(form).get('voucher') ?? '').trim();
        if (!voucher) return;
        try {
          keep(await api('POST', 'vouchers', { voucher }));
          // Applied: the field is emptied (the one on screen, which a drawing of the bag may have replaced).
          const field = document.querySelector<HTMLInputElement>('#voucher-code');
          if (field) field.value = '';
          redraw(Promise.resolve(), `Code ${voucher} applied.`);
        } catch (err) {
          error.textContent = err instanceof ApiError ? sentence(Object.values(err.errors).join('; ')) : problemText(err);
          form.querySelector('input')?.setAttribute('aria-invalid', 'true');
        }
      },
    },
    h('label', { for: 'voucher-code' }, 'Discount code'),
    h(
      'div',
      { class: 'inline-form' },
      h('input', { id: 'voucher-code', name: 'voucher', autocomplete: 'off', 'aria-describedby': 'voucher-error', value: typed }),
      h('button', { type: 'submit', class: 'button secondary' }, 'Apply'),
    ),
    error,
  );
  const applied = e.selection.discounts?.vouchers ?? [];
  return h(
    'div',
    { class: 'vouchers' },
    applied.length
      ? h(
          'ul',
          { class: 'applied' },
          applied.map((v) =>
            h(
              'li',
              {},
              h('span', {}, h('strong', {}, v.voucher), ` — ${v.name}`),
              h(
                'button',
                {
                  type: 'button',
                  class: 'link-button',
                  'aria-label': `Remove code ${v.voucher}`,
                  onclick: () => redraw(api('DELETE', `vouchers/${encodeURIComponent(v.voucher)}`), `Code ${v.voucher} removed.`),
                },
                'Remove',
              ),
            ),
          ),
        )
      : null,
    form,
  );
}

/** Shipping methods as radio buttons with their prices in the selection's currency. */
export function shippingChoice(e: Envelope, redraw: (p: Promise<unknown>, message: string) => void): HTMLElement | null {
  const methods = e.shippingMethods ?? [];
  if (!methods.length) return null;
  return h(
    'fieldset',
    { class: 'choices shipping' },
    h('legend', {}, 'Delivery'),
    methods.map((m) =>
      h(
        'div',
        { class: 'choice' },
        h('input', {
          type: 'radio',
          name: 'shipping',
          id: `ship-${m.shippingMethod}`,
          value: m.shippingMethod,
          checked: e.selection.shippingMethod === m.shippingMethod,
          onchange: () => redraw(api('PUT', `shipping-methods/${encodeURIComponent(m.shippingMethod)}`), `${m.name} chosen.`),
        }),
        h(
          'label',
          { for: `ship-${m.shippingMethod}` },
          h('span', {}, m.name),
          h('span', { class: 'choice-price' }, /^[^1-9]*$/.test(m.price) ? 'Free' : m.price),
        ),
      ),
    ),
  );
}

/** Drawings of the bag begun: each reads the selection, and only the latest one draws. */
let draws = 0;

export const renderBag: Screen = async (main) => {
  const draw = ++draws;
  const answer = await api<Envelope>('GET', 'selection');
  // A later drawing began while this one read (another change, the country): its answer is the newer bag. A
  // shopper who left the bag meanwhile keeps the screen they went to.
  if (draw !== draws || currentRoute().parts[0] !== 'bag') return;
  const e = keep(answer);
  // The bag is drawn again after each change, once the selection is read anew: a code typed meanwhile (that read
  // is slow on a busy shop) stays in the new form instead of being dropped under the shopper's fingers.
  const typed = main.querySelector<HTMLInputElement>('#voucher-code')?.value ?? '';
  const live = h('p', { class: 'visually-hidden', role: 'status', id: 'bag-live' });
  const problem = h('div', { class: 'bag-problem' });
  /** Runs a change, keeps its answer, draws the bag again and says what happened. */
  const redraw = async (change: Promise<unknown>, message: string) => {
    try {
      keep(await change);
      const focusKey =
        (document.activeElement as HTMLElement | null)?.getAttribute('aria-label') ?? (document.activeElement as HTMLElement | null)?.id;
      await renderBag(main, [], new URLSearchParams());
      const again = focusKey
        ? (main.querySelector<HTMLElement>(`[aria-label="${CSS.escape(focusKey)}"]`) ??
          main.querySelector<HTMLElement>(`#${CSS.escape(focusKey)}`))
        : null;
      (again ?? main.querySelector<HTMLElement>('h1'))?.focus();
      const note = main.querySelector('#bag-live');
      if (note) note.textContent = message;
    } catch (err) {
      fill(problem, notice('error', problemText(err)));
    }
  };
  const lines = e.selection.items;
  if (!lines.length) {
    fill(
      main,
      h('h1', {}, 'Your bag'),
      live,
      h(
        'div',
        { class: 'empty-bag' },
        h('p', {}, 'Your bag is empty.'),
        h('p', {}, h('a', { class: 'button primary', href: '#/' }, 'Continue shopping')),
      ),
    );
    return;
  }
  fill(
    main,
    h('h1', {}, 'Your bag'),
    live,
    problem,
    h(
      'div',
      { class: 'bag' },
      h(
        'ul',
        { class: 'lines', 'aria-label': 'Items in your bag' },
        lines.map((line) => lineRow(e, line, redraw)),
      ),
      h(
        'aside',
        { class: 'summary', 'aria-label': 'Order summary' },
        h('h2', {}, 'Summary'),
        h('p', { class: 'ship-to' }, `Shipping to ${e.location.name || 'no country yet'} · prices in ${e.selection.currency}`),
        e.location.shipTo ? null : notice('error', 'We do not ship to this country. Choose another one at the top of the page.'),
        shippingChoice(e, redraw),
        voucherForm(e, redraw, typed),
        e.selection.totals ? totalsTable(e.selection.totals) : null,
        h(
          'a',
          {
            class: `button primary wide${e.location.shipTo ? '' : ' disabled'}`,
            href: e.location.shipTo ? '#/checkout' : null,
            'aria-disabled': e.location.shipTo ? null : 'true',
          },
          'Go to checkout',
        ),
        h('p', { class: 'continue' }, h('a', { href: '#/' }, 'Continue shopping')),
      ),
    ),
  );
};
