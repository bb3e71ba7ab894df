import type { Logger } from 'pino';
import type { Mailer, MailMessage } from '../../adapters/mailer/index.js';

/**
 * The mails of the account side (issue 26 items 1, 5 and 7), each sent in the background: the request that causes
 * one answers without waiting for the mail server, so neither its time nor its failure tells the caller whether the
 * address is registered. A send that fails is logged (the person can ask again); it never fails the request.
 */
export class AuthMail {
  constructor(
    private readonly mailer: Mailer,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  confirmAddress(to: string, url: string): void {
    this.send({
      to,
      subject: 'Confirm your email address',
      text: `Welcome to compute-gateway.\n\nConfirm this address to finish signing up:\n${url}\n\nThe link works once, for 24 hours. If you did not sign up, ignore this mail.\n`,
    });
  }

  /** Someone signed up with an address that has an account: its owner hears of it, with a way back in. */
  alreadyRegistered(to: string, resetUrl: string): void {
    this.send({
      to,
      subject: 'You already have an account',
      text: `Someone (maybe you) tried to sign up with this address, which already has a compute-gateway account.\n\nSign in as usual, or set a new password here (the link works once, for one hour):\n${resetUrl}\n\nIf it was not you, ignore this mail: nothing changed.\n`,
    });
  }

  resetPassword(to: string, url: string): void {
    this.send({
      to,
      subject: 'Set a new password',
      text: `Set a new password for your compute-gateway account:\n${url}\n\nThe link works once, for one hour; using it signs out every session. If you did not ask for it, ignore this mail: nothing changed.\n`,
    });
  }

  confirmNewAddress(to: string, url: string): void {
    this.send({
      to,
      subject: 'Confirm your new email address',
      text: `Confirm this address to make it your compute-gateway account's:\n${url}\n\nThe link works once, for 24 hours. Until then the old address stays. If you did not ask for this, ignore this mail.\n`,
    });
  }

  /** An account asked to move to an address another account holds; the holder is told, the asker is not. */
  addressInUse(to: string): void {
    this.send({
      to,
      subject: 'Someone tried to use your address',
      text: 'Another compute-gateway account asked to change its email address to this one, which is yours. Nothing changed.\n',
    });
  }

  addressChanged(to: string, newAddress: string): void {
    this.send({
      to,
      subject: 'Your email address was changed',
      text: `Your compute-gateway account now uses ${newAddress}; this address no longer signs in. If you did not do this, reply to this mail at once.\n`,
    });
  }

  /** Every address added to the withdrawal book is told to the account's owner, while it still cools. */
  withdrawalAddressAdded(to: string, address: string, usableFromIso: string): void {
    this.send({
      to,
      subject: 'A withdrawal address was added',
      text: `The TRON address ${address} was added to your compute-gateway withdrawal address book. Withdrawals to it open at ${usableFromIso}.\n\nIf you did not do this, sign in, remove it, change your password and sign out every session now.\n`,
    });
  }

  passwordChanged(to: string): void {
    this.send({
      to,
      subject: 'Your password was changed',
      text: 'The password of your compute-gateway account was changed and its other sessions were signed out. If you did not do this, reset your password at once.\n',
    });
  }

  /** Not awaited: the mailer's close() lets a send under way finish at shutdown. */
  private send(message: MailMessage): void {
    this.mailer
      .send(message)
      .catch((err: unknown) => this.logger.warn({ err, subject: message.subject }, 'account mail not sent'));
  }
}
