import { api, ApiError } from '../api';
import { fill, h, sentence } from '../dom';
import { keep, session } from '../session';
import { notice, picture, priceTag, problemText, productCard } from '../ui';
import type { Item, Product, ProductList } from '../types';
import type { Screen } from '../main';

function gallery(p: Product): HTMLElement {
  const images = p.media?.['standard'] ?? [];
  const big = h('div', { class: 'gallery-main' }, picture(p, 0, true));
  return h(
    'div',
    { class: 'gallery' },
    big,
    images.length > 1
      ? h(
          'ul',
          { class: 'thumbs', 'aria-label': 'More pictures' },
          images.map((_src, i) =>
            h(
              'li',
              {},
              h(
                'button',
                {
                  type: 'button',
                  class: 'thumb',
                  'aria-label': `Show picture ${i + 1} of ${images.length}`,
                  'aria-pressed': i === 0 ? 'true' : 'false',
                  onclick: (event: Event) => {
                    fill(big, picture(p, i, true));
                    for (const b of (event.currentTarget as HTMLElement).closest('ul')!.querySelectorAll('button'))
                      b.setAttribute('aria-pressed', String(b === event.currentTarget));
                  },
                },
                picture(p, i),
              ),
            ),
          ),
        )
      : null,
  );
}

/** Sizes as radio buttons: a sold-out size is shown, cannot be bought, and offers a back-in-stock mail. */
function sizePicker(p: Product, onChoose: (item: Item) => void): HTMLElement {
  return h(
    'fieldset',
    { class: 'sizes' },
    h('legend', {}, 'Size'),
    h(
      'div',
      { class: 'size-options' },
      p.items.map((item) => {
        const id = `size-${item.item}`;
        const available = item.inStock !== false && item.stock !== 'no';
        return h(
          'div',
          { class: `size${available ? '' : ' sold-out'}` },
          h('input', { type: 'radio', name: 'size', id, value: item.item, onchange: () => onChoose(item) }),
          h('label', { for: id }, item.name, ' ', h('span', { class: 'stock' }, available ? 'In stock' : 'Sold out')),
        );
      }),
    ),
  );
}

function backInStockForm(item: Item): HTMLElement {
  const status = h('p', { class: 'form-status', role: 'status' });
  const form = h(
    'form',
    {
      class: 'back-in-stock',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const email = String(new FormData(form).get('email') ?? '').trim();
        try {
          await api('POST', 'back-in-stock-subscription', { email, item: item.item });
          status.textContent = `We will e-mail ${email} once size ${item.name} is back.`;
        } catch (err) {
          status.textContent = problemText(err);
        }
      },
    },
    h('label', { for: 'bis-email' }, `Size ${item.name} is sold out. E-mail me when it is back:`),
    h(
      'div',
      { class: 'inline-form' },
      h('input', {
        id: 'bis-email',
        name: 'email',
        type: 'email',
        required: true,
        autocomplete: 'email',
        value: session()?.loggedIn?.email ?? '',
      }),
      h('button', { class: 'button secondary', type: 'submit' }, 'Notify me'),
    ),
    status,
  );
  return form;
}

async function related(p: Product): Promise<HTMLElement | null> {
  const ids = (p.relatedProducts ?? []).map((r) => Number(r.product)).filter((n) => Number.isFinite(n));
  if (!ids.length) return null;
  const list = await api<ProductList>('POST', 'products', { products: ids, limit: 8 });
  if (!list.products.length) return null;
  return h(
    'section',
    { class: 'related', 'aria-labelledby': 'related-title' },
    h('h2', { id: 'related-title' }, 'You may also like'),
    h(
      'ul',
      { class: 'grid small' },
      list.products.map((r) => productCard(r)),
    ),
  );
}

export const renderProduct: Screen = async (main, parts) => {
  const { product: p } = await api<{ product: Product }>('GET', `products/${encodeURIComponent(parts[1] ?? '')}`);
  let chosen: Item | null = null;
  const status = h('div', { class: 'add-status', 'aria-live': 'polite' });
  const extra = h('div', { class: 'size-extra' });
  const add = h('button', { type: 'submit', class: 'button primary wide' }, 'Add to bag');
  const form = h(
    'form',
    {
      class: 'buy',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        if (!chosen) {
          fill(status, notice('error', 'Please choose a size.'));
          form.querySelector<HTMLInputElement>('input[name="size"]')?.focus();
          return;
        }
        add.disabled = true;
        try {
          keep(await api('POST', `items/${encodeURIComponent(chosen.item)}`));
          fill(status, notice('success', `${p.name}, size ${chosen.name}, is in your bag. `, h('a', { href: '#/bag' }, 'View bag')));
        } catch (err) {
          fill(
            status,
            notice(
              'error',
              err instanceof ApiError && err.errors['item'] ? sentence(`this size: ${err.errors['item']}`) : problemText(err),
            ),
          );
        } finally {
          add.disabled = false;
        }
      },
    },
    sizePicker(p, (item) => {
      chosen = item;
      const available = item.inStock !== false && item.stock !== 'no';
      add.disabled = !available;
      fill(extra, available ? null : backInStockForm(item));
      fill(status);
    }),
    extra,
    add,
    status,
  );
  const category = p.categoryName?.length ? p.categoryName.join(' / ') : null;
  fill(
    main,
    h(
      'nav',
      { class: 'breadcrumbs', 'aria-label': 'Breadcrumb' },
      h(
        'ol',
        {},
        h('li', {}, h('a', { href: '#/' }, 'Shop')),
        category
          ? h(
              'li',
              {},
              h(
                'a',
                { href: `#/?categories=${encodeURIComponent(String((p as unknown as { category?: string }).category ?? ''))}` },
                category,
              ),
            )
          : null,
        h('li', { 'aria-current': 'page' }, p.name),
      ),
    ),
    h(
      'article',
      { class: 'product' },
      gallery(p),
      h(
        'div',
        { class: 'product-info' },
        h('p', { class: 'brand' }, p.brandName ?? ''),
        h('h1', {}, p.name),
        h(
          'p',
          { class: 'variant' },
          p.swatch ? h('span', { class: 'dot', style: `background:${p.swatch.hex}`, 'aria-hidden': 'true' }) : null,
          p.variantName ?? '',
        ),
        priceTag(p),
        p.showAsOnSale && p.discountPercent ? h('p', { class: 'saving' }, `You save ${Math.round(p.discountPercent)}%`) : null,
        form,
        h(
          'div',
          { class: 'description' },
          (p.description ?? '').split('\n').map((line) => h('p', {}, line)),
        ),
      ),
    ),
    h('div', { id: 'related-slot', class: 'related-slot' }),
  );
  const slot = main.querySelector('#related-slot');
  related(p)
    .then((section) => slot && fill(slot, section))
    .catch(() => slot && fill(slot));
};
