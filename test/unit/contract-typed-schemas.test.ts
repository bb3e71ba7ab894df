/**
 * Issue 28: the contract reads well in every generator. Walks every schema of the bundled contract (components,
 * parameters, bodies, responses, headers) and holds what generators were seen to need: a `type` on every schema
 * (openapi-typescript-codegen dropped the typed `data` of an inline allOf member without one, and
 * openapi-generator-plus refused an untyped property), `items` on every array (Spectral's array-items), and
 * `additionalProperties: true` only where listed below: an open object becomes an index signature that defeats
 * `in`-narrowing in typed clients, so each one needs its reason (also written beside it in openapi/).
 */
import { describe, expect, it } from 'vitest';
import { loadContract } from '../../src/composition/index.js';

type Schema = Record<string, unknown>;

/** Where `additionalProperties: true` stays, and why. */
const OPEN: Readonly<Record<string, string>> = {
  'FieldDiagnostic.ctx': "the failing keyword's own parameters",
  ErrorMeta: 'an error code may add keys of its own',
  ChatMessage: 'forwarded as sent; SDKs add fields of their own',
  'ChatMessage.content.oneOf[1][]': 'content parts, checked by the service and forwarded',
  'ChatMessage.tool_calls[]': 'forwarded as the SDK built it',
  ChatRequest: 'the service refuses an unforwarded field itself, naming it and why',
  'ChatRequest.stream_options': 'forwarded with include_usage set',
  ChatCompletion: "the upstream's completion, passed through",
  'ChatCompletion.choices[]': "the upstream's choice, passed through",
  'ChatCompletion.choices[].message': "the upstream's message, passed through",
  'ResponsesRequest.input.oneOf[1][].oneOf[0]': 'SDKs send items back whole; the rest is ignored',
  'ResponsesRequest.input.oneOf[1][].oneOf[0].content.oneOf[1][]': 'parts only some SDKs send; the rest is ignored',
  'ResponsesRequest.input.oneOf[1][].oneOf[1]': 'SDKs send items back whole; the rest is ignored',
  'ResponsesRequest.input.oneOf[1][].oneOf[2]': 'SDKs send items back whole; the rest is ignored',
  'ResponsesRequest.text': 'later options are accepted and ignored',
  'ResponsesRequest.reasoning': 'later options are accepted and ignored',
  'RerankRequest.documents[].oneOf[1]': "Cohere's and Jina's document objects; only text is read",
  'UsageRecord.metadata': 'a free-form map',
  'MediaJob.inputs': "the kind's own request fields",
  'MediaJob.config': 'an echo of what the render was asked for',
  'getOpenapiJson 200 application/json': 'an OpenAPI document: its own specification defines it',
  'getOpenapiJson 200 application/json.info': 'an OpenAPI Info object',
  'getOpenapiJson 200 application/json.paths': 'an OpenAPI Paths object: one entry per path',
};

const COMPOSED = ['allOf', 'oneOf', 'anyOf'] as const;

interface Finding {
  where: string;
  schema: Schema;
}

/** Every inline schema object under `schema`, named by its path (a `$ref` is a name, not walked into). */
function schemasUnder(schema: unknown, where: string): Finding[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const node = schema as Schema;
  if (typeof node.$ref === 'string') return [];
  const found: Finding[] = [{ where, schema: node }];
  for (const [field, value] of Object.entries((node.properties as Schema | undefined) ?? {}))
    found.push(...schemasUnder(value, `${where}.${field}`));
  if (node.items !== undefined) found.push(...schemasUnder(node.items, `${where}[]`));
  if (typeof node.additionalProperties === 'object')
    found.push(...schemasUnder(node.additionalProperties, `${where}{}`));
  for (const combinator of COMPOSED)
    ((node[combinator] as unknown[] | undefined) ?? []).forEach((part, i) => {
      found.push(...schemasUnder(part, `${where}.${combinator}[${i}]`));
    });
  return found;
}

type Operation = {
  operationId: string;
  parameters?: Schema[];
  requestBody?: Schema;
  responses?: Record<string, Schema>;
};

function mediaSchemas(content: unknown, where: string): Finding[] {
  return Object.entries((content as Record<string, Schema> | undefined) ?? {}).flatMap(([type, media]) => [
    ...schemasUnder(media.schema, `${where} ${type}`),
    ...schemasUnder(media['x-event-data'], `${where} ${type} x-event-data`),
    ...schemasUnder(media['x-error-frame'], `${where} ${type} x-error-frame`),
  ]);
}

function everySchema(): Finding[] {
  const contract = loadContract() as unknown as { components: Record<string, Record<string, Schema>>; paths: Schema };
  const { schemas = {}, responses = {}, parameters = {}, headers = {} } = contract.components;
  const found = Object.entries(schemas).flatMap(([name, schema]) => schemasUnder(schema, name));
  for (const [name, response] of Object.entries(responses)) found.push(...mediaSchemas(response.content, name));
  for (const [name, holder] of Object.entries({ ...parameters, ...headers }))
    found.push(...schemasUnder(holder.schema, name));
  for (const item of Object.values(contract.paths) as Record<string, Operation>[])
    for (const op of Object.values(item).filter((value) => typeof value?.operationId === 'string')) {
      for (const parameter of op.parameters ?? [])
        found.push(...schemasUnder(parameter.schema, `${op.operationId} ${String(parameter.name)}`));
      found.push(...mediaSchemas(op.requestBody?.content, `${op.operationId} body`));
      for (const [status, response] of Object.entries(op.responses ?? {}))
        found.push(...mediaSchemas(response.content, `${op.operationId} ${status}`));
    }
  return found;
}

const all = everySchema();

describe('every schema of the contract, as generators read it', () => {
  it('walks the whole contract', () => {
    expect(all.length).toBeGreaterThan(1000);
  });

  it('has a type, a const or a $ref (a union or an intersection is typed by its parts)', () => {
    const untyped = all.filter(
      ({ schema }) => !('type' in schema) && !('const' in schema) && !COMPOSED.some((key) => key in schema),
    );
    expect(untyped.map(({ where }) => where)).toEqual([]);
  });

  it('types every inline allOf member that has properties or required fields', () => {
    const members = all.filter(({ where }) => /\.allOf\[\d+\]$/.test(where));
    const untyped = members.filter(({ schema }) => ('properties' in schema || 'required' in schema) && !schema.type);
    expect(members.length).toBeGreaterThan(100);
    expect(untyped.map(({ where }) => where)).toEqual([]);
  });

  it('gives every array its items, an always-empty one included', () => {
    const arrays = all.filter(({ schema }) => ([] as unknown[]).concat(schema.type ?? []).includes('array'));
    expect(arrays.filter(({ schema }) => schema.items === undefined).map(({ where }) => where)).toEqual([]);
  });

  it('keeps additionalProperties: true only where a reason is listed', () => {
    const open = all.filter(({ schema }) => schema.additionalProperties === true).map(({ where }) => where);
    expect(open.sort()).toEqual(Object.keys(OPEN).sort());
  });
});
