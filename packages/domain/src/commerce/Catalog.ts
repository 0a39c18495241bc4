/**
 * Catalogs (spec §4.1): the store's product catalogs, mirrored at the operator. A catalog
 * belongs to one tenant (store and mode); another tenant's id answers as an id that does
 * not exist. It is either created here (`origin: created`, made at the operator and
 * connected to the tenant's WhatsApp business account) or an operator catalog that already
 * existed, connected by its id (`origin: connected`). One operator catalog is at most one
 * catalog of a tenant.
 */
import { Schema } from "effect"
import * as Id from "../shared/Id.js"
import { Owned } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"

/** `cat_…` */
export const CatalogId = Id.kind("cat", "CatalogId")
export type CatalogId = Id.Of<typeof CatalogId>

export const Origin = Schema.Literal("created", "connected")

export const Catalog = Schema.Struct({
  id: CatalogId.schema,
  ...Owned,
  name: Schema.String,
  operatorCatalogId: Schema.String,
  origin: Origin,
  /** Whether it is connected to the tenant's WhatsApp business account (customers can browse it). */
  connected: Schema.Boolean,
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export interface Catalog extends Schema.Schema.Type<typeof Catalog> {}

const strict = { parseOptions: { onExcessProperty: "error" } } as const
const Name = Schema.String.pipe(Schema.filter((s) => (s.trim().length > 0 && s.length <= 200) || "must be 1 to 200 characters"))
const OperatorCatalogId = Schema.String.pipe(Schema.filter((s) => /^\d{1,30}$/.test(s) || "must be the operator's numeric catalog id"))

/** `POST /chat/catalogs`. */
export const CreateCatalog = Schema.Struct({ name: Name }).annotations({ ...strict, identifier: "CreateCatalog" })
/** `PATCH /chat/catalogs/{id}`. */
export const UpdateCatalog = Schema.Struct({ name: Schema.optional(Name) }).annotations({ ...strict, identifier: "UpdateCatalog" })
/** `POST /chat/catalogs/connect`: an existing operator catalog, by its id; its name unless `name` is given. */
export const ConnectCatalog = Schema.Struct({ operator_catalog_id: OperatorCatalogId, name: Schema.optional(Name) }).annotations({
  ...strict,
  identifier: "ConnectCatalog"
})

/** The catalog as the API shows it. */
export const CatalogResource = Schema.Struct({
  id: Catalog.fields.id,
  name: Catalog.fields.name,
  operatorCatalogId: Wire.key(Catalog.fields.operatorCatalogId, "operator_catalog_id"),
  origin: Catalog.fields.origin,
  connected: Catalog.fields.connected,
  createdAt: Wire.key(Time.IsoDateTime, "created_at"),
  updatedAt: Wire.key(Time.IsoDateTime, "updated_at")
}).annotations({ identifier: "Catalog" })

export const Deleted = Schema.Struct({ id: CatalogId.schema, deleted: Schema.Literal(true) })
