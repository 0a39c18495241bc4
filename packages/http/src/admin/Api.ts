/**
 * The admin routes, behind `Authorization: Bearer <SWITCHBOARD_ADMIN_TOKEN>` (unset: every
 * admin route answers 401): what spans stores, for the console's administrator. Every
 * store with its keys (first characters, mode, expiry; never the keys), a key rotation with
 * a grace period, the job queue by kind and state, and the latest operator webhooks.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Pagination, Tenant, Time } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import * as Endpoints from "../internal/Endpoints.js"
import { Docs } from "../openapi/Document.js"

export class AdminAuthentication extends HttpApiMiddleware.Tag<AdminAuthentication>()("@switchboard/http/AdminAuthentication", {
  failure: ApiError.Unauthorized,
  security: { adminToken: HttpApiSecurity.bearer }
}) {}

const Key = Schema.Struct({
  id: Schema.String,
  hint: Schema.String,
  mode: Tenant.Mode,
  createdAt: Schema.propertySignature(Time.IsoDateTime).pipe(Schema.fromKey("created_at")),
  expiresAt: Schema.propertySignature(Schema.NullOr(Time.IsoDateTime)).pipe(Schema.fromKey("expires_at"))
}).annotations({ identifier: "AdminApiKey" })

const AdminStore = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  createdAt: Schema.propertySignature(Time.IsoDateTime).pipe(Schema.fromKey("created_at")),
  displayPhoneNumber: Schema.propertySignature(Schema.String).pipe(Schema.fromKey("display_phone_number")),
  live: Schema.Boolean,
  keys: Schema.Array(Key)
}).annotations({ identifier: "AdminStore" })

export const RotateKey = Schema.Struct({
  mode: Tenant.Mode,
  graceSeconds: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 30 * 24 * 3600)), { default: () => 86_400 }).pipe(
    Schema.fromKey("grace_seconds")
  )
}).annotations({ parseOptions: { onExcessProperty: "error" } })

const RotatedKey = Schema.Struct({
  key: Schema.String,
  id: Schema.String,
  mode: Tenant.Mode,
  oldKeysExpireAt: Schema.propertySignature(Time.IsoDateTime).pipe(Schema.fromKey("old_keys_expire_at")),
  expiring: Schema.Int
}).annotations({ identifier: "RotatedApiKey" })

const JobKindRow = Schema.Struct({
  kind: Schema.String,
  queued: Schema.Int,
  running: Schema.Int,
  dead: Schema.Int,
  oldestAgeSeconds: Schema.propertySignature(Schema.NullOr(Schema.Number)).pipe(Schema.fromKey("oldest_age_seconds"))
})
const JobQueueView = Schema.Struct({ kinds: Schema.Array(JobKindRow) }).annotations({ identifier: "AdminJobQueue" })

const InboxRow = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  fields: Schema.Array(Schema.String),
  phoneNumberIds: Schema.propertySignature(Schema.Array(Schema.String)).pipe(Schema.fromKey("phone_number_ids")),
  bytes: Schema.Int,
  receivedAt: Schema.propertySignature(Time.IsoDateTime).pipe(Schema.fromKey("received_at")),
  processedAt: Schema.propertySignature(Schema.NullOr(Time.IsoDateTime)).pipe(Schema.fromKey("processed_at")),
  outcome: Schema.NullOr(Schema.String)
})
const InboxView = Schema.Struct({ entries: Schema.Array(InboxRow) }).annotations({ identifier: "AdminInbox" })

const time = "2026-05-04T09:30:00.000Z"
const storeExample = {
  id: "str_01M859WX3D5Q6Y2V0K8E7B1C4A",
  name: "Shop A",
  created_at: time,
  display_phone_number: "15550783881",
  live: false,
  keys: [{ id: "key_01M859WX3D5Q6Y2V0K8E7B1C4B", hint: "sk_test_Ab3d", mode: "test", created_at: time, expires_at: null }]
}

export class AdminGroup extends HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.get("stores", "/stores").addSuccess(
      Schema.Struct({ stores: Schema.Array(AdminStore) }).annotations({ identifier: "AdminStores" })
    )
  )
  .add(Endpoints.createIn("rotateKey", "/stores/:id/keys/rotate", RotateKey, RotatedKey, [ApiError.ResourceNotFound]))
  .add(HttpApiEndpoint.get("jobs", "/jobs").addSuccess(JobQueueView))
  .add(
    HttpApiEndpoint.get("inbox", "/inbox")
      .setUrlParams(Schema.Struct({ limit: Pagination.Limit }))
      .addSuccess(InboxView)
  )
  .middleware(AdminAuthentication)
  .prefix("/admin")
  .annotate(Docs, {
    tags: { admin: "Across stores, behind the admin token (SWITCHBOARD_ADMIN_TOKEN)" },
    ids: { stores: storeExample.id },
    operations: {
      "admin.stores": {
        summary: "List every store with its keys",
        description: "Keys show their first characters, mode and expiry, never the key.",
        response: { stores: [storeExample] }
      },
      "admin.rotateKey": {
        summary: "Rotate a store's key",
        description:
          "A new key of `mode`, shown this once. The store's other keys of that mode keep working for `grace_seconds` (default a day; 0 stops them now).",
        request: { mode: "test", grace_seconds: 3600 },
        response: {
          key: "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
          id: "key_01M859WX3D5Q6Y2V0K8E7B1C4C",
          mode: "test",
          old_keys_expire_at: time,
          expiring: 1
        }
      },
      "admin.jobs": {
        summary: "The job queue by kind",
        description: "Queued (runnable or waiting), running and dead jobs of each kind, and the age of the oldest one not finished.",
        response: { kinds: [{ kind: "webhook.deliver", queued: 2, running: 1, dead: 0, oldest_age_seconds: 4 }] }
      },
      "admin.inbox": {
        summary: "The latest operator webhooks",
        description: "Newest first (`limit`, 1–100, default 25): the fields and numbers each names, when it was processed and its outcome.",
        response: {
          entries: [
            {
              id: "inb_01M859WX3D5Q6Y2V0K8E7B1C4D",
              kind: "sandbox",
              fields: ["messages"],
              phone_number_ids: ["106540352242922"],
              bytes: 812,
              received_at: time,
              processed_at: time,
              outcome: "processed"
            }
          ]
        }
      }
    }
  }) {}
