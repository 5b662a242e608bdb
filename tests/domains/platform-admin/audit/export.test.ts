import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditIndex } from "@db/control/schema";
import { run } from "@/platform/db/work";
import { newId } from "@/platform/ids";
import { csvCell } from "@/platform/http/csv";
import { exportAuditCsv } from "@/domains/platform-admin/audit/service";
import { EXPORT_COLUMNS } from "@/domains/platform-admin/audit/schemas";
import { createPlatformUser, startTestApp, type TestApp } from "@tests/helpers";

const BASE = "/api/v1/platform/audit";
let t: TestApp;
let token: string;

/** RFC 4180 parser for the assertions (quoted fields, doubled quotes, CRLF records). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += c;
  }
  if (cell !== "" || row.length) throw new Error("CSV does not end with CRLF");
  return rows;
}

const exportCsv = (qs = "", tok = token) => t.request("GET", `${BASE}/export${qs}`, { token: tok });
const records = (text: string) => {
  const [header, ...rows] = parseCsv(text);
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]])));
};

const NASTY_ORG = '=HYPERLINK("http://evil.example","click"), "quoted"\nsecond line';
let nastyOrg: { id: string };
let plainOrg: { id: string; name: string };
let formulaActor: { id: string; token: string };

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  formulaActor = await createPlatformUser(t, "@SUM(1+1)", ["platform.orgs.manage", "platform.audit.read"]);
  nastyOrg = await t.createOrg(formulaActor.token, { name: NASTY_ORG });
  plainOrg = await t.createOrg(token, { name: "-10 Plain Dental" });
  const loc = await t.request("POST", `/api/v1/${plainOrg.id}/locations`, { token, body: { name: "Main", timezone: "America/New_York" } });
  expect(loc.status).toBe(201);
});

afterAll(async () => {
  await t.close();
});

describe("export", () => {
  test("CSV attachment with a header row and one record per entry, newest first", async () => {
    const r = await exportCsv();
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(r.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-log-\d{8}T\d{6}Z\.csv"$/);
    expect(r.headers.get("cache-control")).toContain("no-store");
    const rows = parseCsv(r.text);
    expect(rows[0]).toEqual([...EXPORT_COLUMNS]);
    const recs = records(r.text);
    expect(recs.length).toBe(3);
    const list = await t.request("GET", `${BASE}?page_size=100`, { token });
    expect(recs.map((x) => x.id)).toEqual(list.body.items.map((i: any) => i.id));
    const loc = recs.find((x) => x.action === "location.created")!;
    const item = list.body.items.find((i: any) => i.action === "location.created");
    expect(loc).toMatchObject({
      id: item.id,
      created_at: item.created_at,
      org_id: plainOrg.id,
      actor_id: item.actor_id,
      actor_type: "user",
      actor_display_name: "Platform administrator",
      resource_type: "location",
      resource_display_id: item.resource_display_id,
      ip_address: "",
      trace_id: item.trace_id,
    });
  });

  test("escaping: commas, quotes and newlines survive; formula-looking cells are neutralised", async () => {
    const r = await exportCsv(`?org_uuid=${nastyOrg.id}`);
    const recs = records(r.text);
    expect(recs.length).toBe(1);
    expect(recs[0]!.org_name).toBe(`'${NASTY_ORG}`);
    expect(recs[0]!.actor_display_name).toBe("'@SUM(1+1)");
    expect(r.text).toContain('"\'=HYPERLINK(""http://evil.example"",""click""), ""quoted""\nsecond line"');
    const plain = records((await exportCsv(`?org_uuid=${plainOrg.id}`)).text);
    expect(plain.every((x) => x.org_name === "'-10 Plain Dental")).toBe(true);
  });

  test("csvCell rules", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell(null)).toBe("");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("line1\r\nline2")).toBe('"line1\r\nline2"');
    for (const lead of ["=", "+", "-", "@", "\t", "\r"]) expect(csvCell(`${lead}1`).replace(/^"/, "")).toStartWith(`'${lead}`);
    expect(csvCell("=1,2")).toBe(`"'=1,2"`);
    expect(csvCell("a=1")).toBe("a=1");
  });

  test("same filters as the list", async () => {
    const byAction = records((await exportCsv("?action=organization.created")).text);
    expect(byAction.map((x) => x.org_id).sort()).toEqual([nastyOrg.id, plainOrg.id].sort());
    const multi = records((await exportCsv("?action=organization.created&action=location.created&resource_type=location")).text);
    expect(multi.map((x) => x.action)).toEqual(["location.created"]);
    const byActor = records((await exportCsv(`?actor_id=${formulaActor.id}`)).text);
    expect(byActor.map((x) => x.org_id)).toEqual([nastyOrg.id]);
    const bySearch = records((await exportCsv("?search=plain%20dental")).text);
    expect(bySearch.length).toBe(2);
    const future = records((await exportCsv("?start_date=2999-01-01")).text);
    expect(future).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect(records((await exportCsv(`?start_date=${today}&end_date=${today}`)).text).length).toBe(3);
  });

  test("sorting and paging parameters are not accepted (422); bad filters are 422", async () => {
    for (const qs of ["?page=1", "?page_size=10", "?sort_by=action", "?sort_order=asc", "?org_uuid=nope", "?end_date=tomorrow"]) {
      const r = await exportCsv(qs);
      expect(r.status, qs).toBe(422);
      expect(r.body.detail[0].loc[0]).toBe("query");
    }
  });

  test("needs platform.audit.export: a reader gets 403", async () => {
    const reader = await createPlatformUser(t, "Reader Only", ["platform.audit.read"]);
    expect((await t.request("GET", BASE, { token: reader.token })).status).toBe(200);
    const r = await exportCsv("", reader.token);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("forbidden");
    const exporter = await createPlatformUser(t, "Exporter", ["platform.audit.export"]);
    expect((await exportCsv("", exporter.token)).status).toBe(200);
  });

  test("large exports stream in keyset batches: every row once, ties on created_at included", async () => {
    const orgId = newId();
    const base = Date.parse("2023-06-01T12:00:00.000Z");
    const rows = Array.from({ length: 1234 }, (_, i) => ({
      id: newId(),
      org_id: orgId,
      org_name: "Bulk",
      actor_id: "system:test",
      actor_type: "system",
      actor_display_name: "test",
      action: "bulk.created",
      resource_type: "bulk",
      resource_id: `r${i}`,
      request_id: null,
      ip_address: null,
      // groups of 7 share a timestamp, so batch boundaries fall inside ties
      created_at: new Date(base + Math.floor(i / 7)).toISOString(),
    }));
    await t.rt.control.write(function* (tx) {
      for (let i = 0; i < rows.length; i += 200) yield* run(tx.insert(auditIndex).values(rows.slice(i, i + 200)));
    });
    const r = await exportCsv(`?org_uuid=${orgId}`);
    expect(r.status).toBe(200);
    const recs = records(r.text);
    expect(recs.length).toBe(1234);
    expect(new Set(recs.map((x) => x.id)).size).toBe(1234);
    const expected = [...rows].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1)).map((x) => x.id);
    expect(recs.map((x) => x.id)).toEqual(expected);
    expect(recs[0]!.actor_type).toBe("system");

    // The service pulls one batch per read: with a batch of 100 the stream yields 13 data chunks.
    const stream = await exportAuditCsv(t.rt, { org_uuid: orgId }, 100);
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of stream) chunks.push(decoder.decode(chunk));
    expect(chunks.length).toBe(1 + 13); // header + ceil(1234 / 100)
    expect(records(chunks.join("")).map((x) => x.id)).toEqual(expected);
  });
});
