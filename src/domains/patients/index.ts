import type { RouteModule } from "@/platform/http/route-module";
import { patientRoutes } from "./record/routes";
import { medicalHistoryRoutes } from "./medical-history/routes";
import { relationshipRoutes } from "./relationships/routes";
import { communicationLogRoutes } from "./communication-logs/routes";
import { customFieldRoutes } from "./custom-fields/routes";
import { tagRoutes } from "./tags/routes";

/** Patients: the patient record and everything kept under it (medical history, relationships, communication logs, custom fields, tags; the ledger and account are src/domains/account). */
export const patientModules: RouteModule[] = [patientRoutes, medicalHistoryRoutes, relationshipRoutes, communicationLogRoutes, customFieldRoutes, tagRoutes];
