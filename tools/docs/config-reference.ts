// docs/configuration.md from the services' zod config schemas (issue 24): every variable a process reads, the
// services that read it, its default and its meaning (each variable's `.describe(…)`).
//
//   npm run docs:config            writes docs/configuration.md
//
// tools/docs/config-reference.spec.ts fails when the page and the schemas disagree, or a variable has no
// description. A new variable: give it `.describe('…')` where its schema is written, then `npm run docs:config`.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { ConfigSchema as account } from '../../apps/account/src/config';
import { AllInOneConfigSchema as allInOne } from '../../apps/all-in-one/src/config';
import { ConfigSchema as backofficeSoap } from '../../apps/backoffice-soap/src/config';
import { ConfigSchema as cart } from '../../apps/cart/src/config';
import { ConfigSchema as catalog } from '../../apps/catalog/src/config';
import { ConfigSchema as checkoutApi } from '../../apps/checkout-api/src/config';
import { ConfigSchema as order } from '../../apps/order/src/config';
import { ConfigSchema as payment } from '../../apps/payment/src/config';

export const REGENERATE_COMMAND = 'npm run docs:config';
export const PAGE = 'docs/configuration.md';
const root = resolve(__dirname, '../..');

/** Each process's config schema, as its main parses it (`apps/<app>/src/config.ts`). */
export const SERVICE_SCHEMAS: ReadonlyArray<readonly [string, z.ZodObject]> = [
  ['checkout-api', checkoutApi],
  ['catalog', catalog],
  ['cart', cart],
  ['account', account],
  ['order', order],
  ['payment', payment],
  ['backoffice-soap', backofficeSoap],
  ['all-in-one', allInOne],
];

export interface Variable {
  name: string;
  service: string;
  /** `required`, `unset` (optional without a default) or the default as the environment would give it. */
  fallback: string;
  description: string | undefined;
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  defaultValue?: unknown;
}
const defOf = (schema: z.ZodType) => schema.def as unknown as Def;
/** The schema a wrapper (default, optional, pipe, transform) wraps, if any. */
const innerOf = (schema: z.ZodType): z.ZodType | undefined => defOf(schema).innerType ?? defOf(schema).in;

/** The first description from the outside in: `.describe()` on the outer schema wins over its inner's. */
function descriptionOf(schema: z.ZodType): string | undefined {
  for (let s: z.ZodType | undefined = schema; s; s = innerOf(s)) if (s.description) return s.description;
  return undefined;
}

/** A number's bounds, `(0–600,000)`, `(at least 1)`; empty for any other schema or an unbounded number. */
function rangeOf(schema: z.ZodType): string {
  for (let s: z.ZodType | undefined = schema; s; s = innerOf(s)) {
    if (defOf(s).type !== 'number') continue;
    const { minValue, maxValue } = s as unknown as { minValue: number | null; maxValue: number | null };
    const bounded = (v: number | null): v is number => v !== null && Number.isFinite(v) && Math.abs(v) < Number.MAX_SAFE_INTEGER;
    const n = (v: number) => v.toLocaleString('en-US');
    if (bounded(minValue) && bounded(maxValue)) return ` (${n(minValue)}–${n(maxValue)})`;
    if (bounded(minValue)) return ` (at least ${n(minValue)})`;
    if (bounded(maxValue)) return ` (at most ${n(maxValue)})`;
  }
  return '';
}

function fallbackOf(schema: z.ZodType): string {
  for (let s: z.ZodType | undefined = schema; s; s = innerOf(s)) {
    const def = defOf(s);
    if (def.type === 'default') return (def.defaultValue === '' ? 'empty' : `\`${String(def.defaultValue)}\``) + rangeOf(schema);
    if (def.type === 'optional') return 'unset';
  }
  return 'required';
}

