/**
 * The path of a route that names one resource: `/…/:id`. The id is taken as text and
 * checked by the use case against its kind (`Id.lookup`): a malformed id answers the same
 * 404 as an unknown one, without a query.
 */
import { Schema } from "effect"

export const IdPath = Schema.Struct({ id: Schema.String })
