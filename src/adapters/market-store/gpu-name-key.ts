/**
 * What a GPU model name is matched by wherever a caller names one (offer filters, burst tiers): `rtx_4090`,
 * `RTX 4090`, `rtx-4090` and `RTX4090` all mean RTX_4090, since users type names as they read them (issue 24).
 * Registered names are underscore style (the contract's gpu_name pattern), so removing separators and case is all
 * it takes; stores compute the same key of the stored name (`upper`, `_` removed).
 */
export function gpuNameKey(name: string): string {
  return name.toUpperCase().replace(/[\s_-]+/g, '');
}
