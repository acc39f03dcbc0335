import type { EventEnvelope } from '@commerce/shared-events';
import {
  PaymentAuthorized,
  PaymentCancelled,
  PaymentDeclined,
  PaymentVoided,
  type AttemptDto,
  type AttemptStatus,
  type PaymentAddress,
  type PaymentClient,
  type PaymentResultDto,
  type StartAttemptCommand,
} from '@commerce/payment-contracts';
import type { AttemptRepository, StoredAttempt } from './attempt.repository';
import {
  AddressSearchRefusedError,
  AttemptNotFoundError,
  AttemptNotVoidableError,
  NotificationInvalidError,
  PaymentMethodNotFoundError,
  PaymentResultInvalidError,
} from './payment.errors';
import type { PaymentProvider, ProviderNotification, ProviderVerdict } from './payment-provider.port';

/** A payment method of the store configuration, as the payment service needs it. */
export interface PaymentMethodSetting {
  paymentMethod: string;
  provider: string;
  countries: string[];
}

export interface PaymentDeps {
  attempts: AttemptRepository;
  methods: PaymentMethodSetting[];
  /** The provider plugins by name (`provider` of a method). */
  providers: Map<string, PaymentProvider>;
  /** How long a started attempt may wait for its provider's verdict before the sweep expires it (default a day). */
  attemptExpiryMs?: number;
  now?: () => Date;
}

/** What one run of the sweep did. */
export interface SweepOutcome {
  /** Started attempts expired (cancelled, and at the provider where it can be told). */
  expired: number;
  /** Replaced attempts whose due void the provider carried out. */
  voided: number;
  /** Provider calls that failed: a due void is tried again at the next run; an expired attempt stays cancelled. */
  failures: Array<{ attemptId: string; error: unknown }>;
}

/** A day: well past the stock hold (20 minutes by default) and the providers' own payment sessions. */
export const DEFAULT_ATTEMPT_EXPIRY_MS = 24 * 3600 * 1000;
/** The statuses a provider's verdict moves an attempt from. */
const VERDICT_FROM: AttemptStatus[] = ['started', 'cancelled'];
/** Attempts a sweep run takes on at most, per kind. */
const SWEEP_BATCH = 100;

export interface PaymentUseCases extends PaymentClient {
  /**
   * A provider's webhook: verified, applied (idempotently), answered as the provider expects. `known`: an attempt
   * the caller has just read (the test pages, the provider's side served here): a verdict about it is applied
   * without reading it again (its status is checked again under the row's lock, as any verdict's).
   */
  notify(provider: string, notification: ProviderNotification, known?: StoredAttempt): Promise<string>;
  /** The attempt a provider reference names (the test pages). */
  attemptByReference(provider: string, providerReference: string): Promise<StoredAttempt | null>;
  /** The test pages' record of the visitor's choice (the provider's own side of the payment). */
  recordProviderData(attemptId: string, data: Record<string, unknown>): Promise<StoredAttempt | null>;
  /**
   * The periodic sweep (DESIGN §8): started attempts older than the expiry are abandoned, so they are expired
   * (cancelled, never kept: an authorization arriving for one later is voided) and cancelled at the provider; and
   * the voids due on replaced attempts (a second authorization the migration found) are carried out.
   */
  sweep(): Promise<SweepOutcome>;
}

const publicAttempt = (a: StoredAttempt): AttemptDto => {
  const { returnUrl: _r, failedUrl: _f, providerData: _d, ...dto } = a;
  return dto;
};

const payloadOf = (a: StoredAttempt) => ({
  attemptId: a.attemptId,
  selectionId: a.selectionId,
  paymentMethod: a.paymentMethod,
  amountMinor: a.amountMinor,
  currency: a.currency,
});

const eventOf = (status: string, a: StoredAttempt): EventEnvelope[] =>
  status === 'authorized'
    ? [PaymentAuthorized.create(a.attemptId, payloadOf(a))]
    : status === 'declined'
      ? [PaymentDeclined.create(a.attemptId, payloadOf(a))]
      : status === 'cancelled'
        ? [PaymentCancelled.create(a.attemptId, payloadOf(a))]
        : status === 'voided'
          ? [PaymentVoided.create(a.attemptId, payloadOf(a))]
          : [];

