-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "organizations" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workspaces" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "labels" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "password_hash" TEXT NOT NULL,
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memberships" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "secret_hash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "permissions" TEXT[],
    "created_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "login_sessions" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "login_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "resource_kind" TEXT NOT NULL,
    "resource_id" TEXT NOT NULL,
    "version" INTEGER,
    "changes" JSONB NOT NULL DEFAULT '{}',
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_digest" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "response_status" INTEGER,
    "response" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "service_settings" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "service_settings_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "providers" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "config" JSONB NOT NULL DEFAULT '{}',
    "credential_ciphertext" TEXT,
    "extra_headers_ciphertext" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "providers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "models" (
    "workspace_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "provider_model" TEXT NOT NULL,
    "api" TEXT NOT NULL DEFAULT '',
    "name" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "settings" JSONB NOT NULL DEFAULT '{}',
    "characteristics" JSONB NOT NULL DEFAULT '{}',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "models_pkey" PRIMARY KEY ("workspace_id","key")
);

-- CreateTable
CREATE TABLE "agents" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "labels" JSONB NOT NULL DEFAULT '{}',
    "image_url" TEXT,
    "image_asset_id" TEXT,
    "default_revision_id" TEXT,
    "last_revision_number" INTEGER NOT NULL DEFAULT 0,
    "preset_kind" TEXT,
    "source" TEXT NOT NULL DEFAULT 'custom',
    "archived_at" TIMESTAMPTZ(3),
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_revisions" (
    "id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "config" JSONB NOT NULL,
    "created_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_revision_skills" (
    "revision_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "skill_id" TEXT NOT NULL,
    "skill_revision_id" TEXT NOT NULL,

    CONSTRAINT "agent_revision_skills_pkey" PRIMARY KEY ("revision_id","skill_revision_id")
);

