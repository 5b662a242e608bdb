import type { AnyElysia } from "elysia";
import type { Runtime } from "@/platform/runtime";

/**
 * One feature's routes: an Elysia plugin built from the runtime. Each domain's
 * index.ts lists its modules; app.ts composes the lists.
 */
export type RouteModule = (rt: Runtime) => AnyElysia;
