import type { components } from '../../../generated/openapi.js';
import type { Usage } from '../../adapters/upstream/index.js';
import { copyWith } from '../../lib/copy-with.js';
import { isRecord } from '../../lib/is-record.js';
import {
  finishedResponse,
  functionCallItem,
  messageItem,
  outputText,
  type ResponseFrame,
  responseInProgress,
  responseStatus,
} from './responses-mapping.js';

type StreamEvent = components['schemas']['ResponsesStreamEvent'];
type StreamError = components['schemas']['StreamError'];
type OutputItem = components['schemas']['ResponsesOutputItem'];
/** An event before it is numbered (each union member without its `sequence_number`). */
type Unnumbered = StreamEvent extends infer E ? (E extends unknown ? Omit<E, 'sequence_number'> : never) : never;

interface MessageItem {
  kind: 'message';
  outputIndex: number;
  text: string;
}

/** A tool call as its pieces arrive (by its chat `index`); its item opens once its name is known. */
interface CallPieces {
  callId: string | undefined;
  name: string | undefined;
  arguments: string;
  item: CallItem | null;
}

/** The n-th function call's item (0-based among calls). */
interface CallItem {
  kind: 'call';
  outputIndex: number;
  n: number;
  name: string;
  pieces: CallPieces;
}

interface ToolCallDelta {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

/**
 * SPEC 4.2 Responses streaming over a chat stream: chat chunks in, OpenAI's typed Responses events out (the
 * contract's `ResponsesStreamEvent` gives the order). Items open as their first text or named tool call arrives
 * and close together at the end, so an upstream that interleaves parallel calls is still told apart; the final
 * `response.completed` lists them in the order they were opened, with the ids the events used.
 */
export class ResponsesStream {
  #sequence = 0;
  readonly #items: (MessageItem | CallItem)[] = [];
  #message: MessageItem | null = null;
  /** Tool calls by their chat `index`. */
  readonly #calls = new Map<number, CallPieces>();
  #finishReason: unknown = null;

  constructor(private readonly frame: ResponseFrame) {}

  /** `response.created` and `response.in_progress`, sent when the stream opens. */
  start(): StreamEvent[] {
    const response = responseInProgress(this.frame);
    return [
      this.#number({ type: 'response.created', response }),
      this.#number({ type: 'response.in_progress', response }),
    ];
  }

