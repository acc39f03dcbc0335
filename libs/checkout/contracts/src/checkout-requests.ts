import { z } from 'zod';
import {
  AddressFields,
  Email,
  LINK_URI_MAX,
  NewPassword,
  NewsletterSubscription,
  Password,
  Register,
  StorableText,
} from '@commerce/account-contracts';
import { ADDRESS_FIELDS } from './address';

const text = StorableText;

/**
 * The request bodies and path values of the checkout API as the edge validates them (checkout core parses
 * with these schemas) and as the OpenAPI document states them: it is generated from these same schemas
 * (decision 126). A body is required in the document exactly when `{}` does not pass (no body is read as `{}`).
 */

/** The largest quantity of one line or one change. */
export const MAX_QUANTITY = 10_000;

/**
 * A quantity, in a path (`{n}`) or a body: a whole number from 1 (0 where it sets a line) to MAX_QUANTITY. Whatever
 * is wrong with it (a string, 1.5, 0, 10001, 1e9, 1e20) is told in one message, the same in a path and a body.
 */
export const quantityOf = (min: 0 | 1) => {
  const error = `must be a whole number from ${min} to ${MAX_QUANTITY}`;
  return z.int({ error }).min(min, { error }).max(MAX_QUANTITY, { error });
};

export const QuantityBody = z.object({ quantity: quantityOf(1).default(1) }).strict();

export const BulkQuantitiesBody = z
  .object({
    lines: z.array(z.object({ line: text.min(1), quantity: quantityOf(0) }).strict()).default([]),
    items: z.array(z.object({ item: text.min(1), quantity: quantityOf(0) }).strict()).default([]),
  })
  .strict();

export const CountryBody = z.object({ language: text.min(1).optional() }).strict();

const addressField = StorableText.max(200);
/** The address fields an embedded payment form reports (`PUT payment-fields`). */
const addressFields = Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, addressField.optional()])) as Record<
  (typeof ADDRESS_FIELDS)[number],
  z.ZodOptional<z.ZodString>
>;
export const PaymentFieldsBody = z.object(addressFields).strict();

export const VoucherBody = z.object({ voucher: text.min(1).max(100) }).strict();

// The account's own field schemas (account-contracts): the edge refuses what the account service would.
export const RegisterBody = Register.loose();
export const LoginBody = z.object({ password: Password });
export const EmailBody = z.object({ newEmail: Email });
export const PasswordBody = z.object({ password: Password, newPassword: NewPassword });
export const AddressBody = AddressFields.strict();
/**
 * `linkUri`: a path on the storefront, segments of unreserved characters separated by single slashes, none
 * starting with a dot. Within what the account service accepts (no scheme, host, `..`, query or fragment),
 * and a rule a pattern states whole.
 */
export const LinkUri = z
  .string()
  .max(LINK_URI_MAX)
  .regex(
    /^\/?(?:[A-Za-z0-9_~-][A-Za-z0-9._~-]*(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*\/?)?$/,
    'must be a path (segments of letters, digits, - . _ ~)',
  );
export const ResetEmailBody = z.object({ linkUri: LinkUri.optional() });
export const ResetBody = z.object({ newPassword: NewPassword, i: text, id: text });
export const NewsletterBody = NewsletterSubscription;
export const BackInStockBody = z.object({ email: Email, item: text });

export const MAX_HISTORY_PAGE = 1000;
export const OrdersBody = z.object({
  from: z.int().min(0).max(1_000_000_000).optional(),
  size: z.int().min(0).max(MAX_HISTORY_PAGE).optional(),
});

/**
 * An http(s) URL the payment provider returns to: a pattern that only parseable URLs match (a host name
 * whose last label starts with a letter, or a dotted IPv4 address; a port to 65535; then a path, query or
 * fragment without spaces or control characters).
 */
const HOST = String.raw`(?:(?:[A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*|(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d))`;
const PORT = String.raw`(?::(?:6553[0-5]|655[0-2]\d|65[0-4]\d\d|6[0-4]\d{3}|[1-5]\d{4}|\d{1,4}))?`;
export const PageUrl = z
  .string()
  .max(2000)
  .regex(new RegExp(String.raw`^https?://${HOST}${PORT}(?:[/?#][^\u0000-\u0020\u007f]*)?$`), 'must be an http(s) URL');

export const PaymentAddressBody = z.object(addressFields);
export const PaymentBody = z.object({
  paymentReturnPage: PageUrl,
  paymentFailedPage: PageUrl,
  termsAndConditions: z.boolean(),
  address: PaymentAddressBody,
});
/** The provider's variables as the visitor brought them: strings (a number a client parsed is taken as its text). */
export const PaymentResultBody = z.object({
  paymentMethodFields: z.record(text.max(200), z.union([text.max(10_000), z.number(), z.boolean()]).transform(String)),
});
export const AddressSearchBody = z.object({ identityNumber: text.min(1).max(64), paymentMethod: text.min(1).max(100) });
