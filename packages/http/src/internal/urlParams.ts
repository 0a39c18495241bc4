/**
 * Unknown query parameters are refused, not ignored: `GET /chat/templates?name=x` answers
 * 400 `validation_failed` naming `name` instead of every template. Each group is declared
 * through `strictGroup`, which gives every endpoint a URL parameter schema that refuses
 * names it does not declare (an endpoint without parameters gets one that accepts none).
 * The platform and the fast lane both decode with the endpoint's own schema, so both refuse.
 */
import type { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Option, Schema } from "effect"

const unknown = "is not a known field"

/** No URL parameters at all: any name is refused. */
const None = Schema.Struct({}).pipe(
  Schema.filter((params) => {
    const name = Object.keys(params)[0]
    return name === undefined ? true : { path: [name], message: unknown }
  })
)

/** `schema`, refusing names it does not declare (400 `validation_failed`: "<name>: is not a known field"). */
export const strict = <S extends Schema.Schema.Any>(schema: S): S =>
  schema.annotations({ parseOptions: { onExcessProperty: "error" } }) as unknown as S

/** `group` with every endpoint's URL parameters strict (see above). */
export const strictGroup = <G extends HttpApiGroup.HttpApiGroup.Any>(group: G): G => {
  const g = group as unknown as HttpApiGroup.HttpApiGroup.AnyWithProps
  // `add` takes one endpoint and replaces the one of its name, keeping the group's order
  return Object.values(g.endpoints).reduce(
    (strictOne, endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps) =>
      strictOne.add(
        endpoint.setUrlParams(
          Option.match(endpoint.urlParamsSchema, { onNone: () => None, onSome: (schema) => strict(schema as Schema.Schema.Any) }) as never
        ) as never
      ) as unknown as HttpApiGroup.HttpApiGroup.AnyWithProps,
    g
  ) as unknown as G
}
