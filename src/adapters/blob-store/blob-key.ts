/**
 * Keys are chosen by the gateway (`jobs/<job id>/<n>.<ext>`), never by a client, but each store still refuses
 * anything that could leave its root: segments of letters, digits, `.`, `_` and `-`, none of them `.` or `..`.
 */
export function checkBlobKey(key: string): string {
  const segments = key.split('/');
  if (key.length > 512 || segments.some((s) => !/^[\w.-]+$/.test(s) || s === '.' || s === '..'))
    throw new Error(`blob key refused: ${JSON.stringify(key)}`);
  return key;
}
