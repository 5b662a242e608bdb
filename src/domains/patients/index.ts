import type { RouteModule } from "@/platform/http/route-module";
import { patientRoutes } from "./record/routes";
import { medicalHistoryRoutes } from "./medical-history/routes";
import { relationshipRoutes } from "./relationships/routes";
import { communicationLogRoutes } from "./communication-logs/routes";
import { customFieldRoutes } from "./custom-fields/routes";
import { tagRoutes } from "./tags/routes";
import { ledgerRoutes } from "./ledger/routes";

/** Patients: the patient record and everything kept under it (medical history, relationships, communication logs, custom fields, tags, ledger). */
export const patientModules: RouteModule[] = [
  patientRoutes,
  medicalHistoryRoutes,
  relationshipRoutes,
  communicationLogRoutes,
  customFieldRoutes,
  tagRoutes,
  ledgerRoutes,
];
