/**
 * The two forms of a product text (`excerpt`/`excerptHtml`, `description`/`descriptionHtml`). The ERP
 * sends plain text or HTML. Plain text becomes HTML escaped, blank-line-separated paragraphs as `<p>` and
 * single line breaks as `<br>`. HTML is the administration system's own markup (trusted like the rest of
 * its content) and is passed on as sent; its plain form has the tags stripped and entities decoded.
 */
export interface TextForms {
  plain: string;
  html: string;
}

/** Markup an ERP writes in a description; other text in angle brackets (`<washable>`) is plain text. */
const HTML_TAG =
  /<\/?(p|br|b|i|u|s|em|strong|small|sub|sup|span|div|a|img|ul|ol|li|dl|dt|dd|h[1-6]|table|thead|tbody|tr|td|th|blockquote|pre|code|hr|section|article|font)(\s[^<>]*)?\/?>|&(amp|lt|gt|quot|nbsp|#\d+|#x[0-9a-f]+);/i;
const BLOCK_TAGS = /<\/?(p|div|br|li|ul|ol|h[1-6]|tr|table|blockquote|section|article)(\s[^<>]*)?\/?>/gi;

export const looksLikeHtml = (text: string): boolean => HTML_TAG.test(text);

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[entity.toLowerCase()] ?? whole;
  });
}

/** HTML → plain text: block elements become line breaks, other tags vanish, entities are decoded. */
export function stripHtml(html: string): string {
  const text = html
    .replace(/<(script|style)[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(BLOCK_TAGS, '\n')
    .replace(/<[^<>]*>/g, '');
  return decodeEntities(text)
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Plain text → HTML: escaped, paragraphs at blank lines, `<br>` at single line breaks. */
export function textToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => `<p>${p.split('\n').map(escapeHtml).join('<br>')}</p>`)
    .join('');
}

export function textForms(raw: string): TextForms {
  if (looksLikeHtml(raw)) return { plain: stripHtml(raw), html: raw.trim() };
  const plain = raw.replace(/\r\n?/g, '\n').trim();
  return { plain, html: textToHtml(plain) };
}
