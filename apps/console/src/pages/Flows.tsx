/** Flows, and for the one picked: its versions, responses and a link to the preview. */
import { api } from "../api.js"
import { Badge, ErrorLine, Table, show, useLoad, when } from "../ui.js"

const Detail = ({ id }: { id: string }) => {
  const versions = useLoad(() => api("GET", `/chat/flows/${id}/versions`), [id])
  const responses = useLoad(() => api("GET", `/chat/flows/${id}/responses`), [id])
  const preview = useLoad(() => api("GET", `/chat/flows/${id}/preview`), [id])
  const p: any = preview.data
  return (
    <section class="card">
      <h2>Flow {id}</h2>
      {p?.preview_url || p?.url ? (
        <p>
          <a href={p.preview_url ?? p.url} target="_blank" rel="noreferrer">
            Open the preview
          </a>
        </p>
      ) : (
        <ErrorLine error={preview.error} />
      )}
      <h2>Versions</h2>
      <Table rows={versions.data?.data} empty="No versions." />
      <h2>Responses</h2>
      <Table rows={responses.data?.data} empty="No responses yet." />
    </section>
  )
}

export const Flows = ({ rest }: { rest: Array<string> }) => {
  const { data, error } = useLoad(() => api("GET", "/chat/flows?limit=50"), [])
  return (
    <>
      <ErrorLine error={error} />
      <Table
        rows={data?.data}
        empty="No flows yet."
        onPick={(f: any) => (location.hash = `#/flows/${f.id}`)}
        selected={(f: any) => f.id === rest[0]}
        columns={[
          { label: "Name", cell: (f: any) => f.name },
          { label: "Status", cell: (f: any) => <Badge value={f.status} /> },
          { label: "Version", cell: (f: any) => show(f.version) },
          { label: "Categories", cell: (f: any) => show(f.categories) },
          { label: "Updated", cell: (f: any) => when(f.updated_at) }
        ]}
      />
      {rest[0] && <Detail id={rest[0]} />}
    </>
  )
}
