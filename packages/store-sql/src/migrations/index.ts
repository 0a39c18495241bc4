/**
 * Every migration, in order. Kysely runs them by name, so names start with a zero-padded
 * sequence number; append new ones at the end, never edit one that has shipped.
 */
import type { Migration } from "kysely"
import * as m0001 from "./0001_foundation.js"
import * as m0002 from "./0002_messaging.js"
import * as m0003 from "./0003_campaigns.js"
import * as m0004 from "./0004_jobs_runnable.js"
import * as m0005 from "./0005_template_quality.js"
import * as m0006 from "./0006_key_expiry_and_message_list.js"
import * as m0007 from "./0007_campaign_template_parameters.js"

export const migrations: Readonly<Record<string, Migration>> = {
  "0001_foundation": m0001,
  "0002_messaging": m0002,
  "0003_campaigns": m0003,
  "0004_jobs_runnable": m0004,
  "0005_template_quality": m0005,
  "0006_key_expiry_and_message_list": m0006,
  "0007_campaign_template_parameters": m0007
}
