/** Calls and call permissions (looked up by phone), with the calling settings. */
import { useState } from "preact/hooks"
import { api } from "../api.js"
import { Badge, ErrorLine, Table, show, useLoad, when } from "../ui.js"

export const Calls = () => {
  const calls = useLoad(() => api("GET", "/chat/calls?limit=50"), [], 5000)
  const settings = useLoad(() => api("GET", "/chat/calls/settings"), [])
  const [phone, setPhone] = useState("")
  const permission = useLoad(
    () => (phone.length > 5 ? api("GET", `/chat/calls/permissions/${encodeURIComponent(phone)}`) : Promise.resolve(undefined)),
    [phone]
  )
  return (
    <>
      <ErrorLine error={calls.error} />
      <Table
        rows={calls.data?.data}
        empty="No calls yet."
        columns={[
          { label: "Call", cell: (c: any) => c.id },
          { label: "Phone", cell: (c: any) => c.phone },
          { label: "Direction", cell: (c: any) => c.direction },
          { label: "Status", cell: (c: any) => <Badge value={c.status} /> },
          { label: "Duration", cell: (c: any) => show(c.duration_seconds ?? c.duration) },
          { label: "Started", cell: (c: any) => when(c.started_at ?? c.created_at) }
        ]}
      />
      <div class="grid">
        <section class="card">
          <h2>Call permission</h2>
          <label>
            Phone (E.164)
            <input placeholder="+15551230007" value={phone} onInput={(e) => setPhone((e.target as HTMLInputElement).value)} />
          </label>
          <ErrorLine error={phone.length > 5 ? permission.error : undefined} />
          {permission.data && <Table rows={[permission.data]} />}
        </section>
        <section class="card">
          <h2>Settings</h2>
          <ErrorLine error={settings.error} />
          {settings.data && <pre>{JSON.stringify(settings.data, null, 2)}</pre>}
        </section>
      </div>
    </>
  )
}
