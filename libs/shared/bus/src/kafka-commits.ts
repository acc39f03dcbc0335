// The Kafka bus's offset commits (kafka-bus.ts, decision 175): one after the other, none behind what a partition sent.

/** A partition's offset to commit: the next one to read (the last handled + 1). */
export interface PartitionOffset {
  topic: string;
  partition: number;
  offset: string;
}

export const partitionKey = ({ topic, partition }: Pick<PartitionOffset, 'topic' | 'partition'>): string => `${topic}:${partition}`;

/**
 * Sends commits through `send` one after the other, each once the one before settled, leaving out an offset not past
 * the one last sent for its partition: kafkajs 2.x runs one fetcher a broker side by side, so a partition's older
 * offset (left for a fetch's commit) could otherwise be committed after a newer one and move the group back
 * (redelivering). A commit that fails does not count.
 */
export class OffsetCommits {
  private readonly lastSent = new Map<string, bigint>();
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly send: (offsets: PartitionOffset[]) => Promise<void>) {}

  /** Settles as the commit does (its error if it fails); nothing is sent when every offset is behind. */
  commit(offsets: readonly PartitionOffset[]): Promise<void> {
    const sent = this.last.catch(() => undefined).then(() => this.sendAhead(offsets));
    this.last = sent;
    return sent;
  }

  /** Settles once every commit asked for so far has, failed or not. */
  settled(): Promise<void> {
    return this.last.catch(() => undefined);
  }

  /** Forgets what was sent: a new assignment is fetched from the offsets the group committed. */
  reset(): void {
    this.lastSent.clear();
  }

  private async sendAhead(offsets: readonly PartitionOffset[]): Promise<void> {
    const ahead = offsets.filter((o) => BigInt(o.offset) > (this.lastSent.get(partitionKey(o)) ?? -1n));
    if (ahead.length === 0) return;
    const before = ahead.map((o) => [partitionKey(o), this.lastSent.get(partitionKey(o))] as const);
    for (const o of ahead) this.lastSent.set(partitionKey(o), BigInt(o.offset));
    try {
      await this.send(ahead);
    } catch (error) {
      for (const [key, last] of before) {
        if (last === undefined) this.lastSent.delete(key);
        else this.lastSent.set(key, last);
      }
      throw error;
    }
  }
}
