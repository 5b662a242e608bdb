import { sql } from "drizzle-orm";
import { patients } from "@db/tenant/patients";
import { all, get, getPrepared, prepared, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";
import { wordTokens } from "@/platform/records/search";

// Patient names in memory, for search as people type (docs/patients/patients.md,
// "Names searched in memory"). The name reading of a search ("mar gar", "Garcia, Mar") is
// answered here instead of by the FTS5 table patients_fts, with exactly its
// answers: the same words (unicode61: runs of letters and digits, case and
// diacritics folded), each a prefix of a word of the first, last or preferred
// name ("Last, First": of the last name, then of the first or preferred).
//
// One index per open org database (held by its handle, dropped with it), built
// on the org's first search from the patients table, then kept current from
// `search_changes`, the log the patients triggers write (tenant migration 0020):
// before each search the index applies the entries past the last it applied.
// Terms are sorted unique folded words; each word's postings list its rows and
// the columns it stands in; a term's words are intersected on their postings.
// Rows changed since the build are held apart (a small overlay) until there
// are enough of them to rebuild.

const FIRST = 1;
const LAST = 2;
const PREFERRED = 4;

/** The letters SQLite takes accents off: those that decompose into an ASCII letter and marks. */
const ASCII_LETTER = /^[A-Za-z]$/;
const ASCII = /^[\x00-\x7f]*$/;
/** Where SQLite's folding differs from that rule (found by the character-by-character test): long s and final sigma folded, ǡ kept. */
const FOLD_EXCEPTIONS: Readonly<Record<string, string>> = { ſ: "s", ẛ: "s", ς: "σ", ǡ: "ǡ" };

/**
 * A word as FTS5's unicode61 tokenizer with remove_diacritics 2 keeps it
 * (checked character by character against SQLite in name-index.test.ts):
 * lower case; the accents of a letter that decomposes into an ASCII letter
 * removed (é as e), others kept (Greek ά, Cyrillic й, Latin ǽ stay); a
 * combining diacritic stored apart (U+0300-U+036F) dropped.
 */
export function foldWord(word: string): string {
  const lower = word.toLowerCase();
  if (ASCII.test(lower)) return lower;
  let out = "";
  for (const ch of lower) {
    if (ch >= "\u0300" && ch <= "\u036f") continue;
    const exception = FOLD_EXCEPTIONS[ch];
    if (exception) {
      out += exception;
      continue;
    }
    const parts = ch.normalize("NFD");
    out += parts.length > 1 && ASCII_LETTER.test(parts[0]!) ? parts.replace(/[\u0300-\u036f]/g, "") : ch;
  }
  return out;
}

/**
 * The words of a stored name as unicode61 splits it: runs of letters, digits,
 * marks, private-use and unassigned characters, the text as stored (a combining accent
 * stays inside its word, then folded away), folded.
 */
const storedWords = (name: string | null) =>
  name
    ? name
        .split(/[^\p{L}\p{N}\p{Co}\p{M}\p{Cn}]+/u)
        .map(foldWord)
        .filter(Boolean)
    : [];

/** The words of a search term: those search.ts hands FTS5 (wordTokens), folded as FTS5 folds them. */
const termWords = (term: string) => wordTokens(term).map(foldWord).filter(Boolean);

type NameRow = { rowid: number; first: string | null; last: string | null; preferred: string | null };
const NAME_COLUMNS = { rowid: sql<number>`${patients}.rowid`, first: patients.first_name, last: patients.last_name, preferred: patients.preferred_name };
type RowWords = Map<string, number>; // word -> columns mask

function rowWords(r: NameRow): RowWords {
  const out: RowWords = new Map();
  const add = (name: string | null, col: number) => {
    for (const w of storedWords(name)) out.set(w, (out.get(w) ?? 0) | col);
  };
  add(r.first, FIRST);
  add(r.last, LAST);
  add(r.preferred, PREFERRED);
  return out;
}

/** The log's newest entry: asked before every search, so compiled once per connection. */
const newestChange = prepared<{ seq: number | null }>((db: TenantDb) => db.select({ seq: sql<number | null>`max(seq)` }).from(sql`search_changes`).prepare());

/** Rows changed since the build past which the index is built again rather than overlaid. */
const OVERLAY_MAX = 2_000;
/** Log entries applied per read. */
const LOG_BATCH = 5_000;

export class NameIndex {
  /** Sorted unique words. */
  private terms: string[] = [];
  /** postings of terms[i]: rows[start[i]..start[i+1]) with their column masks. */
  private start = new Int32Array(1);
  private rows = new Int32Array(0);
  private masks = new Uint8Array(0);
  /** Rows whose postings above are out of date, with their words now (none: deleted). */
  private overlay = new Map<number, RowWords>();
  /** A row is in the answer being built when seen[rowid] === stamp (no set to allocate per search). */
  private seen = new Int32Array(0);
  private stamp = 0;
  private applied = -1;

  /** The words a stored name is indexed under (what the tests compare with SQLite's own tokens). */
  storedWordsOf(name: string): string[] {
    return storedWords(name);
  }

  /** The last log entry applied (-1 before the first build). */
  get appliedSeq(): number {
    return this.applied;
  }

  /** Bytes held, roughly: what an open org's index costs (docs/operations/performance.md). */
  get bytes(): number {
    let words = 0;
    for (const t of this.terms) words += 2 * t.length + 16;
    const arrays = [this.start, this.rows, this.masks, this.seen];
    return words + arrays.reduce((n, a) => n + a.byteLength, 0) + this.overlay.size * 120;
  }

  /** Postings held: one per word of a row. */
  get postingCount(): number {
    return this.rows.length;
  }

  /** Brings the index up to the log: built at first, then the rows changed since applied (built again when many changed or the log was pruned past it). */
  *catchUp(db: TenantDb): Work<void> {
    const newest = (yield* getPrepared(db, newestChange, {}))?.seq ?? 0;
    if (newest === this.applied) return;
    if (this.applied >= 0) {
      const oldest = (yield* get<{ seq: number | null }>(db.select({ seq: sql<number | null>`min(seq)` }).from(sql`search_changes`)))?.seq ?? 0;
      if (oldest <= this.applied + 1 && newest - this.applied <= OVERLAY_MAX) {
        const changed = yield* all<{ rid: number }>(
          db
            .select({ rid: sql<number>`rid` })
            .from(sql`search_changes`)
            .where(sql`seq > ${this.applied} AND seq <= ${newest} AND tbl = 'patients'`)
            .limit(LOG_BATCH),
        );
        const rids = [...new Set(changed.map((c) => c.rid))];
        const now = yield* currentNames(db, rids);
        const found = new Map(now.map((r) => [r.rowid, r]));
        for (const rid of rids) {
          const row = found.get(rid);
          this.overlay.set(rid, row ? rowWords(row) : new Map());
        }
        this.applied = newest;
        if (this.overlay.size <= OVERLAY_MAX) return;
      }
    }
    yield* this.build(db, newest);
  }

  private *build(db: TenantDb, seq: number): Work<void> {
    const names = yield* all(db.select(NAME_COLUMNS).from(patients));
    const byRow = names.map((r) => [r.rowid, rowWords(r)] as const);
    const postings = new Map<string, number>();
    let maxRow = 0;
    for (const [rid, words] of byRow) {
      maxRow = Math.max(maxRow, rid);
      for (const w of words.keys()) postings.set(w, (postings.get(w) ?? 0) + 1);
    }
    const terms = [...postings.keys()].sort();
    const termIndex = new Map(terms.map((t, i) => [t, i]));
    const start = new Int32Array(terms.length + 1);
    terms.forEach((t, i) => {
      start[i + 1] = start[i]! + postings.get(t)!;
    });
    const rows = new Int32Array(start[terms.length]!);
    const masks = new Uint8Array(rows.length);
    const fill = start.slice(0, terms.length);
    // each word's postings in row order (the rows are read in rowid order)
    for (const [rid, words] of byRow) {
      for (const [w, mask] of words) {
        const i = termIndex.get(w)!;
        rows[fill[i]!] = rid;
        masks[fill[i]!++] = mask;
      }
    }
    Object.assign(this, {
      terms,
      start,
      rows,
      masks,
      overlay: new Map(),
      seen: new Int32Array(maxRow + 1),
      stamp: 0,
      applied: seq,
    });
  }

  /** The first term >= prefix. */
  private lowerBound(prefix: string): number {
    let lo = 0;
    let hi = this.terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.terms[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Whether a row changed since the build has a word starting with `prefix` in one of `columns`. */
  private rowHas(rid: number, prefix: string, columns: number): boolean {
    for (const [w, mask] of this.overlay.get(rid) ?? []) if (mask & columns && w.startsWith(prefix)) return true;
    return false;
  }

  /** The postings of the words starting with `prefix`: [start, end) in rows/masks (terms sorted: one run). */
  private range(prefix: string): [number, number] {
    const lo = this.lowerBound(prefix);
    let hi = lo;
    while (hi < this.terms.length && this.terms[hi]!.startsWith(prefix)) hi++;
    return [this.start[lo]!, this.start[hi]!];
  }

  /**
   * Rows with every word as a prefix in `columns`, among `within` when given.
   * Integer work only: the rarest word's postings mark their rows, each other
   * word's postings keep the marked rows they hold (the `seen` stamps), so no
   * string is compared per row. Rows changed since the build are checked on
   * their own words.
   */
  private allOf(words: string[], columns: number, within: number[] | null): number[] {
    const ranges = words.map((w) => this.range(w)).sort((a, b) => a[1] - a[0] - (b[1] - b[0]));
    const overlaid = this.overlay.size > 0;
    let stamp = ++this.stamp;
    let rows: number[];
    let rest = ranges;
    if (within) {
      rows = [];
      for (const rid of within) if (this.seen[rid] !== stamp && !(overlaid && this.overlay.has(rid))) rows.push(rid);
      for (const rid of rows) this.seen[rid] = stamp;
    } else {
      const [from, to] = ranges[0]!;
      rest = ranges.slice(1);
      rows = [];
      for (let p = from; p < to; p++) {
        const rid = this.rows[p]!;
        if (this.masks[p]! & columns && this.seen[rid] !== stamp && !(overlaid && this.overlay.has(rid))) {
          this.seen[rid] = stamp;
          rows.push(rid);
        }
      }
    }
    for (const [from, to] of rest) {
      if (!rows.length) break;
      const kept = ++this.stamp;
      const next: number[] = [];
      for (let p = from; p < to; p++) {
        const rid = this.rows[p]!;
        if (this.seen[rid] === stamp && this.masks[p]! & columns) {
          this.seen[rid] = kept;
          next.push(rid);
        }
      }
      rows = next;
      stamp = kept;
    }
    if (overlaid) {
      const allowed = within ? new Set(within) : null;
      for (const rid of this.overlay.keys()) if ((!allowed || allowed.has(rid)) && words.every((w) => this.rowHas(rid, w, columns))) rows.push(rid);
    }
    return rows;
  }

  /**
   * The rowids the name reading of `term` matches, as patients_fts would for
   * nameMatch(term) (search.ts), or null when the term has no words (no name reading).
   */
  match(term: string): number[] | null {
    const comma = term.indexOf(",");
    if (comma >= 0) {
      const last = termWords(term.slice(0, comma));
      const first = termWords(term.slice(comma + 1));
      if (last.length || first.length) {
        const byLast = last.length ? this.allOf(last, LAST, null) : null;
        return first.length ? this.allOf(first, FIRST | PREFERRED, byLast) : byLast!;
      }
    }
    const words = termWords(term);
    return words.length ? this.allOf(words, FIRST | LAST | PREFERRED, null) : null;
  }
}

function* currentNames(db: TenantDb, rids: number[]): Work<NameRow[]> {
  if (!rids.length) return [];
  return yield* all(
    db
      .select(NAME_COLUMNS)
      .from(sql`json_each(${JSON.stringify(rids)}) AS j`)
      .innerJoin(patients, sql`${patients}.rowid = j.value`),
  );
}

const INDEXES = new WeakMap<object, NameIndex>();

/** The org database handle's name index (made, empty, on first use; built by its first catchUp). */
export function nameIndexOf(handle: object): NameIndex {
  let index = INDEXES.get(handle);
  if (!index) INDEXES.set(handle, (index = new NameIndex()));
  return index;
}
