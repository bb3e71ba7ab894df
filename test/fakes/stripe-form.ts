/**
 * Stripe's request encoding as the official client writes it (`stripe/cjs/utils.js` stringifyRequestData): form
 * fields with bracketed paths, arrays by index (`line_items[0][price_data][unit_amount]=500`,
 * `expand[0]=payment_intent`), in a POST body or a GET query string. Values stay strings, as on the wire.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };

export function decodeForm(encoded: string): Record<string, FormValue> {
  const root: Record<string, FormValue> = {};
  for (const [key, value] of new URLSearchParams(encoded)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: Record<string, FormValue> | FormValue[] = root;
    path.forEach((segment, i) => {
      const slot = node as Record<string, FormValue>;
      if (i === path.length - 1) {
        slot[segment] = value;
        return;
      }
      slot[segment] ??= /^\d+$/.test(path[i + 1]!) ? [] : {};
      node = slot[segment] as Record<string, FormValue>;
    });
  }
  return root;
}

/** A field read as a string, or undefined when absent or not a plain value. */
export function formString(form: Record<string, FormValue>, ...path: (string | number)[]): string | undefined {
  let node: FormValue | undefined = form;
  for (const segment of path) {
    if (node === undefined || typeof node === 'string') return undefined;
    node = (node as Record<string, FormValue>)[segment];
  }
  return typeof node === 'string' ? node : undefined;
}

/** The values of an indexed array field (`expand[0]`, `expand[1]`). */
export function formList(form: Record<string, FormValue>, key: string): string[] {
  const value = form[key];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
