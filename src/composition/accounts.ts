import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Mailer } from '../adapters/mailer/index.js';
import type { RateLimiter } from '../adapters/rate-limiter/index.js';
import { SqlServerSecrets } from '../adapters/server-secrets/sql.js';
import type { Config } from '../config.js';
import type { Database } from '../db/connect.js';
import type { AuthContext } from '../domain/accounts/auth-context.js';
import { AuthMail } from '../domain/accounts/auth-mail.js';
import { AuthThrottle } from '../domain/accounts/auth-throttle.js';
import { PasswordHasher } from '../domain/accounts/password-hasher.js';
import { SignedLinks } from '../domain/accounts/signed-links.js';
import type { buildKeys } from './keys.js';
import { buildMailer } from './mail.js';

const LINK_SECRET_NAME = 'account_links';

/**
 * The account side (issue 26, DESIGN.md 10): signed links under ACCOUNT_LINK_SECRET, or a key the database keeps
 * when none is set (so a restart and a fleet agree); passwords at PASSWORD_SCRYPT_LOG2N; mail through the mailer;
 * attempts counted on the rate limiter, shared by every process when it is Redis. The mailer is answered too, for
 * the shutdown to let its sends finish.
 */
export async function buildAccountAuth(input: {
  db: Database;
  config: Config;
  now: () => number;
  logger: Logger;
  keys: ReturnType<typeof buildKeys>;
  rateLimiter: RateLimiter;
}): Promise<{ auth: AuthContext; mailer: Mailer }> {
  const { db, config, now, logger } = input;
  const secret =
    config.ACCOUNT_LINK_SECRET ??
    (await new SqlServerSecrets(db).getOrCreate(LINK_SECRET_NAME, () => randomBytes(32).toString('base64url'), now()));
  const publicBaseUrl = config.PUBLIC_BASE_URL ?? `http://${config.HOST}:${config.PORT}`;
  const mailer = await buildMailer(config, logger);
  const auth: AuthContext = {
    apiKeys: input.keys.apiKeys,
    credentials: input.keys.credentials,
    links: new SignedLinks(Buffer.from(secret), publicBaseUrl),
    mail: new AuthMail(mailer, logger),
    throttle: new AuthThrottle(input.rateLimiter, now),
    unknownTokens: input.keys.failures,
    passwords: new PasswordHasher({ N: 2 ** config.PASSWORD_SCRYPT_LOG2N, r: 8, p: 1 }),
    now,
  };
  return { auth, mailer };
}
