import { isRecord } from '../../lib/is-record.js';
import { UpstreamError } from './index.js';

/**
 * One scored document from a rerank upstream: `{index, <scoreField>}` with the index inside the documents
 * sent and a finite score; anything else is a `bad_response` (the answer cannot be trusted).
 */
export function scoredDocument(
  item: unknown,
  documentCount: number,
  scoreField: string,
  vendor: string,
): { index: number; relevanceScore: number } {
  const index = isRecord(item) ? item.index : undefined;
  const score = isRecord(item) ? item[scoreField] : undefined;
  if (
    typeof index !== 'number' ||
    !Number.isInteger(index) ||
    index < 0 ||
    index >= documentCount ||
    typeof score !== 'number' ||
    !Number.isFinite(score)
  ) {
    throw new UpstreamError({
      kind: 'bad_response',
      message: `${vendor} rerank result is not {index, ${scoreField}} within the documents: ${JSON.stringify(item)}`,
    });
  }
  return { index, relevanceScore: score };
}
