/**
 * The addresses YooKassa sends notifications from (yookassa.ru/developers/using-api/webhooks, "IP authentication";
 * research/payments.md 3). Checking them is optional: the re-fetch of the named object is what proves a
 * notification (issue 27). The check only spares the API calls a stranger's posts would otherwise cost, so a
 * flood of forged notifications cannot spend the shop's request quota. The yookassa adapter checks them with
 * lib/address-ranges.ts.
 */

/** As published; the official Python SDK lists narrower IPv6 /64s, so an operator may configure those instead. */
export const YOOKASSA_SENDER_RANGES: readonly string[] = [
  '185.71.76.0/27',
  '185.71.77.0/27',
  '77.75.153.0/25',
  '77.75.154.128/25',
  '77.75.156.11',
  '77.75.156.35',
  '2a02:5180::/32',
];
