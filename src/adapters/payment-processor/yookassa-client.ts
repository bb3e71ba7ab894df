/**
 * The HTTP side of YooKassa's API v3 (yookassa.ru/developers/using-api/basics) over Node's global fetch, with no SDK
 * (research/payments.md 3 and 9): HTTP Basic auth with the shop id and secret key, JSON both ways, an
 * `Idempotence-Key` on every POST.
 *
 * What an answer means to the caller: 200 is the object; 404 on a GET is "no such object" (null); 202
 * (`{"type": "processing", "retry_after": ms}`: the request is still being handled, to be repeated with the same key),
 * 429, 5xx, a refused or timed-out connection and an unreadable 2xx body are ProcessorUnavailable (try again later);
 * any other 4xx (a bad request, wrong credentials, an idempotence key reused with another body) is our bug or
 * misconfiguration and is thrown as a plain Error carrying YooKassa's `code` and `description`.
 */
import { isRecord } from '../../lib/is-record.js';
import { ProcessorUnavailable } from './index.js';

export interface YooKassaClientOptions {
  shopId: string;
  secretKey: string;
  /** `https://api.yookassa.ru/v3` in production; tests point it at a loopback fake. */
  apiBase: string;
  /** How long one call may take, connection to last byte. */
  budgetMs: number;
}

export class YooKassaClient {
  private readonly authorization: string;
  private readonly apiBase: string;

  constructor(private readonly options: YooKassaClientOptions) {
    if (!URL.canParse(options.apiBase) || !/^https?:$/.test(new URL(options.apiBase).protocol))
      throw new Error(`yookassa: apiBase ${JSON.stringify(options.apiBase)} is not an http(s) URL`);
    this.apiBase = options.apiBase.replace(/\/+$/, '');
    this.authorization = `Basic ${Buffer.from(`${options.shopId}:${options.secretKey}`).toString('base64')}`;
  }

  /** POSTs `body` under `idempotenceKey` (YooKassa keeps a key for 24 hours: a retry answers the first result). */
  async post(path: string, body: Record<string, unknown>, idempotenceKey: string): Promise<Record<string, unknown>> {
    const answer = await this.call(
      'POST',
      path,
      {
        'content-type': 'application/json',
        'idempotence-key': idempotenceKey,
      },
      JSON.stringify(body),
    );
    if (answer === null) throw new Error(`yookassa POST ${path} answered 404`);
    return answer;
  }

  /** The object at `path`, or null when YooKassa answers 404 (it does not know it). */
  get(path: string): Promise<Record<string, unknown> | null> {
    return this.call('GET', path, {}, undefined);
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<Record<string, unknown> | null> {
    const what = `yookassa ${method} ${path}`;
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${this.apiBase}${path}`, {
        method,
        headers: { authorization: this.authorization, accept: 'application/json', ...headers },
        body,
        signal: AbortSignal.timeout(this.options.budgetMs),
      });
      status = response.status;
      text = await response.text();
    } catch (err) {
      throw new ProcessorUnavailable(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (status === 404 && method === 'GET') return null;
    return answerOf(what, status, parseJson(text));
  }
}

function answerOf(what: string, status: number, answer: unknown): Record<string, unknown> {
  if (status === 200) {
    if (!isRecord(answer)) throw new ProcessorUnavailable(`${what} answered 200 without a JSON object`);
    return answer;
  }
  const detail = isRecord(answer) ? answer : {};
  if (status === 202)
    throw new ProcessorUnavailable(`${what} is still processing (retry after ${String(detail.retry_after)} ms)`);
  const message = `${what} answered ${status} ${String(detail.code ?? '')}: ${String(detail.description ?? '')}`;
  if (status === 429 || status >= 500) throw new ProcessorUnavailable(message);
  throw new Error(message);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
