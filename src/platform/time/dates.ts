// Calendar dates ("YYYY-MM-DD") as the API speaks them: today in UTC or in a
// time zone (a practice's), and date arithmetic. Instants and wall clocks of a
// zone are ./zoned.ts.

const DAY_MS = 86_400_000;

/** Days since 1970-01-01: two dates' difference is a number of days. */
export const epochDay = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;

/** `date` moved by `days` (negative: back). */
export const addDays = (date: string, days: number) => new Date((epochDay(date) + days) * DAY_MS).toISOString().slice(0, 10);

/** Today in UTC. */
export const todayUtc = (now = new Date()) => now.toISOString().slice(0, 10);

/** Today in a time zone (a location's); in UTC when there is none. */
export const todayIn = (timeZone: string | null | undefined): string => (timeZone ? Temporal.Now.plainDateISO(timeZone).toString() : todayUtc());
