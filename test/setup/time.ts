/** Waiting in tests: for background work the test cannot await, or for two writes to get distinct timestamps. */

/** Resolves after `ms` milliseconds (the global timer, so a test's fake timers apply to it too). */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
