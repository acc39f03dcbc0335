import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { createGunzip, createInflate, type Gunzip, type Inflate } from 'node:zlib';
import { MalformedRequestError, RequestTooLargeError, UnsupportedEncodingError } from '@commerce/backoffice-core';
import { DEFAULT_XML_LIMITS, XmlPrescan, type XmlLimits } from './xml-prescan';

export interface SoapBodyLimits {
  /** Bytes as sent (compressed or not). */
  maxBodyBytes: number;
  /** Bytes once decompressed (the XML itself). */
  maxXmlBytes: number;
  xml: XmlLimits;
}

export const DEFAULT_BODY_LIMITS: SoapBodyLimits = {
  maxBodyBytes: 10 * 1024 * 1024,
  maxXmlBytes: 10 * 1024 * 1024,
  xml: DEFAULT_XML_LIMITS,
};

function decoderFor(header: string | undefined): Gunzip | Inflate | undefined {
  const encoding = (header ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return undefined;
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  throw new UnsupportedEncodingError(encoding);
}

/**
 * Reads a SOAP request body as it arrives: counts the bytes sent and, for gzip or deflate, the bytes
 * inflated, and runs the XML pre-scan on every decompressed chunk, so an oversized body, a compression
 * bomb, a DTD or a document too deep or too large is refused at the chunk that crosses the line, never
 * held whole. On refusal the rest is left to discardRest.
 */
/** The body's text, and its login when the pre-scan could read it exactly (see XmlPrescan.login). */
export interface SoapBody {
  text: string;
  login?: { username: string; password: string };
}

/** U+FFFE and U+FFFF in UTF-8: characters XML's Char excludes (the pre-scan refuses the others, all below U+0020). */
const NONCHARACTERS = [Buffer.from([0xef, 0xbf, 0xbe]), Buffer.from([0xef, 0xbf, 0xbf])];

function refuseNoncharacters(bytes: Buffer): void {
  if (NONCHARACTERS.some((sequence) => bytes.indexOf(sequence) !== -1))
    throw new MalformedRequestError('malformed XML: a character XML does not allow (U+FFFE or U+FFFF)');
}

/**
 * The XML's bytes as text. A request is UTF-8 (the WSDL's, and the parser refuses a declaration of any
 * other encoding): bytes that are not (a malformed sequence, an encoded surrogate) are refused, not read
 * as U+FFFD, since XML makes an encoding error fatal. Both checks are native passes over the bytes.
 */
function textOf(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw new MalformedRequestError('malformed XML: the request body is not UTF-8');
  refuseNoncharacters(bytes);
  return bytes.toString('utf8');
}

/** A lone surrogate: a string no UTF-8 decoding makes, and no character. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const bodyOf = (text: string, scan: XmlPrescan): SoapBody => {
  const login = scan.login();
  return login ? { text, login } : { text };
};

export function readSoapBody(req: IncomingMessage, limits: SoapBodyLimits = DEFAULT_BODY_LIMITS): Promise<SoapBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes) return Promise.reject(new RequestTooLargeError(limits.maxBodyBytes));
  let decoder: Gunzip | Inflate | undefined;
  try {
    decoder = decoderFor(req.headers['content-encoding']);
  } catch (error) {
    return Promise.reject(error);
  }
  if (req.readableEnded) return Promise.resolve({ text: '' });

  return new Promise<SoapBody>((resolve, reject) => {
    const scan = new XmlPrescan(limits.xml);
    const chunks: Buffer[] = [];
    let sent = 0;
    let xmlBytes = 0;
    let settled = false;

    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (decoder) {
        decoder.off('data', onXml);
        decoder.off('end', finish);
        decoder.destroy();
      }
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(error);
    };
    const finish = () => {
      if (settled) return;
      let text: string;
      try {
        scan.end();
        text = textOf(Buffer.concat(chunks, xmlBytes));
      } catch (error) {
        fail(error);
        return;
      }
      settled = true;
      cleanup();
      resolve(bodyOf(text, scan));
    };
    function onXml(chunk: Buffer) {
      if (settled) return;
      xmlBytes += chunk.length;
      if (xmlBytes > limits.maxXmlBytes) return fail(new RequestTooLargeError(limits.maxXmlBytes, 'decompressed request body'));
      try {
        scan.write(chunk);
      } catch (error) {
        return fail(error);
      }
      chunks.push(chunk);
    }
    function onData(chunk: Buffer) {
      if (settled) return;
      sent += chunk.length;
      if (sent > limits.maxBodyBytes) return fail(new RequestTooLargeError(limits.maxBodyBytes));
      if (!decoder) return onXml(chunk);
      // Let the inflater catch up before reading more: what it emits is checked chunk by chunk.
      if (!decoder.write(chunk)) {
        req.pause();
        decoder.once('drain', () => {
          if (!settled) req.resume();
        });
      }
    }
    function onEnd() {
      if (decoder) decoder.end();
      else finish();
    }
    function onError() {
      fail(new MalformedRequestError('the request body could not be read'));
    }
    function onAborted() {
      fail(new MalformedRequestError('the request body was cut off'));
    }

    if (decoder) {
      decoder.on('data', onXml);
      decoder.on('end', finish);
      decoder.on('error', () => fail(new MalformedRequestError('the request body is not valid gzip or deflate data')));
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

/** Decompressed chunks as they arrive (the bench's in-process stand-in for a request): the same limits and pre-scan. */
export function checkSoapBytes(chunks: readonly Buffer[], limits: SoapBodyLimits = DEFAULT_BODY_LIMITS): SoapBody {
  const scan = new XmlPrescan(limits.xml);
  let xmlBytes = 0;
  for (const chunk of chunks) {
    xmlBytes += chunk.length;
    if (xmlBytes > limits.maxXmlBytes) throw new RequestTooLargeError(limits.maxXmlBytes, 'decompressed request body');
    scan.write(chunk);
  }
  scan.end();
  return bodyOf(textOf(Buffer.concat(chunks as Buffer[], xmlBytes)), scan);
}

/** A body another middleware already read (as text): the same size limit and pre-scan. */
export function checkSoapText(raw: string, limits: SoapBodyLimits = DEFAULT_BODY_LIMITS): SoapBody {
  const bytes = Buffer.from(raw, 'utf8');
  if (bytes.length > limits.maxBodyBytes) throw new RequestTooLargeError(limits.maxBodyBytes);
  const scan = new XmlPrescan(limits.xml);
  scan.write(bytes);
  scan.end();
  refuseNoncharacters(bytes);
  if (LONE_SURROGATE.test(raw)) throw new MalformedRequestError('malformed XML: a lone surrogate (not a character)');
  return bodyOf(raw, scan);
}

/**
 * After a refusal, reads and drops what the client is still sending, so it can finish writing and read
 * the answer (closing at once would reset the connection and lose the answer with it), up to `maxBytes`
 * or `maxMs`, after which the connection is cut.
 */
export function discardRest(req: IncomingMessage, maxBytes = 64 * 1024 * 1024, maxMs = 5000): void {
  if (req.readableEnded || req.destroyed) return;
  let seen = 0;
  const cut = () => req.socket?.destroy();
  const timer = setTimeout(cut, maxMs);
  timer.unref?.();
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) {
      clearTimeout(timer);
      cut();
    }
  });
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.resume();
}
