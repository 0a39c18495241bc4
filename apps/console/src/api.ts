/**
 * The console's one fetch helper: every call goes to the public HTTP API (or the admin
 * routes) with the signed-in credential as a bearer token. The credential stays in this
 * tab's sessionStorage.
 */
export interface Session {
  readonly token: string
  /** A store key (`sk_live_…`, `sk_test_…`) or the admin token. */
  readonly kind: "key" | "admin"
}

const STORAGE = "switchboard.console.session"

export const loadSession = (): Session | null => {
  const raw = sessionStorage.getItem(STORAGE)
  return raw === null ? null : (JSON.parse(raw) as Session)
}

export const saveSession = (session: Session | null) =>
  session === null ? sessionStorage.removeItem(STORAGE) : sessionStorage.setItem(STORAGE, JSON.stringify(session))

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string
  ) {
    super(message)
  }
}

/** Calls the API; answers the JSON body, or throws an ApiError with the envelope's code and message. */
export const api = async <T = any>(method: string, path: string, body?: unknown, token = loadSession()?.token): Promise<T> => {
  const headers: Record<string, string> = {}
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  if (body !== undefined) headers["content-type"] = "application/json"
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  const json = text === "" ? undefined : JSON.parse(text)
  if (!res.ok) throw new ApiError(res.status, json?.error?.code ?? String(res.status), json?.error?.message ?? res.statusText)
  return json as T
}
