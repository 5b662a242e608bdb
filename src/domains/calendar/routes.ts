import { Elysia } from "elysia";
import type { Runtime } from "../../platform/runtime";

// Placeholder: this domain's routes are being built (see its issue).
export const calendarRoutes = (_rt: Runtime) => new Elysia({ name: "calendar" });
