import { OffsetCommits, type PartitionOffset } from './kafka-commits';

const at = (partition: number, offset: number): PartitionOffset => ({ topic: 't', partition, offset: String(offset) });

describe('OffsetCommits (the Kafka bus commits offsets in turn, never behind; decision 175)', () => {
  it('never sends an offset behind or at the one last sent for its partition, and sends the others', async () => {
    const sent: PartitionOffset[][] = [];
    const commits = new OffsetCommits(async (offsets) => void sent.push(offsets));
    await commits.commit([at(0, 5)]);
    // An older fetch's offset of partition 0 comes after: left out; partition 1's goes.
    await commits.commit([at(0, 3), at(1, 2)]);
    await commits.commit([at(0, 5)]);
    await commits.commit([at(0, 6)]);
    expect(sent).toEqual([[at(0, 5)], [at(1, 2)], [at(0, 6)]]);
  });

  it('sends a commit only once the one before settled, so a later one cannot overtake it', async () => {
    const sent: string[] = [];
    const answers: Array<() => void> = [];
    const commits = new OffsetCommits(
      (offsets) =>
        new Promise<void>((resolve) => {
          sent.push(offsets.map((o) => o.offset).join());
          answers.push(resolve);
        }),
    );
    const first = commits.commit([at(0, 9)]);
    const second = commits.commit([at(0, 4)]);
    const third = commits.commit([at(0, 12)]);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual(['9']);
    answers.shift()?.();
    await first;
    await second;
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual(['9', '12']);
    answers.shift()?.();
    await third;
    await commits.settled();
  });

  it('does not count a commit that failed: its error goes to its caller, and a lower offset goes after it', async () => {
    const sent: string[] = [];
    let refuse = true;
    const commits = new OffsetCommits(async (offsets) => {
      sent.push(offsets.map((o) => o.offset).join());
      if (refuse) throw new Error('refused');
    });
    await commits.commit([at(0, 3)]).catch(() => undefined);
    refuse = false;
    await commits.commit([at(0, 3)]);
    refuse = true;
    await expect(commits.commit([at(0, 8)])).rejects.toThrow('refused');
    refuse = false;
    await commits.commit([at(0, 5)]);
    await commits.commit([at(0, 4)]);
    expect(sent).toEqual(['3', '3', '8', '5']);
  });

  it('forgets what was sent on reset (a new assignment starts from the offsets the group committed)', async () => {
    const sent: string[] = [];
    const commits = new OffsetCommits(async (offsets) => void sent.push(offsets.map((o) => o.offset).join()));
    await commits.commit([at(0, 7)]);
    commits.reset();
    await commits.commit([at(0, 2)]);
    expect(sent).toEqual(['7', '2']);
  });
});
