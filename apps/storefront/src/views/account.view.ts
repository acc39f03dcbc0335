import { api, ApiError } from '../api';
import { field, fill, formValues, h, showFieldErrors } from '../dom';
import { go } from '../router';
import { keep, loadSession, session } from '../session';
import { notice, problemText } from '../ui';
import { POSTAL_CODES } from './checkout.view';
import { orderDetails } from './receipt.view';
import type { Address, Order } from '../types';
import type { Screen } from '../main';

/** A form that posts through `send`, shows errors on its fields, and a status line under it. */
function accountForm(
  cls: string,
  title: string,
  fields: HTMLElement[],
  button: string,
  send: (values: Record<string, string>) => Promise<string | void>,
): HTMLElement {
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'button primary' }, button);
  const form: HTMLFormElement = h(
    'form',
    {
      class: `account-form ${cls}`,
      novalidate: true,
      onsubmit: async (event: Event) => {
        event.preventDefault();
        fill(status);
        showFieldErrors(form, {});
        submit.disabled = true;
        try {
          const message = await send(formValues(form));
          if (message) fill(status, notice('success', message));
        } catch (err) {
          if (err instanceof ApiError) {
            const rest = showFieldErrors(form, err.errors);
            if (Object.keys(rest).length)
              fill(status, notice('error', problemText(new ApiError(err.status, { ...err.body, errors: rest }))));
          } else fill(status, notice('error', problemText(err)));
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('h2', {}, title),
    fields,
    submit,
    status,
  );
  return form;
}

function signedOut(main: HTMLElement, next: string | null): void {
  const after = () => go(next === 'checkout' ? '#/checkout' : '#/account');
  fill(
    main,
    h('h1', {}, 'Sign in or create an account'),
    h(
      'div',
      { class: 'two-columns' },
      h(
        'div',
        {},
        accountForm(
          'login',
          'Sign in',
          [
            field('E-mail', 'email', { type: 'email', required: true, autocomplete: 'username' }),
            field('Password', 'password', { type: 'password', required: true, autocomplete: 'current-password' }),
          ],
          'Sign in',
          async (v) => {
            keep(await api('POST', `login/${encodeURIComponent(v['email'] ?? '')}`, { password: v['password'] ?? '' }));
            after();
          },
        ),
        h(
          'details',
          { class: 'forgot' },
          h('summary', {}, 'Forgot your password?'),
          accountForm(
            'reset-request',
            'Reset your password',
            [field('E-mail', 'email', { type: 'email', required: true, autocomplete: 'email' })],
            'Send me a link',
            async (v) => {
              // The link is the store's frontend address plus this path; the shop reads `id` and `i` from it.
              await api('POST', `password-reset-email/${encodeURIComponent(v['email'] ?? '')}`, { linkUri: '/' });
              return `If ${v['email']} has an account, a link to choose a new password is on its way.`;
            },
          ),
        ),
      ),
      accountForm(
        'register',
        'Create an account',
        [
          h(
            'div',
            { class: 'row' },
            field('First name', 'firstName', { required: true, autocomplete: 'given-name' }),
            field('Last name', 'lastName', { autocomplete: 'family-name' }),
          ),
          field('E-mail', 'email', { type: 'email', required: true, autocomplete: 'email' }),
          field('Password', 'password', {
            type: 'password',
            required: true,
            autocomplete: 'new-password',
            hint: 'At least 8 characters; a passphrase is best.',
          }),
        ],
        'Create account',
        async (v) => {
          const body: Record<string, string> = { email: v['email'] ?? '', password: v['password'] ?? '', firstName: v['firstName'] ?? '' };
          if (v['lastName']) body['lastName'] = v['lastName'];
          keep(await api('POST', 'register', body));
          after();
        },
      ),
    ),
  );
}

export const renderAccount: Screen = async (main, _parts, query) => {
  const e = await loadSession();
  if (!e.loggedIn) return signedOut(main, query.get('next'));
  const a: Address = e.loggedIn;
  const rule = POSTAL_CODES[a.country || e.location.country || ''];
  fill(
    main,
    h('h1', {}, `Hello, ${a.firstName || a.email}`),
    h(
      'p',
      { class: 'account-links' },
      h('a', { class: 'button secondary', href: '#/orders' }, 'Your orders'),
      ' ',
      h('button', { type: 'button', class: 'button secondary', id: 'logout', onclick: () => void logout() }, 'Sign out'),
    ),
    h(
      'div',
      { class: 'two-columns' },
      accountForm(
        'profile',
        'Name and address',
        [
          h(
            'div',
            { class: 'row' },
            field('First name', 'firstName', { value: a.firstName, autocomplete: 'given-name' }),
            field('Last name', 'lastName', { value: a.lastName, autocomplete: 'family-name' }),
          ),
          field('Street address', 'address1', { value: a.address1, autocomplete: 'address-line1' }),
          field('Apartment, floor', 'address2', { value: a.address2, autocomplete: 'address-line2' }),
          h(
            'div',
            { class: 'row' },
            field('Postal code', 'zipCode', { value: a.zipCode, autocomplete: 'postal-code', ...(rule ? { hint: rule.hint } : {}) }),
            field('City', 'city', { value: a.city, autocomplete: 'address-level2' }),
          ),
          h(
            'div',
            { class: 'field', 'data-field': 'country' },
            h('label', { for: 'profile-country' }, 'Country'),
            h(
              'select',
              { id: 'profile-country', name: 'country', autocomplete: 'country' },
              h('option', { value: '' }, 'Choose…'),
              e.countries.map((c) => h('option', { value: c.country, selected: c.country === (a.country || e.location.country) }, c.name)),
            ),
            h('p', { class: 'field-error', role: 'alert' }),
          ),
          field('Phone', 'phoneNumber', { type: 'tel', value: a.phoneNumber, autocomplete: 'tel' }),
        ],
        'Save address',
        async (v) => {
          keep(await api('PUT', 'address', v));
          return 'Your address is saved.';
        },
      ),
      h(
        'div',
        {},
        accountForm(
          'email-change',
          'E-mail',
          [field('New e-mail', 'newEmail', { type: 'email', value: a.email, required: true, autocomplete: 'email' })],
          'Change e-mail',
          async (v) => {
            keep(await api('PUT', 'email', { newEmail: v['newEmail'] ?? '' }));
            await loadSession();
            return `Your e-mail is now ${v['newEmail']}.`;
          },
        ),
        accountForm(
          'password-change',
          'Password',
          [
            field('Current password', 'password', { type: 'password', required: true, autocomplete: 'current-password' }),
            field('New password', 'newPassword', { type: 'password', required: true, autocomplete: 'new-password' }),
          ],
          'Change password',
          async (v) => {
            keep(await api('PUT', 'password', { password: v['password'] ?? '', newPassword: v['newPassword'] ?? '' }));
            return 'Your password is changed.';
          },
        ),
      ),
    ),
  );
};

async function logout(): Promise<void> {
  keep(await api('POST', 'logout'));
  go('#/');
}

const ORDERS_PAGE = 5;

export const renderOrders: Screen = async (main, _parts, query) => {
  if (!session()?.loggedIn) {
    fill(main, h('h1', {}, 'Your orders'), h('p', {}, h('a', { href: '#/account' }, 'Sign in'), ' to see your orders.'));
    return;
  }
  const page = Math.max(1, Number(query.get('page')) || 1);
  const answer = await api<{ orders: Order[]; ordersPaging: { from: number; size: number; totalSize: number } }>('POST', 'orders', {
    from: (page - 1) * ORDERS_PAGE,
    size: ORDERS_PAGE,
  });
  const pages = Math.ceil(answer.ordersPaging.totalSize / ORDERS_PAGE);
  fill(
    main,
    h('h1', {}, 'Your orders'),
    answer.orders.length
      ? h(
          'ol',
          { class: 'orders' },
          answer.orders.map((o) =>
            h(
              'li',
              {},
              h(
                'h2',
                {},
                `Order ${o.order}`,
                h('span', { class: 'order-date' }, ` · ${o.date.slice(0, 10)} · ${o.totals.grandTotalPrice || ''}`),
              ),
              orderDetails(o, 'h3'),
            ),
          ),
        )
      : h('p', {}, 'No orders yet. ', h('a', { href: '#/' }, 'Start shopping')),
    pages > 1
      ? h(
          'nav',
          { class: 'pager', 'aria-label': 'Order pages' },
          page > 1 ? h('a', { href: `#/orders?page=${page - 1}` }, '← Newer') : h('span', { class: 'disabled' }, '← Newer'),
          h('span', {}, `Page ${page} of ${pages}`),
          page < pages ? h('a', { href: `#/orders?page=${page + 1}` }, 'Older →') : h('span', { class: 'disabled' }, 'Older →'),
        )
      : null,
  );
};

/** The mail's link: `id` and `i` from it, a new password from the visitor, and they are signed in. */
export const renderReset: Screen = async (main, _parts, query) => {
  const id = query.get('id') ?? '';
  const i = query.get('i') ?? '';
  fill(
    main,
    h('h1', {}, 'Choose a new password'),
    id && i
      ? accountForm(
          'reset',
          'New password',
          [
            field('New password', 'newPassword', {
              type: 'password',
              required: true,
              autocomplete: 'new-password',
              hint: 'At least 8 characters.',
            }),
          ],
          'Save and sign in',
          async (v) => {
            keep(await api('POST', 'password-reset', { id, i, newPassword: v['newPassword'] ?? '' }));
            await loadSession();
            go('#/account');
          },
        )
      : notice('error', 'This link is not complete. Please open the link from the e-mail again, or ask for a new one.'),
  );
};
