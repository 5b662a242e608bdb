import { AppError } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { visibleList } from "./service";

// The list actions of spec.md (create-tasks, export, tag) come in Phase 2. The
// routes already answer in order: 404 for a list the caller cannot see, then
// 422 for a bad body, then 501 not_implemented.

/** Before the body is validated: the list must exist for the caller (404). */
export async function checkActionTarget(ctx: OrgContext, id: string): Promise<void> {
  await visibleList(ctx, id);
}

export function actionNotImplemented(action: string): never {
  throw new AppError(501, "not_implemented", `The ${action} action of smart lists is not available yet (Phase 2)`);
}
