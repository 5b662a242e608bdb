import { NotImplemented } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { visibleList } from "./service";

// The list actions (create-tasks, export, tag) are the 501s spec.md names:
// "currently 501 until Phase 2". Everything before the 501 is real: 404 for a
// list the caller cannot see, then 422 for a bad body (docs/revenue/revenue-lists.md).

/** Before the body is validated: the list must exist for the caller (404). */
export async function checkActionTarget(ctx: OrgContext, id: string): Promise<void> {
  await visibleList(ctx, id);
}

export function actionNotImplemented(action: string): never {
  throw new NotImplemented(`The ${action} action of smart lists is not available yet (Phase 2)`);
}
