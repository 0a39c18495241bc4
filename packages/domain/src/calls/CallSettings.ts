/**
 * Call settings (spec §4.8; GRAPH_API.md §6.7): the operator's `calling` settings of the
 * store's number, mirrored there on every change and kept here per tenant. The request takes
 * the operator's fields at the top level in either casing (`enabled` or `ENABLED`); we keep
 * and answer them in upper case, as the operator answers. SIP passwords are secrets: stored
 * apart, sent to the operator, never answered and never logged (`password_set` says whether
 * one is held).
 *
 * Checked here, each refusal naming its field: an IANA time zone; at most 2 ranges per day,
 * each opening before it closes (`HHMM`), not overlapping; at most 20 holidays, as dates.
 */
import { Schema } from "effect"
import { type Mode, Owned, type StoreId } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** One of `values`, in any casing; decoded to upper case. */
const Upper = <const V extends ReadonlyArray<string>>(...values: V) =>
  Schema.transform(
    Schema.String.pipe(Schema.filter((s) => values.includes(s.toUpperCase()) || `must be one of ${values.join(", ")} (either casing)`)),
    Schema.Literal(...values),
    { strict: false, decode: (s) => s.toUpperCase(), encode: (s) => s }
  )

const OnOff = Upper("ENABLED", "DISABLED")
export const DAYS = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"] as const

const isClock = (s: string) => s.length === 4 && [...s].every((c) => c >= "0" && c <= "9") && Number(s.slice(0, 2)) <= 23 && Number(s.slice(2)) <= 59
const Clock = Schema.String.pipe(Schema.filter((s) => isClock(s) || "must be a time of day as HHMM, e.g. 0930"))
const isDate = (s: string) =>
  s.length === 10 &&
  s[4] === "-" &&
  s[7] === "-" &&
  !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) &&
  new Date(`${s}T00:00:00Z`).toISOString().startsWith(s)
const DateText = Schema.String.pipe(Schema.filter((s) => isDate(s) || "must be a date as YYYY-MM-DD"))

/** Whether `zone` is an IANA time zone the runtime knows. */
export const isTimeZone = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone })
    return zone.length > 0
  } catch {
    return false
  }
}

export const OperatingHours = Schema.Struct({
  day_of_week: Upper(...DAYS),
  open_time: Clock,
  close_time: Clock
}).annotations({ ...strict, identifier: "CallOperatingHours" })

export const Holiday = Schema.Struct({
  date: DateText,
  start_time: Schema.optional(Clock),
  end_time: Schema.optional(Clock)
}).annotations({ ...strict, identifier: "CallHoliday" })

const WeeklyHours = Schema.Array(OperatingHours).pipe(
  Schema.filter((ranges) => {
    for (const [i, r] of ranges.entries()) {
      if (r.open_time >= r.close_time) return { path: [i, "close_time"], message: "must be after open_time" }
    }
    for (const day of DAYS) {
      const ofDay = ranges.map((r, i) => ({ r, i })).filter(({ r }) => r.day_of_week === day)
      if (ofDay.length > 2) return { path: [ofDay[2].i, "day_of_week"], message: `at most 2 ranges per day (${day} has ${ofDay.length})` }
      const [x, y] = ofDay
      if (x !== undefined && y !== undefined && x.r.open_time < y.r.close_time && y.r.open_time < x.r.close_time) {
        return { path: [y.i, "open_time"], message: `overlaps the other ${day} range` }
      }
    }
    return true
  })
)

export const CallHours = Schema.Struct({
  status: Schema.optional(OnOff),
  timezone_id: Schema.optional(Schema.String.pipe(Schema.filter((z) => isTimeZone(z) || "must be an IANA time zone, e.g. America/New_York"))),
  weekly_operating_hours: Schema.optional(WeeklyHours),
  holiday_schedule: Schema.optional(Schema.Array(Holiday).pipe(Schema.maxItems(20)))
}).annotations({ ...strict, identifier: "CallHours" })
export type CallHours = typeof CallHours.Type

export const SipServer = Schema.Struct({
  hostname: Schema.String.pipe(Schema.filter((h) => (h.length > 0 && h.length <= 253 && !h.includes(" ")) || "must be a host name")),
  port: Schema.optional(Schema.Number.pipe(Schema.filter((p) => (Number.isInteger(p) && p >= 1 && p <= 65535) || "must be a port from 1 to 65535"))),
  app_id: Schema.optional(Schema.String),
  /** A secret: sent to the operator, never answered. */
  password: Schema.optional(Schema.String.pipe(Schema.filter((p) => (p.length > 0 && p.length <= 256) || "must be 1 to 256 characters")))
}).annotations({ ...strict, identifier: "SipServer" })

