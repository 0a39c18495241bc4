/**
 * Campaigns: each with a live progress bar and its counters; the one picked shows a chart of
 * sends per second against its pace (sampled here every second), its failures by reason with
 * the recipients, and its controls (pause, resume, cancel, retry, dry run when the server
 * has that route).
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { api } from "../api.js"
import { Action, Badge, ErrorLine, Table, useLoad, when } from "../ui.js"

const segments = [
  ["read", "#1b7f3b"],
  ["delivered", "#48b36a"],
  ["sent", "#8fd19e"],
  ["failed", "#d9534f"],
  ["skipped", "#b0b7c6"],
  ["cancelled", "#7b8394"]
] as const

export const Progress = ({ c }: { c: any }) => (
  <div
    class="progress"
    role="progressbar"
    aria-valuenow={c.total - c.pending}
    aria-valuemax={c.total}
    title={`${c.total - c.pending} of ${c.total} done`}
  >
    {segments.map(([k, color]) =>
      c.total > 0 && c[k] > 0 ? <span key={k} style={{ width: `${(100 * c[k]) / c.total}%`, background: color }} /> : null
    )}
  </div>
)

const Counters = ({ c }: { c: any }) => (
  <div class="counters">
    {["total", "pending", "sent", "delivered", "read", "failed", "skipped", "cancelled"].map((k) => (
      <div key={k}>
        <b data-counter={k}>{c[k]}</b>
        <span class="muted">{k}</span>
      </div>
    ))}
  </div>
)

/** Sends per second from the campaign's counters sampled each second, against its pace. */
const Chart = ({ samples, pace }: { samples: Array<number>; pace: number | null }) => {
  const max = Math.max(1, pace ?? 0, ...samples) * 1.15
  const w = 600
  const h = 160
  const x = (i: number) => (samples.length <= 1 ? 0 : (i * w) / (samples.length - 1))
  const y = (v: number) => h - (v / max) * h
  return (
    <svg class="chart" viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" aria-label="sends per second">
      {pace !== null && <line x1="0" x2={w} y1={y(pace)} y2={y(pace)} stroke="#d98b00" stroke-dasharray="6 4" />}
      <polyline fill="none" stroke="#2d5bd7" stroke-width="2" points={samples.map((v, i) => `${x(i)},${y(v)}`).join(" ")} />
      <text x="6" y="14" font-size="12" fill="#55607a">
        {`sends/s now ${samples.at(-1) ?? 0}${pace !== null ? ` · pace ${pace}/s` : ""} · max ${Math.round(max / 1.15)}`}
      </text>
    </svg>
  )
}

