/**
 * Opt-outs: one list per store and mode, applied by default to every marketing send.
 * A contact joins by an inbound keyword (STOP and its equivalents), the operator's marketing
 * opt-out signal, an operator error 131050, or the API; leaves by an inbound START or the API.
 */
import { Schema } from "effect"
import * as Phone from "../shared/Phone.js"
import * as Time from "../shared/Time.js"

export const Source = Schema.Literal("keyword", "operator_preference", "operator_error", "api")
export type Source = typeof Source.Type

/** One contact on the list of a tenant (the tenant is the list's, not the entry's). */
export const OptOut = Schema.Struct({
  /** E.164. */
  phone: Schema.String,
  /** How the contact first joined; a later join keeps it. */
  source: Source,
  createdAt: Schema.Number
}).annotations({ identifier: "OptOutEntity" })
export interface OptOut extends Schema.Schema.Type<typeof OptOut> {}

const STOP_WORDS = new Set([
  // English
  "STOP",
  "STOPALL",
  "STOP ALL",
  "UNSUBSCRIBE",
  "CANCEL",
  "END",
  "QUIT",
  "OPTOUT",
  "OPT OUT",
  "OPT-OUT",
  "REMOVE",
  // Spanish / Portuguese
  "BAJA",
  "DARSE DE BAJA",
  "PARAR",
  "PARE",
  "DETENER",
  "CANCELAR",
  "SAIR",
  // French
  "ARRET",
  "ARRÊT",
  "STOPPER",
  "DESINSCRIRE",
  "DÉSINSCRIRE",
  "DESABONNER",
  "DÉSABONNER",
  // German
  "STOPP",
  "ABMELDEN",
  "ABBESTELLEN",
  // Italian
  "ANNULLA",
  "DISISCRIVIMI",
  "BASTA"
])

const START_WORDS = new Set(["START", "UNSTOP", "RESUME", "SUBSCRIBE"])

const normalize = (text: string): string =>
  text
    .trim()
    .replace(/[.!?¡¿]+$/g, "")
    .replace(/^[.!?¡¿]+/g, "")
    .replace(/\s+/g, " ")
    .toUpperCase()

/** What an inbound text asks for: the whole message must be the keyword (case-insensitive, punctuation ignored). */
export const keywordIntent = (text: string | null): "stop" | "start" | undefined => {
  if (text === null) return undefined
  const word = normalize(text)
  if (STOP_WORDS.has(word)) return "stop"
  if (START_WORDS.has(word)) return "start"
  return undefined
}

/** The opt-out as the API shows it. */
export const OptOutResource = Schema.Struct({
  phone: OptOut.fields.phone,
  source: OptOut.fields.source,
  createdAt: Schema.propertySignature(Time.IsoDateTime).pipe(Schema.fromKey("created_at"))
}).annotations({ identifier: "OptOut" })

/**
 * Where a page of the list starts: the list is ordered by phone, so its cursor is the last
 * phone of the previous page (a cursor that is not an E.164 number was not ours).
 */
export const Position = Schema.String.pipe(Schema.filter((s) => Phone.normalize(s) !== undefined))

/** `POST /chat/opt-outs`. */
export const AddOptOut = Schema.Struct({ phone: Schema.String }).annotations({ parseOptions: { onExcessProperty: "error" } })

/** The answer of `POST /chat/opt-outs`: `created` is false when the phone was on the list already. */
export const Added = Schema.Struct({ phone: Schema.String, opted_out: Schema.Literal(true), created: Schema.Boolean })

/** The answer of `DELETE /chat/opt-outs/:phone`. */
export const Removed = Schema.Struct({ phone: Schema.String, opted_out: Schema.Literal(false) })