  /** The events one chat chunk (an SSE data payload) stands for; anything else in it is not forwarded. */
  chunk(data: string): StreamEvent[] {
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return [];
    }
    const choice = isRecord(chunk) && Array.isArray(chunk.choices) ? (chunk.choices[0] as unknown) : undefined;
    if (!isRecord(choice)) return [];
    const events: Unnumbered[] = [];
    const delta = isRecord(choice.delta) ? choice.delta : {};
    if (typeof delta.content === 'string' && delta.content.length > 0) events.push(...this.#text(delta.content));
    if (Array.isArray(delta.tool_calls))
      for (const call of delta.tool_calls.filter(isRecord)) events.push(...this.#toolCall(call as ToolCallDelta));
    if (typeof choice.finish_reason === 'string') this.#finishReason = choice.finish_reason;
    return events.map((event) => this.#number(event));
  }

  /** The normal end: every item closed, then `response.completed` (or `.incomplete`) with usage and cost. */
  finish(usage: Usage, costMicros: bigint): StreamEvent[] {
    const events: Unnumbered[] = [];
    if (this.#items.length === 0) this.#openMessage(events); // an answer with nothing in it is still one empty message
    const status = responseStatus(this.#finishReason);
    const output: OutputItem[] = [];
    for (const item of this.#items) {
      const done = this.#close(item, status, events);
      output.push(done);
      events.push({ type: 'response.output_item.done', output_index: item.outputIndex, item: done });
    }
    const text = this.#message?.text ?? '';
    const response = finishedResponse(this.frame, { output, text, status, usage, costMicros });
    events.push({ type: status === 'incomplete' ? 'response.incomplete' : 'response.completed', response });
    return events.map((event) => this.#number(event));
  }

  /** The failed end (SPEC 6.2's codes): OpenAI's `error` event, with the error object the SDKs raise on. */
  fail(error: StreamError): StreamEvent {
    return this.#number({ type: 'error', code: error.code, message: error.message, param: null, error });
  }

  #text(piece: string): Unnumbered[] {
    const events: Unnumbered[] = [];
    const message = this.#message ?? this.#openMessage(events);
    message.text += piece;
    events.push({
      type: 'response.output_text.delta',
      item_id: this.frame.ids.message,
      output_index: message.outputIndex,
      content_index: 0,
      delta: piece,
      logprobs: [],
    });
    return events;
  }

  #openMessage(events: Unnumbered[]): MessageItem {
    const message: MessageItem = { kind: 'message', outputIndex: this.#items.length, text: '' };
    this.#message = message;
    this.#items.push(message);
    events.push({
      type: 'response.output_item.added',
      output_index: message.outputIndex,
      item: messageItem(this.frame.ids, '', 'in_progress'),
    });
    events.push({
      type: 'response.content_part.added',
      item_id: this.frame.ids.message,
      output_index: message.outputIndex,
      content_index: 0,
      part: outputText(''),
    });
    return message;
  }

  /** A piece of a tool call; argument pieces that come before its name are sent when its item opens. */
  #toolCall(delta: ToolCallDelta): Unnumbered[] {
    const index = typeof delta.index === 'number' ? delta.index : 0;
    const pieces = this.#calls.get(index) ?? { callId: undefined, name: undefined, arguments: '', item: null };
    this.#calls.set(index, pieces);
    if (typeof delta.id === 'string') pieces.callId ??= delta.id;
    const fn = isRecord(delta.function) ? delta.function : {};
    if (typeof fn.name === 'string' && fn.name.length > 0) pieces.name ??= fn.name;
    const piece = typeof fn.arguments === 'string' ? fn.arguments : '';
    pieces.arguments += piece;
    if (pieces.item !== null) return piece.length > 0 ? [this.#argumentsDelta(pieces.item, piece)] : [];
    if (pieces.name === undefined) return [];
    const item: CallItem = {
      kind: 'call',
      outputIndex: this.#items.length,
      n: this.#items.filter((open) => open.kind === 'call').length,
      name: pieces.name,
      pieces,
    };
    pieces.item = item;
    this.#items.push(item);
    const events: Unnumbered[] = [
      {
        type: 'response.output_item.added',
        output_index: item.outputIndex,
        item: this.#callItem(item, '', 'in_progress'),
      },
    ];
    if (pieces.arguments.length > 0) events.push(this.#argumentsDelta(item, pieces.arguments));
    return events;
  }

  #callItem(item: CallItem, args: string, status: 'in_progress' | 'completed'): OutputItem {
    return functionCallItem(
      this.frame.ids,
      item.n,
      { callId: item.pieces.callId, name: item.name, arguments: args },
      status,
    );
  }

  #argumentsDelta(item: CallItem, piece: string): Unnumbered {
    return {
      type: 'response.function_call_arguments.delta',
      item_id: this.frame.ids.functionCall(item.n).id,
      output_index: item.outputIndex,
      delta: piece,
    };
  }

  /** The events that finish one item's content, and the item as it ends. */
  #close(item: MessageItem | CallItem, status: 'completed' | 'incomplete', events: Unnumbered[]): OutputItem {
    if (item.kind === 'message') {
      const common = { item_id: this.frame.ids.message, output_index: item.outputIndex, content_index: 0 };
      events.push({ type: 'response.output_text.done', ...common, text: item.text, logprobs: [] });
      events.push({ type: 'response.content_part.done', ...common, part: outputText(item.text) });
      return messageItem(this.frame.ids, item.text, status);
    }
    const args = item.pieces.arguments;
    events.push({
      type: 'response.function_call_arguments.done',
      item_id: this.frame.ids.functionCall(item.n).id,
      output_index: item.outputIndex,
      name: item.name,
      arguments: args,
    });
    return this.#callItem(item, args, 'completed');
  }

  #number(event: Unnumbered): StreamEvent {
    return copyWith(event, { sequence_number: this.#sequence++ }) as StreamEvent;
  }
}
