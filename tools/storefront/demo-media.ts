/**
 * Pictures for the demo catalog's media (`/media/demo/p-1001-1-front.svg`): a drawing of the product's kind
 * (from its category) in its variation's colour (the store's swatches), front and back. Small SVGs made at
 * build time, so the shop shows real-looking pictures and never loads one from elsewhere.
 */

type Shape = { front: string; back: string };

const shirt: Shape = {
  back: 'M95 70 L130 55 Q150 68 170 55 L205 70 L250 120 L228 150 L205 130 L205 300 L95 300 L95 130 L72 150 L50 120 Z',
  front:
    'M95 70 L130 55 Q150 68 170 55 L205 70 L250 120 L228 150 L205 130 L205 300 L95 300 L95 130 L72 150 L50 120 Z|M130 55 L150 95 L170 55|M150 95 L150 296|c150,130|c150,170|c150,210|c150,250',
};
const knit: Shape = {
  back: 'M92 78 Q150 58 208 78 L256 160 L250 262 L228 264 L222 170 L208 150 L208 292 L92 292 L92 150 L78 170 L72 264 L50 262 L44 160 Z',
  front:
    'M92 78 Q150 58 208 78 L256 160 L250 262 L228 264 L222 170 L208 150 L208 292 L92 292 L92 150 L78 170 L72 264 L50 262 L44 160 Z|M118 70 Q150 98 182 70|M92 272 L208 272|M92 282 L208 282',
};
const dress: Shape = {
  back: 'M118 60 L132 60 Q150 80 168 60 L182 60 L190 140 L238 340 L62 340 L110 140 Z',
  front: 'M118 60 L132 60 Q150 80 168 60 L182 60 L190 140 L238 340 L62 340 L110 140 Z|M110 140 Q150 155 190 140|M150 160 L150 330',
};
const trousers: Shape = {
  back: 'M100 55 L200 55 L214 345 L164 345 L150 150 L136 345 L86 345 Z',
  front:
    'M100 55 L200 55 L214 345 L164 345 L150 150 L136 345 L86 345 Z|M100 72 L200 72|M150 72 L150 150|M112 80 Q125 110 142 82|M188 80 Q175 110 158 82',
};
const coat: Shape = {
  back: 'M98 62 L130 50 Q150 60 170 50 L202 62 L250 130 L236 300 L212 300 L206 150 L206 352 L94 352 L94 150 L88 300 L64 300 L50 130 Z',
  front:
    'M98 62 L130 50 Q150 60 170 50 L202 62 L250 130 L236 300 L212 300 L206 150 L206 352 L94 352 L94 150 L88 300 L64 300 L50 130 Z|M130 50 L118 120 L150 170 L182 120 L170 50|M150 170 L150 350|c140,200|c140,245|c140,290|M104 240 L132 240|M168 240 L196 240',
};
const sneaker: Shape = {
  back: 'M40 270 Q44 200 92 196 L150 190 Q186 170 214 196 Q256 214 262 250 L262 290 L40 290 Z',
  front:
    'M40 270 Q44 200 92 196 L150 190 Q186 170 214 196 Q256 214 262 250 L262 290 L40 290 Z|M40 272 L262 272|M128 196 L150 232|M146 192 L166 226|M164 188 L182 220',
};
const boot: Shape = {
  back: 'M100 90 L180 90 L184 220 Q240 226 258 262 L258 300 L60 300 L60 270 Q92 262 96 230 Z',
  front:
    'M100 90 L180 90 L184 220 Q240 226 258 262 L258 300 L60 300 L60 270 Q92 262 96 230 Z|M60 282 L258 282|M104 110 L176 110|M112 130 L172 130',
};
const scarf: Shape = {
  back: 'M100 60 L200 60 L200 300 L100 300 Z',
  front:
    'M100 60 L200 60 L200 300 L100 300 Z|M100 100 L200 100|M100 140 L200 140|M100 220 L200 220|M100 260 L200 260|M108 300 L108 330|M124 300 L124 330|M140 300 L140 330|M156 300 L156 330|M172 300 L172 330|M188 300 L188 330',
};
const hat: Shape = {
  back: 'M70 250 Q70 110 150 110 Q230 110 230 250 Z',
  front: 'M70 250 Q70 110 150 110 Q230 110 230 250 Z|M70 236 L230 236|M70 222 L230 222|c150,104',
};

