import { VersionConflict } from "@/platform/errors";

/** 409 version_conflict unless the client's base_version is the record's version (undefined: not checked). */
export function checkVersion(current: { version: number }, baseVersion: number | undefined): void {
  if (baseVersion !== undefined && current.version !== baseVersion) throw new VersionConflict(current.version);
}

/** A compare-and-swap update (`WHERE version = <read>`) that matched no row: someone wrote in between. */
export function updatedOrConflict<T>(row: T | undefined): T {
  if (!row) throw new VersionConflict();
  return row;
}
