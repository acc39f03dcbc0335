import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { parseDemoCatalog } from '@commerce/catalog-adapters';
import type { AllInOne } from '../../apps/all-in-one/src/all-in-one';
import { startEmbeddedAllInOne } from '../e2e/embedded-all-in-one';
import { postSoap, type Endpoints } from '../e2e/skeleton.scenario';
import { buildStorefront } from './build';

// The demo shop in a real browser (Debian's chromium driven by playwright-core): a shopper searches, filters,
// buys two sizes, changes country, registers, pays through the test provider's page and finds the order;
// a second visitor then hits the 410 on the last item in stock. Every screen is checked with axe-core (no
// serious or critical violation) and photographed at desktop and phone widths into SCREENSHOT_DIR.

const root = resolve(__dirname, '..', '..');
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const SHOTS = resolve(root, process.env['SCREENSHOT_DIR'] ?? 'tmp/ci/screenshots');
/** `UPDATE_DOCS_SCREENSHOTS=1` also copies the README's pictures into docs/screenshots/. */
const DOCS = process.env['UPDATE_DOCS_SCREENSHOTS'] === '1' ? resolve(root, 'docs', 'screenshots') : null;
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };
const STEP = 20_000;

const freePort = () =>
  new Promise<number>((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => ok(port));
    });
  });

const chromiumMissing = !existsSync(CHROMIUM);
// In CI a missing browser fails the suite by name; on a developer's machine it is skipped, saying how to get one.
const suite = chromiumMissing && process.env['CI'] !== 'true' ? describe.skip : describe;
if (chromiumMissing) console.warn(`${CHROMIUM} not found: tools/browser/install (apt-get install chromium) first`);

