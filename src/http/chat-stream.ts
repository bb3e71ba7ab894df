import type { Response } from 'express';
import type { StreamFrames, StreamSession } from '../domain/chat/stream-session.js';
import { SseWriter } from './sse-writer.js';

/**
 * How a stream looks on the wire: chat chunks forwarded (SPEC 6.2) or Responses events (SPEC 4.2). The stream
 * session decides what happens; a format only writes it, and the writer adds the terminator.
 */
export type StreamFormat = Omit<StreamFrames, 'close'>;

/** A format writes through the stream's writer. */
export type StreamFormatFactory = (writer: SseWriter) => StreamFormat;

/**
 * Serves a streamed chat as Server-Sent Events: the session (domain) walks the routes, holds, settles or
 * releases, and says which frames go out; this only writes them (DESIGN.md 2: http writes bytes).
 */
export function serveStream(res: Response, session: StreamSession, formatFor: StreamFormatFactory): Promise<void> {
  const writer = new SseWriter(res);
  const format = formatFor(writer);
  return session.serve({
    open: () => {
      writer.open();
      format.open();
    },
    chunk: (event, info) => format.chunk(event, info),
    end: (usage, costMicros) => format.end(usage, costMicros),
    fail: (error) => format.fail(error),
    close: () => writer.done(),
  });
}
