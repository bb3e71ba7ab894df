import type { Response } from 'express';

/** Writes Server-Sent Events (SPEC 6.2): `data: <payload>` frames and the `data: [DONE]` terminator. */
export class SseWriter {
  constructor(private readonly res: Response) {}

  /** Sends the 200 and the event-stream headers; headers set earlier (request id, rate limits) go with them. */
  open(): void {
    this.res.status(200);
    this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('Cache-Control', 'no-cache');
    this.res.setHeader('Connection', 'keep-alive');
    this.res.setHeader('X-Accel-Buffering', 'no'); // proxies must not buffer a stream
    this.res.flushHeaders();
  }

  /** The payload exactly as given: forwarded upstream frames stay byte-identical. */
  data(payload: string): void {
    if (!this.res.writableEnded) this.res.write(`data: ${payload}\n\n`);
  }

  /** A named event (the Responses stream's typed events). */
  event(type: string, payload: string): void {
    if (!this.res.writableEnded) this.res.write(`event: ${type}\ndata: ${payload}\n\n`);
  }

  /** The terminator every stream ends with, whatever happened before it (SPEC 3.4). */
  done(): void {
    if (this.res.writableEnded) return;
    this.res.write('data: [DONE]\n\n');
    this.res.end();
  }
}