const Detail = ({ id, dryRun, onChange }: { id: string; dryRun: boolean; onChange: () => void }) => {
  const { data: c, error, reload } = useLoad(() => api("GET", `/chat/campaigns/${id}`), [id], 1000)
  const failed = useLoad(() => api("GET", `/chat/campaigns/${id}/recipients?status=failed&limit=100`), [id, c?.failed])
  const [samples, setSamples] = useState<Array<number>>([])
  const last = useRef<{ sent: number; at: number } | null>(null)
  const [failure, setFailure] = useState<string | undefined>()
  const [answer, setAnswer] = useState<unknown>()
  useEffect(() => {
    if (c === undefined) return
    const done = c.sent + c.delivered + c.read + c.failed
    const now = Date.now()
    if (last.current !== null && now > last.current.at) {
      const rate = Math.max(0, Math.round(((done - last.current.sent) * 1000) / (now - last.current.at)))
      setSamples((s) => [...s.slice(-59), rate])
    }
    last.current = { sent: done, at: now }
  }, [c])
  // the list above shows the status too: reload it when the live view sees the status change
  const status = useRef<string | undefined>(undefined)
  useEffect(() => {
    if (c === undefined) return
    if (status.current !== undefined && status.current !== c.status) onChange()
    status.current = c.status
  }, [c?.status])
  if (c === undefined) return <ErrorLine error={error} />
  const byReason = new Map<string, Array<any>>()
  for (const r of failed.data?.data ?? []) {
    const reason = r.failure ? `${r.failure.code} ${r.failure.reason}` : "unknown"
    byReason.set(reason, [...(byReason.get(reason) ?? []), r])
  }
  const act = (op: string) => () => api("POST", `/chat/campaigns/${id}/${op}`, {})
  const changed = () => {
    reload()
    onChange()
  }
  return (
    <section class="card" data-campaign={c.id}>
      <h2>
        {c.name} <Badge value={c.status} />
      </h2>
      <ErrorLine error={error ?? failure} />
      <Progress c={c} />
      <Counters c={c} />
      <p class="muted">
        Template {c.template?.name} ({c.template?.language}) · pace {c.messages_per_second ?? "default"} msg/s · launched {when(c.launched_at)} ·
        completed {when(c.completed_at)}
        {c.paused_reason ? ` · paused: ${c.paused_reason}` : ""}
      </p>
      <div>
        {c.status === "draft" && <Action label="Launch" primary run={act("launch")} done={changed} onError={setFailure} />}
        {["active", "scheduled"].includes(c.status) && <Action label="Pause" run={act("pause")} done={changed} onError={setFailure} />}
        {c.status === "paused" && <Action label="Resume" run={act("resume")} done={changed} onError={setFailure} />}
        {!["completed", "cancelled"].includes(c.status) && <Action label="Cancel" run={act("cancel")} done={changed} onError={setFailure} />}
        {c.failed > 0 && <Action label="Retry failed" run={act("retry")} done={changed} onError={setFailure} />}
        {dryRun && <Action label="Dry run" run={act("dry-run")} done={setAnswer} onError={setFailure} />}
      </div>
      {answer !== undefined && <pre>{JSON.stringify(answer, null, 2)}</pre>}
      <h2>Sends per second</h2>
      <Chart samples={samples} pace={c.messages_per_second} />
      <h2>Failures by reason</h2>
      {byReason.size === 0 ? (
        <p class="muted">No failures.</p>
      ) : (
        [...byReason].map(([reason, rows]) => (
          <div key={reason}>
            <p>
              <b>{reason}</b> · {rows.length} recipient(s)
            </p>
            <Table
              rows={rows}
              columns={[
                { label: "Phone", cell: (r: any) => r.phone },
                { label: "Retryable", cell: (r: any) => String(r.failure?.retryable ?? "") },
                { label: "Updated", cell: (r: any) => when(r.updated_at) }
              ]}
            />
          </div>
        ))
      )}
    </section>
  )
}

export const Campaigns = ({ rest }: { rest: Array<string> }) => {
  const { data, error, reload } = useLoad(() => api("GET", "/chat/campaigns?limit=50"), [], 2000)
  const openapi = useLoad(() => api("GET", "/chat/openapi.json"), [])
  const dryRun = openapi.data?.paths?.["/chat/campaigns/{id}/dry-run"] !== undefined
  const picked = rest[0]
  return (
    <>
      <ErrorLine error={error} />
      <Table
        rows={data?.data}
        empty="No campaigns yet."
        onPick={(c: any) => (location.hash = `#/campaigns/${c.id}`)}
        selected={(c: any) => c.id === picked}
        columns={[
          { label: "Name", cell: (c: any) => c.name },
          { label: "Status", cell: (c: any) => <Badge value={c.status} /> },
          { label: "Progress", cell: (c: any) => <Progress c={c} /> },
          { label: "Done", cell: (c: any) => `${c.total - c.pending} / ${c.total}` },
          { label: "Failed", cell: (c: any) => c.failed },
          { label: "Created", cell: (c: any) => when(c.created_at) }
        ]}
      />
      {picked && <Detail id={picked} dryRun={dryRun} onChange={reload} />}
    </>
  )
}
