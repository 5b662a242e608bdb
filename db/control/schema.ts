import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, jobOutboxColumns, json, softDelete, timestamps, versioned } from "@db/columns";

// The control database: everything that is not one org's data.

export const shards = sqliteTable(
  "shards",
  {
    id: id(),
    name: text("name").notNull(),
    region: text("region").notNull(),
    // `file:<dir>` for a directory of local libSQL files, or a libsql/http(s) URL
    // template containing `{db}` for a remote libSQL server.
    dsn: text("dsn").notNull(),
    auth_token: text("auth_token"),
    is_active: bool("is_active").notNull().default(true),
    max_orgs: integer("max_orgs").notNull(),
    ...versioned(),
  },
  (t) => [uniqueIndex("shards_name_uq").on(t.name)],
);

export const orgs = sqliteTable(
  "orgs",
  {
    id: id(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    account_type: text("account_type").notNull(),
    status: text("status").notNull(),
    onboarding_status: text("onboarding_status").notNull(),
    max_locations: integer("max_locations").notNull(),
    schema_name: text("schema_name").notNull(),
    shard_id: text("shard_id")
      .notNull()
      .references(() => shards.id),
    billing_email: text("billing_email"),
    contact_email: text("contact_email"),
    contact_name: text("contact_name"),
    contact_phone: text("contact_phone"),
    hq_address_line1: text("hq_address_line1"),
    hq_address_line2: text("hq_address_line2"),
    hq_city: text("hq_city"),
    hq_country: text("hq_country"),
    hq_postal_code: text("hq_postal_code"),
    hq_state: text("hq_state"),
    internal_notes: text("internal_notes"),
    tax_id: text("tax_id"),
    website: text("website"),
    // DELETE of an archived org (status "deleted"): its database is removed after purge_after by orgs.purge (docs/admin/admin.md)
    purge_after: text("purge_after"),
    purged_at: text("purged_at"),
    // bumped by every IAM write in the org (the effective-permission cache_version, docs/iam/iam.md)
    access_version: integer("access_version").notNull().default(1),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [uniqueIndex("orgs_slug_uq").on(t.slug), index("orgs_shard_idx").on(t.shard_id), index("orgs_status_purge_idx").on(t.status, t.purge_after)],
);

// Partners: resellers, integrators, DSOs and other companies the platform works with (docs/admin/admin.md).
export const partners = sqliteTable(
  "partners",
  {
    id: id(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    partner_type: text("partner_type").notNull(),
    status: text("status").notNull(),
    display_name: text("display_name"),
    description: text("description"),
    contact_email: text("contact_email"),
    contact_name: text("contact_name"),
    contact_phone: text("contact_phone"),
    extra_data: json<Record<string, unknown>>("extra_data").notNull(),
    internal_notes: text("internal_notes"),
    logo_url: text("logo_url"),
    website: text("website"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [uniqueIndex("partners_slug_uq").on(t.slug), index("partners_status_idx").on(t.status, t.name)],
);

export const users = sqliteTable(
  "users",
  {
    id: id(),
    email: text("email").notNull(),
    display_name: text("display_name").notNull(),
    password_hash: text("password_hash"),
    status: text("status").notNull().default("active"),
    is_platform_admin: bool("is_platform_admin").notNull().default(false),
    is_global_access: bool("is_global_access").notNull().default(false),
    last_login_at: text("last_login_at"),
    // set when the owner proves the address (verify-email, or a password reset by mail)
    email_verified_at: text("email_verified_at"),
    // the user's id at the external identity service that syncs it (POST /internal/auth/user-sync)
    external_id: text("external_id"),
    ...versioned(),
  },
  (t) => [uniqueIndex("users_email_uq").on(t.email), uniqueIndex("users_external_id_uq").on(t.external_id)],
);

export const permissionGroups = sqliteTable(
  "permission_groups",
  {
    id: id(),
    // null for platform groups
    org_id: text("org_id").references(() => orgs.id),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    permission_keys: json<string[]>("permission_keys").notNull(),
    status: text("status").notNull().default("active"),
    is_system: bool("is_system").notNull().default(false),
    is_org_admin: bool("is_org_admin").notNull().default(false),
    created_by: text("created_by"),
    updated_by: text("updated_by"),
    ...versioned(),
  },
  (t) => [index("permission_groups_org_idx").on(t.org_id)],
);

export const memberships = sqliteTable(
  "memberships",
  {
    id: id(),
    org_id: text("org_id")
      .notNull()
      .references(() => orgs.id),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id),
    status: text("status").notNull(),
    invitation_token_hash: text("invitation_token_hash"),
    invitation_expires_at: text("invitation_expires_at"),
    joined_at: text("joined_at"),
    ...versioned(),
  },
  (t) => [
    uniqueIndex("memberships_org_user_uq").on(t.org_id, t.user_id),
    index("memberships_user_idx").on(t.user_id),
    index("memberships_invitation_idx").on(t.invitation_token_hash),
  ],
);

// A permission group granted to a member at a node of the org's scope tree, for
// one context (docs/iam/iam.md). The member's `group_uuids` are the assignments at
// the org node with context "all".
export const iamAssignments = sqliteTable(
  "iam_assignments",
  {
    id: id(),
    org_id: text("org_id")
      .notNull()
      .references(() => orgs.id),
    membership_id: text("membership_id")
      .notNull()
      .references(() => memberships.id),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id),
    group_id: text("group_id")
      .notNull()
      .references(() => permissionGroups.id),
    // the org's id for the org node, else a location's or provider's id
    scope_node_id: text("scope_node_id").notNull(),
    scope_type: text("scope_type").notNull(),
    context: text("context").notNull(),
    // active | suspended | pending_activation; "expired" is derived from expires_at
    status: text("status").notNull(),
    expires_at: text("expires_at"),
    approval_id: text("approval_id"),
    created_by: text("created_by"),
    ...versioned(),
  },
  (t) => [
    uniqueIndex("iam_assignments_grant_uq").on(t.membership_id, t.group_id, t.scope_node_id, t.context),
    index("iam_assignments_org_user_idx").on(t.org_id, t.user_id),
    index("iam_assignments_org_group_idx").on(t.org_id, t.group_id),
    index("iam_assignments_org_node_idx").on(t.org_id, t.scope_node_id),
  ],
);

// A sensitive grant waiting for another administrator (docs/iam/iam.md, approvals).
export const iamApprovals = sqliteTable(
  "iam_approvals",
  {
    id: id(),
    org_id: text("org_id")
      .notNull()
      .references(() => orgs.id),
    status: text("status").notNull(),
    operation_type: text("operation_type").notNull(),
    operation_payload: json<Record<string, unknown>>("operation_payload").notNull(),
    pinned_group_versions: json<Record<string, number>>("pinned_group_versions").notNull(),
    pinned_scope_node_id: text("pinned_scope_node_id"),
    pinned_scope_node_path: text("pinned_scope_node_path"),
    contains_phi: bool("contains_phi").notNull().default(false),
    assignment_id: text("assignment_id"),
    requested_by: text("requested_by").notNull(),
    requested_at: text("requested_at").notNull(),
    expires_at: text("expires_at").notNull(),
    reviewed_by: text("reviewed_by"),
    reviewed_at: text("reviewed_at"),
    review_note: text("review_note"),
    ...versioned(),
  },
  (t) => [index("iam_approvals_org_status_idx").on(t.org_id, t.status, t.requested_at), index("iam_approvals_expiry_idx").on(t.status, t.expires_at)],
);

export const platformGroupAssignments = sqliteTable(
  "platform_group_assignments",
  {
    id: id(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id),
    group_id: text("group_id")
      .notNull()
      .references(() => permissionGroups.id),
    assigned_by: text("assigned_by"),
    assigned_at: text("assigned_at").notNull(),
    expires_at: text("expires_at"),
    is_active: bool("is_active").notNull().default(true),
  },
  (t) => [index("platform_group_assignments_user_idx").on(t.user_id)],
);

// A login session; its refresh tokens form one rotation family.
export const sessions = sqliteTable(
  "sessions",
  {
    id: id(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    revoked_at: text("revoked_at"),
    revoked_reason: text("revoked_reason"),
  },
  (t) => [index("sessions_user_idx").on(t.user_id)],
);

export const refreshTokens = sqliteTable(
  "refresh_tokens",
  {
    id: id(),
    session_id: text("session_id")
      .notNull()
      .references(() => sessions.id),
    token_hash: text("token_hash").notNull(),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    spent_at: text("spent_at"),
  },
  (t) => [uniqueIndex("refresh_tokens_hash_uq").on(t.token_hash), index("refresh_tokens_session_idx").on(t.session_id)],
);

// One-time password reset tokens (forgot-password): only a SHA-256 of the token is kept.
export const passwordResetTokens = sqliteTable(
  "password_reset_tokens",
  {
    id: id(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id),
    token_hash: text("token_hash").notNull(),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    used_at: text("used_at"),
  },
  (t) => [uniqueIndex("password_reset_tokens_hash_uq").on(t.token_hash), index("password_reset_tokens_user_idx").on(t.user_id)],
);

// One-time email verification tokens, bound to the address they were sent to; only a SHA-256 is kept.
export const emailVerificationTokens = sqliteTable(
  "email_verification_tokens",
  {
    id: id(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id),
    email: text("email").notNull(),
    token_hash: text("token_hash").notNull(),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    used_at: text("used_at"),
  },
  (t) => [uniqueIndex("email_verification_tokens_hash_uq").on(t.token_hash), index("email_verification_tokens_user_idx").on(t.user_id)],
);

// Mail written by the embedded mailer (no SMTP_URL): read by developers (scripts/mail-outbox.ts) and tests.
export const mailOutbox = sqliteTable(
  "mail_outbox",
  {
    id: id(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html"),
    created_at: text("created_at").notNull(),
    sent_at: text("sent_at"),
  },
  (t) => [index("mail_outbox_created_idx").on(t.created_at)],
);

// Platform-wide index of audit entries; before/after stay in the org's own database.
export const auditIndex = sqliteTable(
  "audit_index",
  {
    id: id(),
    org_id: text("org_id"),
    org_name: text("org_name"),
    actor_id: text("actor_id").notNull(),
    actor_type: text("actor_type").notNull(),
    actor_display_name: text("actor_display_name"),
    action: text("action").notNull(),
    resource_type: text("resource_type").notNull(),
    resource_id: text("resource_id").notNull(),
    request_id: text("request_id"),
    ip_address: text("ip_address"),
    created_at: text("created_at").notNull(),
  },
  (t) => [index("audit_index_org_created_idx").on(t.org_id, t.created_at), index("audit_index_created_idx").on(t.created_at)],
);

// Audit entries (and events) of control-database writes that belong to an org's
// trail: written in the write's own transaction, then copied into the org's
// database and the index, and dropped (platform/audit/org-outbox.ts).
export const orgAuditOutbox = sqliteTable(
  "org_audit_outbox",
  {
    id: id(),
    org_id: text("org_id").notNull(),
    entry: json<Record<string, unknown>>("entry").notNull(),
    event: json<Record<string, unknown> | null>("event"),
    created_at: text("created_at").notNull(),
    // a deliverer's claim, so two processes never deliver (and publish) one entry at once
    claimed_until: text("claimed_until"),
  },
  (t) => [index("org_audit_outbox_org_idx").on(t.org_id, t.created_at)],
);

/**
 * Jobs a control-database write caused (an org's move), written in its own
 * transaction and handed to the queue after commit: the control side of the
 * job outbox (db/tenant/job-outbox.ts has the org side and the rules).
 */
export const jobOutbox = sqliteTable("job_outbox", { ...jobOutboxColumns(), org_id: text("org_id") }, (t) => [
  index("job_outbox_created_idx").on(t.created_at),
]);

/**
 * One row (id 1): a counter moved by every write that changes who may do
 * what (memberships, groups, assignments, sessions, users, platform groups).
 * Every instance reads it a few times a second and drops its cached access
 * when it moved (platform/tenancy/access.ts), so a revocation holds on every
 * instance within a second whether or not the bus delivers its message.
 */
export const accessEpoch = sqliteTable("access_epoch", {
  id: integer("id").primaryKey(),
  version: integer("version").notNull(),
});

export const idempotencyRecords = sqliteTable(
  "idempotency_records",
  {
    // hash of (org or "-", user, method, path, key)
    scope_key: text("scope_key").primaryKey(),
    request_hash: text("request_hash").notNull(),
    status: integer("status").notNull(),
    body: text("body").notNull(),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
  },
  (t) => [index("idempotency_expires_idx").on(t.expires_at)],
);

export const controlSchema = {
  shards,
  orgs,
  partners,
  users,
  permissionGroups,
  memberships,
  iamAssignments,
  iamApprovals,
  platformGroupAssignments,
  sessions,
  refreshTokens,
  passwordResetTokens,
  emailVerificationTokens,
  mailOutbox,
  auditIndex,
  orgAuditOutbox,
  jobOutbox,
  accessEpoch,
  idempotencyRecords,
};
export type ControlSchema = typeof controlSchema;
export { timestamps };
