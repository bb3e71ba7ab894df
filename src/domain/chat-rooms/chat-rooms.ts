import type { components } from '../../../generated/openapi.js';
import type { ChatRecord, ChatStore, DialogueRecord } from '../../adapters/chat-store/index.js';
import { ApiError, orUnavailable } from '../../errors/api-error.js';
import type { CancelSignal } from '../../lib/cancel-signal.js';
import { newId } from '../../lib/ids.js';
import { isRecord } from '../../lib/is-record.js';
import { microsToUsd } from '../billing/money.js';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import type { ChatService } from '../chat/chat-service.js';
import type { ImageJobs } from '../images/image-jobs.js';
import type { Principal } from '../keys/authenticator.js';
import type { ChainHooks } from '../routing/run-chain.js';
import { Coalescer } from './coalescer.js';

type ChatRoom = components['schemas']['ChatRoom'];
type ChatDialogue = components['schemas']['ChatDialogue'];
type ChatMessageRequest = components['schemas']['ChatMessageRequest'];
type ChatMessageReply = components['schemas']['ChatMessageReply'];
type ChatImageJob = components['schemas']['ChatImageJob'];
type ImageJobView = components['schemas']['ImageJob'];

/** SPEC 4.2: polls of one chat image job within this window share one look at it. */
const POLL_COALESCE_MS = 2_000;

const DEFAULT_TITLE = 'New chat';

export interface ChatRoomDeps {
  store: ChatStore;
  catalog: ModelCatalog;
  chat: ChatService;
  imageJobs: ImageJobs;
  now: () => number;
}

/**
 * Chats with text and image messages (SPEC 4.2; their paths and shapes are ours). A text message is answered now, as
 * a chat completion over the chat's text history; an image message starts an image job and leaves a placeholder in
 * the history, which the job's poll rewrites with the image (charged when it was rendered) or marks failed
 * (nothing charged). Polls of one job within 2 seconds share one look at it, whoever sends them.
 */
export class ChatRooms {
  private readonly polls: Coalescer<ImageJobView>;

  constructor(private readonly deps: ChatRoomDeps) {
    this.polls = new Coalescer(POLL_COALESCE_MS, deps.now);
  }

  async create(principal: Principal, title: string | undefined): Promise<ChatRoom> {
    const chat: ChatRecord = {
      id: newId('chat'),
      accountId: principal.accountId,
      title: title ?? DEFAULT_TITLE,
      createdAtMs: this.deps.now(),
    };
    await orUnavailable(() => this.deps.store.createChat(chat), 'chat store');
    return roomOf(chat);
  }

  async list(principal: Principal, limit: number, offset: number): Promise<ChatRoom[]> {
    return (await orUnavailable(() => this.deps.store.listChats(principal.accountId, limit, offset), 'chat store')).map(
      roomOf,
    );
  }

  async read(principal: Principal, chatId: string): Promise<ChatRoom> {
    const chat = await this.owned(principal, chatId);
    const dialogues = await orUnavailable(() => this.deps.store.listDialogues(chat.id), 'chat store');
    return { ...roomOf(chat), dialogues: dialogues.map(dialogueOf) };
  }

  async message(
    principal: Principal,
    requestId: string,
    chatId: string,
    request: ChatMessageRequest,
    signal: CancelSignal,
    hooks: ChainHooks,
  ): Promise<ChatMessageReply> {
    const chat = await this.owned(principal, chatId);
    const entry = this.deps.catalog.find(request.model);
    return entry?.media_kind === 'image' && !entry.credit_metered
      ? this.imageMessage(principal, chat, request)
      : this.textMessage(principal, requestId, chat, request, signal, hooks);
  }

  /** SPEC 4.2: the job's state, the placeholder rewritten (or marked failed) once it is terminal. */
  async imageJob(principal: Principal, chatId: string, jobId: string): Promise<ChatImageJob> {
    const chat = await this.owned(principal, chatId);
    const placeholder = (await orUnavailable(() => this.deps.store.listDialogues(chat.id), 'chat store')).find(
      (d) => d.jobId === jobId && d.role === 'assistant',
    );
    if (placeholder === undefined) throw new ApiError('job_not_found');
    const job = await this.polls
      .get(`${principal.accountId}:${jobId}`, () => this.deps.imageJobs.get(principal, jobId))
      .catch(async (err: unknown) => {
        // The job's record is gone (nobody polled within its 15 minutes): the placeholder says so instead of pending forever.
        if (err instanceof ApiError && err.code === 'job_not_found')
          await this.resolve(chat.id, jobId, {
            type: 'image_failed',
            content: 'The image job expired before it was collected',
          });
        throw err;
      });
    const images = (job.images ?? []).map(({ url, mime_type }) => ({ url, mime_type }));
    if (job.status === 'completed' && images[0] !== undefined)
      await this.resolve(chat.id, jobId, { type: 'image', image: images[0] });
    if (job.status === 'failed')
      await this.resolve(chat.id, jobId, {
        type: 'image_failed',
        content: job.error ?? 'The image could not be made; nothing was charged',
      });
    return {
      job_id: job.job_id,
      chat_id: chat.id,
      dialogue_id: placeholder.id,
      status: job.status,
      model: job.model,
      ...(images[0] === undefined ? {} : { image: images[0], images }),
      ...(job.cost_usd === undefined ? {} : { cost_usd: job.cost_usd }),
      ...(job.balance_usd === undefined ? {} : { balance_usd: job.balance_usd }),
      ...(job.error === undefined ? {} : { error: job.error }),
      ...(job.error_code === undefined ? {} : { error_code: job.error_code }),
    };
  }

