/**
 * How resources name their fields on the wire. A resource schema is derived from its entity:
 * the entity's field under its snake_case name (`createdAt` shown as `created_at`).
 */
import { Schema } from "effect"

/** The entity field `schema` shown under the wire name `key`. */
export const key = <S extends Schema.Schema.All, const K extends string>(schema: S, key: K) =>
  Schema.propertySignature(schema).pipe(Schema.fromKey(key))
