import { z } from 'zod';
import { NO_NUL, NO_NUL_MESSAGE } from '@commerce/shared-errors';
import { ITEM_ID_PATTERN } from '@commerce/catalog-contracts';

/**
 * The values of a customer's fields, as the account service checks them and as the checkout edge checks
 * them before calling it: one set of zod schemas, from which the checkout's OpenAPI document is generated
 * (decision 126), so that the document says what both enforce.
 */

/** The shortest and longest password the policy accepts (code points after NFC; decision 34). */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;
/** The longest `linkUri` of a password-reset request. */
export const LINK_URI_MAX = 512;

/** A UTF-16 surrogate without its other half, which no UTF-8 text has (Postgres refuses one in jsonb). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/**
 * Text a database can store (every string of a request that may reach a query): a NUL is refused; a lone
 * surrogate becomes U+FFFD, as a text column would store it (in jsonb it was a server error).
 */
export const StorableText = z
  .string()
  .regex(NO_NUL, NO_NUL_MESSAGE)
  .overwrite((s) => s.replace(LONE_SURROGATE, '\uFFFD'));
/**
 * An e-mail address by zod's own rule, as a pattern: the OpenAPI document states the pattern alone (the
 * `email` format of other validators accepts and refuses other addresses than this rule does).
 */
export const Email = z.string().trim().max(254).regex(z.regexes.email, 'Invalid email address');
// A password is checked by the policy (406), not here: only its type and an upper bound on the bytes hashed.
export const Password = StorableText.max(PASSWORD_MAX_LENGTH * 4);
/**
 * A new password: the request's shape is `Password`; the lengths are the policy's, which the account service
 * applies with its other rules (not a common password, not the e-mail) and refuses with 406, not 400. The
 * document states them, so that what it calls valid is what the policy takes but for those other rules.
 */
export const NewPassword = Password.meta({
  minLength: PASSWORD_MIN_LENGTH,
  maxLength: PASSWORD_MAX_LENGTH,
  description: `The password policy (406 when refused): ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, not a common password, not the e-mail`,
});
export const Field = StorableText.trim().max(200);
/** A two-letter country code (or empty), kept upper-case. */
export const Country = z
  .string()
  .trim()
  .regex(/^([A-Za-z]{2})?$/, 'must be a two-letter country code')
  .transform((c) => c.toUpperCase());
/** A language code such as `en` or `sv-SE`. */
export const LanguageCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$/, 'must be a language code such as en or sv');
/** An item id, `<product>-<size>`. */
export const ItemId = StorableText.regex(ITEM_ID_PATTERN, 'must be an item id');
export const AddressFields = z.object({
  firstName: Field.optional(),
  lastName: Field.optional(),
  address1: Field.optional(),
  address2: Field.optional(),
  city: Field.optional(),
  state: Field.optional(),
  country: Country.optional(),
  phoneNumber: Field.optional(),
  zipCode: Field.optional(),
});
export const Register = AddressFields.extend({ email: Email, password: NewPassword });
export const NewsletterSubscription = z.object({ email: Email, country: Country.optional(), language: LanguageCode.optional() });
export const BackInStockSubscription = z.object({ email: Email, item: ItemId });
