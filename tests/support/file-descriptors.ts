import { readdirSync, readlinkSync } from "node:fs";

/** This process's open file descriptors. */
export const openFds = () => readdirSync("/proc/self/fd").length;

/** Open descriptors of files whose path starts with `prefix` (a directory, or one database file with its WAL and shared memory). */
export const fdsUnder = (prefix: string) =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(prefix);
    } catch {
      return false;
    }
  }).length;