suite('the demo shop in Chromium', () => {
  let running: AllInOne;
  let endpoints: Endpoints;
  let base: string;
  let browser: Browser;
  let work: string;
  const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (chromiumMissing) throw new Error(`no browser at ${CHROMIUM}: run tools/browser/install`);
    work = mkdtempSync(join(tmpdir(), 'shop-browser-'));
    rmSync(SHOTS, { recursive: true, force: true });
    mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // The store's frontend address is this server, so the password-reset mail links back to the shop.
    const store = JSON.parse(readFileSync(join(root, 'infra/config/demo-store.json'), 'utf8'));
    writeFileSync(join(work, 'store.json'), JSON.stringify({ ...store, frontendUrl: base }));
    await buildStorefront({ outDir: join(work, 'shop') });
    const demo = parseDemoCatalog(JSON.parse(readFileSync(join(root, 'infra/config/demo-catalog.json'), 'utf8')));
    ({ running, endpoints } = await startEmbeddedAllInOne('shop-browser', demo, {
      PORT: String(port),
      STOREFRONT_DIR: join(work, 'shop'),
      STORE_CONFIG: join(work, 'store.json'),
      MAIL_OUTBOX_DIR: join(work, 'outbox'),
      PAYMENT_PUBLIC_URL: `http://localhost:${port}`,
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_ITERATIONS: '1',
    }));
    await running.settled(60_000);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await running?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  async function visitor(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB' });
    context.setDefaultTimeout(STEP);
    const page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    return { context, page };
  }

  /** The screen after its heading shows: no serious or critical axe violation, and a picture at both widths. */
  async function screen(page: Page, name: string, heading: string | RegExp, docs?: 'desktop' | 'phone'): Promise<void> {
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    // Page-side code as strings: this file is typed for Node, not the DOM.
    await page.waitForFunction('!document.querySelector(\'main[aria-busy="true"]\')');
    await page.evaluate('window.scrollTo(0, 0)');
    await page.evaluate(
      'Promise.all([...document.images].filter((i) => !i.complete).map((i) => new Promise((r) => (i.onload = i.onerror = r))))',
    );
    if (!(await page.evaluate("'axe' in window"))) await page.addScriptTag({ content: axeSource });
    const result = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as {
      violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
    };
    const serious = result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect({ screen: name, serious }).toEqual({ screen: name, serious: [] });
    for (const [width, size] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(size);
      await page.waitForTimeout(100);
      const file = join(SHOTS, `${name}-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      if (DOCS && docs === width) {
        mkdirSync(DOCS, { recursive: true });
        await page.screenshot({ path: join(DOCS, `${name}-${width}.png`), fullPage: false });
      }
    }
    await page.setViewportSize(DESKTOP);
  }

  const newestMail = (): string => {
    const dir = join(work, 'outbox');
    const files = readdirSync(dir)
      .map((f) => join(dir, f))
      .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
    return readFileSync(files[files.length - 1]!, 'utf8');
  };

  it('tells a visitor to try again when the shop answers 503, and goes on when it is back', async () => {
    const { context, page } = await visitor();
    await page.route('**/api/checkout/categories', (route) =>
      route.fulfill({
        status: 503,
        headers: { 'Retry-After': '3', 'content-type': 'application/json' },
        body: '{"errors":{"service":"unavailable"}}',
      }),
    );
    await page.goto(`${base}/`);
    await page.getByText('The shop is busy right now. Please try again in 3 seconds.').waitFor();
    await page.unroute('**/api/checkout/categories');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { level: 1, name: 'All products' }).waitFor();
    await context.close();
  }, 60_000);

  it('keeps a discount code typed while the bag is drawn again after a change, and applies it', async () => {
    const { context, page } = await visitor();
    await page.goto(`${base}/`);
    await page.getByRole('searchbox', { name: 'Search products' }).fill('scarf');
    await page.keyboard.press('Enter');
    await page
      .getByRole('link', { name: /Red Wool Scarf/ })
      .first()
      .click();
    await page.getByRole('heading', { level: 1, name: 'Red Wool Scarf' }).waitFor();
    await page.locator('.sizes label', { hasText: 'In stock' }).first().click();
    await page.getByRole('button', { name: 'Add to bag' }).click();
    await page.getByText('is in your bag').waitFor();
    await page.getByRole('link', { name: /^Bag/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Your bag' }).waitFor();
    // A busy shop: the bag's reading after a change answers late (as the all-in-one's did on a loaded box), and
    // the shopper types the code meanwhile; the bag is drawn again under the typing before Apply is pressed.
    await page.route('**/api/checkout/selection', async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    await page.getByRole('button', { name: /^One more Red Wool Scarf/ }).click();
    await page.locator('#bag-count', { hasText: '2' }).waitFor();
    await page.getByLabel('Discount code').fill('WELCOME10');
    await page.locator('#bag-live', { hasText: 'one more' }).waitFor();
    await page.unroute('**/api/checkout/selection');
    expect(await page.getByLabel('Discount code').inputValue()).toBe('WELCOME10');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('.applied', { hasText: 'WELCOME10' }).waitFor();
    await context.close();
  }, 60_000);

  it('walks a shopper from search to receipt and order history, and a second visitor into the 410', async () => {
    const a = await visitor();
    const page = a.page;
    await page.goto(`${base}/`);
    await screen(page, 'home', 'All products', 'desktop');

    // Search with a typo ("sweatr") and without the diacritic of "Café".
    await page.getByRole('searchbox', { name: 'Search products' }).fill('cafe sweatr');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Results for “cafe sweatr”' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Café Sweater' }).first().waitFor();
    const found = Number((await page.locator('.result-count').textContent())?.split(' ')[0]);
    expect(found).toBeGreaterThan(1);

    // A facet: the colour Indigo, its count in the search and its total in the shop.
    const indigo = page.locator('.facet[data-facet="swatch.desc"] .facet-value', { hasText: 'Indigo' });
    expect(await indigo.locator('.count [aria-hidden]').textContent()).toMatch(/^1\/\d+$/);
    await indigo.getByRole('checkbox').check();
    await page.locator('.result-count', { hasText: '1 product' }).waitFor();
    // The grid is drawn again around the filter: a keyboard user stays on it.
    expect(await page.evaluate('document.activeElement.id')).toBe('facet-swatch-desc-Indigo');
    await screen(page, 'search', 'Results for “cafe sweatr”');

    await page.getByRole('link', { name: /Heritage Café Sweater/ }).click();
    await screen(page, 'product', 'Heritage Café Sweater', 'desktop');
    const productUrl = page.url();
    const sekPrice = await page.locator('.product-info .price .now').textContent();
    expect(sekPrice).toMatch(/SEK$/);

    // The second visitor puts the last M in their bag before the first one pays.
    const b = await visitor();
    await b.page.goto(productUrl);
    await b.page.getByText('M In stock').click();
    await b.page.getByRole('button', { name: 'Add to bag' }).click();
    await b.page.getByText('is in your bag').waitFor();

    // Two sizes, by keyboard for one of them.
    await page.getByText('M In stock').click();
    await page.getByRole('button', { name: 'Add to bag' }).click();
    await page.getByText('Heritage Café Sweater, size M, is in your bag').waitFor();
    await page.getByRole('radio', { name: 'L In stock', exact: true }).focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Add to bag');
    await page.keyboard.press('Enter');
    await page.getByText('Heritage Café Sweater, size L, is in your bag').waitFor();
    await page.locator('#bag-count', { hasText: '2' }).waitFor();

    // The bag: one more L, the welcome code.
    await page.getByRole('link', { name: /^Bag/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Your bag' }).waitFor();
    await page.getByRole('button', { name: 'One more Heritage Café Sweater, size L' }).click();
    await page.locator('#bag-count', { hasText: '3' }).waitFor();
    await page.getByLabel('Discount code').fill('WELCOME10');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('.applied', { hasText: 'WELCOME10' }).waitFor();
    await page.locator('.totals .discount').waitFor();

    // Germany: prices in euros, German as the language; express delivery.
    await page.getByLabel('Ship to').focus();
    await page.getByLabel('Ship to').selectOption('DE');
    await page.locator('.ship-to', { hasText: 'Shipping to Germany · prices in EUR' }).waitFor();
    expect(await page.locator('#language-select').inputValue()).toBe('de');
    expect(await page.evaluate('document.activeElement.id')).toBe('country-select');
    expect(await page.locator('.line-total').first().textContent()).toMatch(/^€/);
    await page.getByLabel(/Express delivery/).check();
    await page.locator('.totals tr', { hasText: 'Shipping' }).locator('td', { hasText: '€14.95' }).waitFor();
    await screen(page, 'bag', 'Your bag', 'phone');

    // Register.
    await page.locator('#account-link').click();
    await screen(page, 'sign-in', 'Sign in or create an account');
    const register = page.locator('form.register');
    await register.getByLabel('First name').fill('Ada');
    await register.getByLabel('Last name').fill('Lovelace');
    await register.getByLabel('E-mail').fill('ada@example.com');
    await register.getByLabel('Password').fill('correct horse battery');
    await register.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Hello, Ada' }).waitFor();
    await page.locator('#bag-count', { hasText: '3' }).waitFor();

    // Checkout: the card method, a postal code in the wrong format shown on its field, then paid.
    await page.goto(`${base}/#/checkout`);
    await page.getByRole('heading', { level: 1, name: 'Checkout' }).waitFor();
    await page.getByLabel('Card (test provider)').check();
    await page.getByRole('button', { name: /^Pay €/ }).waitFor();
    const form = page.locator('form.checkout');
    expect(await form.getByLabel('E-mail').inputValue()).toBe('ada@example.com');
    await form.getByLabel('Street address').fill('Unter den Linden 1');
    await form.getByLabel('Postal code').fill('1011');
    await form.getByLabel('City').fill('Berlin');
    await form.getByLabel('I accept the terms and conditions').check();
    await form.getByRole('button', { name: /^Pay €/ }).click();
    await page.locator('.field[data-field="zipCode"] .field-error', { hasText: /format/ }).waitFor();
    expect(await form.getByLabel('Postal code').getAttribute('aria-invalid')).toBe('true');
    await screen(page, 'checkout', 'Checkout');
    await form.getByLabel('Postal code').fill('10117');
    await form.getByRole('button', { name: /^Pay €/ }).click();

    // The test provider's page, then back to the shop's return page and the receipt.
    await page.waitForURL(/\/payment\/test\/pay\//);
    await page.getByRole('button', { name: 'Approve' }).click();
    await screen(page, 'receipt', 'Thank you for your order!');
    const orderNumber = (await page.locator('.order-number').textContent())!;
    expect(orderNumber).toMatch(/^\d+$/);
    expect(await page.locator('.receipt').textContent()).toContain('Express delivery');

    // The back office ships it (SOAP orders_Update); the history shows the shipment with its tracking link.
    const shipped = await postSoap(
      endpoints,
      'orders_Update',
      `<orders><order><id>${orderNumber}</id><ordernumber>${orderNumber}</ordernumber><status>confirmed</status><shipments><shipment>
        <id>S1</id><shipped>2026-11-20T12:00:00Z</shipped>
        <carrierinformation><carrier>PostNord</carrier><service>MyPack Home</service><tracking>00370712345</tracking></carrierinformation>
      </shipment></shipments></order></orders>`,
    );
    expect(shipped.text).toContain('>OK<');
    await page.getByRole('link', { name: 'Your orders' }).click();
    await page.getByRole('heading', { level: 2, name: new RegExp(`^Order ${orderNumber}`) }).waitFor();
    const track = page.getByRole('link', { name: 'Track parcel 00370712345' });
    for (let i = 0; i < 50 && !(await track.count()); i++) {
      await page.waitForTimeout(200);
      await page.goto(`${base}/#/orders?try=${i}`);
      await page.getByRole('heading', { level: 1, name: 'Your orders' }).waitFor();
    }
    expect(await track.getAttribute('href')).toBe('https://tracking.postnord.com/se/?id=00370712345');
    await screen(page, 'orders', 'Your orders');

    // The second visitor pays for the M that was the last in stock: 410, told so, and the bag updated.
    const shopper = b.page;
    await shopper.goto(`${base}/#/checkout`);
    await shopper.getByRole('heading', { level: 1, name: 'Checkout' }).waitFor();
    await shopper.getByLabel('Card (test provider)').check();
    await shopper.getByRole('button', { name: /^Pay .*SEK$/ }).waitFor();
    const other = shopper.locator('form.checkout');
    await other.getByLabel('E-mail').fill('grace@example.com');
    await other.getByLabel('First name').fill('Grace');
    await other.getByLabel('Last name').fill('Hopper');
    await other.getByLabel('Street address').fill('Storgatan 1');
    await other.getByLabel('Postal code').fill('114 51');
    await other.getByLabel('City').fill('Stockholm');
    await other.getByLabel('I accept the terms and conditions').check();
    await other.getByRole('button', { name: /^Pay/ }).click();
    await shopper.getByText('Sorry, these items are no longer available.').waitFor();
    expect(await shopper.locator('.unavailable').textContent()).toContain('Heritage Café Sweater, size M — sold out');
    await shopper.locator('#bag-count', { hasText: '0' }).waitFor();
    await screen(shopper, 'sold-out', 'Checkout');
    // The size is shown sold out on the product page, with a mail when it is back.
    const soldOut = shopper.getByText('M Sold out');
    for (let i = 0; i < 50 && !(await soldOut.count()); i++) {
      await shopper.goto(`${productUrl}?try=${i}`);
      await shopper.getByRole('heading', { level: 1, name: 'Heritage Café Sweater' }).waitFor();
      if (!(await soldOut.count())) await shopper.waitForTimeout(200);
    }
    await soldOut.click();
    expect(await shopper.getByRole('button', { name: 'Add to bag' }).isDisabled()).toBe(true);
    await shopper.getByLabel('Size M is sold out. E-mail me when it is back:').fill('grace@example.com');
    await shopper.getByRole('button', { name: 'Notify me' }).click();
    await shopper.getByText('We will e-mail grace@example.com once size M is back.').waitFor();
    await b.context.close();

    // Signed out, a reset link by mail, a new password, signed in again.
    await page.goto(`${base}/#/account`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#account-link', { hasText: 'Sign in' }).waitFor();
    await page.goto(`${base}/#/account`);
    await page.getByText('Forgot your password?').click();
    const resetRequest = page.locator('form.reset-request');
    await resetRequest.getByLabel('E-mail').fill('ada@example.com');
    await resetRequest.getByRole('button', { name: 'Send me a link' }).click();
    await page.getByText('a link to choose a new password is on its way').waitFor();
    let link: string | undefined;
    for (let i = 0; i < 50 && !link; i++) {
      try {
        // Quoted-printable soft breaks and `=3D` undone, then the link to this shop.
        const mail = newestMail()
          .replace(/=\r?\n/g, '')
          .replace(/=3D/g, '=');
        link = mail.match(new RegExp(`${base.replace(/[.]/g, '\\.')}/\\?id=[^\\s"<>]+`))?.[0];
      } catch {
        // not written yet
      }
      if (!link) await page.waitForTimeout(200);
    }
    expect(link).toBeDefined();
    await page.goto(link!.replace(/&amp;/g, '&'));
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password').fill('a brand new secret');
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Hello, Ada' }).waitFor();
    await screen(page, 'account', 'Hello, Ada');

    const newsletter = page.locator('#newsletter-form');
    await newsletter.getByLabel('E-mail for the newsletter').fill('ada@example.com');
    await newsletter.getByRole('button', { name: 'Subscribe' }).click();
    await newsletter.getByText('Thank you! ada@example.com will hear from us.').waitFor();

    expect(pageErrors).toEqual([]);
    await a.context.close();
  }, 240_000);

  /** A new visitor with one thing in the bag (the first in-stock size of the first product), at the checkout. */
  async function shopperAtCheckout(): Promise<{ context: BrowserContext; page: Page }> {
    const v = await visitor();
    await v.page.goto(`${base}/`);
    await v.page.locator('.card-link').first().click();
    await v.page.locator('.size:not(.sold-out) label').first().click();
    await v.page.getByRole('button', { name: 'Add to bag' }).click();
    await v.page.getByText('is in your bag').waitFor();
    await v.page.goto(`${base}/#/checkout`);
    await v.page.getByRole('heading', { level: 1, name: 'Checkout' }).waitFor();
    return v;
  }

  async function fillSwedishAddress(page: Page): Promise<void> {
    const form = page.locator('form.checkout');
    await form.getByLabel('E-mail').fill('linus@example.com');
    await form.getByLabel('First name').fill('Linus');
    await form.getByLabel('Last name').fill('Larsson');
    await form.getByLabel('Street address').fill('Drottninggatan 5');
    await form.getByLabel('Postal code').fill('111 51');
    await form.getByLabel('City').fill('Stockholm');
    await form.getByLabel('I accept the terms and conditions').check();
  }

  it('pays with the posted form, the embedded checkout and the invoice (address found by identity number)', async () => {
    // The posted form: the provider's form shown in the shop, posted to its page, approved there.
    const form = await shopperAtCheckout();
    await form.page.getByLabel('Card, posted form (test provider)').check();
    await form.page.getByRole('button', { name: /^Pay .*SEK$/ }).waitFor();
    await fillSwedishAddress(form.page);
    await form.page.locator('form.checkout').getByRole('button', { name: /^Pay/ }).click();
    await form.page.locator('#provider').getByRole('button', { name: 'Pay' }).click();
    await form.page.getByRole('button', { name: 'Approve' }).click();
    await form.page.getByRole('heading', { level: 1, name: 'Thank you for your order!' }).waitFor();
    await form.context.close();

    // The embedded checkout: only the country from the shop; the address is entered in the provider's frame.
    const embedded = await shopperAtCheckout();
    await embedded.page.getByLabel('Checkout (embedded test provider)').check();
    await embedded.page.getByText('You enter your address in the payment window.').waitFor();
    await embedded.page.getByLabel('I accept the terms and conditions').check();
    await embedded.page.locator('form.checkout').getByRole('button', { name: /^Pay/ }).click();
    const frame = embedded.page.frameLocator('#provider iframe');
    for (const [name, value] of Object.entries({
      email: 'eva@example.com',
      firstName: 'Eva',
      lastName: 'Ek',
      address1: 'Sveavägen 1',
      city: 'Stockholm',
      zipCode: '111 57',
    }))
      await frame.locator(`input[name="${name}"]`).fill(value);
    await frame.getByRole('button', { name: 'Pay' }).click();
    await embedded.page.getByRole('heading', { level: 1, name: 'Thank you for your order!' }).waitFor();
    expect(await embedded.page.locator('.receipt').textContent()).toContain('Sveavägen 1');
    await embedded.context.close();

    // The invoice: the address comes from the Swedish registry by identity number; no page to visit.
    const invoice = await shopperAtCheckout();
    await invoice.page.getByLabel('Invoice (test provider)').check();
    await invoice.page.getByLabel('Personal identity number').fill('19800101-1234');
    await invoice.page.getByRole('button', { name: 'Find my address' }).click();
    await invoice.page.getByText('Address found: Anna Andersson, Stockholm.').waitFor();
    const checkout = invoice.page.locator('form.checkout');
    expect(await checkout.getByLabel('Street address').inputValue()).toBe('Storgatan 1');
    await checkout.getByLabel('E-mail').fill('anna@example.com');
    await checkout.getByLabel('I accept the terms and conditions').check();
    await checkout.getByRole('button', { name: /^Pay/ }).click();
    await invoice.page.getByRole('heading', { level: 1, name: 'Thank you for your order!' }).waitFor();
    expect(await invoice.page.locator('.receipt').textContent()).toContain('Invoice (test provider)');
    await invoice.context.close();
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
