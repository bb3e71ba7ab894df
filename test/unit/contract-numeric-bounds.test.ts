/**
 * Every number a client sends has a bound that fits where it goes (issue rule "client mistakes are 4xx"): walks
 * the bundled contract through every request body, path, query and header parameter, and fails on an integer or
 * number without a lower and an upper bound, or with a bound a PostgreSQL `integer` column could not hold
 * (2^31 − 1, the narrowest column the migrations use for a client's number). `available_until: 1e16` answered
 * 500 on PostgreSQL before this: a value the validator let through overflowed its column. Wider bounds are
 * allowed only where listed below with the reason they fit.
 */
import { describe, expect, it } from 'vitest';
import { loadContract } from '../../src/composition/index.js';

type Schema = Record<string, unknown>;

const INT4_MAX = 2 ** 31 - 1;
/** Field (as the walk names it) → why a bound above INT4_MAX fits its column. */
const WIDE: Readonly<Record<string, string>> = {
  'registerMachine body.available_until':
    'unix seconds up to 9999-12-31, stored × 1000 in the bigint available_until_ms',
  'updateMachineListing body.available_until':
    'unix seconds up to 9999-12-31, stored × 1000 in the bigint available_until_ms',
  'getHostedFile query.expires': 'unix seconds up to 9999-12-31, compared with the clock in memory, never stored',
};

const contract = loadContract() as unknown as Schema;

/** A `$ref` inside the bundled document, followed to what it names. */
function resolve(node: unknown): Schema {
  let schema = node as Schema;
  while (typeof schema?.$ref === 'string') {
    const path = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
    schema = path.reduce<Schema>((into, part) => into[part] as Schema, contract);
  }
  return schema;
}

interface NumericField {
  name: string;
  schema: Schema;
}

/** Every integer or number schema reachable from `node`, named by its path; a `$ref` seen on the way is not re-entered. */
function numericFields(node: unknown, name: string, seen: ReadonlySet<string> = new Set()): NumericField[] {
  const ref = (node as Schema | undefined)?.$ref;
  if (typeof ref === 'string' && seen.has(ref)) return [];
  const within = typeof ref === 'string' ? new Set([...seen, ref]) : seen;
  const schema = resolve(node);
  if (typeof schema !== 'object' || schema === null) return [];
  const types = ([] as unknown[]).concat(schema.type ?? []);
  const found: NumericField[] = types.includes('integer') || types.includes('number') ? [{ name, schema }] : [];
  const children: [unknown, string][] = [];
  for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const)
    for (const part of (schema[combinator] as unknown[] | undefined) ?? []) children.push([part, name]);
  for (const [field, value] of Object.entries((schema.properties as Schema | undefined) ?? {}))
    children.push([value, `${name}.${field}`]);
  if (schema.items !== undefined) children.push([schema.items, `${name}[]`]);
  for (const item of (schema.prefixItems as unknown[] | undefined) ?? []) children.push([item, `${name}[]`]);
  if (typeof schema.additionalProperties === 'object') children.push([schema.additionalProperties, `${name}{}`]);
  return found.concat(children.flatMap(([child, childName]) => numericFields(child, childName, within)));
}

/** Every numeric field a client sends, on every operation. */
function requestNumericFields(): NumericField[] {
  const fields: NumericField[] = [];
  for (const item of Object.values(contract.paths as Record<string, Schema>)) {
    for (const operation of Object.values(item) as Schema[]) {
      if (typeof operation?.operationId !== 'string') continue;
      const parameters = [
        ...((item.parameters as unknown[]) ?? []),
        ...((operation.parameters as unknown[]) ?? []),
      ].map(resolve);
      for (const p of parameters)
        fields.push(...numericFields(p.schema, `${operation.operationId} ${String(p.in)}.${String(p.name)}`));
      const content = (resolve(operation.requestBody)?.content ?? {}) as Record<string, Schema>;
      for (const media of Object.values(content))
        fields.push(...numericFields(media.schema, `${operation.operationId} body`));
    }
  }
  return fields;
}

/** What is wrong with a numeric field's bounds, or null. */
function boundProblem({ name, schema }: NumericField): string | null {
  if (Array.isArray(schema.enum) || schema.const !== undefined) return null;
  const lower = (schema.minimum ?? schema.exclusiveMinimum) as number | undefined;
  const upper = (schema.maximum ?? schema.exclusiveMaximum) as number | undefined;
  if (lower === undefined || upper === undefined) return `${name}: unbounded (minimum ${lower}, maximum ${upper})`;
  const limit = name in WIDE ? Number.MAX_SAFE_INTEGER : INT4_MAX;
  if (Math.abs(lower) > limit || Math.abs(upper) > limit) return `${name}: a bound beyond ${limit}`;
  return null;
}

describe('numeric bounds of the contract', () => {
  const fields = requestNumericFields();

  it('finds the numbers clients send (the walk reaches bodies, paths and queries)', () => {
    const names = fields.map((f) => f.name);
    expect(names).toContain('createCompatChatCompletion body.temperature');
    expect(names).toContain('getVolume path.volume_id');
    expect(names).toContain('listOffers query.max_price_per_hour');
    expect(names).toContain('registerMachine body.available_until');
  });

  it('every integer and number in a request has bounds that fit its column on PostgreSQL', () => {
    expect(fields.map(boundProblem).filter((problem) => problem !== null)).toEqual([]);
  });

  it('every wide bound listed is still a field of the contract', () => {
    const names = new Set(fields.map((f) => f.name));
    expect(Object.keys(WIDE).filter((name) => !names.has(name))).toEqual([]);
  });
});
