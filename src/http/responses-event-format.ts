import type { ResponseFrame } from '../domain/chat/responses-mapping.js';
import { ResponsesStream } from '../domain/chat/responses-stream.js';
import type { StreamFormat, StreamFormatFactory } from './chat-stream.js';

/** Responses events (SPEC 4.2, the contract's `ResponsesStreamEvent`): each as `event: <type>` + `data: <json>`. */
export function responsesEventFormat(frame: ResponseFrame): StreamFormatFactory {
  return (writer): StreamFormat => {
    const stream = new ResponsesStream(frame);
    const send = (events: { type: string }[]): void => {
      for (const event of events) writer.event(event.type, JSON.stringify(event));
    };
    return {
      open: () => send(stream.start()),
      chunk: (event) => send(stream.chunk(event.data)),
      end: (usage, costMicros) => send(stream.finish(usage, costMicros)),
      fail: (error) => send([stream.fail(error)]),
    };
  };
}
