/**
 * The console: sign in with a store key (that store and mode) or the admin token (every
 * store), then one page per part of the API. A hash router (`#/campaigns`), so the server
 * serves one page. Everything goes through `api.ts`.
 */
import { render } from "preact"
import { useEffect, useState } from "preact/hooks"
import { api, ApiError, loadSession, type Session, saveSession } from "./api.js"
import { Calls } from "./pages/Calls.js"
import { Campaigns } from "./pages/Campaigns.js"
import { Flows } from "./pages/Flows.js"
import { Operations } from "./pages/Operations.js"
import { Orders } from "./pages/Orders.js"
import { Stores } from "./pages/Stores.js"
import { Templates } from "./pages/Templates.js"
import { Webhooks } from "./pages/Webhooks.js"
import { ErrorLine } from "./ui.js"

const storePages = { stores: Stores, templates: Templates, campaigns: Campaigns, orders: Orders, calls: Calls, flows: Flows, webhooks: Webhooks }
const adminPages = { stores: Stores, operations: Operations }
const titles: Record<string, string> = {
  stores: "Stores and keys",
  templates: "Templates",
  campaigns: "Campaigns",
  orders: "Orders",
  calls: "Calls",
  flows: "Flows",
  webhooks: "Webhooks",
  operations: "Inbox and jobs"
}

const useHash = () => {
  const [hash, setHash] = useState(location.hash)
  useEffect(() => {
    const on = () => setHash(location.hash)
    addEventListener("hashchange", on)
    return () => removeEventListener("hashchange", on)
  }, [])
  return hash.replace(/^#\/?/, "").split("/")
}

const SignIn = ({ onSignIn }: { onSignIn: (s: Session) => void }) => {
  const [token, setToken] = useState("")
  const [error, setError] = useState<string | undefined>()
  const submit = async (e: Event) => {
    e.preventDefault()
    const kind = /^sk_(live|test)_/.test(token) ? "key" : "admin"
    try {
      await api("GET", kind === "key" ? "/chat/account" : "/admin/stores", undefined, token)
      onSignIn({ token, kind })
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err))
    }
  }
  return (
    <main>
      <h1>Switchboard console</h1>
      <form class="card" onSubmit={submit}>
        <label>
          A store key (<code>sk_test_…</code>, <code>sk_live_…</code>) or the admin token
          <input name="token" type="password" autocomplete="off" value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />
        </label>
        <ErrorLine error={error} />
        <button class="primary" type="submit">
          Sign in
        </button>
      </form>
    </main>
  )
}

const App = () => {
  const [session, setSession] = useState<Session | null>(loadSession())
  const [page, ...rest] = useHash()
  if (session === null)
    return (
      <SignIn
        onSignIn={(s) => {
          saveSession(s)
          setSession(s)
        }}
      />
    )
  const pages: Record<string, (p: { rest: Array<string> }) => any> = session.kind === "admin" ? adminPages : storePages
  const current = page in pages ? page : "stores"
  const Page = pages[current]
  return (
    <>
      <header>
        <strong>Switchboard</strong>
        <nav>
          {Object.keys(pages).map((p) => (
            <a key={p} href={`#/${p}`} class={p === current ? "active" : ""}>
              {titles[p]}
            </a>
          ))}
        </nav>
        <span class="who">{session.kind === "admin" ? "admin" : `${session.token.slice(0, 12)}…`}</span>
        <button
          type="button"
          onClick={() => {
            saveSession(null)
            setSession(null)
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        <h1>{titles[current]}</h1>
        <Page rest={rest} />
      </main>
    </>
  )
}

render(<App />, document.getElementById("app")!)
