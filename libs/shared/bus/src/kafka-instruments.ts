/**
 * What a process's Kafka clients tell its `/metrics` (issue 28): every request kafkajs sends (`kafka_requests_total`),
 * by API (Produce, Fetch, OffsetCommit, Heartbeat …). One observer a process, set by the process's metrics registry;
 * none, nothing is counted.
 */
export interface KafkaObserver {
  /** kafkajs sent a request of this API (its `apiName`) and had its answer. */
  request(api: string): void;
}

let observer: KafkaObserver | undefined;

/** Sets (or, with undefined, clears) the process's observer of its Kafka clients. */
export function observeKafka(next: KafkaObserver | undefined): void {
  observer = next;
}

/** A kafkajs `REQUEST` instrumentation event's listener: tells the observer set at the time. */
export const kafkaRequestListener = ({ payload }: { payload: { apiName: string } }): void => observer?.request(payload.apiName);
