import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "@tests/helpers";
import { centsFromNumber, formatCents, hasAtMostTwoDecimals } from "@/platform/money";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe("probes", () => {
  test("ping answers 200 without credentials", async () => {
    const r = await t.request("GET", "/api/ping");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: "ok" });
  });

  test("health checks database, cache store, storage and schema_version", async () => {
    const r = await t.request("GET", "/api/health");
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("ok");
    expect(r.body.failing).toEqual([]);
    expect(r.body.checks.map((c: { name: string }) => c.name)).toEqual(["database", "cache_store", "storage", "schema_version"]);
    expect(r.body.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
  });

  test("503 names the failing check", async () => {
    const original = t.rt.storage.ping;
    t.rt.storage.ping = async () => {
      throw new Error("disk unavailable");
    };
    try {
      const r = await t.request("GET", "/api/health");
      expect(r.status).toBe(503);
      expect(r.body.status).toBe("fail");
      expect(r.body.failing).toEqual(["storage"]);
      expect(r.body.checks.find((c: { name: string }) => c.name === "storage")).toEqual({ name: "storage", ok: false, detail: "disk unavailable" });
    } finally {
      t.rt.storage.ping = original;
    }
  });

  test("503 when the control database schema is behind the code", async () => {
    const original = t.rt.control.schemaVersion.bind(t.rt.control);
    (t.rt.control as { schemaVersion: () => number }).schemaVersion = () => 0;
    try {
      const r = await t.request("GET", "/api/health");
      expect(r.status).toBe(503);
      expect(r.body.failing).toEqual(["schema_version"]);
    } finally {
      (t.rt.control as { schemaVersion: () => unknown }).schemaVersion = original;
    }
  });
});

describe("money", () => {
  test("numbers become integer cents without float drift", () => {
    expect(centsFromNumber(0.1 + 0.2)).toBe(30);
    expect(centsFromNumber(125)).toBe(12500);
    expect(centsFromNumber(19.99)).toBe(1999);
    expect(centsFromNumber(1.005)).toBe(101);
    expect(centsFromNumber(-42.5)).toBe(-4250);
    expect(() => centsFromNumber(Number.NaN)).toThrow();
  });

  test("cents render as two-decimal strings", () => {
    expect(formatCents(12500)).toBe("125.00");
    expect(formatCents(5)).toBe("0.05");
    expect(formatCents(-1999)).toBe("-19.99");
    expect(formatCents(0)).toBe("0.00");
    expect(formatCents(null)).toBeNull();
  });

  test("at most two decimals", () => {
    expect(hasAtMostTwoDecimals(12.5)).toBe(true);
    expect(hasAtMostTwoDecimals(12.55)).toBe(true);
    expect(hasAtMostTwoDecimals(12.555)).toBe(false);
  });
});
