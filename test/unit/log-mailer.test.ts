import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LogMailer } from '../../src/adapters/mailer/log.js';
import { linksIn } from '../../src/lib/links.js';

const LINK = `https://gateway.example.com/v1/auth/confirm?token=${'x'.repeat(120)}&next=%2Fdashboard`;

describe('LogMailer: the embedded default writes each message to the log', () => {
  it('one info line with the recipient, subject, text and the links apart, exactly as sent', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const mailer = new LogMailer(logger, 'compute-gateway <no-reply@localhost>');
    const text = `Confirm your address: ${LINK}.\nOr ignore this mail.`;
    const id = await mailer.send({ to: 'new@example.com', subject: 'Confirm', text, html: '<p>html</p>' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'mail (no SMTP_URL: logged, not sent)',
      mail_id: id,
      from: 'compute-gateway <no-reply@localhost>',
      to: 'new@example.com',
      subject: 'Confirm',
      links: [LINK],
      text,
    });
    expect(JSON.stringify(lines[0])).not.toContain('<p>html</p>');
    await mailer.close();
  });
});

describe('linksIn', () => {
  it('finds http(s) links in order, without the sentence punctuation after them', () => {
    expect(linksIn('See https://a.example/x?y=1&z=2, then (http://b.example/p). Done: https://c.example/')).toEqual([
      'https://a.example/x?y=1&z=2',
      'http://b.example/p',
      'https://c.example/',
    ]);
    expect(linksIn('no links, just ftp://x and mailto:a@b')).toEqual([]);
  });
});
