import { then } from "@/platform/async/maybe";
import { patientPlace, type WhereResolver } from "@/platform/tenancy/placement";

/** A patient update acts at the patient's home location, and at the new one when it moves them (docs/iam/iam.md). */
export const patientUpdatePlace: WhereResolver = (ctx, { params, body }) =>
  then(patientPlace(ctx, params.patient_uuid!), (here) => (body?.location_uuid !== undefined ? [here, { location: body.location_uuid }] : [here]));
