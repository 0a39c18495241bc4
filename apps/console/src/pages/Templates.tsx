/** Templates with their review status and quality, and a sync with the operator. */
import { useState } from "preact/hooks"
import { api } from "../api.js"
import { Action, Badge, ErrorLine, Table, show, useLoad, when } from "../ui.js"

export const Templates = () => {
  const { data, error, reload } = useLoad(() => api("GET", "/chat/templates?limit=100"), [])
  const [failure, setFailure] = useState<string | undefined>()
  return (
    <>
      <ErrorLine error={error ?? failure} />
      <Action label="Sync with the operator" primary onError={setFailure} run={() => api("POST", "/chat/templates/sync")} done={reload} />
      <Table
        rows={data?.data}
        empty="No templates yet."
        columns={[
          { label: "Name", cell: (t: any) => t.name },
          { label: "Language", cell: (t: any) => t.language },
          { label: "Category", cell: (t: any) => t.category },
          { label: "Status", cell: (t: any) => <Badge value={t.status} /> },
          { label: "Quality", cell: (t: any) => show(t.quality_score ?? t.quality) },
          { label: "Reason", cell: (t: any) => show(t.rejected_reason ?? t.reason) },
          { label: "Updated", cell: (t: any) => when(t.updated_at) }
        ]}
      />
    </>
  )
}
