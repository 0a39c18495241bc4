/**
 * A fast encoder for answers the application made itself: the schema's encoding, compiled
 * once into plain functions, that trusts the value's type instead of checking it again.
 *
 * `Schema.encode` checks every refinement of the value on its way out (each id's pattern,
 * each time's ISO shape) and, for an endpoint's success, first tests the whole value against
 * every member of the success union: for a list page that is several times the cost of
 * `JSON.stringify`, on every request. The values a handler answers were made by the
 * application from its own types (rows it stored after decoding them), so this encoder only
 * transforms: renamed keys, transformations' `encode` (times to ISO text), structs (only the
 * declared keys, in the encoded side's order, as `Schema.encode` writes them), arrays.
 * Refinements are not checked again. Anything else (unions of non-plain members, declarations
 * with type parameters, suspended schemas, tuples) falls back to `Schema.encodeSync` for that
 * part, so the output is always `Schema.encode`'s.
 */
import { Either, Option, ParseResult, Schema, SchemaAST as AST } from "effect"

type Encode = (a: any) => any

/** Marks an encoder that answers its input as it is. */
const identity: Encode = (a) => a

const fallback = (ast: AST.AST): Encode => ParseResult.encodeSync(Schema.make(ast))

const unwrap = (result: unknown): unknown => {
  if (Either.isEither(result)) {
    if (Either.isLeft(result)) throw new ParseResult.ParseError({ issue: result.left as ParseResult.ParseIssue })
    return result.right
  }
  return undefined
}

const memo = new WeakMap<AST.AST, Encode>()

const compile = (ast: AST.AST): Encode => {
  const known = memo.get(ast)
  if (known !== undefined) return known
  const made = make(ast)
  memo.set(ast, made)
  return made
}

const make = (ast: AST.AST): Encode => {
  switch (ast._tag) {
    case "Literal":
    case "UniqueSymbol":
    case "UndefinedKeyword":
    case "VoidKeyword":
    case "UnknownKeyword":
    case "AnyKeyword":
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "BigIntKeyword":
    case "SymbolKeyword":
    case "ObjectKeyword":
    case "Enums":
    case "TemplateLiteral":
      return identity
    case "Refinement":
      // the value's type is trusted: encode what it refines
      return compile(ast.from)
    case "Declaration":
      // a declaration without type parameters whose encoding is the identity (`Schema.declare(is)`)
      return ast.typeParameters.length === 0 ? declaration(ast) : fallback(ast)
    case "Union":
      return ast.types.every((member) => compile(member) === identity) ? identity : fallback(ast)
    case "TupleType":
      return array(ast)
    case "TypeLiteral":
      return typeLiteral(ast)
    case "Transformation":
      return transformation(ast)
    default:
      return fallback(ast)
  }
}

const declaration = (ast: AST.Declaration): Encode => {
  const encode = ast.encodeUnknown()
  return (a) => {
    const result = encode(a, AST.defaultParseOption, ast)
    return Either.isEither(result) ? unwrap(result) : fallback(ast)(a)
  }
}

const array = (ast: AST.TupleType): Encode => {
  if (ast.elements.length > 0 || ast.rest.length !== 1) return fallback(ast)
  const item = compile(ast.rest[0].type)
  if (item === identity) return (a: ReadonlyArray<unknown>) => a.slice()
  return (a: ReadonlyArray<unknown>) => {
    const out = new Array(a.length)
    for (let i = 0; i < a.length; i++) out[i] = item(a[i])
    return out
  }
}

const typeLiteral = (ast: AST.TypeLiteral): Encode => {
  if (ast.indexSignatures.length > 0 || ast.propertySignatures.some((ps) => typeof ps.name !== "string")) return fallback(ast)
  const fields = ast.propertySignatures.map((ps) => ({ name: ps.name as string, optional: ps.isOptional, encode: compile(ps.type) }))
  return (a: Record<string, unknown>) => {
    const out: Record<string, unknown> = {}
    for (const { name, optional, encode } of fields) {
      if (Object.hasOwn(a, name)) out[name] = encode(a[name])
      else if (!optional) return fallback(ast)(a)
    }
    return out
  }
}

const transformation = (ast: AST.Transformation): Encode => {
  const toSide = compile(ast.to)
  const fromSide = compile(ast.from)
  const kind = ast.transformation
  switch (kind._tag) {
    case "ComposeTransformation":
      return (a) => fromSide(toSide(a))
    case "FinalTransformation":
      return (a) => {
        const typed = toSide(a)
        const result = kind.encode(typed, AST.defaultParseOption, ast, a)
        return Either.isEither(result) ? fromSide(unwrap(result)) : fallback(ast)(a)
      }
    case "TypeLiteralTransformation": {
      const renames = kind.propertySignatureTransformations
      const renamed = new Set<PropertyKey>(renames.map((pst) => pst.to))
      // a new object rather than `delete` on the encoded one: V8 turns an object it deletes
      // keys from into a slow dictionary, for the rest of the encoding and for JSON.stringify
      return (a) => {
        const typed = toSide(a) as Record<PropertyKey, unknown>
        const out: Record<PropertyKey, unknown> = {}
        for (const key in typed) if (!renamed.has(key)) out[key] = typed[key]
        for (const pst of renames) {
          const o = pst.encode(Object.hasOwn(typed, pst.to) ? Option.some(typed[pst.to]) : Option.none())
          if (Option.isSome(o)) out[pst.from] = o.value
        }
        return fromSide(out)
      }
    }
  }
}

/**
 * The encoder of `schema` for values of its type made by the application (see above). Made
 * once per schema; throws a `ParseError` only where it falls back to `Schema.encodeSync`.
 */
export const trusted = <A, I, R>(schema: Schema.Schema<A, I, R>): ((a: A) => I) => compile(schema.ast) as (a: A) => I