/** Every variable of every process, one entry per (variable, service). */
export function configVariables(): Variable[] {
  return SERVICE_SCHEMAS.flatMap(([service, schema]) =>
    Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => ({
      name,
      service,
      fallback: fallbackOf(field),
      description: descriptionOf(field),
    })),
  );
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One text for all, or each text with the services that have it. */
function perService(entries: Variable[], of: (v: Variable) => string, separator: string): string {
  const groups = new Map<string, string[]>();
  for (const entry of entries) groups.set(of(entry), [...(groups.get(of(entry)) ?? []), entry.service]);
  if (groups.size === 1) return [...groups.keys()][0]!;
  return [...groups].map(([text, services]) => `${text} (${services.join(', ')})`).join(separator);
}

/** The rows of the page's table, by variable name: what the spec compares to name what changed. */
export function referenceRows(variables = configVariables()): Map<string, string> {
  const byName = new Map<string, Variable[]>();
  for (const v of variables) byName.set(v.name, [...(byName.get(v.name) ?? []), v]);
  const everyService = SERVICE_SCHEMAS.length;
  return new Map(
    [...byName.keys()].sort().map((name) => {
      const entries = byName.get(name)!;
      const services = entries.length === everyService ? 'every service' : entries.map((e) => e.service).join(', ');
      const meaning = perService(entries, (e) => e.description ?? '(no description)', '<br>');
      return [name, `| \`${name}\` | ${services} | ${cell(perService(entries, (e) => e.fallback, '; '))} | ${cell(meaning)} |`];
    }),
  );
}

/**
 * The page. Not formatted by prettier (.prettierignore): its padded table would rewrite every line when the widest
 * cell changes; unpadded, a variable added is a one-line diff.
 */
export function renderConfigReference(): string {
  const variables = configVariables();
  const rows = referenceRows(variables);
  return [
    '# Configuration reference',
    '',
    `Generated by \`${REGENERATE_COMMAND}\` (tools/docs/config-reference.ts) from the zod config schemas the processes parse,`,
    "`apps/<service>/src/config.ts`, built from the shared pieces of `libs/shared/config` and the libraries' `*.env.ts`:",
    "edit those (each variable's `.describe(…)`), not this page. `tools/docs/config-reference.spec.ts` fails when the page",
    'is out of date or a variable has no description.',
    '',
    'Each process reads its variables once at start. A missing or malformed one stops it with one line naming it,',
    '`order: config: CATALOG_URL Invalid input: expected string, received undefined (it is not set)`. **required**: no',
    "default, the process does not start without it; **unset**: optional, off or derived when absent; a number's",
    'accepted range follows its default. The all-in-one (`npm start`: every service in one process) defaults to the',
    'embedded engines. Where processes differ, the default and the meaning name the ones each applies to. How the',
    'services are deployed with them: [deploy.md](deploy.md); the engines, events and limits: [operations.md](operations.md).',
    '',
    '## What each process must be given',
    '',
    'The variables without a default, which a process does not start without:',
    '',
    '| Process | Required |',
    '|---|---|',
    ...SERVICE_SCHEMAS.map(([service]) => {
      const required = variables.filter((v) => v.service === service && v.fallback === 'required').map((v) => `\`${v.name}\``);
      return `| ${service} | ${required.join(', ') || 'none'} |`;
    }),
    '',
    '## Every variable',
    '',
    '| Variable | Read by | Default | Meaning |',
    '|---|---|---|---|',
    ...rows.values(),
    '',
  ].join('\n');
}

/** The page as it is in the tree (empty when missing). */
export function currentReference(): string {
  try {
    return readFileSync(resolve(root, PAGE), 'utf8');
  } catch {
    return '';
  }
}

if (require.main === module) {
  writeFileSync(resolve(root, PAGE), renderConfigReference());
  const missing = configVariables().filter((v) => !v.description);
  console.log(`${PAGE}: ${referenceRows().size} variables`);
  if (missing.length)
    console.error(`no description (add .describe('…') to its schema): ${missing.map((v) => `${v.name} (${v.service})`).join(', ')}`);
}
