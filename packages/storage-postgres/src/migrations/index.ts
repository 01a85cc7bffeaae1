/**
 * Every migration, in order. A new one goes in a file of its own (`0002_<name>.ts`) and at the
 * end of {@link MIGRATIONS}; released ones are never edited.
 * @module
 */
import { initialMigration } from './0001_initial.js';
import { runQueueMigration } from './0002_run_queue.js';
import { outboundAndFlowControlMigration } from './0003_outbound_and_flow_control.js';
import { deliveryPayloadsMigration } from './0004_delivery_payloads.js';
import { runReportsDueMigration } from './0005_run_reports_due.js';
import { conversationVersionsMigration } from './0006_conversation_versions.js';
import { runReportsMigration } from './0007_run_reports.js';
import { threadsMigration } from './0008_threads.js';
import { auditMigration } from './0009_audit.js';
import { spendMigration } from './0010_spend.js';
import { consoleSignInMigration } from './0011_console_sign_in.js';
import { runsByOrgMigration } from './0012_runs_by_org.js';
import { runsOverviewMigration } from './0013_runs_overview.js';
import type { Migration } from './migration.js';

export type { Migration } from './migration.js';

export const MIGRATIONS: readonly Migration[] = [
  initialMigration,
  runQueueMigration,
  outboundAndFlowControlMigration,
  deliveryPayloadsMigration,
  runReportsDueMigration,
  conversationVersionsMigration,
  runReportsMigration,
  threadsMigration,
  auditMigration,
  spendMigration,
  consoleSignInMigration,
  runsByOrgMigration,
  runsOverviewMigration,
];