-- CreateTable
CREATE TABLE "skills" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "labels" JSONB NOT NULL DEFAULT '{}',
    "default_revision_id" TEXT,
    "last_revision_number" INTEGER NOT NULL DEFAULT 0,
    "source" TEXT NOT NULL DEFAULT 'custom',
    "archived_at" TIMESTAMPTZ(3),
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "skills_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "skill_revisions" (
    "id" TEXT NOT NULL,
    "skill_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "content" JSONB NOT NULL,
    "created_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "skill_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "connections" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "labels" JSONB NOT NULL DEFAULT '{}',
    "config" JSONB NOT NULL DEFAULT '{}',
    "credential_ciphertext" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "environment_templates" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "labels" JSONB NOT NULL DEFAULT '{}',
    "config" JSONB NOT NULL DEFAULT '{}',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "environment_templates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "environments" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "template_id" TEXT,
    "provider_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "config" JSONB NOT NULL DEFAULT '{}',
    "external_id" TEXT,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "environments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "assets" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "media_type" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "assets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_subscriptions" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "event_kinds" TEXT[],
    "secret_ciphertext" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "description" TEXT NOT NULL DEFAULT '',
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memories" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "namespace" TEXT NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "config" JSONB NOT NULL DEFAULT '{}',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memory_records" (
    "provider_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "id" VARCHAR(256) NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "terms" JSONB NOT NULL DEFAULT '{}',
    "provenance" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memory_records_pkey" PRIMARY KEY ("provider_id","namespace","id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "title" TEXT NOT NULL DEFAULT '',
    "labels" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "archived_at" TIMESTAMPTZ(3),

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "threads" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "current_run_id" TEXT,
    "last_run_id" TEXT,
    "origin" TEXT NOT NULL DEFAULT 'new',
    "origin_run_id" TEXT,
    "origin_thread_id" TEXT,
    "origin_tool_call_id" TEXT,
    "subagent" TEXT,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "mcp_headers" JSONB NOT NULL DEFAULT '{}',
    "message_history" JSONB NOT NULL DEFAULT '[]',
    "last_inbox_position" INTEGER NOT NULL DEFAULT 0,
    "archived_at" TIMESTAMPTZ(3),
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "threads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inbox_entries" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'message',
    "delivery" TEXT NOT NULL DEFAULT 'queue',
    "status" TEXT NOT NULL DEFAULT 'pending',
    "position" INTEGER NOT NULL,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "options" JSONB NOT NULL DEFAULT '{}',
    "agent_id" TEXT,
    "agent_revision_id" TEXT,
    "assigned_run_id" TEXT,
    "child_run_id" TEXT,
    "origin_run_id" TEXT,
    "principal_id" TEXT NOT NULL,
    "incorporated_checkpoint_seq" INTEGER,
    "failure" JSONB,
    "request_digest" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "inbox_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "agent_revision_id" TEXT NOT NULL,
    "revision_selection" TEXT NOT NULL DEFAULT 'default',
    "status" TEXT NOT NULL DEFAULT 'accepted',
    "wait_reason" TEXT,
    "trigger" TEXT NOT NULL DEFAULT 'input',
    "lineage" TEXT NOT NULL DEFAULT 'root',
    "parent_run_id" TEXT,
    "source_entry_id" TEXT,
    "principal_id" TEXT NOT NULL,
    "resumed_by_id" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL DEFAULT 1,
    "current_attempt_id" TEXT,
    "display_position" TEXT NOT NULL DEFAULT '',
    "input" JSONB NOT NULL DEFAULT '{}',
    "output" JSONB,
    "failure" JSONB,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "environment_mounts" JSONB NOT NULL DEFAULT '[]',
    "memory_mounts" JSONB NOT NULL DEFAULT '[]',
    "options" JSONB NOT NULL DEFAULT '{}',
    "pending" JSONB NOT NULL DEFAULT '{"approvals":[],"calls":[]}',
    "resume" JSONB,
    "usage_at_seal" JSONB,
    "checkpoint_seq" INTEGER NOT NULL DEFAULT 0,
    "lease_owner" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "sealed_at" TIMESTAMPTZ(3),
    "cancel_requested_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_items" (
    "id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "content" JSONB NOT NULL DEFAULT '{}',
    "content_refs" JSONB NOT NULL DEFAULT '{}',
    "first_stream_id" TEXT,
    "last_stream_id" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "run_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "finding_analyses" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "agent_id" TEXT,
    "session_id" TEXT,
    "thread_id" TEXT,
    "run_id" TEXT,
    "run_status" TEXT NOT NULL DEFAULT 'accepted',
    "finding_count" INTEGER NOT NULL DEFAULT 0,
    "cited_trace_count" INTEGER NOT NULL DEFAULT 0,
    "read_trace_ids" TEXT[],
    "selected_traces" JSONB NOT NULL DEFAULT '[]',
    "selection" JSONB NOT NULL DEFAULT '{}',
    "selection_truncated" BOOLEAN NOT NULL DEFAULT false,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "finding_analyses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "findings" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "analysis_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "agent_revision_id" TEXT,
    "source_run_id" TEXT,
    "source_key" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "explanation" TEXT NOT NULL DEFAULT '',
    "suggestion" TEXT NOT NULL DEFAULT '',
    "limitations" TEXT NOT NULL DEFAULT '',
    "category" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "assessment" TEXT NOT NULL DEFAULT 'unreviewed',
    "assessment_note" TEXT NOT NULL DEFAULT '',
    "closed" BOOLEAN NOT NULL DEFAULT false,
    "evidence" JSONB NOT NULL DEFAULT '[]',
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "findings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "push_subscriptions" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "p256dh" TEXT NOT NULL,
    "auth" TEXT NOT NULL,
    "expiration_time" TIMESTAMPTZ(3),
    "last_active_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "push_subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "devices" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "credential_hash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "approved_by_id" TEXT NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "devices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "device_pairings" (
    "id" TEXT NOT NULL,
    "user_code" TEXT NOT NULL,
    "poll_secret_hash" TEXT NOT NULL,
    "device_name" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "workspace_id" TEXT,
    "device_id" TEXT,
    "credential_ciphertext" TEXT,
    "approved_by_id" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "device_pairings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "workspaces_organization_id_idx" ON "workspaces"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "memberships_user_id_idx" ON "memberships"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "memberships_workspace_id_user_id_key" ON "memberships"("workspace_id", "user_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_secret_hash_key" ON "api_keys"("secret_hash");

-- CreateIndex
CREATE INDEX "api_keys_workspace_id_id_idx" ON "api_keys"("workspace_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "login_sessions_token_hash_key" ON "login_sessions"("token_hash");

-- CreateIndex
CREATE INDEX "login_sessions_user_id_idx" ON "login_sessions"("user_id");

-- CreateIndex
CREATE INDEX "audit_events_workspace_id_id_idx" ON "audit_events"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "audit_events_workspace_id_resource_id_id_idx" ON "audit_events"("workspace_id", "resource_id", "id");

-- CreateIndex
CREATE INDEX "audit_events_workspace_id_resource_kind_id_idx" ON "audit_events"("workspace_id", "resource_kind", "id");

-- CreateIndex
CREATE INDEX "audit_events_workspace_id_principal_id_id_idx" ON "audit_events"("workspace_id", "principal_id", "id");

-- CreateIndex
CREATE INDEX "audit_events_workspace_id_created_at_idx" ON "audit_events"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "idempotency_records_workspace_id_scope_key_key" ON "idempotency_records"("workspace_id", "scope", "key");

-- CreateIndex
CREATE INDEX "providers_workspace_id_kind_id_idx" ON "providers"("workspace_id", "kind", "id");

-- CreateIndex
CREATE INDEX "models_workspace_id_provider_id_idx" ON "models"("workspace_id", "provider_id");

-- CreateIndex
CREATE INDEX "agents_workspace_id_id_idx" ON "agents"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "agents_workspace_id_archived_at_id_idx" ON "agents"("workspace_id", "archived_at", "id");

-- CreateIndex
CREATE INDEX "agents_workspace_id_preset_kind_idx" ON "agents"("workspace_id", "preset_kind");

-- CreateIndex
CREATE INDEX "agent_revisions_agent_id_digest_idx" ON "agent_revisions"("agent_id", "digest");

-- CreateIndex
CREATE INDEX "agent_revisions_agent_id_id_idx" ON "agent_revisions"("agent_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "agent_revisions_agent_id_number_key" ON "agent_revisions"("agent_id", "number");

-- CreateIndex
CREATE INDEX "agent_revision_skills_workspace_id_skill_id_agent_id_idx" ON "agent_revision_skills"("workspace_id", "skill_id", "agent_id");

-- CreateIndex
CREATE INDEX "agent_revision_skills_workspace_id_skill_revision_id_agent__idx" ON "agent_revision_skills"("workspace_id", "skill_revision_id", "agent_id");

-- CreateIndex
CREATE INDEX "skills_workspace_id_id_idx" ON "skills"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "skills_workspace_id_archived_at_id_idx" ON "skills"("workspace_id", "archived_at", "id");

-- CreateIndex
CREATE INDEX "skill_revisions_skill_id_digest_idx" ON "skill_revisions"("skill_id", "digest");

-- CreateIndex
CREATE UNIQUE INDEX "skill_revisions_skill_id_number_key" ON "skill_revisions"("skill_id", "number");

-- CreateIndex
CREATE INDEX "connections_workspace_id_id_idx" ON "connections"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "environment_templates_workspace_id_id_idx" ON "environment_templates"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "environments_workspace_id_id_idx" ON "environments"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "assets_workspace_id_id_idx" ON "assets"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "webhook_subscriptions_workspace_id_id_idx" ON "webhook_subscriptions"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "memories_workspace_id_id_idx" ON "memories"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "sessions_workspace_id_id_idx" ON "sessions"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "threads_workspace_id_id_idx" ON "threads"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "threads_workspace_id_session_id_id_idx" ON "threads"("workspace_id", "session_id", "id");

-- CreateIndex
CREATE INDEX "inbox_entries_thread_id_status_position_idx" ON "inbox_entries"("thread_id", "status", "position");

-- CreateIndex
CREATE UNIQUE INDEX "inbox_entries_thread_id_position_key" ON "inbox_entries"("thread_id", "position");

-- CreateIndex
CREATE INDEX "runs_workspace_id_id_idx" ON "runs"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "runs_workspace_id_agent_id_id_idx" ON "runs"("workspace_id", "agent_id", "id");

-- CreateIndex
CREATE INDEX "runs_workspace_id_thread_id_id_idx" ON "runs"("workspace_id", "thread_id", "id");

-- CreateIndex
CREATE INDEX "runs_workspace_id_session_id_id_idx" ON "runs"("workspace_id", "session_id", "id");

-- CreateIndex
CREATE INDEX "runs_workspace_id_principal_id_id_idx" ON "runs"("workspace_id", "principal_id", "id");

-- CreateIndex
CREATE INDEX "runs_workspace_id_status_id_idx" ON "runs"("workspace_id", "status", "id");

-- CreateIndex
CREATE INDEX "runs_status_lease_expires_at_idx" ON "runs"("status", "lease_expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "run_items_run_id_ordinal_key" ON "run_items"("run_id", "ordinal");

-- CreateIndex
CREATE INDEX "finding_analyses_workspace_id_id_idx" ON "finding_analyses"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "findings_workspace_id_analysis_id_id_idx" ON "findings"("workspace_id", "analysis_id", "id");

-- CreateIndex
CREATE INDEX "findings_workspace_id_agent_id_id_idx" ON "findings"("workspace_id", "agent_id", "id");

-- CreateIndex
CREATE INDEX "push_subscriptions_workspace_id_idx" ON "push_subscriptions"("workspace_id");

-- CreateIndex
CREATE UNIQUE INDEX "push_subscriptions_principal_id_endpoint_key" ON "push_subscriptions"("principal_id", "endpoint");

-- CreateIndex
CREATE UNIQUE INDEX "devices_credential_hash_key" ON "devices"("credential_hash");

-- CreateIndex
CREATE INDEX "devices_workspace_id_id_idx" ON "devices"("workspace_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "device_pairings_user_code_key" ON "device_pairings"("user_code");

-- CreateIndex
CREATE UNIQUE INDEX "device_pairings_poll_secret_hash_key" ON "device_pairings"("poll_secret_hash");

-- CreateIndex
CREATE INDEX "device_pairings_status_expires_at_idx" ON "device_pairings"("status", "expires_at");

-- AddForeignKey
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "login_sessions" ADD CONSTRAINT "login_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_revisions" ADD CONSTRAINT "agent_revisions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_revision_skills" ADD CONSTRAINT "agent_revision_skills_revision_id_fkey" FOREIGN KEY ("revision_id") REFERENCES "agent_revisions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "skill_revisions" ADD CONSTRAINT "skill_revisions_skill_id_fkey" FOREIGN KEY ("skill_id") REFERENCES "skills"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