  private async imageMessage(
    principal: Principal,
    chat: ChatRecord,
    request: ChatMessageRequest,
  ): Promise<ChatMessageReply> {
    const job = await this.deps.imageJobs.start(principal, {
      model: request.model,
      prompt: request.content,
      response_format: 'url',
      ...(request.size === undefined ? {} : { size: request.size }),
      ...(request.n === undefined ? {} : { n: request.n }),
      ...(request.output_format === undefined ? {} : { output_format: request.output_format }),
    });
    const nowMs = this.deps.now();
    const placeholder: DialogueRecord = {
      id: newId('dlg'),
      chatId: chat.id,
      role: 'assistant',
      type: 'image_pending',
      content: null,
      model: job.model,
      jobId: job.job_id,
      image: null,
      createdAtMs: nowMs,
    };
    await orUnavailable(() => this.deps.store.addDialogues([said(chat, request, nowMs), placeholder]), 'chat store');
    return {
      chat_id: chat.id,
      type: 'image_pending',
      dialogue_id: placeholder.id,
      job_id: job.job_id,
      model: job.model,
      estimated_cost_usd: job.estimated_cost_usd,
    };
  }

  private async textMessage(
    principal: Principal,
    requestId: string,
    chat: ChatRecord,
    request: ChatMessageRequest,
    signal: CancelSignal,
    hooks: ChainHooks,
  ): Promise<ChatMessageReply> {
    const history = await orUnavailable(() => this.deps.store.listDialogues(chat.id), 'chat store');
    const messages = [
      ...history
        .filter((d) => d.type === 'text' && d.content !== null)
        .map((d) => ({ role: d.role, content: d.content! })),
      { role: 'user', content: request.content },
    ];
    const prepared = await this.deps.chat.prepare(
      principal,
      requestId,
      { model: request.model, messages, stream: false },
      false,
    );
    const { completion, charge } = await this.deps.chat.complete(prepared, signal, hooks);
    const content = replyText(completion);
    const nowMs = this.deps.now();
    const reply: DialogueRecord = {
      id: newId('dlg'),
      chatId: chat.id,
      role: 'assistant',
      type: 'text',
      content,
      model: prepared.entry.slug,
      jobId: null,
      image: null,
      createdAtMs: nowMs,
    };
    await orUnavailable(() => this.deps.store.addDialogues([said(chat, request, nowMs), reply]), 'chat store');
    return {
      chat_id: chat.id,
      type: 'text',
      dialogue_id: reply.id,
      content,
      model: prepared.entry.slug,
      cost_usd: microsToUsd(charge.costMicros),
    };
  }

  private async resolve(
    chatId: string,
    jobId: string,
    outcome: Parameters<ChatStore['resolvePlaceholder']>[2],
  ): Promise<void> {
    await orUnavailable(() => this.deps.store.resolvePlaceholder(chatId, jobId, outcome), 'chat store');
  }

  /** The caller's chat; another account's or an unknown one is 404 chat_not_found. */
  private async owned(principal: Principal, chatId: string): Promise<ChatRecord> {
    const chat = await orUnavailable(() => this.deps.store.getChat(chatId), 'chat store');
    if (chat === null || chat.accountId !== principal.accountId) throw new ApiError('chat_not_found');
    return chat;
  }
}

function said(chat: ChatRecord, request: ChatMessageRequest, nowMs: number): DialogueRecord {
  return {
    id: newId('dlg'),
    chatId: chat.id,
    role: 'user',
    type: 'text',
    content: request.content,
    model: request.model,
    jobId: null,
    image: null,
    createdAtMs: nowMs,
  };
}

/** The first choice's text of a chat completion. */
function replyText(completion: Record<string, unknown>): string {
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : {};
  return typeof message.content === 'string' ? message.content : '';
}

function roomOf(chat: ChatRecord): ChatRoom {
  return { chat_id: chat.id, title: chat.title, created_at: Math.floor(chat.createdAtMs / 1000) };
}

function dialogueOf(d: DialogueRecord): ChatDialogue {
  return {
    dialogue_id: d.id,
    role: d.role,
    type: d.type,
    content: d.content,
    model: d.model,
    job_id: d.jobId,
    image: d.image,
    created_at: Math.floor(d.createdAtMs / 1000),
  };
}
