import { api, ApiError } from '../api';
import { fill, h } from '../dom';
import { loggedIn } from '../session';
import { totalsTable } from './bag.view';
import type { Address, Order } from '../types';
import type { Screen } from '../main';

function addressBlock(title: string, a: (Address & { countryName?: string }) | undefined): HTMLElement | null {
  if (!a || !(a.firstName || a.address1 || a.city)) return null;
  return h(
    'div',
    { class: 'address-block' },
    h('h3', {}, title),
    h(
      'p',
      {},
      [
        `${a.firstName ?? ''} ${a.lastName ?? ''}`.trim(),
        a.address1,
        a.address2,
        `${a.zipCode ?? ''} ${a.city ?? ''}`.trim(),
        a.countryName ?? a.country,
      ]
        .filter(Boolean)
        .flatMap((l, i) => (i ? [h('br'), l!] : [l!])),
    ),
  );
}

/** One order as a receipt and the history show it: lines, totals, addresses, shipments with tracking links. */
export function orderDetails(o: Order, level: 'h2' | 'h3' = 'h2'): HTMLElement {
  return h(
    'div',
    { class: 'order' },
    h(
      'dl',
      { class: 'order-facts' },
      h('div', {}, h('dt', {}, 'Order'), h('dd', {}, o.order)),
      h('div', {}, h('dt', {}, 'Date'), h('dd', {}, o.date)),
      h('div', {}, h('dt', {}, 'Status'), h('dd', {}, o.statusDescription || o.status)),
      h('div', {}, h('dt', {}, 'Payment'), h('dd', {}, o.paymentMethodName)),
      h('div', {}, h('dt', {}, 'Delivery'), h('dd', {}, o.shippingMethodName)),
    ),
    h(
      'table',
      { class: 'order-lines' },
      h('caption', { class: 'visually-hidden' }, `Items of order ${o.order}`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Item'),
          h('th', { scope: 'col', class: 'num' }, 'Qty'),
          h('th', { scope: 'col', class: 'num' }, 'Price'),
        ),
      ),
      h(
        'tbody',
        {},
        o.items.map((i) =>
          h(
            'tr',
            {},
            h(
              'td',
              {},
              h('span', { class: 'brand' }, i.brandName ?? ''),
              ' ',
              i.productName,
              h('span', { class: 'item-size' }, ` · size ${i.size}`),
            ),
            h('td', { class: 'num' }, String(i.quantity)),
            h('td', { class: 'num' }, i.totalPrice),
          ),
        ),
      ),
    ),
    totalsTable(o.totals, o.discounts?.anyDiscount ? `−${o.discounts.discount}` : false),
    h('div', { class: 'addresses' }, addressBlock('Billing address', o.address), addressBlock('Delivery address', o.shippingAddress)),
    h(
      'div',
      { class: 'shipments' },
      h(level === 'h2' ? 'h3' : 'h4', {}, 'Shipments'),
      o.shipments.length
        ? h(
            'ul',
            {},
            o.shipments.map((s) =>
              h(
                'li',
                {},
                `Shipped ${s.shippedDate} with ${s.carrier}${s.service ? ` ${s.service}` : ''}. `,
                s.trackingUrl
                  ? h('a', { href: s.trackingUrl, target: '_blank', rel: 'noopener' }, `Track parcel ${s.trackingId}`)
                  : s.trackingId
                    ? `Tracking number ${s.trackingId}`
                    : null,
              ),
            ),
          )
        : h('p', {}, 'Not shipped yet. We will e-mail you the tracking link.'),
    ),
  );
}

export const renderReceipt: Screen = async (main) => {
  let order: Order;
  try {
    order = await api<Order>('GET', 'receipt');
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      fill(
        main,
        h('h1', {}, 'No order yet'),
        h('p', {}, 'There is no order placed in this session. ', h('a', { href: '#/' }, 'Continue shopping')),
      );
      return;
    }
    throw err;
  }
  fill(
    main,
    h(
      'div',
      { class: 'receipt' },
      h('h1', {}, 'Thank you for your order!'),
      h(
        'p',
        { class: 'lead' },
        `Your order number is `,
        h('strong', { class: 'order-number' }, order.order),
        `. A confirmation is on its way to ${order.address?.email || 'your e-mail'}.`,
      ),
      orderDetails(order),
      h(
        'p',
        { class: 'actions' },
        h('a', { class: 'button primary', href: '#/' }, 'Continue shopping'),
        ' ',
        loggedIn() ? h('a', { class: 'button secondary', href: '#/orders' }, 'Your orders') : null,
      ),
    ),
  );
};
