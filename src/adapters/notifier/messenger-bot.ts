/**
 * A messenger bot over HTTP in the Telegram Bot API wire format (SPEC 6.3's linked messenger notifications):
 *
 *   POST {base}/bot{token}/sendMessage   {chat_id, text, disable_web_page_preview: true}
 *   → {ok: true, result: Message} | {ok: false, error_code, description, parameters?: {retry_after}}
 *
 * Transport, time budget and error bodies go through the upstream HTTP helpers (src/lib/outbound-http.ts),
 * which also read the Bot API's `description` and `parameters.retry_after`. Failures are classified for the
 * dispatcher: 400 (no such chat, empty text) and 403 (the bot was blocked, kicked from the group) cannot succeed by
 * trying again; 429, 5xx, timeouts, refused connections and a wrong token (401/404: an operator's fix, not the
 * message's) may.
 */
import type { Agent } from 'undici';
import { Canceller } from '../../lib/cancel-signal.js';
import { isRecord } from '../../lib/is-record.js';
import { createUpstreamAgent, postJson, validateBaseUrl } from '../../lib/outbound-http.js';
import { UpstreamError } from '../upstream/index.js';
import { type Notifier, NotifierError, type NotifyTarget } from './index.js';

/** One alert is a few hundred bytes; a bot API that has not answered in 10 s is retried at the next run. */
const SEND_BUDGET_MS = 10_000;
/** Telegram answers 429 with `retry_after`; one without it is tried again after this. */
const DEFAULT_RETRY_AFTER_MS = 1_000;
/** A `sendMessage` answer echoes the message: a few KB. */
const ANSWER_LIMIT_BYTES = 1024 * 1024;
const PERMANENT_STATUSES = new Set([400, 403]);

export interface MessengerBotOptions {
  token: string;
  /** Default https://api.telegram.org; tests point it at a local fake. */
  baseUrl: string;
  budgetMs?: number;
}

export class MessengerBotNotifier implements Notifier {
  private readonly agent: Agent = createUpstreamAgent();
  private readonly baseUrl: string;
  /** Alerts are sent by a background task: nobody goes away mid-send, so this never aborts. */
  private readonly never = new Canceller();

  constructor(private readonly options: MessengerBotOptions) {
    this.baseUrl = validateBaseUrl('messenger bot', options.baseUrl);
  }

  async send(target: NotifyTarget, text: string): Promise<void> {
    let answer: unknown;
    try {
      answer = await postJson({
        dispatcher: this.agent,
        // The token is part of the path (the Bot API's scheme): never log this URL.
        url: `${this.baseUrl}/bot${this.options.token}/sendMessage`,
        headers: {},
        body: { chat_id: target.chatId, text, disable_web_page_preview: true },
        signal: this.never,
        budgetMs: this.options.budgetMs ?? SEND_BUDGET_MS,
        maxBodyBytes: ANSWER_LIMIT_BYTES,
      });
    } catch (err) {
      throw notifierErrorOf(err);
    }
    if (!isRecord(answer) || answer.ok !== true)
      throw new NotifierError('the messenger bot API answered 2xx without `ok: true`', false);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function notifierErrorOf(err: unknown): NotifierError {
  if (!(err instanceof UpstreamError)) return new NotifierError(`messenger bot: ${String(err)}`, false);
  const failure = err.failure;
  if (failure.kind !== 'http') return new NotifierError(`messenger bot (${failure.kind}): ${failure.message}`, false);
  const message = `the messenger bot API answered ${failure.status}: ${failure.message}`;
  if (failure.status === 429)
    return new NotifierError(
      message,
      false,
      failure.retryAfterSec === undefined ? DEFAULT_RETRY_AFTER_MS : failure.retryAfterSec * 1000,
    );
  return new NotifierError(message, PERMANENT_STATUSES.has(failure.status));
}