/** The shape of a leaf category of the demo tree (tools/demo/catalog-generator.ts). */
const SHAPES: Record<string, Shape> = {
  'C-W-SHIRTS': shirt,
  'C-W-KNIT': knit,
  'C-W-SUMMER': dress,
  'C-M-JEANS': trousers,
  'C-M-TROUSERS': trousers,
  'C-M-JACKETS': coat,
  'C-M-COATS': coat,
  'C-S-SNEAKERS': sneaker,
  'C-S-BOOTS': boot,
  'C-A-SCARVES': scarf,
  'C-A-HATS': hat,
};

function shade(hex: string, amount: number): string {
  const n = Number.parseInt(hex.replace('#', ''), 16);
  const channel = (shift: number) => Math.max(0, Math.min(255, Math.round(((n >> shift) & 255) * (1 + amount))));
  return `#${[16, 8, 0].map((s) => channel(s).toString(16).padStart(2, '0')).join('')}`;
}

const luminance = (hex: string) => {
  const n = Number.parseInt(hex.replace('#', ''), 16);
  return (0.299 * ((n >> 16) & 255) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255)) / 255;
};

/** One picture: the kind's outline filled with the colour, its details drawn in a darker or lighter line. */
export function pictureSvg(kind: string, colour: string, side: 'front' | 'back'): string {
  const shape = SHAPES[kind] ?? shirt;
  const [outline, ...details] = shape[side].split('|');
  const light = luminance(colour) > 0.6;
  const line = light ? shade(colour, -0.35) : shade(colour, 0.45);
  const fill = side === 'back' ? shade(colour, -0.08) : colour;
  const detail = details
    .map((d) => {
      if (d.startsWith('c')) {
        const [x, y] = d.slice(1).split(',');
        return `<circle cx="${x}" cy="${y}" r="4" fill="${line}"/>`;
      }
      return `<path d="${d}" fill="none" stroke="${line}" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/>`;
    })
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 400" width="600" height="800">` +
    `<defs><linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f6f2ea"/><stop offset="1" stop-color="#e9e2d5"/></linearGradient></defs>` +
    `<rect width="300" height="400" fill="url(#bg)"/><ellipse cx="150" cy="372" rx="110" ry="10" fill="#000" opacity=".07"/>` +
    `<path d="${outline}" fill="${fill}" stroke="${light ? shade(colour, -0.25) : shade(colour, -0.3)}" stroke-width="2" stroke-linejoin="round"/>` +
    detail +
    `</svg>\n`
  );
}

interface DemoCatalog {
  products: Array<{
    folder?: { id: string };
    variations?: Array<{ id: string; description?: string }>;
    media?: Array<{ image: string; variation?: { id: string } }>;
  }>;
}

/** Every local media path of the catalog (`/media/demo/…svg`) with its picture. */
export function demoMedia(catalog: DemoCatalog, swatches: Record<string, string>): Map<string, string> {
  const files = new Map<string, string>();
  for (const product of catalog.products) {
    for (const media of product.media ?? []) {
      if (!media.image.startsWith('/media/demo/') || !media.image.endsWith('.svg')) continue;
      const variation = product.variations?.find((v) => v.id === media.variation?.id);
      const colour = swatches[variation?.description ?? ''] ?? '#8a8a8a';
      files.set(media.image, pictureSvg(product.folder?.id ?? '', colour, media.image.includes('-back') ? 'back' : 'front'));
    }
  }
  return files;
}
