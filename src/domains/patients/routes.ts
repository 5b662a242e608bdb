import { Elysia } from "elysia";
import type { Runtime } from "../../platform/runtime";

// Routes of this domain arrive with issue 3; mounted in app.ts already.
export const patientRoutes = (_rt: Runtime) => new Elysia({ name: "cusp.patients" });
