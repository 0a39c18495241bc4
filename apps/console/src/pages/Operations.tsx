/** The operator inbox (latest webhooks and their outcomes) and the job queue by kind (admin). */
import { api } from "../api.js"
import { Badge, ErrorLine, Table, show, useLoad, when } from "../ui.js"

export const Operations = () => {
  const jobs = useLoad(() => api("GET", "/admin/jobs"), [], 3000)
  const inbox = useLoad(() => api("GET", "/admin/inbox?limit=50"), [], 3000)
  return (
    <div class="grid">
      <section>
        <ErrorLine error={jobs.error} />
        <h2>Job queue</h2>
        <Table
          rows={jobs.data?.kinds}
          empty="No job waiting, running or failed."
          columns={[
            { label: "Kind", cell: (k: any) => k.kind },
            { label: "Queued", cell: (k: any) => k.queued },
            { label: "Running", cell: (k: any) => k.running },
            { label: "Failed", cell: (k: any) => (k.dead > 0 ? <Badge value={`${k.dead} dead`} /> : 0) },
            { label: "Oldest", cell: (k: any) => (k.oldest_age_seconds === null ? "—" : `${k.oldest_age_seconds} s`) }
          ]}
        />
      </section>
      <section>
        <ErrorLine error={inbox.error} />
        <h2>Operator inbox</h2>
        <Table
          rows={inbox.data?.entries}
          empty="No operator webhook received yet."
          columns={[
            { label: "Received", cell: (r: any) => when(r.received_at) },
            { label: "Account", cell: (r: any) => r.kind },
            { label: "Fields", cell: (r: any) => r.fields.join(", ") },
            { label: "Numbers", cell: (r: any) => r.phone_number_ids.join(", ") },
            { label: "Outcome", cell: (r: any) => (r.processed_at === null ? <Badge value="pending" /> : show(r.outcome)) }
          ]}
        />
      </section>
    </div>
  )
}