export function paymentUseCases(deps: PaymentDeps): PaymentUseCases {
  const now = () => (deps.now ?? (() => new Date()))();
  const methodOf = (id: string) => deps.methods.find((m) => m.paymentMethod === id);
  const providerOf = (name: string): PaymentProvider => {
    const provider = deps.providers.get(name);
    if (!provider) throw new Error(`payment provider ${name} is not installed`);
    return provider;
  };

  /**
   * Applies a provider's verdict to its attempt: amount and currency must be the attempt's; the first
   * verdict decides (under the row lock), later ones (a duplicate return, the webhook) find it decided.
   */
  async function apply(attempt: StoredAttempt, verdict: ProviderVerdict): Promise<StoredAttempt> {
    if (verdict.amountMinor !== attempt.amountMinor) throw new PaymentResultInvalidError('amount does not match the payment');
    if (verdict.currency !== attempt.currency) throw new PaymentResultInvalidError('currency does not match the payment');
    if (attempt.status === 'cancelled' && verdict.outcome === 'authorized') return voidReplaced(attempt);
    // A decided attempt (authorized, declined, voided) never moves back: a later verdict (the return after the
    // webhook) finds it decided without a transaction.
    if (!VERDICT_FROM.includes(attempt.status)) return attempt;
    const moved = await deps.attempts.transition(
      attempt.attemptId,
      // A decline after the attempt was replaced is recorded as such; an authorization moves only a started attempt:
      // one cancelled since it was read (replaced, or expired by the sweep) is voided, as above, never kept.
      verdict.outcome === 'authorized' ? ['started'] : VERDICT_FROM,
      verdict.outcome,
      verdict.customerAddress ? { customerAddress: verdict.customerAddress } : {},
      eventOf(verdict.outcome, attempt),
    );
    if (moved) return moved;
    const now = (await deps.attempts.find(attempt.attemptId))!;
    return now.status === 'cancelled' && verdict.outcome === 'authorized' ? voidReplaced(now) : now;
  }

  /**
   * An authorization that arrives for an attempt a newer one replaced (DESIGN §8): the selection's live
   * attempt is the newer one, so this one is never kept nor turned into an order. Voided at the provider
   * (idempotent by the attempt), recorded `voided` with `PaymentVoided`; never `PaymentAuthorized`.
   */
  async function voidReplaced(attempt: StoredAttempt): Promise<StoredAttempt> {
    const voided = await providerOf(attempt.provider).void(publicAttempt(attempt), attempt.providerData);
    const moved = await deps.attempts.transition(
      attempt.attemptId,
      ['cancelled'],
      'voided',
      voided.providerData ? { providerData: voided.providerData } : {},
      eventOf('voided', attempt),
    );
    return moved ?? (await deps.attempts.find(attempt.attemptId))!;
  }

  /** The provider told of the attempts a new one replaced (after their cancellation is committed). */
  async function cancelAtProvider(replaced: StoredAttempt[]): Promise<void> {
    for (const older of replaced) {
      const provider = providerOf(older.provider);
      if (!provider.cancel) continue;
      const answer = await provider.cancel(publicAttempt(older), older.providerData);
      if (answer.providerData) await deps.attempts.mergeProviderData(older.attemptId, answer.providerData);
    }
  }

  const outcomeOf = (a: StoredAttempt): PaymentResultDto['outcome'] =>
    a.status === 'authorized' || a.status === 'voided' ? a.status : 'declined';

  return {
    async startAttempt(command: StartAttemptCommand) {
      const method = methodOf(command.paymentMethod);
      if (!method) throw new PaymentMethodNotFoundError();
      const provider = providerOf(method.provider);
      const draft: StoredAttempt = {
        attemptId: command.attemptId,
        paymentMethod: method.paymentMethod,
        provider: provider.name,
        status: 'started',
        selectionId: command.selectionId,
        amountMinor: command.amountMinor,
        currency: command.currency,
        country: command.address.country,
        providerReference: '',
        address: command.address,
        customerAddress: null,
        orderDraft: command.orderDraft,
        createdAt: now().toISOString(),
        returnUrl: command.returnUrl,
        failedUrl: command.failedUrl,
        providerData: {},
        replaced: false,
      };
      // A provider that asks no one to start (a signed redirect or form) is asked first, and its start is stored with
      // the attempt by the insert (issue 28); any other is asked once the attempt is stored, and its start recorded after.
      const early = provider.startsLocally
        ? await provider.start({ attempt: publicAttempt(draft), returnUrl: draft.returnUrl, failedUrl: draft.failedUrl })
        : undefined;
      const local = early && !early.outcome ? early : undefined;
      const { attempt, created, replaced, authorized } = await deps.attempts.insert(
        local
          ? {
              ...draft,
              providerReference: local.providerReference,
              providerData: local.providerData ?? {},
              customerAddress: local.customerAddress ?? null,
            }
          : draft,
        (a) => eventOf('cancelled', a),
      );
      // The selection's payment is authorized already: nothing started, that attempt answered (the caller completes it).
      if (authorized) return { attempt: publicAttempt(authorized), action: { action: 'success' } as const };
      await cancelAtProvider(replaced);
      // The provider is asked again for a repeated id: its answer is a function of the attempt (idempotent).
      const started =
        created && local
          ? local
          : await provider.start({ attempt: publicAttempt(attempt), returnUrl: attempt.returnUrl, failedUrl: attempt.failedUrl });
      let stored = attempt;
      // A new attempt stored with its start has nothing left to record; a repeated one only when its start never was.
      if (created ? !local : !attempt.providerReference) {
        const status = started.outcome ?? 'started';
        stored = await deps.attempts.recordStart(
          attempt.attemptId,
          {
            providerReference: started.providerReference,
            providerData: started.providerData ?? {},
            status,
            customerAddress: started.customerAddress ?? null,
          },
          eventOf(status, { ...attempt, status }),
        );
      }
      // Replaced while its provider answered: cancelled there too (its start came after the cancellation), and
      // if it was authorized at once (an invoice), never kept.
      if (stored.status === 'cancelled' && created) {
        if (started.outcome === 'authorized') stored = await voidReplaced(stored);
        else await cancelAtProvider([stored]);
      }
      const action =
        stored.status === 'authorized'
          ? ({ action: 'success' } as const)
          : stored.status === 'declined' || stored.status === 'cancelled' || stored.status === 'voided'
            ? ({ action: 'failed' } as const)
            : started.action;
      return { attempt: publicAttempt(stored), action };
    },

    async verifyResult(fields) {
      for (const provider of deps.providers.values()) {
        const reference = provider.referenceOf(fields);
        if (reference === null) continue;
        const attempt = await deps.attempts.findByReference(provider.name, reference);
        if (!attempt) throw new AttemptNotFoundError();
        const verdict = await provider.verifyReturn(publicAttempt(attempt), attempt.providerData, fields);
        const applied = await apply(attempt, verdict);
        return { attempt: publicAttempt(applied), outcome: outcomeOf(applied) };
      }
      throw new PaymentResultInvalidError('not a payment result of any payment method');
    },

    async liveAttemptOf(selectionId) {
      const attempt = await deps.attempts.liveOfSelection(selectionId);
      return attempt ? publicAttempt(attempt) : null;
    },

    async getAttempt(attemptId) {
      const attempt = await deps.attempts.find(attemptId);
      return attempt ? publicAttempt(attempt) : null;
    },

    async cancelAttempt(attemptId) {
      const attempt = await deps.attempts.find(attemptId);
      if (attempt?.status !== 'started') return attempt ? publicAttempt(attempt) : null;
      const moved = await deps.attempts.transition(attemptId, ['started'], 'cancelled', {}, eventOf('cancelled', attempt));
      return publicAttempt(moved ?? (await deps.attempts.find(attemptId))!);
    },

    async voidAttempt(attemptId) {
      const attempt = await deps.attempts.find(attemptId);
      if (!attempt) return null;
      if (attempt.status === 'voided') return publicAttempt(attempt);
      if (attempt.status !== 'authorized') throw new AttemptNotVoidableError(attempt.status);
      // The provider first (idempotent by the attempt): a crash before the record voids again, harmlessly.
      const voided = await providerOf(attempt.provider).void(publicAttempt(attempt), attempt.providerData);
      const moved = await deps.attempts.transition(
        attemptId,
        ['authorized'],
        'voided',
        voided.providerData ? { providerData: voided.providerData } : {},
        eventOf('voided', attempt),
      );
      return publicAttempt(moved ?? (await deps.attempts.find(attemptId))!);
    },

    async addressSearch(paymentMethod, country, identityNumber): Promise<PaymentAddress> {
      const method = methodOf(paymentMethod);
      if (!method) throw new PaymentMethodNotFoundError();
      const provider = providerOf(method.provider);
      if (!provider.addressSearch) throw new AddressSearchRefusedError('paymentMethod', 'has no address search');
      if (method.countries.length > 0 && (!country || !method.countries.includes(country)))
        throw new AddressSearchRefusedError('country', 'not available in this country');
      return provider.addressSearch(identityNumber, country);
    },

    async notify(providerName, notification, known) {
      const provider = deps.providers.get(providerName);
      if (!provider?.verifyNotification) throw new NotificationInvalidError('no notifications for this provider');
      for (const verdict of await provider.verifyNotification(notification)) {
        const attempt =
          known?.provider === provider.name && known.providerReference === verdict.providerReference
            ? known
            : await deps.attempts.findByReference(provider.name, verdict.providerReference);
        // A notification about a payment this service never started (another shop on the same account): accepted, ignored.
        if (!attempt) continue;
        await apply(attempt, verdict).catch((error: unknown) => {
          // A notification whose amount is not the attempt's is refused, so the provider shows it failed.
          throw error instanceof PaymentResultInvalidError ? new NotificationInvalidError(error.fields['paymentMethodFields']!) : error;
        });
      }
      return provider.notificationAnswer ?? 'ok';
    },

    async sweep() {
      const outcome: SweepOutcome = { expired: 0, voided: 0, failures: [] };
      const before = new Date(now().getTime() - (deps.attemptExpiryMs ?? DEFAULT_ATTEMPT_EXPIRY_MS));
      const expired = await deps.attempts.expireStarted(before, SWEEP_BATCH, (a) => eventOf('cancelled', a));
      outcome.expired = expired.length;
      for (const attempt of expired)
        await cancelAtProvider([attempt]).catch((error: unknown) => outcome.failures.push({ attemptId: attempt.attemptId, error }));
      for (const attempt of await deps.attempts.voidsDue(SWEEP_BATCH)) {
        try {
          if ((await voidReplaced(attempt)).status === 'voided') outcome.voided++;
        } catch (error) {
          outcome.failures.push({ attemptId: attempt.attemptId, error });
        }
      }
      return outcome;
    },

    attemptByReference: (provider, reference) => deps.attempts.findByReference(provider, reference),
    recordProviderData: (attemptId, data) => deps.attempts.mergeProviderData(attemptId, data),
  };
}
