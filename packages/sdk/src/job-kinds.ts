/**
 * The job families of the contract, each as the pair of operations that start one and read it back, so a caller
 * can say `runJob('image', body)` and get the finished record (SPEC 2.6 media, 7.5 chat jobs, 2.9 restoration).
 */
import type { Client } from './generated/client/index.js';
import * as op from './generated/sdk.gen.js';
import type * as t from './generated/types.gen.js';

interface Kind<Body, Job> {
  start: (client: Client, body: Body) => Promise<Job>;
  read: (client: Client, jobId: string, signal?: AbortSignal) => Promise<Job>;
}

const kind = <Body, Job>(
  start: (o: { client: Client; body: Body; throwOnError: true }) => Promise<{ data: { data: Job } }>,
  read: (o: { client: Client; path: { job_id: string }; throwOnError: true; signal?: AbortSignal }) => Promise<{
    data: { data: Job };
  }>,
): Kind<Body, Job> => ({
  start: async (client, body) => (await start({ client, body, throwOnError: true })).data.data,
  read: async (client, jobId, signal) =>
    (await read({ client, path: { job_id: jobId }, throwOnError: true, ...(signal ? { signal } : {}) })).data.data,
});

/** What each kind of job takes and answers. */
export interface JobTypes {
  image: { body: t.ImageRequest; job: t.ImageJob };
  video: { body: t.VideoRequest; job: t.MediaJob };
  music: { body: t.MusicRequest; job: t.MediaJob };
  speech: { body: t.SpeechRequest; job: t.MediaJob };
  restoreImage: { body: t.TopazImageRequest; job: t.MediaJob };
  restoreVideo: { body: t.TopazVideoRequest; job: t.MediaJob };
  chat: { body: t.ChatRequest; job: t.ChatJob };
}
export type JobKind = keyof JobTypes;

export const jobKinds: { [K in JobKind]: Kind<JobTypes[K]['body'], JobTypes[K]['job']> } = {
  image: kind(op.createImageJob, op.getImageJob),
  video: kind(op.createVideoJob, op.getVideoJob),
  music: kind(op.createMusicJob, op.getMusicJob),
  speech: kind(op.createAudioJob, op.getAudioJob),
  restoreImage: kind(op.createTopazImageJob, op.getTopazImageJob),
  restoreVideo: kind(op.createTopazVideoJob, op.getTopazVideoJob),
  chat: kind(op.createChatJob, op.getChatJob),
};
