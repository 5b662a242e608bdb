/** A clock (ms since epoch) that stands still until a test moves it: `now` for a store's options. */
export function manualClock(start = Date.now()) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}
export type ManualClock = ReturnType<typeof manualClock>;
