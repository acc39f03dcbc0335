import { h } from './dom';
import { ApiError, UnavailableError } from './api';
import type { Product, Unavailable } from './types';

export const productHref = (id: string) => `#/product/${encodeURIComponent(id)}`;

/** The product's first picture of a kind (`standard`), in a box of fixed proportions so nothing jumps when it loads. */
export function picture(p: Pick<Product, 'name' | 'variantName' | 'media'>, index = 0, eager = false): HTMLElement {
  const src = p.media?.['standard']?.[index] ?? p.media?.[Object.keys(p.media ?? {})[0] ?? '']?.[index];
  const alt = [p.name, p.variantName].filter(Boolean).join(', ');
  return h(
    'div',
    { class: 'picture' },
    src
      ? h('img', {
          src,
          alt: index ? `${alt}, view ${index + 1}` : alt,
          width: 600,
          height: 800,
          loading: eager ? 'eager' : 'lazy',
          decoding: 'async',
        })
      : null,
  );
}

export function priceTag(p: Pick<Product, 'price' | 'priceAsNumber' | 'priceBeforeDiscount' | 'priceBeforeDiscountAsNumber'>): HTMLElement {
  const reduced = p.priceBeforeDiscountAsNumber > p.priceAsNumber;
  return h(
    'p',
    { class: `price${reduced ? ' on-sale' : ''}` },
    reduced ? h('span', { class: 'visually-hidden' }, 'Now ') : null,
    h('span', { class: 'now' }, p.price),
    reduced ? [' ', h('s', { class: 'before' }, h('span', { class: 'visually-hidden' }, 'was '), p.priceBeforeDiscount)] : null,
  );
}

export function productCard(p: Product, headingLevel: 'h2' | 'h3' = 'h3'): HTMLElement {
  const reduced = p.priceBeforeDiscountAsNumber > p.priceAsNumber;
  return h(
    'li',
    { class: 'card' },
    h(
      'a',
      { href: productHref(p.product), class: 'card-link' },
      picture(p),
      reduced && p.discountPercent
        ? h('span', { class: 'badge sale' }, `−${Math.round(p.discountPercent)}%`)
        : p.newProduct
          ? h('span', { class: 'badge' }, 'New')
          : null,
      h('p', { class: 'brand' }, p.brandName ?? ''),
      h(headingLevel, { class: 'card-title' }, p.name),
      h(
        'p',
        { class: 'variant' },
        p.swatch ? h('span', { class: 'dot', style: `background:${p.swatch.hex}`, 'aria-hidden': 'true' }) : null,
        p.variantName ?? '',
      ),
    ),
    priceTag(p),
  );
}

/** A message box: `role=status` for news, `role=alert` for problems. */
export function notice(kind: 'info' | 'error' | 'success', ...children: Array<Node | string | null>): HTMLElement {
  return h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, ...children);
}

/** What the visitor reads when the shop's server failed: never a stack, always a way on. */
export function problemText(err: unknown): string {
  if (err instanceof UnavailableError) {
    const wait = err.retryAfterSeconds
      ? ` Please try again in ${err.retryAfterSeconds} second${err.retryAfterSeconds === 1 ? '' : 's'}.`
      : ' Please try again in a moment.';
    return err.status === 0 ? `We could not reach the shop. Check your connection and try again.` : `The shop is busy right now.${wait}`;
  }
  if (err instanceof ApiError)
    return (
      Object.values(err.errors)
        .map((m) => m.charAt(0).toUpperCase() + m.slice(1))
        .join('. ') || 'Something went wrong.'
    );
  return 'Something went wrong. Please try again.';
}

/** A 410's items, named as the shop names them. */
export function unavailableList(entries: Unavailable[], names: Map<string, string>): HTMLElement {
  return h(
    'ul',
    { class: 'unavailable' },
    entries.map((u) =>
      h(
        'li',
        {},
        names.get(u.item) ?? names.get(u.product) ?? `Item ${u.item}`,
        u.available > 0
          ? ` — only ${u.available} left, your quantity was lowered from ${u.originalQuantity}`
          : ' — sold out, removed from your bag',
      ),
    ),
  );
}
