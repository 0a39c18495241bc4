/**
 * Caller webhooks: the endpoints (with "send test event"), and the delivery attempts with
 * their status, attempt number and answer, filtered by outcome; a delivery opened shows its
 * answer and a "redeliver" button.
 */
import { useState } from "preact/hooks"
import { api } from "../api.js"
import { Action, Badge, ErrorLine, Table, show, useLoad, when } from "../ui.js"

const outcome = (d: any) => (d.status_code !== null && d.status_code >= 200 && d.status_code < 300 ? "succeeded" : "failed")

export const Webhooks = ({ rest }: { rest: Array<string> }) => {
  const [filter, setFilter] = useState("")
  const [notice, setNotice] = useState<string | undefined>()
  const [failure, setFailure] = useState<string | undefined>()
  const endpoints = useLoad(() => api("GET", "/chat/webhooks?limit=100"), [])
  const deliveries = useLoad(() => api("GET", `/chat/webhook-deliveries?limit=50${filter ? `&outcome=${filter}` : ""}`), [filter], 2000)
  const picked = rest[0]
  const delivery = useLoad(() => (picked ? api("GET", `/chat/webhook-deliveries/${picked}`) : Promise.resolve(undefined)), [picked], 2000)
  const d: any = delivery.data
  return (
    <>
      <ErrorLine error={endpoints.error ?? deliveries.error ?? failure} />
      {notice && <div class="notice">{notice}</div>}
      <h2>Endpoints</h2>
      <Table
        rows={endpoints.data?.data}
        empty="No endpoints: register one with POST /chat/webhooks."
        columns={[
          { label: "URL", cell: (e: any) => e.url },
          { label: "Events", cell: (e: any) => e.events.join(", ") },
          { label: "Status", cell: (e: any) => <Badge value={e.status} /> },
          { label: "Reason", cell: (e: any) => show(e.disabled_reason) },
          {
            label: "",
            cell: (e: any) => (
              <Action
                label="Send test event"
                onError={setFailure}
                run={() => api("POST", `/chat/webhooks/${e.id}/test`)}
                done={(r: any) => {
                  setNotice(`Test event queued: delivery ${r.id}`)
                  deliveries.reload()
                }}
              />
            )
          }
        ]}
      />
      <h2>Deliveries</h2>
      <label>
        Outcome
        <select value={filter} onChange={(e) => setFilter((e.target as HTMLSelectElement).value)}>
          <option value="">all</option>
          <option value="failed">failed</option>
          <option value="succeeded">succeeded</option>
        </select>
      </label>
      {d && (
        <section class="card delivery" data-delivery={d.id}>
          <h2>
            Delivery {d.id} <Badge value={outcome(d)} />
          </h2>
          <p>
            Event <code>{d.event_id}</code> ({d.event_type}) · attempt {d.attempt} · answer <Badge value={d.status_code ?? "no answer"} /> ·{" "}
            {d.duration_ms} ms · {when(d.created_at)}
          </p>
          {d.error && <p class="error">{d.error}</p>}
          <Action
            label="Redeliver"
            primary
            onError={setFailure}
            run={() => api("POST", `/chat/webhook-deliveries/${d.id}/redeliver`)}
            done={(r: any) => {
              setNotice(`Redelivery queued: delivery ${r.id}`)
              location.hash = `#/webhooks/${r.id}`
            }}
          />
        </section>
      )}
      <Table
        rows={deliveries.data?.data}
        empty="No deliveries."
        onPick={(row: any) => (location.hash = `#/webhooks/${row.id}`)}
        selected={(row: any) => row.id === picked}
        columns={[
          { label: "Event", cell: (r: any) => r.event_type },
          { label: "Outcome", cell: (r: any) => <Badge value={outcome(r)} /> },
          { label: "Answer", cell: (r: any) => show(r.status_code) },
          { label: "Attempt", cell: (r: any) => r.attempt },
          { label: "Error", cell: (r: any) => show(r.error) },
          { label: "When", cell: (r: any) => when(r.created_at) }
        ]}
      />
    </>
  )
}
