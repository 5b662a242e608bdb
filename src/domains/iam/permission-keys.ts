import { PERMISSIONS, REGISTRY_VERSION } from "@/platform/permissions/registry";

const orgKeys = PERMISSIONS.filter((p) => p.scope === "org");

/** The keys an org permission group can hold, with the registry version that names the set. */
export const listPermissionKeys = () => ({ keys: orgKeys.map((p) => p.key), registry_version: REGISTRY_VERSION });

/** The same keys with their descriptions, scope and whether they reach PHI. */
export const permissionRegistry = () => ({ permissions: orgKeys.map((p) => ({ ...p })), registry_version: REGISTRY_VERSION });
