import { api } from './api';
import { currentRoute, go } from './router';
import { fill, h } from './dom';
import { keep, loadSession, onSession, session } from './session';
import { notice, problemText } from './ui';
import { renderHome } from './views/home.view';
import { renderProduct } from './views/product.view';
import { renderBag } from './views/bag.view';
import { renderCheckout, renderPaymentFailed, renderPaymentReturn } from './views/checkout.view';
import { renderReceipt } from './views/receipt.view';
import { renderAccount, renderOrders, renderReset } from './views/account.view';
import type { Envelope } from './types';

/** A screen: fills `main` for the route's path parts and query. */
export type Screen = (main: HTMLElement, parts: string[], query: URLSearchParams) => Promise<void>;

const routes: Record<string, Screen> = {
  '': renderHome,
  product: renderProduct,
  bag: renderBag,
  checkout: renderCheckout,
  'payment-return': renderPaymentReturn,
  'payment-failed': renderPaymentFailed,
  receipt: renderReceipt,
  account: renderAccount,
  orders: renderOrders,
  reset: renderReset,
};

const main = document.getElementById('main') as HTMLElement;

let renders = 0;
/** Draws the route's screen; `keepFocus` leaves the focus where it is (a header control redrew the screen). */
async function render(keepFocus = false): Promise<void> {
  const mine = ++renders;
  const { parts, query } = currentRoute();
  const screen = routes[parts[0] ?? ''] ?? notFound;
  const active = document.activeElement;
  const focusedId = active instanceof HTMLElement && main.contains(active) && active.id ? active.id : null;
  main.setAttribute('aria-busy', 'true');
  try {
    await screen(main, parts, query);
  } catch (err) {
    if (mine !== renders) return;
    fill(
      main,
      h('h1', { tabindex: '-1' }, 'Sorry'),
      notice('error', problemText(err)),
      h('p', {}, h('button', { type: 'button', class: 'button', onclick: () => void render() }, 'Try again')),
    );
  } finally {
    if (mine === renders) main.removeAttribute('aria-busy');
  }
  if (mine !== renders) return;
  document
    .querySelectorAll('.site-nav a')
    .forEach((a) => a.toggleAttribute('aria-current', a.getAttribute('href') === `#/${parts[0] ?? ''}`));
  // A control that changed the screen (a filter, the sort) keeps the focus when it is drawn again; otherwise
  // keyboard and screen-reader users land on the new screen's heading, as after a page load.
  const again = focusedId ? main.querySelector<HTMLElement>(`#${CSS.escape(focusedId)}`) : null;
  const heading = main.querySelector<HTMLElement>('h1');
  if (keepFocus) return;
  if (again) again.focus({ preventScroll: true });
  else if (heading && (parts[0] || renders > 1)) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
  if (!again) window.scrollTo(0, 0);
}

const notFound: Screen = async (m) => {
  fill(m, h('h1', {}, 'Page not found'), h('p', {}, h('a', { href: '#/' }, 'Back to the shop')));
};

/** The header's bag count, country and language, and account link follow the session. */
function drawHeader(e: Envelope): void {
  const count = e.selection.items.reduce((n, line) => n + line.quantity, 0);
  const bag = document.getElementById('bag-count');
  if (bag) bag.textContent = String(count);
  document.getElementById('bag-link')?.setAttribute('aria-label', `Bag, ${count} item${count === 1 ? '' : 's'}`);
  const account = document.getElementById('account-link');
  if (account) account.textContent = e.loggedIn ? `Hi, ${e.loggedIn.firstName || 'you'}` : 'Sign in';
  const country = document.getElementById('country-select') as HTMLSelectElement | null;
  if (country) {
    fill(
      country,
      e.countries.map((c) => h('option', { value: c.country, selected: c.country === e.location.country }, c.name)),
    );
  }
  const language = document.getElementById('language-select') as HTMLSelectElement | null;
  if (language)
    fill(
      language,
      e.languages.map((l) => h('option', { value: l.language, selected: l.language === e.language.language }, l.name)),
    );
  const currency = document.getElementById('currency');
  if (currency) currency.textContent = e.selection.currency;
  document.documentElement.lang = e.language.language || 'en';
}

function wireHeader(): void {
  // The skip link moves focus without touching the hash, which holds the route.
  document.querySelector('.skip-link')?.addEventListener('click', (event) => {
    event.preventDefault();
    main.focus();
  });
  const search = document.getElementById('search-form') as HTMLFormElement;
  search.addEventListener('submit', (event) => {
    event.preventDefault();
    const q = String(new FormData(search).get('q') ?? '').trim();
    go(q ? `#/?q=${encodeURIComponent(q)}` : '#/');
  });
  const country = document.getElementById('country-select') as HTMLSelectElement;
  const language = document.getElementById('language-select') as HTMLSelectElement;
  const status = document.getElementById('locale-status') as HTMLElement;
  country.addEventListener('change', async () => {
    const entry = session()?.countries.find((c) => c.country === country.value);
    try {
      // The country's own language comes along, as a shopper expects from a country switch.
      keep(await api('PUT', `countries/${encodeURIComponent(country.value)}`, entry?.language ? { language: entry.language } : {}));
      status.textContent = `Shipping to ${entry?.name ?? country.value}; prices in ${session()?.selection.currency ?? ''}.`;
      await render(true);
    } catch (err) {
      status.textContent = problemText(err);
    }
  });
  language.addEventListener('change', async () => {
    try {
      keep(await api('PUT', `languages/${encodeURIComponent(language.value)}`));
      status.textContent = `Language: ${session()?.language.name ?? language.value}.`;
      await render(true);
    } catch (err) {
      status.textContent = problemText(err);
    }
  });
  const newsletter = document.getElementById('newsletter-form') as HTMLFormElement;
  newsletter.addEventListener('submit', async (event) => {
    event.preventDefault();
    const out = newsletter.querySelector('.form-status') as HTMLElement;
    const email = String(new FormData(newsletter).get('email') ?? '').trim();
    try {
      await api('POST', 'newsletter-subscription', { email, country: session()?.location.country ?? undefined });
      out.textContent = `Thank you! ${email} will hear from us.`;
      newsletter.reset();
    } catch (err) {
      out.textContent = problemText(err);
    }
  });
}

/** A password-reset link (`/?id=…&i=…`, the store's frontend URL) opens the reset screen. */
function followMailLink(): void {
  const params = new URLSearchParams(location.search);
  if (params.get('id') && params.get('i')) {
    history.replaceState(null, '', `${location.pathname}#/reset?${new URLSearchParams({ id: params.get('id')!, i: params.get('i')! })}`);
  }
}

async function start(): Promise<void> {
  followMailLink();
  onSession(drawHeader);
  wireHeader();
  // Only `#/…` is a route: an in-page anchor (the skip link's `#main`) is not.
  window.addEventListener('hashchange', () => {
    if (!location.hash || location.hash.startsWith('#/')) void render();
  });
  try {
    await loadSession();
  } catch (err) {
    fill(document.getElementById('site-status')!, notice('error', problemText(err)));
  }
  await render();
}

void start();
