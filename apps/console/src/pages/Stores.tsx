/** Stores and keys: the admin sees every store and rotates keys; a store key sees its store and mode. */
import { useState } from "preact/hooks"
import { api, loadSession } from "../api.js"
import { Action, Badge, ErrorLine, Table, useLoad, when } from "../ui.js"

const Keys = ({ keys }: { keys: Array<any> }) => (
  <Table
    rows={keys}
    columns={[
      { label: "Key", cell: (k) => <code>{k.hint}…</code> },
      { label: "Mode", cell: (k) => <Badge value={k.mode} /> },
      { label: "Created", cell: (k) => when(k.created_at) },
      { label: "Expires", cell: (k) => (k.expires_at ? when(k.expires_at) : "never") }
    ]}
  />
)

const AdminStores = () => {
  const { data, error, reload } = useLoad(() => api("GET", "/admin/stores"), [])
  const [grace, setGrace] = useState("86400")
  const [notice, setNotice] = useState<string | undefined>()
  const [failure, setFailure] = useState<string | undefined>()
  return (
    <>
      <ErrorLine error={error ?? failure} />
      {notice && <div class="notice">{notice}</div>}
      <label>
        Grace period for the old keys when rotating (seconds)
        <input value={grace} onInput={(e) => setGrace((e.target as HTMLInputElement).value)} />
      </label>
      {(data?.stores ?? []).map((store: any) => (
        <section class="card store" key={store.id}>
          <h2>
            {store.name} <span class="muted">{store.id}</span>
          </h2>
          <p class="muted">
            +{store.display_phone_number} · {store.live ? "live account connected" : "sandbox only"} · created {when(store.created_at)}
          </p>
          <Keys keys={store.keys} />
          {(["test", "live"] as const).map((mode) => (
            <Action
              key={mode}
              label={`Rotate ${mode} key`}
              onError={setFailure}
              run={() => api("POST", `/admin/stores/${store.id}/keys/rotate`, { mode, grace_seconds: Number(grace) })}
              done={(r: any) => {
                setNotice(
                  `New ${r.mode} key for ${store.name} (shown once): ${r.key}. ${r.expiring} old key(s) stop at ${when(r.old_keys_expire_at)}.`
                )
                reload()
              }}
            />
          ))}
        </section>
      ))}
    </>
  )
}

const MyStore = () => {
  const { data, error } = useLoad(() => api("GET", "/chat/account"), [])
  return (
    <>
      <ErrorLine error={error} />
      {data && (
        <section class="card">
          <h2>
            {data.name} <Badge value={data.mode} />
          </h2>
          <p class="muted">
            {data.store_id} · +{data.display_phone_number}
          </p>
          <Keys keys={data.keys.map((k: any) => ({ ...k, mode: data.mode }))} />
          <p class="muted">Keys are rotated by the administrator (admin sign-in) or with the CLI.</p>
        </section>
      )}
    </>
  )
}

export const Stores = () => (loadSession()?.kind === "admin" ? <AdminStores /> : <MyStore />)
