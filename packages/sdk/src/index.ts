/**
 * @compute-gateway/sdk: the client generated from the compute-gateway contract plus a thin layer (README.md).
 * Every operation of the contract is exported by its operationId, with its request and response types.
 */

export { GatewayError, JobFailedError } from './errors.js';
export { ComputeGateway, defaultBaseUrl, type GatewayOptions } from './gateway.js';
export * from './generated/index.js';
export type { JobKind, JobTypes } from './job-kinds.js';
export { type JobRecord, type WaitOptions, waitForJob } from './jobs.js';
export type { RetryPolicy } from './retrying-fetch.js';
export { resumeSession, type SessionOptions, startSession } from './session.js';
export { iterateFrames, type StreamFrame } from './sse.js';
export type { ChatCompletionChunk, StreamOptions } from './streams.js';
