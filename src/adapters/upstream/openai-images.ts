/**
 * An OpenAI-style images API as an image upstream (`POST {baseUrl}/images/generations`, SPEC 2.11): the model,
 * prompt, `n`, `size` as `WxH` and `quality`, answered with `b64_json` images (what gpt-image models always send;
 * an answer with links only is a bad answer here). Text to image only: a request
 * with references (edit mode) is refused before it is sent, so the chain moves on to a route that edits.
 */
import { isRecord } from '../../lib/is-record.js';
import { type ImageCall, type ImageResult, UpstreamError, type UpstreamProvider } from './index.js';
import { JsonEndpoint, type JsonEndpointOptions } from './json-endpoint.js';

export type OpenAiImagesOptions = Omit<JsonEndpointOptions, 'path'>;

/** `quality` as the gpt-image models take it (SPEC 2.11 accepts DALL·E's `standard` and `hd` too). */
const VENDOR_QUALITY: Record<string, string> = {
  auto: 'auto',
  low: 'low',
  medium: 'medium',
  high: 'high',
  standard: 'medium',
  hd: 'high',
};

export class OpenAiImagesProvider implements UpstreamProvider {
  readonly name: string;
  readonly streams = false;
  readonly #endpoint: JsonEndpoint;

  constructor(options: OpenAiImagesOptions) {
    this.name = options.name;
    this.#endpoint = new JsonEndpoint({ ...options, path: '/images/generations' });
  }

  async image(call: ImageCall): Promise<ImageResult> {
    if (call.references.length > 0)
      throw new UpstreamError({ kind: 'http', status: 503, message: `${this.name} renders from text only, not edits` });
    const quality = call.quality === undefined ? undefined : VENDOR_QUALITY[call.quality];
    const body = {
      model: call.upstreamModel,
      prompt: call.prompt,
      n: call.n,
      size: `${call.width}x${call.height}`,
      ...(quality === undefined ? {} : { quality }),
    };
    const json = await this.#endpoint.post(body, call);
    const data = isRecord(json) && Array.isArray(json.data) ? json.data : null;
    const images = data?.map((item: unknown) =>
      isRecord(item) && typeof item.b64_json === 'string' ? item.b64_json : null,
    );
    if (images === undefined || images.length === 0 || images.some((b64) => b64 === null)) {
      throw new UpstreamError({ kind: 'bad_response', message: `${this.name}: the answer has no b64_json images` });
    }
    return { images: images.map((b64) => ({ bytes: Buffer.from(b64!, 'base64'), mimeType: 'image/png' })) };
  }

  close(): Promise<void> {
    return this.#endpoint.close();
  }
}
