import { randomUUID } from 'node:crypto';
import type { z } from 'zod';

/** One message on the bus. Keyed by aggregate id so one aggregate's events stay ordered. */
export interface EventEnvelope<P = unknown> {
  /** Unique id; consumers dedupe on it. */
  id: string;
  /** `<service>.<aggregate>.v1`, from a constant in the owner's contracts. */
  topic: string;
  /** Aggregate id. */
  key: string;
  /** Past-tense name, e.g. `ProductUpserted`. */
  type: string;
  version: number;
  /** ISO 8601. */
  occurredAt: string;
  /** The request that caused it, carried into the consumer's logs. */
  requestId?: string;
  payload: P;
}

export interface EventDefinition<S extends z.ZodType> {
  topic: string;
  type: string;
  version: number;
  schema: S;
  /** Builds an envelope after validating the payload. */
  create(key: string, payload: z.infer<S>, requestId?: string): EventEnvelope<z.infer<S>>;
  /** Builds an envelope around a payload the caller has just parsed with `schema` (no second validation). */
  createParsed(key: string, payload: z.output<S>, requestId?: string): EventEnvelope<z.infer<S>>;
  /** True when the envelope is this event (topic, type and version). */
  matches(envelope: EventEnvelope): boolean;
  /** Validates an envelope's payload; throws a ZodError on a malformed one (a poison message). */
  parse(envelope: EventEnvelope): EventEnvelope<z.infer<S>>;
}

/** Declares an event of an owner's contracts: a topic constant, a past-tense type, a version and a zod schema. */
export function defineEvent<S extends z.ZodType>(def: { topic: string; type: string; version: number; schema: S }): EventDefinition<S> {
  const createParsed = (key: string, payload: z.output<S>, requestId?: string): EventEnvelope<z.infer<S>> => ({
    id: randomUUID(),
    topic: def.topic,
    key,
    type: def.type,
    version: def.version,
    occurredAt: new Date().toISOString(),
    ...(requestId ? { requestId } : {}),
    payload,
  });
  return {
    ...def,
    create: (key, payload, requestId) => createParsed(key, def.schema.parse(payload), requestId),
    createParsed,
    matches: (e) => e.topic === def.topic && e.type === def.type && e.version === def.version,
    parse: (e) => ({ ...e, payload: def.schema.parse(e.payload) }),
  };
}
