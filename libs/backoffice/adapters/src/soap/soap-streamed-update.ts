import { parseSoapEnvelope, parseSoapEnvelopeSteps, type SoapRequestBody } from './soap-envelope';
import { updateListOf } from './soap-operations';
import { isIrregularBatch, type BatchSink } from './xml-tree';
import type { XmlLimits } from './xml-prescan';

// Decision 91: an `*_Update`'s entities handed to the store as the parse builds them, so that Postgres writes
// chunk k while this process parses, validates and serialises chunk k+1; the `OK` still waits for the commit.

/** Parts of a batch handed from the parse (the producer) to the use case (the consumer), in order. */
class PartChannel implements AsyncIterable<readonly unknown[]> {
  private readonly parts: (readonly unknown[])[] = [];
  private ended = false;
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;

  push(part: readonly unknown[]): void {
    this.parts.push(part);
    this.notify();
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  fail(error: unknown): void {
    this.failure ??= { error };
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<readonly unknown[]> {
    for (;;) {
      if (this.failure) throw this.failure.error;
      const part = this.parts.shift();
      if (part) yield part;
      else if (this.ended) return;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

/** What a cancelled stream's consumer is failed with; never answered to a client. */
class StreamCancelled extends Error {
  constructor() {
    super('the streamed batch was given up');
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Which store a streamed batch goes to, decided when the parse has built its first part: given the local
 * name of the Body's element, the function that stores a batch arriving in parts (resolving once it is
 * committed), or undefined to hand nothing over (the request is then parsed and handled as before).
 */
export type StreamStart = (operationElement: string) => ((parts: AsyncIterable<readonly unknown[]>) => Promise<unknown>) | undefined;

/**
 * One request's parse, with its `*_Update` entities handed to a store as they are built. The handler still
 * runs every check on the whole parsed request, in the same order, and then `take`s the batch: when the
 * entities it would receive are exactly the ones streamed, the streamed batch is finished and its outcome
 * is the answer (OK once committed, or the Fault the validation of a part gave, or the store's error);
 * otherwise, and whenever the request fails before that, the stream is cancelled (its transaction rolls
 * back) and the request goes on as it always did.
 */
export class StreamedUpdate {
  private readonly channel = new PartChannel();
  private readonly streamed: unknown[] = [];
  private stored: Promise<unknown> | undefined;
  private settled: Promise<unknown> | undefined;
  /** Nothing more is handed over: the stream was finished, given up, or never started. */
  private closed = false;
  private finished = false;

  constructor(
    private readonly start: StreamStart,
    private readonly partSize: number,
  ) {}

  /** Parses the request (parseSoapEnvelope's result and errors), handing its batch over in parts as it goes. */
  async parse(text: string, limits: XmlLimits): Promise<SoapRequestBody> {
    const sink: BatchSink = { items: [], size: this.partSize };
    const steps = parseSoapEnvelopeSteps(text, limits, updateListOf, sink);
    try {
      for (;;) {
        const step = steps.next();
        this.handOver(sink);
        if (step.done) return step.value;
        // Let the store's statements go out, their answers be read and the consumer make its chunk.
        if (this.stored) await nextTurn();
      }
    } catch (error) {
      await this.cancel();
      // What parseSoapEnvelope does with such a batch: the tree, mapped as before.
      if (isIrregularBatch(error)) return parseSoapEnvelope(text, limits);
      throw error;
    }
  }

  private handOver(sink: BatchSink): void {
    if (sink.items.length === 0) return;
    const items = sink.items;
    sink.items = [];
    if (this.closed) return;
    if (!this.stored) {
      const store = sink.operation === undefined ? undefined : this.start(sink.operation);
      if (!store) {
        // Not streamed: the rest of the parse runs without pausing.
        this.closed = true;
        sink.size = Infinity;
        return;
      }
      this.stored = store(this.channel);
      this.settled = this.stored.catch(() => undefined);
    }
    for (const item of items) this.streamed.push(item);
    this.channel.push(items);
  }

  /**
   * The handler's batch: when it is exactly the one streamed, the stream is finished and `outcome` is what
   * storing it ends with; otherwise undefined, once the stream has been given up and rolled back.
   */
  async take(entities: readonly unknown[]): Promise<{ outcome: Promise<unknown> } | undefined> {
    if (this.stored && !this.closed && entities.length === this.streamed.length && entities.every((e, k) => e === this.streamed[k])) {
      this.closed = true;
      this.finished = true;
      this.channel.end();
      return { outcome: this.stored };
    }
    await this.cancel();
    return undefined;
  }

  /** Gives the stream up (its transaction rolls back) and waits until it has; nothing if it was finished or never started. */
  async cancel(): Promise<void> {
    if (this.finished) return;
    this.closed = true;
    this.channel.fail(new StreamCancelled());
    await this.settled;
  }
}
