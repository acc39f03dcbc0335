import { MalformedRequestError } from '@commerce/backoffice-core';

/** What a request's XML may hold; checked byte by byte as the body arrives, before anything is parsed. */
export interface XmlLimits {
  /** Deepest element nesting (Envelope is 1). A SOAP order is about 17 deep. */
  maxDepth: number;
  /** Elements in the whole document. */
  maxElements: number;
  /** Attributes on one element (namespace declarations included). */
  maxAttributes: number;
  /** Bytes in an element or attribute name, prefix included. */
  maxNameLength: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = { maxDepth: 64, maxElements: 600_000, maxAttributes: 32, maxNameLength: 128 };

/** Names that would become keys of the parsed object and reach Object.prototype's machinery. */
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const FORBIDDEN_BYTES = [...FORBIDDEN_NAMES].map((name) => Buffer.from(name, 'latin1'));

const enum State {
  Text,
  Open, // after '<'
  Bang, // after '<!'
  Comment, // inside <!-- -->
  CData, // inside <![CDATA[ ]]>
  Pi, // inside <? ?>
  StartName,
  EndName,
  EndTail, // after an end tag's name, until '>'
  InTag, // between attributes
  AttrName,
  AfterAttrName, // expecting '='
  BeforeValue, // expecting a quote
  AttrValue,
  SelfClose, // after '/' in a start tag
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const EQ = 0x3d;
const DQ = 0x22;
const SQ = 0x27;
const isSpace = (b: number): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
/** A byte a tag name goes on with, with nothing to decide: not space, not markup, not ':'. */
const isPlainNameByte = (b: number): boolean =>
  b > 0x20 && b !== GT && b !== SLASH && b !== LT && b !== EQ && b !== DQ && b !== SQ && b !== 0x3a;

const COMMENT_OPEN = '--';
const CDATA_OPEN = '[CDATA[';

/**
 * A streaming pre-scan of a request body: refuses a DTD or any markup declaration (so no entity is ever
 * defined, let alone expanded), names that could reach Object.prototype, and documents deeper, larger
 * or wider than the limits, as soon as the offending byte arrives. Of well-formedness it checks only the
 * control characters XML forbids (every byte passes through its loops, and the parser's native searches
 * would not see them); the body reader checks the encoding and the parser the rest. Bytes ≥ 0x80 (UTF-8
 * sequences) never equal a markup character, so chunks may split anywhere.
 */
export class XmlPrescan {
  private state = State.Text;
  private depth = 0;
  private elements = 0;
  private attributes = 0;
  /** The local part (after any prefix) of the name being read: its first 16 bytes, and its whole length. */
  private readonly local = new Uint8Array(16);
  private localLength = 0;
  private nameLength = 0;
  private quote = 0;
  private match = 0; // progress through '-->' / ']]>' / '?>' / the '<!' lookahead
  private bang = '';
  /** Local names of the open elements down to the login's fields (depth 5); deeper ones are not kept. */
  private path: string[] = [];
  private capturing: 'username' | 'password' | undefined;
  private captured: { username?: number[]; password?: number[] } = {};
  /** A comment, CDATA or a long value inside the login: leave the login to the parser. */
  private loginUnclear = false;
  private logins = 0;

  constructor(private readonly limits: XmlLimits = DEFAULT_XML_LIMITS) {}

  write(chunk: Uint8Array): void {
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      // Text outside the login decides nothing until the next '<': skip to it (most of a batch's bytes).
      if (this.state === State.Text && !this.capturing) {
        // A loop, not Buffer#indexOf: the text between tags is a few bytes, and a native call per tag cost
        // more than the bytes it skipped.
        let lt = i;
        for (; lt < n; lt++) {
          const b = chunk[lt] as number;
          // One comparison for most bytes (letters, and every byte of a multi-byte character, are above '<').
          if (b <= LT) {
            if (b === LT) break;
            if (b < 0x20 && !isSpace(b)) this.refuseControl(b);
          }
        }
        if (lt === n) return;
        const gt = this.plainTag(chunk, lt);
        if (gt >= 0) {
          i = gt;
          continue;
        }
        i = lt;
      } else if (this.state === State.StartName || this.state === State.EndName) {
        // A tag name's plain bytes in one go; a prefix's ':' and whatever ends the name go through step.
        let j = i;
        while (j < n && isPlainNameByte(chunk[j] as number)) j++;
        if (j > i) {
          this.nameBytes(chunk, i, j);
          if (j === n) return;
          i = j;
        }
      }
      this.step(chunk[i] as number);
    }
  }

  /**
   * Most of a batch's markup is `<name>` and `</name>` deep in the document, with a plain name that is
   * neither too long nor one of the forbidden names' lengths: taken here in one go, returning the index of
   * its '>' (the state stays Text). Anything else (a prefix, attributes, a tag split across chunks, the
   * first five levels where the login is read, a limit about to be crossed, a name of 9 or 11 bytes) returns
   * -1 and goes byte by byte through step, which decides exactly as before.
   */
  private plainTag(chunk: Uint8Array, lt: number): number {
    const n = chunk.length;
    let p = lt + 1;
    if (p >= n) return -1;
    const end = chunk[p] === SLASH;
    if (end) p++;
    const start = p;
    if (p >= n || chunk[p] === BANG || chunk[p] === QUESTION) return -1;
    while (p < n && isPlainNameByte(chunk[p] as number)) p++;
    const length = p - start;
    if (p >= n || chunk[p] !== GT || length === 0 || length > this.limits.maxNameLength) return -1;
    if (length === 9 || length === 11) return -1; // __proto__, prototype, constructor: checkName's business
    if (end) {
      if (this.depth <= 5) return -1;
      this.depth--;
      return p;
    }
    if (this.depth < 5 || this.depth + 1 > this.limits.maxDepth || this.elements + 1 > this.limits.maxElements) return -1;
    this.elements++;
    this.depth++;
    return p;
  }

  /** The body is complete: it must not end inside markup. */
  end(): void {
    if (this.state !== State.Text) throw new MalformedRequestError('malformed XML: the document ends inside markup');
  }

  /**
   * The text of `Envelope/Body/<operation>/login/username` and `…/password` as the parser will read it
   * (trimmed, the five XML entities decoded), so a login can be checked before the document is parsed;
   * undefined when the scan cannot tell exactly (no login, CDATA, a comment, another entity, a repeat).
   */
  login(): { username: string; password: string } | undefined {
    const { username, password } = this.captured;
    if (this.loginUnclear || !username || !password) return undefined;
    const decode = (bytes: number[]): string | undefined => {
      const raw = Buffer.from(bytes).toString('utf8').trim();
      const text = raw.replace(
        /&(amp|lt|gt|quot|apos);/g,
        (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e] as string,
      );
      return text.includes('&') && /&(?!amp;|lt;|gt;|quot;|apos;)/.test(raw) ? undefined : text;
    };
    const user = decode(username);
    const pass = decode(password);
    return user === undefined || pass === undefined ? undefined : { username: user, password: pass };
  }

  private refuse(reason: string): never {
    throw new MalformedRequestError(reason);
  }

  private nameByte(b: number): void {
    this.nameLength++;
    if (this.nameLength > this.limits.maxNameLength)
      this.refuse(`an element or attribute name is longer than ${this.limits.maxNameLength} bytes`);
    // Only the local part (after the prefix) is kept to compare with the forbidden names.
    if (b === 0x3a) this.localLength = 0;
    else {
      if (this.localLength < 16) this.local[this.localLength] = b;
      this.localLength++;
    }
  }

  /** nameByte for chunk[from..to), none of them ':'. */
  private nameBytes(chunk: Uint8Array, from: number, to: number): void {
    this.nameLength += to - from;
    if (this.nameLength > this.limits.maxNameLength)
      this.refuse(`an element or attribute name is longer than ${this.limits.maxNameLength} bytes`);
    const kept = Math.min(to - from, Math.max(0, 16 - this.localLength));
    for (let k = 0; k < kept; k++) this.local[this.localLength + k] = chunk[from + k] as number;
    this.localLength += to - from;
  }

  private localIs(name: Uint8Array): boolean {
    if (this.localLength !== name.length) return false;
    for (let k = 0; k < name.length; k++) if (this.local[k] !== name[k]) return false;
    return true;
  }

  /** The local name (bytes past the 16th read as NUL; no name compared here is that long). */
  private localName(): string {
    const kept = Math.min(this.localLength, 16);
    return String.fromCharCode(...this.local.subarray(0, kept)) + '\0'.repeat(this.localLength - kept);
  }

  private checkName(): void {
    if (this.nameLength === 0) this.refuse('malformed XML: a tag without a name');
    // Compared byte by byte: a string per tag was most of the scan's time.
    if (FORBIDDEN_BYTES.some((name) => this.localIs(name))) this.refuse(`the name ${this.localName()} is not allowed in a request`);
  }

  private resetName(): void {
    this.localLength = 0;
    this.nameLength = 0;
  }

  private openElement(selfClosing: boolean): void {
    this.elements++;
    if (this.elements > this.limits.maxElements) this.refuse(`the request has more than ${this.limits.maxElements} elements`);
    if (this.depth + 1 > this.limits.maxDepth) this.refuse(`the request nests elements deeper than ${this.limits.maxDepth} levels`);
    if (this.depth < 5) {
      const local = this.localName();
      this.path[this.depth] = local;
      this.path.length = this.depth + 1;
      if (this.depth === 4 && this.path[3] === 'login' && (local === 'username' || local === 'password')) {
        if (this.captured[local] !== undefined) this.loginUnclear = true;
        this.captured[local] = [];
        if (!selfClosing) this.capturing = local;
      } else if (this.depth === 3 && local === 'login' && this.logins++ > 0) {
        this.loginUnclear = true;
      }
    }
    if (!selfClosing) this.depth++;
  }

  /** XML's Char excludes the C0 controls but tab, LF and CR: any byte below 0x20 is one of them, wherever it is. */
  private refuseControl(b: number): never {
    // UTF-16 and UTF-32 put a NUL byte beside every ASCII character: say so.
    if (b === 0) this.refuse('malformed XML: a NUL byte, which XML does not allow (a SOAP request here is UTF-8, not UTF-16 or UTF-32)');
    this.refuse(`malformed XML: a character XML does not allow (U+${b.toString(16).toUpperCase().padStart(4, '0')})`);
  }

  private step(b: number): void {
    if (b < 0x20 && !isSpace(b)) this.refuseControl(b);
    switch (this.state) {
      case State.Text:
        if (b === LT) this.state = State.Open;
        else if (this.capturing) {
          const field = this.captured[this.capturing] as number[];
          if (field.length < 1024) field.push(b);
          else this.loginUnclear = true;
        }
        return;
      case State.Open:
        // Only text is taken as a login field; markup inside one leaves the login to the parser.
        if (this.capturing && b !== SLASH) this.loginUnclear = true;
        if (b === SLASH) {
          this.capturing = undefined;
          this.resetName();
          this.state = State.EndName;
        } else if (b === BANG) {
          this.bang = '';
          this.state = State.Bang;
        } else if (b === QUESTION) {
          this.match = 0;
          this.state = State.Pi;
        } else {
          this.resetName();
          this.attributes = 0;
          this.state = State.StartName;
          this.step(b);
        }
        return;
      case State.Bang: {
        this.bang += String.fromCharCode(b);
        if (this.bang === COMMENT_OPEN) {
          this.match = 0;
          this.state = State.Comment;
        } else if (this.bang === CDATA_OPEN) {
          this.match = 0;
          this.state = State.CData;
        } else if (!COMMENT_OPEN.startsWith(this.bang) && !CDATA_OPEN.startsWith(this.bang)) {
          this.refuse(
            this.bang === 'D' || this.bang === 'd'
              ? 'a SOAP message must not contain a DTD'
              : 'a SOAP message must not contain markup declarations',
          );
        }
        return;
      }
      case State.Comment:
        // '-->' ends it.
        if (b === 0x2d) this.match = Math.min(this.match + 1, 2);
        else if (b === GT && this.match === 2) this.state = State.Text;
        else this.match = 0;
        return;
      case State.CData:
        if (b === 0x5d) this.match = Math.min(this.match + 1, 2);
        else if (b === GT && this.match === 2) this.state = State.Text;
        else this.match = 0;
        return;
      case State.Pi:
        if (b === QUESTION) this.match = 1;
        else if (b === GT && this.match === 1) this.state = State.Text;
        else this.match = 0;
        return;
      case State.StartName:
        if (isSpace(b) || b === GT || b === SLASH) {
          this.checkName();
          this.state = State.InTag;
          this.step(b);
        } else if (b === LT || b === EQ || b === DQ || b === SQ) {
          this.refuse('malformed XML: a bad character in a tag name');
        } else this.nameByte(b);
        return;
      case State.EndName:
        if (isSpace(b) || b === GT) {
          this.checkName();
          this.state = State.EndTail;
          this.step(b);
        } else if (b === LT) this.refuse('malformed XML: a bad character in an end tag');
        else this.nameByte(b);
        return;
      case State.EndTail:
        if (b === GT) {
          if (this.depth === 0) this.refuse('malformed XML: an end tag without its start tag');
          this.depth--;
          this.state = State.Text;
        } else if (!isSpace(b)) this.refuse('malformed XML: a bad character in an end tag');
        return;
      case State.InTag:
        if (isSpace(b)) return;
        if (b === GT) {
          this.openElement(false);
          this.state = State.Text;
        } else if (b === SLASH) this.state = State.SelfClose;
        else if (b === LT || b === EQ || b === DQ || b === SQ) this.refuse('malformed XML: a bad character in a start tag');
        else {
          this.attributes++;
          if (this.attributes > this.limits.maxAttributes) this.refuse(`an element has more than ${this.limits.maxAttributes} attributes`);
          this.resetName();
          this.state = State.AttrName;
          this.nameByte(b);
        }
        return;
      case State.SelfClose:
        if (b !== GT) this.refuse('malformed XML: "/" in a start tag must end it');
        this.openElement(true);
        this.state = State.Text;
        return;
      case State.AttrName:
        if (b === EQ) {
          this.checkName();
          this.state = State.BeforeValue;
        } else if (isSpace(b)) {
          this.checkName();
          this.state = State.AfterAttrName;
        } else if (b === GT || b === SLASH || b === LT || b === DQ || b === SQ) this.refuse('malformed XML: an attribute without a value');
        else this.nameByte(b);
        return;
      case State.AfterAttrName:
        if (b === EQ) this.state = State.BeforeValue;
        else if (!isSpace(b)) this.refuse('malformed XML: an attribute without a value');
        return;
      case State.BeforeValue:
        if (b === DQ || b === SQ) {
          this.quote = b;
          this.state = State.AttrValue;
        } else if (!isSpace(b)) this.refuse('malformed XML: an attribute value must be quoted');
        return;
      case State.AttrValue:
        if (b === this.quote) this.state = State.InTag;
        else if (b === LT) this.refuse('malformed XML: "<" in an attribute value');
        return;
    }
  }
}
