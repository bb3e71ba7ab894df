/** The headers a replay carries through Prism (replay.ts) and back (global-setup.ts's router). */

/** The port of the worker's replay server that holds the recorded response. */
export const REPLAY_PORT_HEADER = 'x-contract-live-port';
/** Which recorded response; the replay server echoes it, so an answer without it is Prism's own. */
export const REPLAY_ID_HEADER = 'x-contract-live-id';
