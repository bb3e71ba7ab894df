/**
 * `contract:live` (global-setup.ts): a setup file of the contract project. Prism's findings on the responses a test
 * received fail that test; those on responses that finished after their test (a stream ended by the suite's
 * teardown) fail the file.
 */
import { afterAll, afterEach } from 'vitest';
import { closeReplayServer, takeFindings } from './replay.js';

async function failOnFindings(): Promise<void> {
  const findings = await takeFindings();
  if (findings.length > 0) {
    throw new Error(`Prism found responses that break the contract:\n${findings.map((f) => `- ${f}`).join('\n')}`);
  }
}

afterEach(failOnFindings);

afterAll(async () => {
  try {
    await failOnFindings();
  } finally {
    await closeReplayServer();
  }
});