/** `PATCH /chat/calls/settings`: the operator's `calling` fields at the top level; fields left out stay. */
export const UpdateCallSettings = Schema.Struct({
  status: Schema.optional(OnOff),
  call_icon_visibility: Schema.optional(Upper("DEFAULT", "DISABLE_ALL")),
  call_icons: Schema.optional(
    Schema.Struct({
      restrict_to_user_countries: Schema.Array(
        Schema.String.pipe(Schema.filter((c) => (c.length === 2 && c === c.toUpperCase()) || "must be an ISO 3166-1 alpha-2 code such as US"))
      )
    }).annotations(strict)
  ),
  call_hours: Schema.optional(CallHours),
  callback_permission_status: Schema.optional(OnOff),
  srtp_key_exchange_protocol: Schema.optional(Upper("DTLS", "SDES")),
  sip: Schema.optional(
    Schema.Struct({ status: Schema.optional(OnOff), servers: Schema.optional(Schema.Array(SipServer).pipe(Schema.maxItems(10))) }).annotations(strict)
  )
}).annotations({ ...strict, identifier: "UpdateCallSettings" })
export type UpdateCallSettings = typeof UpdateCallSettings.Type

/** The settings as kept (and answered): upper case, SIP servers without passwords. */
export interface Calling {
  readonly status: "ENABLED" | "DISABLED"
  readonly call_icon_visibility: "DEFAULT" | "DISABLE_ALL"
  readonly call_icons: { readonly restrict_to_user_countries: ReadonlyArray<string> }
  readonly call_hours: {
    readonly status: "ENABLED" | "DISABLED"
    readonly timezone_id: string | null
    readonly weekly_operating_hours: ReadonlyArray<typeof OperatingHours.Type>
    readonly holiday_schedule: ReadonlyArray<typeof Holiday.Type>
  }
  readonly callback_permission_status: "ENABLED" | "DISABLED"
  readonly srtp_key_exchange_protocol: "DTLS" | "SDES"
  readonly sip: {
    readonly status: "ENABLED" | "DISABLED"
    readonly servers: ReadonlyArray<{
      readonly hostname: string
      readonly port: number | null
      readonly app_id: string | null
      readonly password_set: boolean
    }>
  }
}

export const DEFAULTS: Calling = {
  status: "ENABLED",
  call_icon_visibility: "DEFAULT",
  call_icons: { restrict_to_user_countries: [] },
  call_hours: { status: "DISABLED", timezone_id: null, weekly_operating_hours: [], holiday_schedule: [] },
  callback_permission_status: "DISABLED",
  srtp_key_exchange_protocol: "DTLS",
  sip: { status: "DISABLED", servers: [] }
}

export const CallSettings = Schema.Struct({
  ...Owned,
  calling: Schema.Unknown,
  /** SIP passwords by host name: secrets. */
  sipSecrets: Schema.Record({ key: Schema.String, value: Schema.String }),
  updatedAt: Schema.NullOr(Schema.Number)
})
export interface CallSettings {
  readonly storeId: StoreId
  readonly mode: Mode
  readonly calling: Calling
  readonly sipSecrets: Readonly<Record<string, string>>
  readonly updatedAt: Time.Millis | null
}

