/**
 * Opt-outs: one list per store and mode, applied by default to every marketing send.
 * A contact joins by an inbound keyword (STOP and its equivalents), the operator's marketing
 * opt-out signal, an operator error 131050, or the API; leaves by an inbound START or the API.
 */
import { Schema } from "effect"

export const Source = Schema.Literal("keyword", "operator_preference", "operator_error", "api")
export type Source = typeof Source.Type

export interface OptOut {
  readonly phone: string
  readonly source: Source
  readonly createdAt: Date
}

const STOP_WORDS = new Set([
  // English
  "STOP", "STOPALL", "STOP ALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT", "OPT OUT", "OPT-OUT", "REMOVE",
  // Spanish / Portuguese
  "BAJA", "DARSE DE BAJA", "PARAR", "PARE", "DETENER", "CANCELAR", "SAIR",
  // French
  "ARRET", "ARRÊT", "STOPPER", "DESINSCRIRE", "DÉSINSCRIRE", "DESABONNER", "DÉSABONNER",
  // German
  "STOPP", "ABMELDEN", "ABBESTELLEN",
  // Italian
  "ANNULLA", "DISISCRIVIMI", "BASTA"
])

const START_WORDS = new Set(["START", "UNSTOP", "RESUME", "SUBSCRIBE"])

const normalize = (text: string): string =>
  text.trim().replace(/[.!?¡¿]+$/g, "").replace(/^[.!?¡¿]+/g, "").replace(/\s+/g, " ").toUpperCase()

/** What an inbound text asks for: the whole message must be the keyword (case-insensitive, punctuation ignored). */
export const keywordIntent = (text: string | null): "stop" | "start" | undefined => {
  if (text === null) return undefined
  const word = normalize(text)
  if (STOP_WORDS.has(word)) return "stop"
  if (START_WORDS.has(word)) return "start"
  return undefined
}

export const OptOutResource = Schema.Struct({
  phone: Schema.String,
  source: Source,
  created_at: Schema.String
}).annotations({ identifier: "OptOut" })

export const toResource = (o: OptOut) => ({ phone: o.phone, source: o.source, created_at: o.createdAt.toISOString() })
