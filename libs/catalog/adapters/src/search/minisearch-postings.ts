// The embedded index's document sets: a value's documents as a list while few, a bitset once many.

/** Set bits of a 32-bit word. */
export function popcount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** A small posting stays a list of slots; past this many it becomes a bitset. */
const SMALL_POSTING = 64;

/**
 * The documents (dense slots) holding one value: a list while few, a bitset (one bit a slot) once many,
 * so that a rare value costs its documents and a common one a word per 32 documents.
 */
export class Posting {
  size = 0;
  private list: number[] | null = [];
  private bits: Uint32Array | null = null;

  add(slot: number): void {
    if (this.list) {
      this.list.push(slot);
      if (this.list.length > SMALL_POSTING) {
        const list = this.list;
        this.list = null;
        this.bits = new Uint32Array(0);
        for (const s of list) this.setBit(s);
      }
    } else this.setBit(slot);
    this.size++;
  }

  delete(slot: number): void {
    if (this.list) {
      const i = this.list.indexOf(slot);
      if (i < 0) return;
      this.list[i] = this.list[this.list.length - 1]!;
      this.list.pop();
    } else {
      const bits = this.bits!;
      const w = slot >>> 5;
      if (w >= bits.length || (bits[w]! & (1 << (slot & 31))) === 0) return;
      bits[w]! &= ~(1 << (slot & 31));
    }
    this.size--;
  }

  /** target |= this */
  orInto(target: Uint32Array): void {
    if (this.list) {
      for (const s of this.list) target[s >>> 5]! |= 1 << (s & 31);
      return;
    }
    const bits = this.bits!;
    const n = Math.min(bits.length, target.length);
    for (let w = 0; w < n; w++) target[w]! |= bits[w]!;
  }

  /** How many of its documents are in `match`; `words` lists the non-zero words of `match`. */
  countIn(match: Uint32Array, words: Int32Array): number {
    let n = 0;
    if (this.list) {
      for (const s of this.list) if ((match[s >>> 5]! & (1 << (s & 31))) !== 0) n++;
      return n;
    }
    const bits = this.bits!;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      if (w < bits.length) n += popcount(bits[w]! & match[w]!);
    }
    return n;
  }

  private setBit(slot: number): void {
    const w = slot >>> 5;
    if (w >= this.bits!.length) {
      const grown = new Uint32Array(Math.max(w + 1, this.bits!.length * 2));
      grown.set(this.bits!);
      this.bits = grown;
    }
    this.bits![w]! |= 1 << (slot & 31);
  }
}

/** Set bits of a bitset. */
export function countBits(bits: Uint32Array): number {
  let n = 0;
  for (let w = 0; w < bits.length; w++) if (bits[w] !== 0) n += popcount(bits[w]!);
  return n;
}