/** `patch` applied to `current`: the calling settings to keep and the SIP secrets to hold. */
export const apply = (
  current: CallSettings,
  patch: UpdateCallSettings
): { readonly calling: Calling; readonly sipSecrets: Readonly<Record<string, string>> } => {
  const c = current.calling
  const hours = patch.call_hours
  const secrets: Record<string, string> = {}
  const servers =
    patch.sip?.servers === undefined
      ? c.sip.servers
      : patch.sip.servers.map((s) => {
          const password = s.password ?? current.sipSecrets[s.hostname]
          if (password !== undefined) secrets[s.hostname] = password
          return { hostname: s.hostname, port: s.port ?? null, app_id: s.app_id ?? null, password_set: password !== undefined }
        })
  if (patch.sip?.servers === undefined) Object.assign(secrets, current.sipSecrets)
  return {
    calling: {
      status: patch.status ?? c.status,
      call_icon_visibility: patch.call_icon_visibility ?? c.call_icon_visibility,
      call_icons: patch.call_icons ?? c.call_icons,
      call_hours:
        hours === undefined
          ? c.call_hours
          : {
              status: hours.status ?? c.call_hours.status,
              timezone_id: hours.timezone_id ?? c.call_hours.timezone_id,
              weekly_operating_hours: hours.weekly_operating_hours ?? c.call_hours.weekly_operating_hours,
              // the operator clears holidays a change leaves out (GRAPH_API.md §6.7)
              holiday_schedule: hours.holiday_schedule ?? []
            },
      callback_permission_status: patch.callback_permission_status ?? c.callback_permission_status,
      srtp_key_exchange_protocol: patch.srtp_key_exchange_protocol ?? c.srtp_key_exchange_protocol,
      sip: { status: patch.sip?.status ?? c.sip.status, servers }
    },
    sipSecrets: secrets
  }
}

/** The operator's `calling` object of `calling`, with the SIP passwords put back in. */
export const toOperator = (calling: Calling, sipSecrets: Readonly<Record<string, string>>): Record<string, unknown> => ({
  ...calling,
  call_hours: { ...calling.call_hours, ...(calling.call_hours.timezone_id === null ? { timezone_id: undefined } : {}) },
  sip: {
    status: calling.sip.status,
    servers: calling.sip.servers.map((s) => ({
      hostname: s.hostname,
      ...(s.port === null ? {} : { port: s.port }),
      ...(s.app_id === null ? {} : { app_id: s.app_id }),
      ...(sipSecrets[s.hostname] === undefined ? {} : { password: sipSecrets[s.hostname] })
    }))
  }
})

/** Whether the call hours are open at `now` (always, when call hours are off or have no time zone). */
export const hoursOpenAt = (calling: Calling, now: Time.Millis): boolean => {
  const hours = calling.call_hours
  if (hours.status !== "ENABLED" || hours.timezone_id === null) return true
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", {
      timeZone: hours.timezone_id,
      weekday: "long",
      hour: "2-digit",
      minute: "2-digit",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hourCycle: "h23"
    })
      .formatToParts(new Date(now))
      .map((p) => [p.type, p.value])
  )
  const date = `${parts.year}-${parts.month}-${parts.day}`
  const clock = `${parts.hour}${parts.minute}`
  if (
    hours.holiday_schedule.some((h) => h.date === date && (h.start_time === undefined || (h.start_time <= clock && clock < (h.end_time ?? "2400"))))
  ) {
    return false
  }
  const day = String(parts.weekday).toUpperCase()
  return hours.weekly_operating_hours.some((r) => r.day_of_week === day && r.open_time <= clock && clock < r.close_time)
}

const SipServerShown = Schema.Struct({
  hostname: Schema.String,
  port: Schema.NullOr(Schema.Number),
  app_id: Schema.NullOr(Schema.String),
  password_set: Schema.Boolean
})

/** The settings as the API shows them. */
export const CallSettingsResource = Schema.Struct({
  status: Schema.Literal("ENABLED", "DISABLED"),
  call_icon_visibility: Schema.Literal("DEFAULT", "DISABLE_ALL"),
  call_icons: Schema.Struct({ restrict_to_user_countries: Schema.Array(Schema.String) }),
  call_hours: Schema.Struct({
    status: Schema.Literal("ENABLED", "DISABLED"),
    timezone_id: Schema.NullOr(Schema.String),
    weekly_operating_hours: Schema.Array(
      Schema.Struct({ day_of_week: Schema.Literal(...DAYS), open_time: Schema.String, close_time: Schema.String })
    ),
    holiday_schedule: Schema.Array(
      Schema.Struct({ date: Schema.String, start_time: Schema.optional(Schema.String), end_time: Schema.optional(Schema.String) })
    )
  }),
  callback_permission_status: Schema.Literal("ENABLED", "DISABLED"),
  srtp_key_exchange_protocol: Schema.Literal("DTLS", "SDES"),
  sip: Schema.Struct({ status: Schema.Literal("ENABLED", "DISABLED"), servers: Schema.Array(SipServerShown) }),
  updated_at: Schema.NullOr(Time.IsoDateTime)
}).annotations({ identifier: "CallSettings" })
