import pino from "pino";

// Structured JSON logs on stdout. Never log bodies, query strings or tokens:
// they can carry health data or credentials.
export function createLogger(level: string) {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } });
}
export type Logger = ReturnType<typeof createLogger>;
