import { describe, expect, test } from "bun:test";
import { dayBoundsUtc, dayHours, toZoned, utcIso, wallClockOf } from "@/platform/time/zoned";
import { ValidationFailed } from "@/platform/errors";

describe("wall clock and UTC across DST", () => {
  test("America/New_York: spring-forward gap is refused, fall-back hour means its first occurrence", () => {
    expect(utcIso(toZoned("2026-03-08T01:30:00", "America/New_York", ["body", "x"]))).toBe("2026-03-08T06:30:00.000Z");
    expect(() => toZoned("2026-03-08T02:30:00", "America/New_York", ["body", "x"])).toThrow(ValidationFailed);
    expect(utcIso(toZoned("2026-03-08T03:30:00", "America/New_York", ["body", "x"]))).toBe("2026-03-08T07:30:00.000Z");
    expect(utcIso(toZoned("2026-11-01T01:30:00", "America/New_York", ["body", "x"]))).toBe("2026-11-01T05:30:00.000Z");
    expect(utcIso(toZoned("2026-11-01T02:30:00", "America/New_York", ["body", "x"]))).toBe("2026-11-01T07:30:00.000Z");
  });

  test("Europe/London both transition days", () => {
    expect(() => toZoned("2026-03-29T01:30:00", "Europe/London", ["body", "x"])).toThrow(ValidationFailed);
    expect(utcIso(toZoned("2026-03-29T02:30:00", "Europe/London", ["body", "x"]))).toBe("2026-03-29T01:30:00.000Z");
    expect(utcIso(toZoned("2026-10-25T01:30:00", "Europe/London", ["body", "x"]))).toBe("2026-10-25T00:30:00.000Z");
  });

  test("a value with an offset is converted into the zone", () => {
    const z = toZoned("2026-07-01T14:00:00Z", "America/Chicago", ["body", "x"]);
    expect(z.toPlainDateTime().toString()).toBe("2026-07-01T09:00:00");
    expect(wallClockOf("2026-07-01T14:00:00.000Z", "America/Chicago")).toBe("2026-07-01T09:00:00");
    expect(wallClockOf(utcIso(toZoned("2026-07-01T10:00:00+02:00", "Europe/London", ["b"])), "Europe/London")).toBe("2026-07-01T09:00:00");
  });

  test("malformed values are 422 format errors", () => {
    for (const v of ["tomorrow", "2026-13-01T10:00:00", "2026-03-08 10:00"]) {
      try {
        toZoned(v, "UTC", ["body", "scheduled_start"]);
        throw new Error("accepted");
      } catch (err) {
        expect(err).toBeInstanceOf(ValidationFailed);
        expect((err as ValidationFailed).issues[0]!.loc).toEqual(["body", "scheduled_start"]);
      }
    }
  });

  test("day length: 23, 25 or 24 hours", () => {
    expect(dayHours("2026-03-08", "America/New_York")).toBe(23);
    expect(dayHours("2026-11-01", "America/New_York")).toBe(25);
    expect(dayHours("2026-03-29", "Europe/London")).toBe(23);
    expect(dayHours("2026-10-25", "Europe/London")).toBe(25);
    expect(dayHours("2026-06-01", "Europe/London")).toBe(24);
    expect(dayBoundsUtc("2026-03-08", "America/New_York")).toEqual({ start: "2026-03-08T05:00:00.000Z", end: "2026-03-09T04:00:00.000Z" });
  });
});
